"""Clue figures: first-place share per strategy over the grid; guess round against accuracy."""

from __future__ import annotations

import numpy as np

from subgame.families.clue.read import Tournament
from subgame.plotting import heatmap, plt, probability_scale, save


def file_name(strategy: str) -> str:
    return strategy.replace("/", "_")


def first_share_maps(tournament: Tournament, out: str) -> list[str]:
    """One heatmap per strategy and hidden count h: players p (x) by cards per player k
    (y), coloured by the strategy's share of sole first places per seat-game."""
    share = tournament.table("first_share")
    ps, ks, hs = (sorted({point[axis] for point in tournament.points}) for axis in range(3))
    paths = []
    for s, strategy in enumerate(tournament.strategies):
        for h in hs:
            grid = np.full((len(ks), len(ps)), np.nan)
            for i, (p, k, hidden) in enumerate(tournament.points):
                if hidden == h:
                    grid[ks.index(k), ps.index(p)] = share[i, s]
            paths.append(save(heatmap(
                grid, title=f"Clue: first-place share of {strategy}, h={h}\n"
                            f"line-up {tournament.lineup}",
                xlabel="players p", ylabel="cards per player k",
                scale=probability_scale(grid, "first places / games"),
                missing="no tournament at this grid point", xticks=ps, yticks=ks),
                out, f"clue_first_share_{file_name(strategy)}_h{h}.png"))
    return paths


def guess_accuracy(tournament: Tournament, out: str) -> str:
    """Each grid point as a dot: mean round of the strategy's guesses as a fraction of the
    core player's bound (N-k-h) p, against the share of its guesses that were right. The
    history-mining strategies are drawn when the line-up has them, else every strategy."""
    wrong, rounds = tournament.table("wrong_rate"), tournament.table("mean_guess_round")
    bound = np.array([(p - 1) * k * p for p, k, _ in tournament.points], dtype=float)
    chosen = [s for s, name in enumerate(tournament.strategies) if name.startswith("history")]
    fig, ax = plt.subplots(figsize=(7, 5), dpi=120)
    for s in chosen or range(len(tournament.strategies)):
        ax.scatter(rounds[:, s] / bound, 1 - wrong[:, s], label=tournament.strategies[s], s=18)
    ax.set_xlabel("mean guess round / core bound (N-k-h) p")
    ax.set_ylabel("share of guesses that were right")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(f"Clue: guess round against accuracy\nline-up {tournament.lineup}")
    ax.legend()
    fig.tight_layout()
    return save(fig, out, "clue_guess_round_accuracy.png")
