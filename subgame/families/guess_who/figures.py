"""Guess Who figures: the win probability p(n, m), the first-mover advantage F and the
game-state advantage G over the stored range, one figure each per rule set."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from subgame.plotting import difference_scale, heatmap, probability_scale

AXES = dict(xlabel="m (waiting player's characters)", ylabel="n (moving player's characters)")


def rule_figures(maps: dict[str, Any], rule: str) -> dict[str, Figure]:
    """File name -> figure for one rule set's ``read.probability_maps``. p is a
    probability (0 to 1); F and G are differences (symmetric around 0). F is large only
    where a player has one or two characters left, so its colours end at the 99th
    percentile of |F| (the colour bar says so) and the rest of the map shows."""
    edge = maps["covered"] + 0.5
    extent = (0.5, edge, 0.5, edge)
    quantities = {
        "p": ("win probability of the moving player, p(n, m)",
              probability_scale(maps["p"], "p(n, m)")),
        "F": ("first-mover advantage F(n, m) = (p(n, m) + p(m, n) - 1) / 2",
              difference_scale(maps["F"], "F(n, m)", largest=0.5, quantile=0.99)),
        "G": ("game-state advantage G(n, m) = (p(n, m) - p(m, n)) / 2",
              difference_scale(maps["G"], "G(n, m)", largest=0.5))}
    return {f"guess_who_{rule}_{key}.png": heatmap(
                maps[key], title=f"Guess Who, {rule} rules:\n{title}", scale=scale,
                extent=extent, **AXES)
            for key, (title, scale) in quantities.items()}
