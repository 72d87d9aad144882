"""GOPS figures: the opening strategies of both objectives side by side."""

from __future__ import annotations

import os

import numpy as np

from subgame.plotting import plt

TITLES = {"points": "expected point difference", "win": "P(win) - P(lose)"}


def first_moves_side_by_side(tables: dict[str, dict], path: str) -> str:
    """One panel per objective (``read.first_move`` tables): P(bid | upcard) of player one
    at the root, x = bid card, y = upcard, one colour scale for all panels; bids never made
    are left white so the support (the paper's parity effect) shows, and every
    probability of at least 0.005 is written in its cell."""
    cards = next(iter(tables.values()))["cards"]
    grids = {objective: np.array(table["probability"]) for objective, table in tables.items()}
    top = max(float(grid.max()) for grid in grids.values())
    cmap = plt.get_cmap("viridis").with_extremes(bad="white")
    fig, axes = plt.subplots(1, len(grids), figsize=(5 * len(grids) + 1, 5.2), dpi=100,
                             sharey=True, layout="constrained")
    for ax, (objective, grid) in zip(np.atleast_1d(axes), grids.items()):
        image = ax.imshow(np.ma.masked_equal(grid, 0.0), origin="lower", cmap=cmap, vmin=0,
                          vmax=top, interpolation="nearest")
        for (upcard, bid), q in np.ndenumerate(grid):
            if q >= 0.005:
                ax.text(bid, upcard, f"{q:.2f}"[1:] if q < 1 else "1", ha="center",
                        va="center", fontsize=7, color="white" if q < 0.6 * top else "black")
        ax.set_title(f"--objective {objective} ({TITLES.get(objective, objective)})")
        ax.set_xlabel("bid card")
        ax.set_xticks(range(cards), [str(c) for c in range(1, cards + 1)])
        ax.set_yticks(range(cards), [str(c) for c in range(1, cards + 1)])
    np.atleast_1d(axes)[0].set_ylabel("upcard")
    fig.suptitle(f"GOPS N={cards}: player one's optimal first bid, P(bid | upcard)")
    fig.colorbar(image, ax=axes, label="probability", shrink=0.9)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
