"""Guess-who-board figures: how far the real board's p(S, T) is from O'Neill's idealised
p(|S|, |T|), per pair of sizes (the mean, the least and the largest over the reachable
pairs of those sizes)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from subgame.families.guess_who_board.plan import CLASSIC
from subgame.plotting import difference_scale, heatmap

SUMMARIES = {"mean": "mean", "min": "least", "max": "largest"}
NO_PAIR = "no reachable pair of these sizes"


def size_difference_figures(grid: dict[str, Any], board: str, max_literals: int,
                            rules: str) -> dict[str, Figure]:
    """Summary (mean, min, max) -> figure for ``read.size_grid``'s ``grid``, each on its
    own colour scale symmetric around 0; a map whose values are all equal (up to rounding
    noise) says so in words instead of colouring the noise."""
    edge = grid["size"] + 0.5
    named = "the classic board" if board == CLASSIC else f"board {board}"
    figures = {}
    for kind, words in SUMMARIES.items():
        difference = grid[kind] - grid["idealised"]
        figures[kind] = heatmap(
            difference,
            title=f"{named}, questions of at most {max_literals} "
                  f"{'trait' if max_literals == 1 else 'traits'}, {rules} rules:\n"
                  f"{words} over the reachable pairs of p(S, T) - p_idealised(|S|, |T|)",
            xlabel="|T| (waiting player's characters)",
            ylabel="|S| (moving player's characters)",
            scale=difference_scale(difference, "real board minus idealised"),
            missing=NO_PAIR, extent=(0.5, edge, 0.5, edge))
    return figures
