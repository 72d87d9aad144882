"""The GOPS kernel against an independent plain implementation, HiGHS, and the seed paper."""

from __future__ import annotations

from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

from subgame.families.gops.game import (answer, children, level_layout, locate,
                                        payoff_matrices, previous_rows, shard_ranges,
                                        solve_levels, solve_matrix_game, solve_matrix_games,
                                        solve_shard)
from subgame.families.gops.game.matrix_game import solve_alone
from subgame.families.gops.game.query import QUERY_SMALL_PATTERNS
from subgame.families.gops.game.cards import drop_ranks, subset_rank, subsets
from subgame.families.gops.game.patterns import (SMALL_PATTERNS, canonical_patterns, describe,
                                                 pattern_count, pattern_key, swap)
from tests import gops_reference as reference

ACCURACY = 1e-9  # the solver's promise on values and strategy guarantees
HARD_GAMES = Path(__file__).parent / "data" / "gops_hard_games.npy"
HIGHS_AGREEMENT = 1e-8  # HiGHS solutions are feasible to 1e-10 per constraint


@pytest.fixture(scope="module")
def solved():
    """Every level of N = 1..5 with strategies: {N: {j: (layout, result)}}."""
    return {n: {layout.j: (layout, result) for layout, result in solve_levels(n, True)}
            for n in range(1, 6)}


def stored(solved, n, v, y, p):
    ref = locate(n, v, y, p)
    _, result = solved[n][ref.level]
    at = (ref.p_rank - result.p_lo, ref.pattern)
    return answer(ref, result.values[at], result.upcard_values[at], result.strategies[at],
                  result.strategies_two[at])


# --- combinatorics -------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 4, 7])
def test_deck_ranks_and_drops(n):
    for j in range(n + 1):
        decks = subsets(n, j)
        assert sorted(map(tuple, decks.tolist())) == list(combinations(range(1, n + 1), j))
        assert [subset_rank(d) for d in decks.tolist()] == list(range(comb(n, j)))
        drops = drop_ranks(decks)
        for r, deck in enumerate(decks.tolist()):
            for k in range(j):
                assert drops[r, k] == subset_rank(deck[:k] + deck[k + 1:])


@pytest.mark.parametrize("n", [1, 2, 5, 7])
def test_patterns_are_all_interleavings(n):
    """Brute force over all pairs of hands: the keys seen are exactly the enumerated ones."""
    for j in range(n + 1):
        seen = {pattern_key(v, y) for v in combinations(range(1, n + 1), j)
                for y in combinations(range(1, n + 1), j)}
        assert len(seen) == pattern_count(n, j)
        assert sorted({min(k, swap(k)) for k in seen}) == canonical_patterns(n, j).tolist()
        assert len(canonical_patterns(n, j)) == (len(seen) - 1) // 2 + 1


def test_child_table_by_hand():
    """Pattern 'y v =' (V = {2, 3}, Y = {1, 3}) of level 2 in the 3-card game."""
    layout = level_layout(3, 2)
    key = pattern_key((2, 3), (1, 3))
    assert describe(key) == "yv=" and describe(swap(key)) == "vy="
    assert key < swap(key)  # stored as is: V holds the highest unshared card
    p = int(np.searchsorted(layout.keys, key))
    assert layout.keys[p] == key
    parent = canonical_patterns(3, 1)
    expect = {  # (i, l): (V - V_i, Y - Y_l, sign(V_i - Y_l))
        (0, 0): ((3,), (3,), 1), (0, 1): ((3,), (1,), -1),
        (1, 0): ((2,), (3,), 1), (1, 1): ((2,), (1,), 0),
    }
    for (i, l), (v, y, duel) in expect.items():
        key = pattern_key(v, y)
        sign = 0 if key == swap(key) else (1 if key < swap(key) else -1)
        assert layout.duel[p, i, l] == duel
        assert layout.child_sign[p, i, l] == sign
        assert parent[layout.child[p, i, l]] == min(key, swap(key))


def test_numpy_and_the_compiled_loop_enumerate_the_same_patterns():
    """A query enumerates wide levels by numpy (query.QUERY_SMALL_PATTERNS), a run by the
    compiled loop: the same sorted keys."""
    for n, j in ((10, 6), (11, 6)):
        assert pattern_count(n, j) > SMALL_PATTERNS
        np.testing.assert_array_equal(canonical_patterns(n, j),
                                      canonical_patterns(n, j, QUERY_SMALL_PATTERNS))


def test_counts_for_13_cards_match_the_design(capsys):
    """States and matrix games after both reductions, derived from the enumeration."""
    states = games = largest = widest = 0
    for j in range(14):
        n_patterns = canonical_patterns(13, j).size
        level_states = comb(13, j) * n_patterns
        states += level_states
        games += comb(13, j) * (n_patterns - 1) * j
        largest, widest = max((largest, widest), (level_states, j))
    unreduced = sum(j * comb(13, j) ** 3 for j in range(14))
    with capsys.disabled():
        print(f"\nN=13: {states:.4g} states, {games:.4g} matrix games ({unreduced:.3g} "
              f"without reductions), largest level j={widest}: {largest:.4g} states")
    assert 1.65e8 < states < 1.75e8
    assert round(games / 1e9, 2) == 1.34
    assert round(unreduced / 1e10, 1) == 9.8
    assert 7.4e7 < largest < 7.6e7
    assert level_layout(13, widest).n_states == largest


