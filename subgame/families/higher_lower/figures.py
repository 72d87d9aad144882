"""Higher/lower figures: P_all(n) on a log scale with its fitted exponential; the ratio
P_all(n) / P_all(n-1) against n with its closed-form limit."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from subgame.families.higher_lower import game as hl
from subgame.plotting import plain_log_axis, plt

LIMIT_TEXT = "1/(2 ln 2)"


def sweep_figures(table: hl.FloatSweep) -> dict[str, Figure]:
    """File name -> figure: log10 P_all(n) with the exponential fitted on the upper half of
    the sweep, and the ratio P_all(n)/P_all(n-1) against n (log axis) with its limit
    1/(2 ln 2) drawn."""
    return {"higher_lower_p_all.png": _p_all(table), "higher_lower_ratio.png": _ratio(table)}


def _p_all(table: hl.FloatSweep) -> Figure:
    n, log_p = table.n, table.log_p
    tail = n >= n.max() / 2
    slope, intercept = np.polyfit(n[tail], log_p[tail], 1)
    fig, ax = plt.subplots(figsize=(7, 5), dpi=110, layout="constrained")
    ax.plot(n, log_p / np.log(10), label="P_all(n), majority policy (computed)")
    ax.plot(n, (intercept + slope * n) / np.log(10), "--",
            label=f"fit on n >= {int(n.max()) // 2}: {np.exp(intercept):.3g} × "
                  f"{np.exp(slope):.6f}^n\n(the base's limit as n grows: {LIMIT_TEXT} = "
                  f"{hl.RATIO_LIMIT:.6f})")
    ax.set_xlabel("n (cards in the deck)")
    ax.set_ylabel("log10 P_all(n)")
    ax.set_title("Higher/lower: probability of guessing every card right")
    ax.legend()
    return fig


def _ratio(table: hl.FloatSweep) -> Figure:
    fig, ax = plt.subplots(figsize=(7, 5), dpi=110, layout="constrained")
    ax.plot(table.n, table.ratio, label="P_all(n) / P_all(n-1) (computed)")
    ax.axhline(hl.RATIO_LIMIT, color="0.3", linestyle="--", linewidth=1,
               label=f"limit as n grows: {LIMIT_TEXT} = {hl.RATIO_LIMIT:.6f}")
    ax.set_xscale("log")
    plain_log_axis(ax, "x")
    ax.set_xlabel("n (cards in the deck)")
    ax.set_ylabel("P_all(n) / P_all(n-1)")
    ax.set_title("Higher/lower: ratio of successive P_all")
    ax.legend()
    return fig
