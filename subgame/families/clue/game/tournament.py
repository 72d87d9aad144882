"""Batches of games at one grid point, as small arrays of counts.

A batch plays ``games`` deals of the line-up (one strategy name per seat, p of them) at
grid point (p, k, h).  Deal g is dealt from the g-th 64-bit word of
``seed.generate_state(games)``; ``seating`` says how often it is played and how the
line-up sits (seat s plays entry e(s)):

* ``rotate``: once, the line-up rotated by g (e(s) = (s + g) mod p), so over any p
  consecutive deals every entry sits in every seat once;
* ``every-rotation``: p times, once per rotation r (e(s) = (s + r) mod p): a Latin square,
  every entry in every seat once on every deal;
* ``every-order``: p! times, once per seat order (every permutation), p <= MAX_ORDERED.

A batch depends only on its SeedSequence, its size, its line-up and its seating, so the
pipeline may spawn one SeedSequence per (grid point, batch) and shard freely.

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

``deal_moments`` (K + 1, K + 1), K = S x len(QUANTITIES) for the S distinct strategies in
line-up order: the sum over deals of v v^T, v = (1, the deal's QUANTITIES per strategy,
summed over the deal's games and the strategy's entries).  Its first row holds the deal
count and the sums; the rest are the second moments every interval and paired comparison
of the leaderboard needs (``leaderboard_stats``), deals being the independent units.

``merge`` adds batches.  A strategy error (``engine.IllegalMove``) propagates with the
game's seed, so the game can be replayed with ``play_game``.
"""

from __future__ import annotations

from itertools import permutations
from typing import Iterable, Sequence

import numpy as np

from subgame.errors import InvalidInput

from .engine import play_game
from .registry import STRATEGIES, new_player
from .rules import GameSize, grid_point

COUNT_KEYS = ("games", "first_places", "correct_guesses", "wrong_guesses", "guess_round_sum",
              "guesses", "lead_sum", "leads")
# A deal's totals per strategy, for the per-deal moments (see the module's docstring).
QUANTITIES = ("seat_games", "first_places", "rank_sum", "guesses", "wrong_guesses",
              "guess_round_sum", "leads", "lead_sum")
_Q = {name: i for i, name in enumerate(QUANTITIES)}
SEATINGS = ("rotate", "every-rotation", "every-order")
MAX_ORDERED = 6  # every-order plays p! games a deal: 720 at p = 6


def seat_orders(seating: str, players: int, deal: int) -> list[tuple[int, ...]]:
    """The seat -> line-up entry maps deal number ``deal`` is played with."""
    p = players
    if seating == "rotate":
        return [tuple((s + deal) % p for s in range(p))]
    if seating == "every-rotation":
        return [tuple((s + r) % p for s in range(p)) for r in range(p)]
    if seating == "every-order":
        if p > MAX_ORDERED:
            raise InvalidInput(f"--seating every-order plays p! games a deal; p = {p} is more "
                               f"than {MAX_ORDERED} (use every-rotation)")
        return list(permutations(range(p)))
    raise InvalidInput(f"--seating must be one of {', '.join(SEATINGS)}; got {seating!r}")


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
                   games: int, seed: np.random.SeedSequence, round_limit: int | None = None,
                   seating: str = "rotate") -> dict[str, np.ndarray]:
    size = check_point(players, per_player, hidden, lineup)
    p = size.players
    strategies = list(dict.fromkeys(lineup))
    column = [strategies.index(name) for name in lineup]  # entry -> strategy
    Q = len(QUANTITIES)
    counts = {key: np.zeros(p, dtype=np.int64) for key in COUNT_KEYS}
    counts["rank_counts"] = np.zeros((p, p), dtype=np.int64)
    counts["deal_moments"] = np.zeros((len(strategies) * Q + 1,) * 2, dtype=np.int64)
    for g, game_seed in enumerate(game_seeds(seed, games)):
        deal = np.zeros((len(strategies), Q), dtype=np.int64)
        for entry in seat_orders(seating, p, g):
            result = play_game([new_player(lineup[e]) for e in entry], size, game_seed,
                               round_limit)
            count_game(result, entry, counts, deal, column)
        vector = np.concatenate(([1], deal.ravel()))
        counts["deal_moments"] += np.outer(vector, vector)
    return counts


def count_game(result, entry: Sequence[int], counts: dict[str, np.ndarray], deal: np.ndarray,
               column: Sequence[int]) -> None:
    """Add one game's counts per line-up entry (``entry``: seat -> entry) to ``counts``,
    and its QUANTITIES per strategy (``column``: entry -> strategy) to ``deal``."""
    q = _Q
    for seat, rank in enumerate(result.ranks):
        e = entry[seat]
        counts["games"][e] += 1
        counts["rank_counts"][e, rank - 1] += 1
        deal[column[e], q["seat_games"]] += 1
        deal[column[e], q["rank_sum"]] += rank
    sole_first = [s for s, r in enumerate(result.ranks) if r == 1]
    if len(sole_first) == 1:
        counts["first_places"][entry[sole_first[0]]] += 1
        deal[column[entry[sole_first[0]]], q["first_places"]] += 1
    correct_rounds = [g.round for g in result.guesses if g.correct]
    for guess in result.guesses:
        e, s = entry[guess.seat], column[entry[guess.seat]]
        counts["guesses"][e] += 1
        counts["guess_round_sum"][e] += guess.round
        deal[s, q["guesses"]] += 1
        deal[s, q["guess_round_sum"]] += guess.round
        if guess.correct:
            counts["correct_guesses"][e] += 1
            later = [r for r in correct_rounds if r > guess.round]
            if later:
                counts["lead_sum"][e] += later[0] - guess.round
                counts["leads"][e] += 1
                deal[s, q["lead_sum"]] += later[0] - guess.round
                deal[s, q["leads"]] += 1
        else:
            counts["wrong_guesses"][e] += 1
            deal[s, q["wrong_guesses"]] += 1


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