# --- the matrix-game solver ----------------------------------------------------------------

def random_games(rng, count):
    for t in range(count):
        m, n = (int(s) for s in rng.integers(1, 17, 2))
        kind = t % 5
        if kind == 0:
            yield rng.normal(size=(m, n))
        elif kind == 1:  # small integer range: ties everywhere
            yield rng.integers(-2, 3, (m, n)).astype(float)
        elif kind == 2:  # duplicate rows and columns
            base = rng.integers(-3, 4, (m, n)).astype(float)
            yield base[rng.integers(0, m, m)][:, rng.integers(0, n, n)]
        elif kind == 3:  # a planted pure saddle point
            x = rng.normal(size=(m, n))
            i, l = rng.integers(0, m), rng.integers(0, n)
            x[i, :] = np.abs(x[i, :]) + 1.0
            x[:, l] = -np.abs(x[:, l]) - 1.0
            x[i, l] = 0.5
            yield x
        else:  # skew-symmetric (value 0) with repeated entries, like GOPS at V = Y
            a = rng.integers(-2, 3, (m, m)).astype(float)
            yield np.triu(a, 1) - np.triu(a, 1).T


def check_certified(payoff, value, x, y, tolerance=ACCURACY):
    assert abs(x.sum() - 1) < 1e-12 and x.min() >= 0
    assert abs(y.sum() - 1) < 1e-12 and y.min() >= 0
    assert (x @ payoff).min() >= value - tolerance
    assert (payoff @ y).max() <= value + tolerance


def test_solver_against_highs_on_random_games():
    rng = np.random.default_rng(20240601)
    for payoff in random_games(rng, 2000):
        value, x, y, gap = solve_matrix_game(payoff)
        assert gap <= ACCURACY
        check_certified(payoff, value, x, y)
        assert value == pytest.approx(reference.highs_game(payoff)[0], abs=HIGHS_AGREEMENT)


def test_guessed_supports_right_and_wrong():
    """A wrong guess costs time, never accuracy: 600 random games, each with a random
    support guess (random size, rows and columns), then with the support its own solve
    found, which is taken without a pivot; both certified and equal to HiGHS."""
    rng = np.random.default_rng(20261201)
    taken = 0
    for payoff in random_games(rng, 600):
        m, n = payoff.shape
        k = int(rng.integers(1, min(m, n) + 1))
        support = np.zeros(1 + 2 * min(m, n), np.int64)
        support[0] = k
        support[1:k + 1] = rng.choice(m, k, replace=False)
        support[k + 1:2 * k + 1] = rng.choice(n, k, replace=False)
        value, gap, pivots, guessed, x, y = solve_alone(payoff, support)
        assert pivots >= 0 and gap <= ACCURACY
        check_certified(payoff, value, x, y)
        highs = reference.highs_game(payoff)[0]
        assert value == pytest.approx(highs, abs=HIGHS_AGREEMENT)
        if pivots > 0:  # simplex: support now holds its optimal basis, a right guess
            again, gap, pivots, guessed, x, y = solve_alone(payoff, support)
            assert guessed and pivots == 0 and gap <= ACCURACY
            check_certified(payoff, again, x, y)
            assert again == pytest.approx(highs, abs=HIGHS_AGREEMENT)
            taken += 1
    assert taken > 300


