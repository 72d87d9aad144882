"""Higher/lower figures: P_all(n) on a log scale with its fitted exponential; the ratio."""

from __future__ import annotations

import os

import numpy as np

from subgame.plotting import plt


def sweep_figures(table, out: str) -> list[str]:
    """Higher/lower: log P_all(n) with the exponential fitted on the upper half of the sweep,
    and the ratio P_all(n)/P_all(n-1) against n."""
    n, log_p = table.n, table.log_p
    tail = n >= n.max() / 2
    slope, intercept = np.polyfit(n[tail], log_p[tail], 1)
    fig, ax = plt.subplots(figsize=(7, 5), dpi=120)
    ax.plot(n, log_p / np.log(10), label="P_all(n), majority policy")
    ax.plot(n, (intercept + slope * n) / np.log(10), "--",
            label=f"fit: {np.exp(intercept):.3g} x {np.exp(slope):.6f}^n")
    ax.set_xlabel("n (cards)")
    ax.set_ylabel("log10 P_all(n)")
    ax.set_title("Higher/lower: probability of guessing every card right")
    ax.legend()
    fig.tight_layout()
    os.makedirs(out, exist_ok=True)
    paths = [f"{out}/higher_lower_p_all.png", f"{out}/higher_lower_ratio.png"]
    fig.savefig(paths[0])
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 5), dpi=120)
    ax.plot(n, table.ratio)
    ax.set_xscale("log")
    ax.set_xlabel("n (cards)")
    ax.set_ylabel("P_all(n) / P_all(n-1)")
    ax.set_title("Higher/lower: ratio of successive P_all")
    fig.tight_layout()
    fig.savefig(paths[1])
    plt.close(fig)
    return paths
