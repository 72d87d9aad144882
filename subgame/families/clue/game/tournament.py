"""Batches of games at one grid point, as small arrays of counts.

A batch plays ``games`` games of the line-up (one strategy name per seat, p of them) at
grid point (p, k, h).  Game g is dealt from the g-th 64-bit word of
``seed.generate_state(games)`` and seats the line-up rotated by g: seat s plays entry
(s + g) mod p, so over any p consecutive games every entry sits in every seat once.  A
batch depends only on its SeedSequence, its size and its line-up, so the pipeline may
spawn one SeedSequence per (grid point, batch) and shard freely.

Counts per line-up entry (shape (L,) unless said):

* ``games``: games played;
* ``rank_counts`` (L, p): games finished at rank 1..p (``engine`` ranks; players still in
  at the end share the first rank of their block);
* ``first_places``: games finished first and alone;
* ``correct_guesses``, ``wrong_guesses``;
* ``guess_round_sum``, ``guesses``: for the mean round of a guess, right or wrong;
* ``lead_sum``, ``leads``: the lead of a correct guess is the number of rounds from it to
  the next correct guess by another player; summed over the entry's correct guesses that
  another correct guess followed, and their number (a correct guess that no other
  follows has no lead).

``merge`` adds batches.  A strategy error (``engine.IllegalMove``) propagates with the
game's seed, so the game can be replayed with ``play_game``.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from subgame.errors import InvalidInput

from .engine import play_game
from .registry import STRATEGIES, new_player
from .rules import GameSize, grid_point

COUNT_KEYS = ("games", "first_places", "correct_guesses", "wrong_guesses", "guess_round_sum",
              "guesses", "lead_sum", "leads")


def check_point(players: int, per_player: int, hidden: int, lineup: Sequence[str]) -> GameSize:
    """The game size of grid point (p, k, h) after checking it and the line-up."""
    size = grid_point(players, per_player, hidden)
    if len(lineup) != size.players:
        raise InvalidInput(f"a line-up for {size.players} players names {size.players} "
                           f"strategies, got {len(lineup)}")
    unknown = [name for name in lineup if name not in STRATEGIES]
    if unknown:
        raise InvalidInput(f"unknown strategies {unknown}; known: {', '.join(STRATEGIES)}")
    return size


def game_seeds(seed: np.random.SeedSequence, games: int) -> list[int]:
    return [int(s) for s in seed.generate_state(games, dtype=np.uint64)]


def simulate_batch(lineup: Sequence[str], players: int, per_player: int, hidden: int,
                   games: int, seed: np.random.SeedSequence,
                   round_limit: int | None = None) -> dict[str, np.ndarray]:
    size = check_point(players, per_player, hidden, lineup)
    p = size.players
    counts = {key: np.zeros(p, dtype=np.int64) for key in COUNT_KEYS}
    counts["rank_counts"] = np.zeros((p, p), dtype=np.int64)
    for g, game_seed in enumerate(game_seeds(seed, games)):
        entry = [(s + g) % p for s in range(p)]          # seat -> line-up entry
        result = play_game([new_player(lineup[e]) for e in entry], size, game_seed, round_limit)
        for seat, rank in enumerate(result.ranks):
            counts["games"][entry[seat]] += 1
            counts["rank_counts"][entry[seat], rank - 1] += 1
        sole_first = [s for s, r in enumerate(result.ranks) if r == 1]
        if len(sole_first) == 1:
            counts["first_places"][entry[sole_first[0]]] += 1
        correct_rounds = [g.round for g in result.guesses if g.correct]
        for guess in result.guesses:
            e = entry[guess.seat]
            counts["guesses"][e] += 1
            counts["guess_round_sum"][e] += guess.round
            if guess.correct:
                counts["correct_guesses"][e] += 1
                later = [r for r in correct_rounds if r > guess.round]
                if later:
                    counts["lead_sum"][e] += later[0] - guess.round
                    counts["leads"][e] += 1
            else:
                counts["wrong_guesses"][e] += 1
    return counts


def merge(batches: Iterable[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The counts of several batches of the same grid point and line-up, added."""
    total: dict[str, np.ndarray] | None = None
    for batch in batches:
        if total is None:
            total = {k: v.copy() for k, v in batch.items()}
        elif batch.keys() != total.keys() or any(batch[k].shape != total[k].shape for k in total):
            raise InvalidInput("batches of different grid points or line-ups cannot be merged")
        else:
            for k in total:
                total[k] += batch[k]
    if total is None:
        raise InvalidInput("no batches to merge")
    return total