def test_guesses_solved_by_cramers_rule_or_elimination_against_exact_fractions():
    """A guess of k = 2, 3, 4 rows is solved by Cramer's rule (``_cramer_solution``), a
    larger one or one row by elimination (``_guess``): for k = 1..8 its strategies are
    those of B[R, S] w = 1 and u B[R, S] = 1 solved in exact fractions (within 1e-12,
    where B is not near singular), and it is refused exactly where the exact w or u has
    an entry below -1e-9 (games with no entry near that threshold; 120 a size, random
    supports of random 9 x 9 games, half of them with the support's diagonal raised)."""
    from fractions import Fraction

    from subgame.families.gops.game.matrix_game import _guess

    def exact_solve(matrix):  # Gauss-Jordan in fractions: matrix^-1 1
        rows = [[Fraction(v) for v in row] + [Fraction(1)] for row in matrix.tolist()]
        size = len(rows)
        for c in range(size):
            pivot = next(r for r in range(c, size) if rows[r][c] != 0)
            rows[c], rows[pivot] = rows[pivot], rows[c]
            rows[c] = [v / rows[c][c] for v in rows[c]]
            for r in range(size):
                if r != c:
                    rows[r] = [a - rows[r][c] * b for a, b in zip(rows[r], rows[c])]
        return np.array([float(row[-1]) for row in rows])

    rng = np.random.default_rng(20261205)
    for k in range(1, 9):
        counts = {True: 0, False: 0}
        while counts[True] + counts[False] < 120:
            payoff = rng.random((9, 9))
            tight = rng.choice(9, k, replace=False)
            basic = rng.choice(9, k, replace=False)
            if rng.random() < 0.5:  # a diagonal that dominates: positive w and u
                payoff[tight, basic] += 3.0
            lo, scale = payoff.min(), 1.0 / (payoff.max() - payoff.min())
            b = (payoff[np.ix_(tight, basic)] - lo) * scale + 1.0
            if np.linalg.cond(b) > 1e3:
                continue
            w, u = exact_solve(b), exact_solve(b.T)
            if min(np.abs(w).min(), np.abs(u).min()) < 1e-6:
                continue  # too near the threshold to say which side rounding lands on
            x, y, rows = np.zeros(9), np.zeros(9), tight.copy()
            found = _guess(payoff, 9, 9, lo, scale, np.empty((10, 10)), rows, basic, k, x,
                           y, None)
            right = bool(w.min() > 0 and u.min() > 0)
            assert (found == k) == right
            if right:
                assert np.allclose(y[basic], w / w.sum(), rtol=0, atol=1e-12)
                assert np.allclose(x[tight], u / u.sum(), rtol=0, atol=1e-12)
                assert not x[np.setdiff1d(np.arange(9), tight)].any()
                assert not y[np.setdiff1d(np.arange(9), basic)].any()
            counts[right] += 1
        assert min(counts.values()) >= 15 or k == 1, (k, counts)


def test_guess_whose_elimination_meets_a_zero_pivot():
    """A guess is eliminated without row swaps unless a pivot falls below a tenth of its
    column: here the full support in label order, B[R, S] = X (entries 1..2), whose second
    pivot is 2 - 2 * 1 / 1 = 0.  The rows are swapped, and the guess (which contains the
    optimal support, rows 0, 1 and columns 0, 2) is taken without a pivot, at the value
    of the 2 x 2 game the optimal support leaves, (1 * 1 - 2 * 2) / (1 + 1 - 2 - 2)."""
    payoff = np.array([[1.0, 1.0, 2.0], [2.0, 2.0, 1.0], [1.0, 2.0, 1.0]])
    support = np.array([3, 0, 1, 2, 0, 1, 2])
    value, gap, pivots, guessed, x, y = solve_alone(payoff, support)
    assert guessed and pivots == 0
    assert value == pytest.approx(1.5, abs=1e-15) and gap <= 1e-15
    check_certified(payoff, value, x, y)


def test_solver_on_a_tiny_pivot_gops_game():
    """From level 6 of the 10-card game: entries 1.3e-8 apart force a pivot on a tiny
    element.  Strategies read off the tableau guarantee the value only to 2e-7, so this
    game takes the solver's other path: solved afresh from the final basis they are exact
    to rounding (a gap of 2e-7 here would mean that path is broken)."""
    payoff = np.array([
        [15.457024484192562, 15.457024497231618, 15.457024497231618, 15.457024497231618,
         17.01421308164646, 22.3442838370565],
        [20.457024484192562, 15.457024484192562, 15.457024484192562, 15.457024484192562,
         17.01421308164646, 22.3442838370565],
        [20.870393886452725, 20.876988730358292, 20.876988730358292, 20.876988730358292,
         15.876988730358292, 16.0],
        [18.523775251014076, 18.564124828921976, 18.564124828921976, 18.564124828921976,
         20.876988730358292, 13.192954839055737],
        [12.77392836341458, 12.890225918238588, 12.890225918238588, 12.890225918238588,
         15.225383189210755, 23.192954839055737],
        [12.77392836341458, 12.890225918238588, 12.890225918238588, 12.890225918238588,
         15.225383189210755, 23.192954839055737]])
    value, x, y, gap = solve_matrix_game(payoff)
    assert gap < 1e-12
    check_certified(payoff, value, x, y, 1e-12)
    assert value == pytest.approx(reference.highs_game(payoff)[0], abs=HIGHS_AGREEMENT)


