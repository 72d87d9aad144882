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


def _column(rates: list[dict], strategy: str, key: str) -> np.ndarray:
    """One rate of one strategy over the grid points (NaN where undefined)."""
    return np.array([np.nan if r[strategy][key] is None else r[strategy][key] for r in rates])


def guess_accuracy(tournament: Tournament, out: str) -> str:
    """Each grid point as a dot with its 95 % intervals: mean round of the strategy's
    guesses as a fraction of the core player's bound (N-k-h) p (Student's t), against the
    share of its guesses that were right (Wilson). The history-mining strategies are drawn
    when the line-up has them, else every strategy."""
    rates = [tournament.rates(i) for i in range(len(tournament.points))]
    bound = np.array([(p - 1) * k * p for p, k, _ in tournament.points], dtype=float)
    chosen = [s for s, name in enumerate(tournament.strategies) if name.startswith("history")]
    fig, ax = plt.subplots(figsize=(7, 5), dpi=120)
    for s in chosen or range(len(tournament.strategies)):
        name = tournament.strategies[s]
        x, x_low, x_high = (_column(rates, name, key) / bound for key in (
            "mean_guess_round", "mean_guess_round_low", "mean_guess_round_high"))
        right, right_low, right_high = (1 - _column(rates, name, key) for key in (
            "wrong_rate", "wrong_rate_high", "wrong_rate_low"))
        ax.errorbar(x, right, xerr=[x - x_low, x_high - x], yerr=[right - right_low,
                                                                  right_high - right],
                    fmt="o", markersize=4, capsize=2, elinewidth=0.8, label=name)
    ax.set_xlabel("mean guess round / core bound (N-k-h) p")
    ax.set_ylabel("share of guesses that were right")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(f"Clue: guess round against accuracy (bars: 95 % intervals)\n"
                 f"line-up {tournament.lineup}")
    ax.legend()
    fig.tight_layout()
    return save(fig, out, "clue_guess_round_accuracy.png")
