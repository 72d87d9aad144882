"""Seed 000, O'Neill (2021), "Optimal guessing in Guess Who": the published p(23, 23),
Table 2's fair states, Theorems 1-3, Corollaries 1-2, the Remark's closed forms,
p_II(2n, 2m) = p_II(n, m), F = 1/6 on the diagonal n = ★n = ★m = m, and Figs 1-2 (the
heatmaps of p, F and G for 1 <= n, m < 24)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from subgame.reproduce.claims import Reproduction, digits, holds, same
from subgame.reproduce.runs import ensure

DOCUMENT = "O'Neill (2021), Optimal guessing in Guess Who (seed 000)"
PAGE = "docs/guess_who.md"
# The paper's printed values.
P_23 = {"official": (Fraction(296, 529), "0.5595"), "variant": (Fraction(349, 529), "0.6597")}
TABLE_2 = {"official": [(2, 1), (2, 2), (3, 2), (4, 2), (4, 3), (5, 4), (6, 4), (8, 5), (10, 7),
                        (11, 8), (12, 8), (14, 10), (16, 11), (16, 12), (18, 13), (20, 14),
                        (22, 15), (23, 16)],
           "variant": [(2, 1), (3, 2), (4, 3), (6, 4), (8, 6), (12, 8), (16, 2)]}
TABLE_2_WHY = {"official": "the paper leaves out (8, 6): a_I(8, 6) = 24 = 8·6/2",
               "variant": "the paper prints (16, 2), far from fair (p_II(16, 2) = 3/32); the "
                          "fair state is (16, 12), at r = 4/3 as the paper's own remark says"}
BOARD = 23  # the standard game's states: 1 <= n, m < 24
SIZES = {"small": 48, "full": 512}  # U: the checks run over every state n, m <= U


def reproduce(store: str | None, out: str, size: str) -> Reproduction:
    from subgame.families.guess_who import game as gw
    from subgame.families.guess_who.read import open_table
    from subgame.storage import resolve_store

    limit = SIZES[size]
    ensure("guess-who", store, max_n=limit)
    url = resolve_store(store)
    tables = {rule: open_table(url, rule, limit) for rule in ("official", "variant")}
    a = {rule: table.padded("a", limit) for rule, table in tables.items()}
    result = Reproduction("guess-who-paper", DOCUMENT, size)
    suffix = {"official": "I", "variant": "II"}
    for rule, (exact, shown) in P_23.items():
        p = gw.win_probability(a[rule][BOARD, BOARD], BOARD, BOARD)
        result.add(same(f"p_{suffix[rule]}(23, 23)", exact, p))
        result.add(digits(f"p_{suffix[rule]}(23, 23), decimal", shown, p))
    for rule, printed in TABLE_2.items():
        fair = [tuple(s) for s in gw.fair_states(a[rule][:BOARD + 1, :BOARD + 1]).tolist()]
        verdict = same(f"Table 2, fair states 1 <= n, m < 24, {rule} rules", sorted(printed),
                       fair, TABLE_2_WHY[rule], PAGE, shown=_states(printed))
        result.add(replace(verdict, subgame=_states(fair)))
    result.add(same("(23, 16) is fair under the official rules", Fraction(1, 2),
                    gw.win_probability(a["official"][23, 16], 23, 16)))
    result.add(holds("a(1, m) = m under both rules", all(
        (a[rule][1, 1:] == np.arange(1, limit + 1)).all() for rule in a), f"for m <= {limit}"))
    _theorems(result, gw, tables["variant"], a["variant"], limit)
    _remark(result, gw, a, limit)
    result.figures += _figures(url, out)
    return result


def _states(states) -> str:
    return ", ".join(f"({n},{m})" for n, m in states)


def _every(limit: int, where: str = "") -> str:
    return f"at every state n, m <= {limit}{where}"


def _theorems(result: Reproduction, gw, table, a: np.ndarray, limit: int) -> None:
    n, m = np.meshgrid(np.arange(1, limit + 1), np.arange(1, limit + 1), indexing="ij")
    stored = a[1:, 1:]
    for name, formula in (("Theorem 1: a_II(n, m) = sum_k min(n, ★k)", gw.variant_theorem1),
                          ("Theorem 2: a_II(n, m) in closed form", gw.variant_theorem2)):
        result.add(holds(name, bool((formula(n, m) == stored).all()), _every(limit)))
    least, largest = table.block("s_min", limit), table.block("s_max", limit)
    lower, upper = gw.variant_theorem3(n, m)
    printed = (np.ceil(lower) == least) & (np.floor(upper) == largest)
    wrong = np.argwhere(~printed) + 1
    columns = sorted({int(mm) for _, mm in wrong})
    result.add(holds("Theorem 3 as printed: the optimal guesses are lower..upper",
                     bool(printed.all()), _every(limit),
                     f"fails at {len(wrong)} states n, m <= {limit}, all in column(s) m = "
                     f"{columns}" + (f", n >= {int(wrong[:, 0].min())}" if len(wrong) else ""),
                     "lower = ★m/2 = 3/2 at m = 3 leaves out s = 1, which is optimal there; "
                     "read as max(1, floor(★m/2)), as Corollary 2 has it, it holds", PAGE))
    first, last = gw.corrected_theorem3(n, m)
    result.add(holds("Theorem 3 with lower = max(1, floor(★m/2))",
                     bool(((first == least) & (last == largest)).all()), _every(limit)))
    for name, strategy in (("Corollary 1 (split in half; 1 when m <= 2) is optimal",
                            gw.corollary1),
                           ("Corollary 2 (split in half if ★n <= ★m, else floor(★m/2)) is "
                            "optimal", gw.corollary2)):
        guess = strategy(n, m)
        result.add(holds(name, bool(((least <= guess) & (guess <= largest)).all()),
                         _every(limit, ": its guess is among the optimal ones")))


def _remark(result: Reproduction, gw, a: dict[str, np.ndarray], limit: int) -> None:
    variant = a["variant"]

    def p(n: int, m: int) -> Fraction:
        return gw.win_probability(variant[n, m], n, m)

    big = range(3, limit + 1)
    result.add(holds("Remark: p_II = 1 - r A(d_n)/2 if r <= d_n/d_m, else A(d_m)/r (n, m >= 3)",
                     all(gw.remark_win_probability(n, m) == p(n, m) for n in big for m in big),
                     _every(limit, " with n, m >= 3")))
    cases = [(n, m, gw.remark_powers_of_two(n, m)) for n in big for m in big]
    cases = [(n, m, q) for n, m, q in cases if q is not None]
    result.add(holds("Remark: p_II by powers of two, 3·2^k < n <= 3·2^(k+1) < m and the mirror "
                     "case", all(q == p(n, m) for n, m, q in cases),
                     _every(limit, f" where a case applies ({len(cases)} states)")))
    d = [Fraction(k, int(gw.star(k))) for k in big]
    result.add(holds("1/2 < d <= 1 and 2/3 <= A(d) <= 3/4", all(
        Fraction(1, 2) < x <= 1 and Fraction(2, 3) <= gw.remark_a(x) <= Fraction(3, 4)
        for x in d), f"for d = k/★k, 3 <= k <= {limit}"))
    half = range(3, limit // 2 + 1)
    result.add(holds("p_II(2n, 2m) = p_II(n, m) for n, m >= 3", all(
        p(2 * n, 2 * m) == p(n, m) for n in half for m in half),
        f"at every state with 3 <= n, m and 2n, 2m <= {limit}"))
    fair = [(n, m) for n in big for m in big if 2 * variant[n, m] == n * m]
    at_ratio = [(n, m) for n in big for m in big
                if (Fraction(n, m) == Fraction(3, 2) and gw.star(n) == n)
                or (Fraction(n, m) == Fraction(4, 3) and gw.star(m) == m)]
    result.add(holds("fair states (n, m >= 3) are those with r = 3/2, d_n = 1 or r = 4/3, "
                     "d_m = 1", fair == at_ratio, _every(limit, f" ({len(fair)} fair states)")))
    diagonal = [k for k in big if gw.star(k) == k]
    official = a["official"]
    result.add(holds("F_II = 1/6, G_II = 0, p_II = 2/3 where n = ★n = ★m = m", all(
        gw.first_mover_advantage(variant[k, k], variant[k, k], k, k) == Fraction(1, 6)
        and p(k, k) == Fraction(2, 3) for k in diagonal), f"at n = m = {diagonal}"))
    result.add(holds("F_II is larger than 1/6 at n = m <= 2", all(
        gw.first_mover_advantage(variant[k, k], variant[k, k], k, k) > Fraction(1, 6)
        for k in (1, 2)), "at n = m = 1, 2"))
    f_one, f_two = (gw.first_mover_advantage(t[BOARD, BOARD], t[BOARD, BOARD], BOARD, BOARD)
                    for t in (official, variant))
    result.add(holds("the first-mover advantage is larger under the variant rules", f_two > f_one,
                     f"at (23, 23): F_I = {f_one}, F_II = {f_two}"))


def _figures(url: str, out: str) -> list[str]:
    """Figs 1 and 2: p, F and G for 1 <= n, m < 24, both rules."""
    from subgame.families.guess_who.figures import rule_figures
    from subgame.families.guess_who.read import probability_maps
    from subgame.plotting import save

    return [save(figure, out, name) for rule in ("official", "variant")
            for name, figure in rule_figures(probability_maps(url, rule, limit=BOARD),
                                             rule).items()]