def test_solver_on_hard_gops_games_of_13_cards():
    """Games of level 7 of N = 13 on which the fast simplex method stopped short.

    The first (deck rank 576, upcard index 2, pattern 10380) failed the N = 13 run: entries
    1.3e-8 apart, pivots on tiny elements left errors of 1e-8 in the tableau and flipped the
    sign of a reduced cost of 5e-10, so the basis missed row 1 (weight 3.5e-9 in the optimal
    strategy) and the certified gap was 1.06e-8.  The next three are the other games of the
    level over 1e-9 before the fix (ranks 652, 681, 1709; gaps 1.11, 1.3e-8, 1.8e-8; in the
    first a pivot on rounding noise of 2e-11, an entry that is 0 because rows 1 and 2 are
    equal, left a basis infeasible by 0.2).  The last 16 are every game of 22 sampled shards
    whose gap exceeded 1e-13 * (max X - min X), up to 1.8e-11 (ties within the ratio test's
    tolerance left basic variables at -1e-13).  All pass through the same refinement: the
    basis reinverted from X before every pivot, dual pivots for negative basic variables.
    """
    games = np.load(HARD_GAMES)
    assert games.shape == (20, 7, 7)
    values, rows, cols, gaps, pivots = solve_matrix_games(games)
    assert (pivots > 0).all() and gaps.max() < 1e-12
    for g, payoff in enumerate(games):
        value, x, y, gap = solve_matrix_game(payoff)
        assert (value, gap) == (values[g], gaps[g])
        check_certified(payoff, value, x, y, 1e-12)
        assert value == pytest.approx(reference.highs_game(payoff)[0], abs=HIGHS_AGREEMENT)
    x = rows[0]
    assert 3.5e-9 < x[1] < 3.6e-9 and abs(x[0] - 0.845261766538) < 1e-12


def test_solver_reports_a_basis_singular_in_exact_arithmetic():
    """Duplicated rows perturbed by 1e-9: the simplex method ends on a basis that only
    rounding makes non-singular.  Its elimination then divided by zero (ZeroDivisionError
    from the compiled kernel); now the game is refined from the slack basis and, if that
    fails too, reported as a failure (pivots -1, value NaN), never a wrong value."""
    base = np.array([[3, -2, 0, 3, -1, -2, 3], [1, -3, 0, -1, 1, 0, -2],
                     [1, -3, 0, -1, 1, 0, -2], [3, -2, 0, 3, -1, -2, 3],
                     [3, -2, 0, 3, -1, -2, 3], [1, -3, 0, -1, 1, 0, -2],
                     [3, 2, -3, 0, 1, -3, 3]])
    ninths = np.array([[1, 0, 1, 1, 1, 1, 0], [1, 1, 0, 0, 0, 1, 1], [0, 1, 0, 0, 1, 1, 0],
                       [0, 1, 0, 1, 1, 1, 1], [1, 1, 1, 0, 1, 0, 0], [1, 1, 0, 0, 0, 1, 0],
                       [1, 0, 0, 0, 1, 1, 1]])
    payoff = base + ninths * 1e-9
    values, rows, cols, gaps, pivots = solve_matrix_games(payoff[None])
    if pivots[0] < 0:
        assert np.isnan(values[0]) and gaps[0] == np.inf
        with pytest.raises(ArithmeticError):
            solve_matrix_game(payoff)
    else:
        assert gaps[0] <= ACCURACY
        check_certified(payoff, values[0], rows[0], cols[0])


def test_solver_batch_on_real_gops_matrices():
    """Every (pattern, upcard) game of some decks of level 7 of the 9-card game: the batch
    solver (each game from the slack basis) equals the kernel without warm starts bit for
    bit, and the warm-started kernel within the two certified gaps, with fewer pivots."""
    levels = {layout.j: (layout, result) for layout, result in solve_levels(9)}
    layout, prev = levels[7][0], levels[6][1].values
    warm = levels[7][1]
    cold = solve_shard(layout, prev, 0, layout.n_p, False, warm_start=False)
    assert warm.guessed > (warm.games - warm.saddles) / 2 and cold.guessed == 0
    assert warm.pivots < cold.pivots / 2 and warm.saddles == cold.saddles
    assert np.abs(warm.upcard_values - cold.upcard_values).max() <= \
        (warm.max_gap + cold.max_gap) / 2
    rng = np.random.default_rng(7)
    for p_rank in rng.choice(layout.n_p, 3, replace=False):
        for k in range(7):
            games = payoff_matrices(layout, prev, int(p_rank), k)
            values, rows, cols, gaps, pivots = solve_matrix_games(games)
            assert (pivots >= 0).all() and gaps.max() <= ACCURACY
            solved_ones = np.arange(layout.n_patterns) != layout.symmetric
            assert np.array_equal(values[solved_ones],
                                  cold.upcard_values[p_rank, solved_ones, k])
            for g in rng.choice(layout.n_patterns, 40, replace=False):
                check_certified(games[g], values[g], rows[g], cols[g])
                highs = reference.highs_game(games[g])[0]
                assert values[g] == pytest.approx(highs, abs=HIGHS_AGREEMENT)


