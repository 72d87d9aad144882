"""Read stored higher/lower sweeps for queries and plots (no Prefect, no Dask)."""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction
from math import factorial
from typing import Any

import numpy as np

from subgame.errors import NotComputed
from subgame.families.higher_lower import game as hl
from subgame.families.higher_lower.plan import FAMILY
from subgame.storage import ComputationStore, find_computations
from subgame.exact import decimal, fraction_text
from subgame.storage.encoding import from_hex



def _distinct_sweep(url: str, need: int = 1) -> tuple[ComputationStore, int]:
    best: tuple[ComputationStore, int] | None = None
    for store in find_computations(url, FAMILY):
        if store.identity.get("deck") == "distinct":
            reached = store.reached("last_n")
            if best is None or reached > best[1]:
                best = (store, reached)
    if best is None or best[1] == 0:
        raise NotComputed(f"{url!r} holds no finished higher/lower sweep; run "
                          "`subgame run higher-lower --max-n N` first")
    if best[1] < need:
        raise NotComputed(f"the stored sweep reaches n = {best[1]}; n = {need} is outside the "
                          "stored range")
    return best


def scientific(p: Fraction) -> str:
    """p to 16 significant digits, correctly rounded from the exact value: the exact count
    where it is stored, else the scaled float (its mantissa times a power of two, which
    keeps its digits where p itself is below float64's range)."""
    with localcontext() as context:
        context.prec = 40
        return format(Decimal(p.numerator) / Decimal(p.denominator), ".15e")


def query_n(url: str, n: int) -> dict[str, Any]:
    store, _ = _distinct_sweep(url, n)
    row = {name: store.array(name)[n - 1].item()
           for name in ("p_all", "log_p_all", "expected_streak", "ratio")}
    scaled = Fraction(store.array("p_all_mantissa")[n - 1].item()) * \
        Fraction(2) ** store.array("p_all_exponent")[n - 1].item()
    result = {"n": n, **row, "ratio": None if np.isnan(row["ratio"]) else row["ratio"],
              "p_all_scientific": scientific(scaled),
              "p_all_exact": None, "count": None, "expected_streak_exact": None}
    if n <= store.config["exact_max"]:
        count, streak = from_hex([store.array("count")[n - 1],
                                  store.array("streak_count")[n - 1]])
        result.update(count=decimal(count), p_all_scientific=scientific(
                          Fraction(count, factorial(n))),
                      p_all_exact=fraction_text(Fraction(count, factorial(n))),
                      expected_streak_exact=fraction_text(Fraction(streak, factorial(n))))
    return result


def exact_p_all(url: str, n_max: int) -> list[Fraction]:
    """P_all(1), ..., P_all(n_max) exactly, from the stored counts n! P_all(n)."""
    store, _ = _distinct_sweep(url, n_max)
    if n_max > store.config["exact_max"]:
        raise NotComputed(f"the stored exact counts stop at n = {store.config['exact_max']}; "
                          f"n = {n_max} needs `--exact-max {n_max}` or more")
    counts = from_hex(store.array("count")[:n_max])
    return [Fraction(count, factorial(n)) for n, count in enumerate(counts, start=1)]


def sweep(url: str) -> hl.FloatSweep:
    """The stored float sweep for n >= 2 (where the ratio is defined)."""
    store, reached = _distinct_sweep(url)
    return hl.FloatSweep(np.arange(2, reached + 1),
                         *(store.array(name)[1:reached] for name in (
                             "p_all_mantissa", "p_all_exponent", "expected_streak", "ratio")))


def asymptotics(url: str) -> dict[str, Any]:
    table = sweep(url)
    if table.n[-1] < hl.MIN_SWEEP:
        raise NotComputed(f"the stored sweep reaches n = {table.n[-1]}; the extrapolated limits "
                          f"need n >= {hl.MIN_SWEEP} (`subgame run higher-lower --max-n "
                          f"{hl.MIN_SWEEP}` or more)")
    fits = hl.asymptotics(table)
    return {"n_max": int(table.n[-1]),
            "method": "least-squares fit in 1/n of order 3 on the upper half of the sweep, "
                      "even and odd n separately, limit their mean; error = twice the largest "
                      "distance from it of the fits of order 3 and 4 on windows of the upper "
                      "third, half and two thirds (docs/higher_lower.md: it covered the closed "
                      "forms at every n_max from 27 to 100 000)",
            **{name: {"limit": fit.limit, "error": fit.error} for name, fit in fits.items()},
            "closed_form": {"ratio": hl.RATIO_LIMIT, "streak": hl.STREAK_LIMIT}}


