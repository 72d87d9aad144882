"""Figures shared by the families: labelled heatmaps written as PNG (matplotlib, Agg)."""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import TwoSlopeNorm  # noqa: E402


def heatmap(data: np.ndarray, *, title: str, xlabel: str, ylabel: str, colorbar: str,
            path: str, extent: tuple[float, float, float, float] | None = None,
            diverging: bool = False, xticks: list | None = None,
            yticks: list | None = None) -> str:
    """Draw ``data`` (rows = y) with a colour bar; diverging maps centre on zero
    (red negative, green positive, as in the paper's figures)."""
    fig, ax = plt.subplots(figsize=(7, 6), dpi=120)
    norm, cmap = None, "viridis"
    if diverging:
        bound = float(np.nanmax(np.abs(data))) or 1.0
        norm, cmap = TwoSlopeNorm(0.0, -bound, bound), "RdYlGn"
    image = ax.imshow(data, origin="lower", aspect="auto", cmap=cmap, norm=norm,
                      extent=extent, interpolation="nearest")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if xticks is not None:
        ax.set_xticks(range(len(xticks)), [str(t) for t in xticks])
    if yticks is not None:
        ax.set_yticks(range(len(yticks)), [str(t) for t in yticks])
    fig.colorbar(image, ax=ax, label=colorbar)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


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