# --- the level kernel against the plain recursion ------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_kernel_matches_plain_recursion(solved, n):
    """Values, upcard values, payoff matrices and both players' stored (float32) bids."""
    for v, y, p in reference.all_states(n):
        ref = locate(n, v, y, p)
        got = stored(solved, n, v, y, p)
        expected = reference.upcard_values(v, y, p)
        assert got.value == pytest.approx(np.mean(expected), abs=HIGHS_AGREEMENT)
        for k, prize in enumerate(p):
            assert got.upcard_values[prize] == pytest.approx(expected[k], abs=HIGHS_AGREEMENT)
            payoff = reference.payoff(v, y, p, prize)
            if ref.sign > 0:
                layout, prev = solved[n][ref.level][0], solved[n][ref.level - 1][1].values
                kernel = payoff_matrices(layout, prev, ref.p_rank, k)[ref.pattern]
                assert np.allclose(kernel, payoff, rtol=0, atol=HIGHS_AGREEMENT)
            # optimal strategies are not unique: check what each one guarantees instead
            x = np.array([got.bids_one[prize][c] for c in v], dtype=np.float64)
            q = np.array([got.bids_two[prize][c] for c in y], dtype=np.float64)
            rounding = 2.0 ** -23 * np.abs(payoff).max()  # float32 storage of x and q
            check_certified(payoff, expected[k], x / x.sum(), q / q.sum(),
                            HIGHS_AGREEMENT + rounding)


def test_reductions_hold_in_the_plain_recursion():
    """Antisymmetry, f(V, V, P) = 0 and f = f(pattern, P), in values computed without them."""
    by_pattern = {}
    for v, y, p in reference.all_states(5):
        f = reference.value(v, y, p)
        assert f == pytest.approx(-reference.value(y, v, p), abs=HIGHS_AGREEMENT)
        if v == y:
            assert f == pytest.approx(0, abs=HIGHS_AGREEMENT)
        by_pattern.setdefault((pattern_key(v, y), p), []).append(f)
    for values in by_pattern.values():
        assert max(values) - min(values) < HIGHS_AGREEMENT
    full = tuple(range(1, 6))
    assert reference.value(full, full, full) == pytest.approx(0, abs=HIGHS_AGREEMENT)


def test_shards_equal_the_whole_level_and_threads_agree():
    from concurrent.futures import ThreadPoolExecutor

    levels = {layout.j: (layout, result) for layout, result in solve_levels(8)}
    layout, prev, whole = levels[5][0], levels[4][1].values, levels[5][1]
    ranges = shard_ranges(layout, 5 * layout.n_patterns)
    assert ranges[0] == (0, 5) and ranges[-1][1] == layout.n_p
    with ThreadPoolExecutor(2) as pool:
        parts = list(pool.map(lambda r: solve_shard(layout, prev, *r, True), ranges))
        cold = list(pool.map(lambda r: solve_shard(layout, prev, *r, True, warm_start=False),
                             ranges))
    # Warm starts begin afresh at each shard's first deck: a shard is the same bits whoever
    # computes it, and within the certified gaps of the whole level solved as one shard.
    assert all(np.array_equal(part.values, solve_shard(layout, prev, *r, True).values)
               for part, r in zip(parts[:3], ranges))
    tolerance = (max(s.max_gap for s in parts) + whole.max_gap) / 2
    assert np.abs(np.concatenate([s.values for s in parts]) - whole.values).max() <= tolerance
    assert np.abs(np.concatenate([s.upcard_values for s in parts]) -
                  whole.upcard_values).max() <= tolerance
    # From the slack basis every game is solved alone: shards are the whole level's bits.
    whole_cold = solve_shard(layout, prev, 0, layout.n_p, True, warm_start=False)
    for name in ("values", "upcard_values", "strategies", "strategies_two"):
        assert np.array_equal(np.concatenate([getattr(s, name) for s in cold]),
                              getattr(whole_cold, name))
    assert sum(s.games for s in parts) == layout.n_games + layout.n_p * layout.j
    assert levels[8][1].values[0, 0] == 0.0  # the root f(full, full, full)
    assert sum(result.games for _, result in levels.values()) == sum(
        lay.n_games for lay, _ in levels.values())


@pytest.mark.parametrize("n_cards, objective, shard_decks", [(8, "points", 3), (6, "win", 2)])
def test_row_reader_shards_equal_whole_level_shards(n_cards, objective, shard_decks):
    """A shard given only the rows of level j-1 it needs (previous_rows, as the pipeline
    reads them) returns what it returns given the whole level, bit for bit, and the whole
    level's values within the certified gaps (its warm starts begin at its first deck); the
    rows are the set of its decks' P - P_k, at most j per deck, and a missing row is
    refused."""
    prev = None
    for layout, whole in solve_levels(n_cards, True, objective):
        if layout.j >= 2:
            for p_lo, p_hi in shard_ranges(layout, shard_decks * layout.n_patterns *
                                           layout.n_diffs):
                ranks = previous_rows(layout, p_lo, p_hi)
                expected = {int(layout.drop_rank[r, k]) for r in range(p_lo, p_hi)
                            for k in range(layout.j)}
                assert ranks.tolist() == sorted(expected)
                assert ranks.size <= (p_hi - p_lo) * layout.j
                by_rows = solve_shard(layout, prev[ranks], p_lo, p_hi, True, True, ranks)
                by_level = solve_shard(layout, prev, p_lo, p_hi, True)
                for name in ("values", "upcard_values", "strategies", "strategies_two"):
                    assert np.array_equal(getattr(by_rows, name), getattr(by_level, name),
                                          equal_nan=True), (layout.j, p_lo, name)
                for name in ("values", "upcard_values"):
                    np.testing.assert_allclose(getattr(by_level, name),
                                               getattr(whole, name)[p_lo:p_hi], rtol=0,
                                               atol=(by_level.max_gap + whole.max_gap) / 2)
                assert (by_rows.games, by_rows.pivots, by_rows.max_gap) == \
                    (by_level.games, by_level.pivots, by_level.max_gap)
            if ranks.size > 1:
                with pytest.raises(ValueError, match="lacks level"):
                    solve_shard(layout, prev[ranks[1:]], p_lo, p_hi, False, True, ranks[1:])
        prev = whole.values


