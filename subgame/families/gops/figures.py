"""GOPS figures: player one's optimal first bid, P(bid | upcard), one panel per objective."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from subgame.plotting import (colour_bar, draw_heatmap, missing_legend, plt,
                              probability_scale)

OBJECTIVES = {"points": "maximising the expected point difference",
              "win": "maximising P(win) - P(lose)"}
NEVER_BID = "bid never made (probability 0)"


def first_move_figure(tables: dict[str, dict]) -> Figure:
    """One panel per objective (``read.first_move`` tables, same N): x = bid card,
    y = upcard, each cell's probability written in it, on the probability scale 0-1 shared
    by the panels. Bids never made are hatched, so the support (the paper's parity
    effect) shows and a small probability is not read as none."""
    cards = next(iter(tables.values()))["cards"]
    grids = {objective: np.array(table["probability"], dtype=float)
             for objective, table in tables.items()}
    scale = probability_scale(np.stack(list(grids.values())), "P(bid | upcard)")
    made = {objective: np.where(grid == 0, np.nan, grid) for objective, grid in grids.items()}
    side = 0.42 * cards + 1.2 if cards > 8 else 4.6
    fig, axes = plt.subplots(1, len(grids), figsize=(side * len(grids) + 1.4, side + 0.9),
                             dpi=110, sharey=True, layout="constrained", squeeze=False)
    for ax, (objective, grid) in zip(axes[0], made.items()):
        image = draw_heatmap(ax, grid, scale, numbers=True, xticks=list(range(1, cards + 1)),
                             yticks=list(range(1, cards + 1)))
        ax.set_title(OBJECTIVES.get(objective, objective))
        ax.set_xlabel("bid card")
    axes[0][0].set_ylabel("upcard (prize)")
    fig.suptitle(f"GOPS with {cards} cards: player one's optimal first bid, P(bid | upcard)")
    colour_bar(fig, image, axes, scale)
    missing_legend(fig, np.stack(list(made.values())), NEVER_BID)
    return fig
