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