@pytest.mark.parametrize("n_cards, objective", [(8, "points"), (6, "win")])
def test_pattern_ranges_on_threads_are_the_whole_shard_bit_for_bit(n_cards, objective,
                                                                  monkeypatch):
    """Given map_parts, the warm starts solve a shard's patterns in ranges (here of about
    300 games, on two threads, out of order): a game guesses only from its own pattern's
    games, so every array and count is the one call's, bit for bit."""
    from concurrent.futures import ThreadPoolExecutor

    from subgame.families.gops.game import level

    monkeypatch.setattr(level, "PART_GAMES", 300)
    ranges_seen = []

    def map_parts(solve_part, parts):
        ranges_seen.append(len(parts))
        with ThreadPoolExecutor(2) as pool:  # the last range first, then the rest
            backwards = list(pool.map(solve_part, list(parts)[::-1]))
        return backwards[::-1]

    prev = None
    for layout, whole in solve_levels(n_cards, True, objective):
        if 3 <= layout.j < n_cards:  # (the top level has one deck)
            one, ranged = (solve_shard(layout, prev, 1, layout.n_p, True, map_parts=given)
                           for given in (None, map_parts))
            for name in ("values", "upcard_values", "strategies", "strategies_two"):
                assert getattr(one, name).tobytes() == getattr(ranged, name).tobytes()
            assert (one.games, one.saddles, one.pivots, one.guessed, one.max_gap) == \
                (ranged.games, ranged.saddles, ranged.pivots, ranged.guessed, ranged.max_gap)
            assert one.guessed > 0
        prev = whole.values
    assert max(ranges_seen) > 10


def test_the_kernel_specialised_to_j_is_the_generic_one_bit_for_bit():
    """kernel="specialised" (compiled for level 6 alone, j a constant in every loop of the
    solver) gives every array and count of the generic kernel, bit for bit, under both
    objectives (one compiled kernel serves both) and in pattern ranges on two threads."""
    from concurrent.futures import ThreadPoolExecutor

    def map_parts(solve_part, parts):
        with ThreadPoolExecutor(2) as pool:
            return list(pool.map(solve_part, parts))

    for n_cards, objective in ((8, "points"), (7, "win")):
        levels = {layout.j: (layout, result)
                  for layout, result in solve_levels(n_cards, False, objective)}
        layout, prev = levels[6][0], levels[5][1].values
        for given in (None, map_parts):
            generic, specialised = (solve_shard(layout, prev, 0, layout.n_p, True,
                                                kernel=kernel, map_parts=given)
                                    for kernel in ("compiled", "specialised"))
            for name in ("values", "upcard_values", "strategies", "strategies_two"):
                assert getattr(generic, name).tobytes() == getattr(specialised, name).tobytes()
            assert (generic.games, generic.saddles, generic.pivots, generic.guessed,
                    generic.max_gap) == (specialised.games, specialised.saddles,
                                         specialised.pivots, specialised.guessed,
                                         specialised.max_gap)
            assert generic.guessed > 0 and generic.pivots > 0


def test_a_guess_of_every_size_is_eliminated_by_its_copy_bit_for_bit():
    """``sized=True`` eliminates a guess of k rows and columns by the copy of the
    elimination compiled for that k (k = 1 and 5 <= k <= 12; Cramer's rule takes k = 2-4
    either way, the generic elimination k = 13): value, gap, pivots,
    whether the guess was taken and both strategies are the generic path's, bit for bit,
    for guesses of every size k = 1..13 of a 13 x 13 game, taken (the support's block
    diagonally dominant, the other columns dear to the column player: its equilibrium;
    at k = 1 a saddle point, answered before the guess) and refused (a random support of a
    random game, which the simplex method then solves); and refused guesses of size 1 in
    games of 2 x 2 to 4 x 4 without a saddle point, whose only copy is size 1's."""
    rng = np.random.default_rng(13)
    taken = []
    for k in range(1, 14):
        rows = np.sort(rng.choice(13, k, replace=False))
        cols = np.sort(rng.choice(13, k, replace=False))
        designed = rng.random((13, 13)) * 0.05
        designed[np.ix_(rows, cols)] += 0.5 * np.eye(k)
        designed[:, np.setdiff1d(np.arange(13), cols)] += 1.0
        for payoff in (designed, rng.random((13, 13))):
            support = np.zeros(27, np.int64)
            support[0], support[1:k + 1], support[k + 1:2 * k + 1] = k, rows, cols
            if same_with_copies(payoff, support)[3]:
                taken.append(k)
    assert taken == list(range(2, 14))
    for m in range(2, 5):  # games too small for any copy but size 1's (a tuple of one)
        support = np.zeros(1 + 2 * m, np.int64)
        support[:3] = 1, m - 1, 0
        # No saddle point, so the guess reaches its copy, which refuses it (a pure
        # strategy is no equilibrium here) and the simplex method pivots.
        assert same_with_copies(np.eye(m) + 0.01 * rng.random((m, m)), support)[2] > 0


