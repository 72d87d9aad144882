"""The Guess Who kernel against independent computations.

References: the paper's p-recursions in exact fractions with every move enumerated (small
tables), a plain maximum over every move compiled with numba (tables of a few hundred, and
arbitrary non-game data that defeats the kernel's structural shortcut), literal sums of the
paper's series, and the published numbers.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from numba import njit

from subgame.families.guess_who import game as gw

MOVE_FIELDS = ("min", "max", "count", "final")


def _solve_in_bands(size: int, rules: str, width: int):
    """The table and full-size move arrays (index [n, m]) built band by band."""
    a = gw.new_table(size)
    moves = {
        "min": np.zeros((size + 1, size + 1), np.int32),
        "max": np.zeros((size + 1, size + 1), np.int32),
        "count": np.zeros((size + 1, size + 1), np.int32),
        "final": np.zeros((size + 1, size + 1), np.bool_),
    }
    for lo in range(1, size + 1, width):
        hi = min(size, lo + width - 1)
        band = gw.solve_band(a, lo, hi, rules)
        for field in MOVE_FIELDS:
            moves[field][lo : hi + 1, 1 : hi + 1] = getattr(band, f"bottom_{field}")
            moves[field][1:lo, lo : hi + 1] = getattr(band, f"right_{field}")
    return a, moves


# --- exact fractions, straight from the paper's p-recursions ------------------------------


def _fraction_solution(size: int, rules: str):
    """p(n, m) and the set of optimal moves s for 1 <= n, m <= size, by brute force."""
    p: dict[tuple[int, int], Fraction] = {}
    best_moves: dict[tuple[int, int], set[int]] = {}
    # p(n, m) reads p(m, s) with s < n: order the states by n + m.
    for total in range(2, 2 * size + 1):
        for n in range(max(1, total - size), min(size, total - 1) + 1):
            m = total - n
            values: dict[int, Fraction] = {}
            if rules == "official":
                values[0] = Fraction(1, n)  # final guess: right with probability 1/n
                for s in range(1, n):
                    values[s] = 1 - Fraction(s, n) * p[m, s] - Fraction(n - s, n) * p[m, n - s]
            else:
                # s = 1 wins with probability 1/n, otherwise leaves n - 1 characters
                values[1] = 1 - (Fraction(n - 1, n) * p[m, n - 1] if n > 1 else 0)
                for s in range(2, n):
                    values[s] = 1 - Fraction(s, n) * p[m, s] - Fraction(n - s, n) * p[m, n - s]
            best = max(values.values())
            p[n, m] = best
            best_moves[n, m] = {s for s, v in values.items() if v == best}
    return p, best_moves


@pytest.fixture(scope="module", params=gw.RULES)
def fractions(request):
    rules = request.param
    p, best_moves = _fraction_solution(40, rules)
    return rules, p, best_moves


@pytest.mark.parametrize("width", [1, 7, 40])
def test_bands_match_exact_fractions(fractions, width):
    rules, p, best_moves = fractions
    a, moves = _solve_in_bands(40, rules, width)
    for (n, m), prob in p.items():
        assert a[n, m] == prob * n * m, (rules, n, m)
        optimal = best_moves[n, m]
        got = tuple(int(moves[f][n, m]) for f in MOVE_FIELDS)
        assert got == (min(optimal), max(optimal), len(optimal), 0 in optimal), (rules, n, m)


def test_published_win_probabilities():
    a_official, _ = _solve_in_bands(23, "official", 8)
    a_variant, _ = _solve_in_bands(23, "variant", 23)
    assert gw.win_probability(a_official[23, 23], 23, 23) == Fraction(296, 529)
    assert gw.win_probability(a_variant[23, 23], 23, 23) == Fraction(349, 529)


def test_advantages_and_fair_states_follow_their_definitions(fractions):
    rules, p, _ = fractions
    a, _ = _solve_in_bands(40, rules, 40)
    f_table, g_table = gw.advantage_tables(a)
    p_table = gw.probability_table(a)
    for (n, m), pnm in p.items():
        pmn = p[m, n]
        f = gw.first_mover_advantage(a[n, m], a[m, n], n, m)
        g = gw.game_state_advantage(a[n, m], a[m, n], n, m)
        assert f == (pnm + pmn - 1) / 2 and g == (pnm - pmn) / 2
        assert p_table[n, m] == pytest.approx(float(pnm), abs=1e-15)
        assert f_table[n, m] == pytest.approx(float(f), abs=1e-15)
        assert g_table[n, m] == pytest.approx(float(g), abs=1e-15)
    expected = sorted((n, m) for (n, m), v in p.items() if v == Fraction(1, 2))
    assert [tuple(s) for s in gw.fair_states(a).tolist()] == expected


# The paper's Table 2: fair states with 1 <= n, m < 24.
PAPER_TABLE_2 = {
    "official": [(2, 1), (2, 2), (3, 2), (4, 2), (4, 3), (5, 4), (6, 4), (8, 5), (10, 7),
                 (11, 8), (12, 8), (14, 10), (16, 11), (16, 12), (18, 13), (20, 14),
                 (22, 15), (23, 16)],
    "variant": [(2, 1), (3, 2), (4, 3), (6, 4), (8, 6), (12, 8), (16, 2)],
}  # fmt: skip


@pytest.mark.parametrize("rules", gw.RULES)
def test_fair_states_against_paper_table_2(rules):
    p, _ = _fraction_solution(23, rules)
    a, _ = _solve_in_bands(23, rules, 5)
    computed = {tuple(s) for s in gw.fair_states(a).tolist()}
    assert computed == {s for s, v in p.items() if v == Fraction(1, 2)}
    paper = set(PAPER_TABLE_2[rules])
    if rules == "official":
        # The paper leaves out (8, 6).
        assert computed - paper == {(8, 6)} and paper <= computed
    else:
        # The paper prints (16, 2) for (16, 12): p_II(16, 2) = 3/32.
        assert paper - computed == {(16, 2)} and computed - paper == {(16, 12)}
        assert p[16, 2] == Fraction(3, 32)


# --- plain maximum over every move, compiled ---------------------------------------------


@njit(cache=True)
def _plain_band(a, lo, hi, variant, mn, mx, ct, fin):
    """Levels lo..hi by the recursion as written, every move valued and tallied."""
    for level in range(lo, hi + 1):
        for phase in range(2):
            for i in range(1, level + phase):
                n, m = (level, i) if phase == 0 else (i, level)
                best = np.int64(-(2**62))
                # moves: s in 0..n-1 (official), s in 1..n-1 or s = 1 alone at n = 1 (variant)
                for s in range(1 if variant else 0, max(n, 2) if variant else n):
                    if variant:
                        if s == 1:
                            v = m if n == 1 else n * m - a[m, n - 1]
                        else:
                            v = n * m - a[m, s] - a[m, n - s]
                    else:
                        v = m if s == 0 else n * m - a[m, s] - a[m, n - s]
                    if v > best:
                        best, mn[n, m], mx[n, m], ct[n, m] = v, s, s, 1
                    elif v == best:
                        mx[n, m] = s
                        ct[n, m] += 1
                a[n, m] = best
                fin[n, m] = not variant and mn[n, m] == 0


def _plain_solution(a, lo, hi, rules):
    size = a.shape[0] - 1
    moves = {
        "min": np.zeros((size + 1, size + 1), np.int32),
        "max": np.zeros((size + 1, size + 1), np.int32),
        "count": np.zeros((size + 1, size + 1), np.int32),
        "final": np.zeros((size + 1, size + 1), np.bool_),
    }
    _plain_band(a, lo, hi, rules == "variant", *(moves[f] for f in MOVE_FIELDS))
    return a, moves


@pytest.fixture(scope="module")
def plain_tables():
    return {rules: _plain_solution(gw.new_table(480), 1, 480, rules) for rules in gw.RULES}


@pytest.mark.parametrize("rules", gw.RULES)
@pytest.mark.parametrize("width", [480, 61])
def test_kernel_matches_plain_maximum(plain_tables, rules, width):
    a_plain, moves_plain = plain_tables[rules]
    a, moves = _solve_in_bands(480, rules, width)
    np.testing.assert_array_equal(a, a_plain)
    for field in MOVE_FIELDS:
        np.testing.assert_array_equal(moves[field], moves_plain[field], err_msg=field)


def _synthetic_rows(size, lo, rng):
    """Filled levels < lo of non-game data: convex rows with long runs of equal steps
    (ties), rows convex on a prefix only, zigzags, and noise."""
    a = gw.new_table(size)
    for n in range(1, lo):
        kind = n % 4
        steps = np.sort(rng.integers(1, 4, size=lo)) * (1 + n % 3)
        if kind == 1:
            steps[lo // 3 :: 5] = 0  # convexity breaks part-way
        elif kind == 2:
            steps = np.where(np.arange(lo) % 2 == 0, steps + 3, steps)
        elif kind == 3:
            steps = rng.integers(0, 6, size=lo)
        row = 1 + np.cumsum(steps)
        a[n, 1:lo] = row[: lo - 1]
    return a


@pytest.mark.parametrize("rules", gw.RULES)
def test_kernel_is_exact_on_arbitrary_data(rules):
    rng = np.random.default_rng(7)
    size, lo = 150, 70
    start = _synthetic_rows(size, lo, rng)
    a_plain, moves_plain = _plain_solution(start.copy(), lo, size, rules)
    a = start.copy()
    for band_lo, band_hi in ((lo, 111), (112, size)):
        band = gw.solve_band(a, band_lo, band_hi, rules)
        for field in MOVE_FIELDS:
            expected = moves_plain[field]
            np.testing.assert_array_equal(
                getattr(band, f"bottom_{field}"), expected[band_lo : band_hi + 1, 1 : band_hi + 1]
            )
            np.testing.assert_array_equal(
                getattr(band, f"right_{field}"), expected[1:band_lo, band_lo : band_hi + 1]
            )
    np.testing.assert_array_equal(a, a_plain)


# --- the paper's closed forms (variant rules) ---------------------------------------------


def _literal_series(length):
    star, white = [1, 2, 3], [1, 1, 1, 1, 2, 3]
    t = 3
    while len(star) < length or len(white) < length:
        star += [2 * t] * t
        t *= 2
        white += [t // 2] * (t // 2) + list(range(t // 2 + 1, t + 1))
    return np.array(star[:length]), np.array(white[:length])


def test_closed_forms_against_the_variant_table(plain_tables):
    a, moves = plain_tables["variant"]
    size = a.shape[0] - 1
    star, white = _literal_series(size)
    k = np.arange(1, size + 1)
    np.testing.assert_array_equal(gw.star(k), star)
    np.testing.assert_array_equal(gw.white_star(k), white)
    n, m = k[:, None], k[None, :]
    # Theorem 1 as the literal sum over k of min(n, star k).
    literal = np.cumsum(np.minimum(n, star[None, :]), axis=1)
    np.testing.assert_array_equal(literal, a[1:, 1:])
    np.testing.assert_array_equal(gw.variant_theorem1(n, m), a[1:, 1:])
    np.testing.assert_array_equal(gw.variant_theorem2(n, m), a[1:, 1:])

    lower, upper = gw.variant_theorem3(n, m)
    first, last = np.ceil(lower).astype(int), np.floor(upper).astype(int)
    got_min, got_max, got_count = (moves[f][1:, 1:] for f in ("min", "max", "count"))
    holds = (got_min == first) & (got_max == last) & (got_count == last - first + 1)
    # Theorem 3 fails exactly at m = 3, n >= 4: lower = star(3)/2 = 3/2 excludes s = 1,
    # yet the optimal guesses are all of 1..n-2.
    fails = np.argwhere(~holds) + 1
    assert {tuple(s) for s in fails.tolist()} == {(nn, 3) for nn in range(4, size + 1)}
    column = np.arange(4, size + 1)
    np.testing.assert_array_equal(got_min[3:, 2], 1)
    np.testing.assert_array_equal(got_max[3:, 2], column - 2)
    np.testing.assert_array_equal(got_count[3:, 2], column - 2)
    # Corrected (lower bound max(1, floor(star m / 2))), it holds at every state.
    first, last = gw.corrected_theorem3(n, m)
    np.testing.assert_array_equal(got_min, first)
    np.testing.assert_array_equal(got_max, last)
    np.testing.assert_array_equal(got_count, last - first + 1)


# --- guards -------------------------------------------------------------------------------


def test_guards():
    with pytest.raises(ValueError):
        gw.new_table(0)
    with pytest.raises(ValueError):
        gw.new_table(gw.MAX_N + 1)
    a = gw.new_table(10)
    with pytest.raises(ValueError, match="not filled"):
        gw.solve_band(a, 4, 6, "official")
    with pytest.raises(ValueError, match="rules"):
        gw.solve_band(a, 1, 6, "house")
    with pytest.raises(ValueError):
        gw.solve_band(a, 1, 11, "official")
    with pytest.raises(ValueError):
        gw.solve_band(a.astype(np.int32), 1, 6, "official")
