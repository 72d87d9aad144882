"""Monte Carlo for decks too large to solve: play G shuffled games of a policy.

Shards are independent: the caller spawns one ``numpy.random.SeedSequence`` per shard
(``SeedSequence(seed).spawn(k)``), runs :func:`simulate` on each and merges the counts with
:func:`combine`, which gives a Wilson score interval (it keeps its coverage for the tiny
probabilities of whole-deck wins, where the normal interval does not).

The policies are those of :mod:`.decks`, decided by the same function as in the DP; the
optimal policy reads the DP's table, so it is available only where that table fits
(:data:`MAX_TABLE_ROWS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

import numpy as np
from numba import njit

from subgame.intervals import wilson

from .decks import POLICIES, TIES, PolicyTable, _guess_higher, _Layout, _rank, policy_table

MAX_TABLE_ROWS = 50_000_000  # rows of limbs kept for every level: about 1 GB at 3 limbs
_BATCH = 1 << 14  # games shuffled per numpy call; part of the seed -> result mapping


@njit(cache=True)
def _play(decks, ranks, suits, policy, ties_pass, values, counts, entry_base, level_offset):
    """Number of the shuffled decks (rows) that the policy guesses entirely right."""
    wins = 0
    left = np.empty(ranks, dtype=np.int64)
    word = np.empty(ranks, dtype=np.int64)
    tmp = np.empty(values.shape[1], dtype=np.int64)
    for game in range(decks.shape[0]):
        left[:] = suits
        up = decks[game, 0]
        left[up] -= 1
        won = True
        for t in range(1, decks.shape[1]):
            # Renumber the state: letters = nonempty ranks, up card on a letter or in a gap.
            m, lo, n_lower, n_higher = 0, 0, 0, 0
            for j in range(ranks):
                if j < up:
                    n_lower += left[j]
                elif j > up:
                    n_higher += left[j]
                if left[j] > 0:
                    word[m] = left[j]
                    m += 1
                    if j < up:
                        lo = m
            hi = lo + 1 if left[up] > 0 else lo
            k = decks.shape[1] - t
            base = 0
            if values.shape[0] > 0:
                base = level_offset[k] + entry_base[k, m] + _rank(word, m, k, -1, counts) * (m + 1)
            card = decks[game, t]
            if card == up:
                right = ties_pass
            elif _guess_higher(values, base, m, lo, hi, n_lower, n_higher, policy, tmp):
                right = card > up
            else:
                right = card < up
            if not right:
                won = False
                break
            left[card] -= 1
            up = card
        wins += won
    return wins


@lru_cache(maxsize=4)
def _optimal_table(ranks: int, suits: int, ties: str) -> PolicyTable:
    rows = _Layout.build(ranks, suits, keep=True).rows
    if rows > MAX_TABLE_ROWS:
        raise ValueError(f"the optimal policy table for {ranks} x {suits} needs {rows:,} rows "
                         f"(limit {MAX_TABLE_ROWS:,}); simulate majority or always_higher")
    return policy_table(ranks, suits, ties)


def simulate(policy: str | PolicyTable, ranks: int, suits: int, ties: str, games: int,
             seed_sequence: np.random.SeedSequence) -> tuple[int, int]:
    """Play ``games`` uniformly shuffled r x s decks; return (wins, games).

    ``policy`` is one of :data:`POLICIES` or a :class:`PolicyTable` (the optimal policy,
    built once and reused across shards).  The result is a function of the arguments only.
    """
    if isinstance(policy, PolicyTable):
        if (policy.ranks, policy.suits, policy.ties) != (ranks, suits, ties):
            raise ValueError("the policy table is for another deck or tie rule")
        table = policy
    elif policy == "optimal":
        table = _optimal_table(ranks, suits, ties)
    elif policy in POLICIES and ties in TIES:
        table = None
    else:
        raise ValueError(f"policy must be one of {POLICIES} or a PolicyTable; ties one of {TIES}")
    if table is None:  # the DP's arrays are not read: empty stand-ins of the right types
        code, values = POLICIES.index(policy), np.zeros((0, 1), dtype=np.int64)
        counts = entry_base = np.zeros((1, 1), dtype=np.int64)
        level_offset = np.zeros(1, dtype=np.int64)
    else:
        code, values = POLICIES.index("optimal"), table.values
        counts, entry_base = table.layout.counts, table.layout.entry_base
        level_offset = table.layout.level_offset
    rng = np.random.default_rng(seed_sequence)
    deck = np.repeat(np.arange(ranks, dtype=np.int16), suits)
    wins = 0
    for start in range(0, games, _BATCH):
        batch = min(_BATCH, games - start)
        decks = rng.permuted(np.broadcast_to(deck, (batch, deck.size)), axis=1)
        wins += _play(decks, ranks, suits, code, ties == "pass", values,
                      counts, entry_base, level_offset)
    return wins, games


@dataclass(frozen=True)
class Estimate:
    """wins / games with a two-sided Wilson score interval at ``confidence``."""

    wins: int
    games: int
    confidence: float
    low: float
    high: float

    @property
    def p(self) -> float:
        return self.wins / self.games


def combine(shards: Iterable[tuple[int, int]], confidence: float = 0.95) -> Estimate:
    """Merge (wins, games) shards into one estimate with a Wilson score interval."""
    wins = games = 0
    for w, g in shards:
        wins, games = wins + w, games + g
    if games == 0:
        raise ValueError("no games")
    low, high = wilson(wins, games, confidence)
    return Estimate(wins, games, confidence, low, high)