def same_with_copies(payoff: np.ndarray, support: np.ndarray) -> tuple:
    """`solve_alone`'s results from the guess ``support``, asserted the same, bit for bit,
    with the copies for each size as without."""
    generic, sized = (solve_alone(payoff, support.copy(), given) for given in (False, True))
    assert all(np.asarray(a).tobytes() == np.asarray(b).tobytes()
               for a, b in zip(generic, sized))
    return generic


def test_upcard_values_left_out_change_nothing_else():
    levels = {layout.j: (layout, result) for layout, result in solve_levels(6, True)}
    layout, prev, whole = levels[4][0], levels[3][1].values, levels[4][1]
    lean = solve_shard(layout, prev, 0, layout.n_p, True, with_upcard_values=False)
    assert lean.upcard_values is None
    assert np.array_equal(lean.values, whole.values)
    assert np.array_equal(lean.strategies, whole.strategies)


def test_a_deck_guesses_from_the_nearest_deck_solved():
    """A deck P whose cards begin 1..t (1 <= t < WARM_SLOTS) and go on with c guesses each
    game's basis from the deck P - c + (c - 1), solved earlier in the same call (the
    decks between begin with less of 1..t), and each game of it that deck left no basis
    for from the previous deck: its row solved alone from exactly those two decks' bases
    is its row in the whole call, bit for bit.  N = 8, level 5: one deck each with t = 1,
    2, 3 (in colex order the previous deck differs from it in two cards or more)."""
    from subgame.families.gops.game.level import WARM_SLOTS, new_bases

    levels = {layout.j: (layout, result) for layout, result in solve_levels(8)}
    layout, prev = levels[5][0], levels[4][1].values
    decks = [tuple(int(c) for c in deck) for deck in layout.decks]

    def prefix(deck):
        return next(t for t in range(len(deck) + 1) if t == len(deck) or deck[t] != t + 1)

    def bases_after(rows):  # the warm starts as one call over rows 0..rows-1 leaves them
        bases = new_bases(layout)
        solve_shard(layout, prev, 0, rows, False, bases=bases)
        return bases

    whole = solve_shard(layout, prev, 0, layout.n_p, False)
    checked = set()
    for r, deck in enumerate(decks):
        t = prefix(deck)
        if not 1 <= t < WARM_SLOTS or t in checked or deck[t] < t + 3:
            continue  # (deck[t] = t + 2: the previous deck is P - c + (c - 1) itself)
        checked.add(t)
        q = subset_rank(deck[:t] + (deck[t] - 1,) + deck[t + 1:])
        assert q == max(row for row in range(r) if prefix(decks[row]) >= t)
        assert q < r - 1  # not the previous deck
        previous, nearest = bases_after(r)[0], bases_after(q + 1)[0]
        given = new_bases(layout)
        given[0], given[t] = previous, nearest
        alone = solve_shard(layout, prev, r, r + 1, False, bases=given)
        assert alone.upcard_values.tobytes() == whole.upcard_values[r].tobytes()
        assert alone.values.tobytes() == whole.values[r].tobytes()
        given[:] = previous  # the previous deck's bases alone guess otherwise
        assert solve_shard(layout, prev, r, r + 1, False, bases=given).guessed < alone.guessed
    assert checked == {1, 2, 3}