def query_deck(url: str, ranks: int, suits: int, ties: str, policy: str,
               confidence: float = 0.95) -> dict[str, Any]:
    """Exact and Monte Carlo odds of one deck point, from every deck sweep that holds it."""
    result: dict[str, Any] = {"ranks": ranks, "suits": suits, "ties": ties, "policy": policy,
                              "exact": None, "monte_carlo": None}
    shards: list[tuple[int, int]] = []
    for store in find_computations(url, FAMILY):
        if "ranks" not in store.identity:
            continue
        points = [(int(r), int(s), str(t), str(p)) for r, s, t, p in zip(
            *(store.array(name)[:] for name in ("ranks", "suits", "ties", "policy")))]
        if (ranks, suits, ties, policy) not in points:
            continue
        i = points.index((ranks, suits, ties, policy))
        if store.step_done(0) and store.array("exact_wins")[i]:
            wins, orders = from_hex([store.array("exact_wins")[i], store.array("exact_orders")[i]])
            result["exact"] = {"p": fraction_text(Fraction(wins, orders)), "p_float": wins / orders,
                               "states": int(store.array("exact_states")[i])}
        if "mc_wins" in store.group and store.step_done(1):
            shards += [(int(w), int(g)) for w, g in zip(store.array("mc_wins")[i],
                                                         store.array("mc_games")[i])]
    if shards:
        estimate = hl.combine(shards, confidence)
        result["monte_carlo"] = {"p": estimate.p, "low": estimate.low, "high": estimate.high,
                                 "confidence": estimate.confidence, "games": estimate.games,
                                 "interval": "Wilson score"}
    if result["exact"] is None and result["monte_carlo"] is None:
        raise NotComputed(f"no finished deck sweep holds {ranks} ranks x {suits} suits, "
                          f"ties={ties}, policy={policy}")
    return result


def sweep_table(url: str):
    """The distinct-card sweep as a pandas DataFrame, one row per deck size n: the floats,
    and the exact counts n! P_all(n) and n! E[streak] in decimal (empty beyond exact_max)."""
    import pandas as pd

    store, reached = _distinct_sweep(url)
    columns = {"n": np.arange(1, reached + 1),
               **{name: store.array(name)[:reached] for name in (
                   "p_all", "log_p_all", "expected_streak", "ratio")}}
    exact = min(reached, store.config["exact_max"])
    for name in ("count", "streak_count"):
        counts = [decimal(value) for value in from_hex(store.array(name)[:exact])]
        columns[name] = counts + [""] * (reached - exact)
    return pd.DataFrame(columns)


def monte_carlo_columns(store: ComputationStore, point: int, simulated: bool) -> dict[str, Any]:
    """A deck point's Monte Carlo wins and games summed over batches, the rate and its
    95 % Wilson interval (NaN where nothing was simulated)."""
    if not simulated:
        return {"mc_wins": 0, "mc_games": 0, "mc_p": np.nan, "mc_low": np.nan,
                "mc_high": np.nan}
    estimate = hl.combine([(int(store.array("mc_wins")[point].sum()),
                            int(store.array("mc_games")[point].sum()))])
    return {"mc_wins": estimate.wins, "mc_games": estimate.games, "mc_p": estimate.p,
            "mc_low": estimate.low, "mc_high": estimate.high}


def deck_table(url: str):
    """Every finished deck sweep's grid points as a pandas DataFrame: the exact odds (wins
    of orders, in decimal) and the Monte Carlo wins and games summed over batches, with the
    rate and its 95 % Wilson interval (mc_p, mc_low, mc_high)."""
    import pandas as pd

    rows = []
    for store in find_computations(url, FAMILY):
        if "ranks" not in store.identity or not store.step_done(0):
            continue
        grid = zip(*(store.array(name)[:].tolist() for name in ("ranks", "suits", "ties",
                                                                  "policy")))
        simulated = "mc_wins" in store.group and store.step_done(1)
        for i, (ranks, suits, ties, policy) in enumerate(grid):
            wins, orders = (store.array(name)[i] for name in ("exact_wins", "exact_orders"))
            exact = from_hex([wins, orders]) if wins else None
            rows.append({
                "computation": store.group_path, "ranks": ranks, "suits": suits, "ties": ties,
                "policy": policy, "exact_p": store.array("exact_p")[i].item(),
                "exact_wins": decimal(exact[0]) if exact else "",
                "exact_orders": decimal(exact[1]) if exact else "",
                **monte_carlo_columns(store, i, simulated)})
    if not rows:
        raise NotComputed(f"{url!r} holds no finished deck sweep; run `subgame run "
                          "higher-lower --ranks R --suits S` first")
    return pd.DataFrame(rows)
