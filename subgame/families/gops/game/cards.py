"""Prize decks as ranks: j-subsets of the cards 1..N in the combinatorial number system.

A deck P = {c_1 < ... < c_j} (cards 1..N) has colex rank

    rank(P) = sum_t C(c_t - 1, t),   t = 1..j,

so the decks of one level are numbered 0..C(N, j)-1 and a level's arrays put this rank on
their first axis.  Removing the upcard P_k shifts the index t of every later card down by
one; ``drop_ranks`` tabulates the resulting rank of P - P_k once per level.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np


def binomials(n: int) -> np.ndarray:
    """C(a, b) for 0 <= a, b <= n as int64 (zero where b > a)."""
    table = np.zeros((n + 1, n + 1), dtype=np.int64)
    for a in range(n + 1):
        for b in range(a + 1):
            table[a, b] = comb(a, b)
    return table


def subset_rank(cards) -> int:
    """Colex rank of a set of distinct positive cards."""
    return sum(comb(c - 1, t) for t, c in enumerate(sorted(cards), start=1))


def subsets(n_cards: int, j: int) -> np.ndarray:
    """All j-subsets of 1..N by rank: row r holds the sorted cards of the deck of rank r."""
    table = np.empty((comb(n_cards, j), j), dtype=np.int8)
    for deck in combinations(range(1, n_cards + 1), j):
        table[subset_rank(deck)] = deck
    return table


def deck_labels(n_cards: int, j: int) -> np.ndarray:
    """The decks of level j by rank as text, '1,3,4' (the labels of a level's deck axis)."""
    return np.array([",".join(map(str, deck)) for deck in subsets(n_cards, j)])


def drop_ranks(decks: np.ndarray) -> np.ndarray:
    """rank(P - P_k) for every deck row P of ``subsets`` and every upcard index k.

    rank(P - P_k) = sum_{t<k} C(c_t - 1, t) + sum_{t>k} C(c_t - 1, t - 1) (t 1-based).
    """
    n_decks, j = decks.shape
    if j == 0:
        return np.zeros((n_decks, 0), dtype=np.int64)
    binom = binomials(int(decks.max()))
    c = decks.astype(np.int64) - 1
    t = np.arange(1, j + 1)
    same = binom[c, t]  # the term of card t when it keeps its index
    shifted = binom[c, t - 1]  # the term when an earlier card was removed
    before = np.cumsum(same, axis=1) - same  # sum over t < k
    after = shifted.sum(axis=1, keepdims=True) - np.cumsum(shifted, axis=1)  # t > k
    return before + after