def test_guesses_are_counted_by_their_size():
    """The counts of guesses by size k (the cost model's input) against a replay: a deck
    row solved alone guesses each (upcard, pattern) from slot 0 of the bases it is given
    (its deck does not begin with card 1), so each game is replayed by ``solve_alone``
    on its own payoff and that mask's support."""
    from subgame.families.gops.game.level import new_bases
    levels = {layout.j: (layout, result) for layout, result in solve_levels(7)}
    layout, prev = levels[5][0], levels[4][1].values
    r = next(r for r, deck in enumerate(layout.decks) if deck[0] != 1 and r > 0)
    bases = new_bases(layout)
    solve_shard(layout, prev, r - 1, r, True, bases=bases)  # the previous deck's bases
    expected = np.zeros((2, layout.j + 1), np.int64)
    for k in range(layout.j):
        for p, payoff in enumerate(payoff_matrices(layout, prev, r, k)):
            mask = int(bases[0, k, p])
            rows = [i for i in range(16) if mask >> i & 1]
            columns = [c for c in range(16) if mask >> (16 + c) & 1]
            support = np.array([len(rows), *rows, *columns, *[0] * (2 * layout.j)])
            _, _, pivots, guessed, _, _ = solve_alone(payoff, support)
            if pivots > 0 or guessed:  # not a saddle point
                expected[0, len(rows)] += 1
                expected[1, len(rows)] += guessed
    result = solve_shard(layout, prev, r, r + 1, True, bases=bases)
    assert result.guesses.tolist() == expected.tolist()
    assert 0 < result.guessed < expected[0, 1:].sum()  # guesses both taken and refused
    assert result.guesses[0].sum() == result.games - result.saddles
    cold = solve_shard(layout, prev, r, r + 1, True, warm_start=False)
    assert cold.guesses[0, 0] == cold.games - cold.saddles and cold.guesses[:, 1:].sum() == 0


# --- queries -------------------------------------------------------------------------------

def test_query_validates_card_sets():
    with pytest.raises(ValueError, match="equal sizes"):
        locate(5, [1, 2], [3], [4, 5])
    with pytest.raises(ValueError, match="duplicate"):
        locate(5, [1, 1], [2, 3], [4, 5])
    with pytest.raises(ValueError, match="outside 1..5"):
        locate(5, [1, 6], [2, 3], [4, 5])
    assert locate(5, [3, 1], [2, 4], [5, 1]) == locate(5, (1, 3), (4, 2), (1, 5))


def test_a_states_children_are_its_children_located_one_by_one():
    rng = np.random.default_rng(3)
    for _ in range(40):
        n = int(rng.integers(1, 9))
        j = int(rng.integers(1, n + 1))
        v, y, p = (rng.permutation(np.arange(1, n + 1))[:j].tolist() for _ in range(3))
        child = children(n, v, y, p)
        for k, upcard in enumerate(sorted(p)):
            for i, bid in enumerate(sorted(v)):
                for l, other in enumerate(sorted(y)):
                    ref = locate(n, [c for c in v if c != bid], [c for c in y if c != other],
                                 [c for c in p if c != upcard])
                    assert (child.level, child.pattern[i, l], child.sign[i, l],
                            child.p_rank[k], child.duel[i, l], child.left[k]) == \
                        (ref.level, ref.pattern, ref.sign, ref.p_rank,
                         np.sign(bid - other), sum(p) - upcard)


def test_query_swaps_players(solved):
    v, y, p = (1, 4), (2, 5), (3, 5)
    one, two = stored(solved, 5, v, y, p), stored(solved, 5, y, v, p)
    assert locate(5, v, y, p).sign == -locate(5, y, v, p).sign
    assert one.value == -two.value != 0
    assert one.bids_one == two.bids_two and one.bids_two == two.bids_one


# --- the seed paper ------------------------------------------------------------------------

def test_nine_card_game_plays_nine_on_nine_with_probability_0_7475():
    """Rhoads & Bartholdi: with upcard 9 first, the optimal strategy bids 9 w.p. 0.7475.
    That game's optimal strategy is unique in this coordinate (HiGHS minimum = maximum)."""
    prev = np.zeros((1, 1))
    for j in range(10):
        layout = level_layout(9, j)
        top = solve_shard(layout, prev, 0, layout.n_p, with_strategies=j == 9)
        prev_values, prev = prev, top.values
    full = range(1, 10)
    ref = locate(9, full, full, full)
    at = (ref.p_rank, ref.pattern)
    got = answer(ref, top.values[at], top.upcard_values[at], top.strategies[at],
                 top.strategies_two[at])
    assert got.value == 0.0
    assert round(got.bids_one[9][9], 4) == 0.7475
    assert round(got.bids_two[9][9], 4) == 0.7475

    payoff = payoff_matrices(layout, prev_values, ref.p_rank, 8)[ref.pattern]
    extremes = []
    for direction in (1.0, -1.0):  # min and max of x_9 over the optimal strategies
        res = linprog(np.eye(9)[8] * direction, A_ub=-payoff.T, b_ub=np.full(9, 1e-9),
                      A_eq=np.ones((1, 9)), b_eq=[1.0], bounds=[(0, None)] * 9,
                      method="highs", options=reference.HIGHS)
        extremes.append(res.x[8])
    assert max(extremes) - min(extremes) < 1e-6
    assert got.bids_one[9][9] == pytest.approx(extremes[0], abs=1e-6)


def test_stored_pattern_count_equals_the_enumeration():
    from subgame.families.gops.game.patterns import canonical_patterns, stored_pattern_count

    for n_cards in range(1, 11):
        for j in range(n_cards + 1):
            assert stored_pattern_count(n_cards, j) == canonical_patterns(n_cards, j).size
