"""Seed 004, the higher/lower notebook: its brute force, P_all at 9, 19 and 99 cards, the
ratios P_all(n+1)/P_all(n), its table (cache size, P_all, ratio, 0.725^(n-2) and the
difference Δ), its log-scale figure and its cost statement."""

from __future__ import annotations

from fractions import Fraction
from math import factorial, log10

from subgame.reproduce.claims import DIFFERS, Claim, Reproduction, digits, same
from subgame.reproduce.runs import ensure

DOCUMENT = "the higher/lower card-guessing notebook (seed 004)"
PAGE = "docs/reproduce/higher_lower.md"
BASE = 0.725  # the notebook's base of the exponential
NS = [*range(2, 10), *range(19, 99, 20), *range(99, 400, 100)]  # the notebook's Ns
# The notebook's printed values (its outputs, transcribed).
BRUTE_FORCE_9 = "0.17085537918871252"
RECURSION = {9: "0.17085537918871255", 19: "0.008419397002884993", 99: "6.67213407124781e-14"}
RATIOS = {2: "0.8333333333333334", 3: "0.8", 4: "0.775", 5: "0.7688172043010753",
          6: "0.7587412587412588", 7: "0.7557603686635944", 8: "0.7500967866821525",
          9: "0.7483290322580645", 19: "0.7343228066190575", 39: "0.7277139939871775",
          59: "0.7255656153885536", 79: "0.7245013548920631", 99: "0.7238659386192225",
          199: "0.7226021071682432", 299: "0.7221828896968574", 399: "0.7219736649122889"}
# n: (s, P_all(n), P(n+1)/P(n), base^(n-2), Δ), as the table prints them
TABLE = {2: (2, "1.0e+00", "0.8333", "1.0e+00", "0%"), 3: (5, "8.3e-01", "0.8000", "7.2e-01", "13%"),
         4: (9, "6.7e-01", "0.7750", "5.3e-01", "21%"), 5: (14, "5.2e-01", "0.7688", "3.8e-01", "26%"),
         6: (20, "4.0e-01", "0.7587", "2.8e-01", "30%"), 7: (27, "3.0e-01", "0.7558", "2.0e-01", "34%"),
         8: (35, "2.3e-01", "0.7501", "1.5e-01", "36%"), 9: (44, "1.7e-01", "0.7483", "1.1e-01", "38%"),
         19: (189, "8.4e-03", "0.7343", "4.2e-03", "50%"),
         39: (779, "1.6e-05", "0.7277", "6.8e-06", "57%"),
         59: (1769, "2.6e-08", "0.7256", "1.1e-08", "58%"),
         79: (3159, "4.2e-11", "0.7245", "1.8e-11", "58%"),
         99: (4949, "6.7e-14", "0.7239", "2.8e-14", "57%"),
         199: (19899, "5.5e-28", "0.7226", "3.1e-28", "45%"),
         299: (44849, "4.2e-42", "0.7222", "3.3e-42", "20%"),
         399: (79799, "3.0e-56", "0.7220", "3.6e-56", "-19%")}
FLOAT_WHY = ("the notebook's float arithmetic: the exact value's nearest float differs from "
             "the printed one in the last digit")
SIZES = {"small": 100, "full": 400}  # deck sizes swept (the notebook's table needs 400)


def reproduce(store: str | None, out: str, size: str) -> Reproduction:
    from subgame.families.higher_lower import game as hl
    from subgame.families.higher_lower import read as stored
    from subgame.storage import resolve_store

    n_max = SIZES[size]
    ensure("higher-lower", store, max_n=n_max, exact_max=n_max)
    p = [None, *stored.exact_p_all(resolve_store(store), n_max)]  # p[n] = P_all(n)
    result = Reproduction("higher-lower", DOCUMENT, size)
    brute = Fraction(hl.orders_guessed_all_right(9), factorial(9))
    result.add(digits("brute force over the 9! orders (guess_all)", BRUTE_FORCE_9, brute))
    result.add(same("the brute force agrees with the exact recursion at n = 9", "agrees",
                    "agrees" if brute == p[9] else f"{brute} against {p[9]}"))
    for n, shown in RECURSION.items():
        if n <= n_max:
            result.add(digits(f"P_all({n}) by the memoised recursion", shown, p[n],
                              why=FLOAT_WHY, page=PAGE))
    for n, shown in RATIOS.items():
        if n + 1 <= n_max:
            result.add(digits(f"P_all({n + 1}) / P_all({n})", shown, p[n + 1] / p[n],
                              why=FLOAT_WHY, page=PAGE))
    for n, (cache, shown_p, shown_ratio, shown_e, shown_delta) in TABLE.items():
        if n + 1 > n_max:
            continue
        exponential = BASE ** (n - 2)
        result.add(same(f"table n = {n}: s, the recursion's states", cache,
                        n * (n + 1) // 2 - 1))
        result.add(digits(f"table n = {n}: P_all(n)", shown_p, p[n]))
        result.add(digits(f"table n = {n}: P(n+1)/P(n)", shown_ratio, p[n + 1] / p[n]))
        result.add(digits(f"table n = {n}: {BASE}**(n-2)", shown_e, exponential))
        result.add(digits(f"table n = {n}: Δ = (P_all - {BASE}**(n-2)) / P_all", shown_delta,
                          (p[n] - Fraction(exponential)) / p[n]))
    for n, power in ((19, 17), (99, 156)):
        result.add(same(f"{n}! ≈ 10^{power} permutations", f"10^{power}",
                        f"10^{round(log10(factorial(n)))}"))
    result.add(Claim("P_all is O(n^2)", "O(n^2)",
                     "n(n+1)/2 - 1 states, each a mean of up to n terms: O(n^3)", DIFFERS,
                     "the count of cached states is right, but each state averages n "
                     "terms in exact rationals (measured growth n^3.1)",
                     "docs/higher_lower.md"))
    result.figures.append(_figure(p, n_max, out))
    return result


def _figure(p: list, n_max: int, out: str) -> str:
    """The notebook's figure: P_all(n) at n = 2, 6, 10, ... on a log scale with the lines
    0.725^(n-2) and 0.75^(n-2)."""
    import matplotlib.pyplot as plt

    from subgame.plotting import save

    xs = list(range(2, n_max, 4))
    fig, ax = plt.subplots(figsize=(9, 9))
    ax.set_yscale("log")
    ax.set_xlabel("Number of Cards, n")
    ax.set_ylabel("Probability of Guessing All Right (log scale)")
    ax.plot(xs, [0.75 ** (n - 2) for n in xs], "g:", label="0.750 ** (n-2)")
    ax.plot(xs, [BASE ** (n - 2) for n in xs], "b-", lw=2, label=f"{BASE} ** (n-2)")
    ax.plot(xs, [float(p[n]) for n in xs], "r.", label="P_all(n)")
    ax.legend()
    return save(fig, out, "higher_lower_p_all.png")
