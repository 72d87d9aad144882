"""One level of GOPS: its layout, its shards and the compiled kernel that solves a shard.

Level j holds the states (pattern, P) with j cards in each hand and in the deck P.  With
the upcard P_k turned, player one bids V_i and player two Y_l:

    f(V, Y, P)  = (1/j) sum_k f_k(V, Y, P),     f_k = val(X^k)
    X^k[i, l]   = sign(V_i - Y_l) P_k + f(V - V_i, Y - Y_l, P - P_k)

(Rhoads & Bartholdi; val: value of the matrix game, row player maximising; f = 0 at j = 0).
Through the layout the second term is sign * prev[rank(P - P_k), child(pattern, i, l)],
one row of level j-1 per (P, k): the kernel loops over P, then k, then the patterns.
Player one's optimal mixed bids x^k over V are the row strategies; the column strategies
are player two's bids over Y, i.e. player one's at the swapped state (Y, V, P).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Iterator

import numpy as np
from numba import njit

from . import cards, patterns
from .matrix_game import solve_into

GAP_LIMIT = 1e-9  # a shard whose certified gap exceeds this raises (see matrix_game)


@dataclass(frozen=True, eq=False)
class LevelLayout:
    """Everything level j of the N-card game needs besides level j-1's values.

    keys            (n_patterns,) int64   stored pattern keys, sorted (see ``patterns``)
    symmetric       int                   index of the pattern V = Y (value 0, no LP)
    decks           (n_P, j) int8         cards of the deck of each rank, ascending
    drop_rank       (n_P, j) int64        rank of P - P_k at level j-1
    child           (n_patterns, j, j) int32  level j-1 pattern index of (pattern, i, l)
    child_sign      (n_patterns, j, j) int8   f(child) = child_sign * stored value (0: V=Y)
    duel            (n_patterns, j, j) int8   sign(V_i - Y_l)
    prev_shape      (n_P, n_patterns) of level j-1: the shape of the kernel's input
    """

    n_cards: int
    j: int
    keys: np.ndarray
    symmetric: int
    decks: np.ndarray
    drop_rank: np.ndarray
    child: np.ndarray
    child_sign: np.ndarray
    duel: np.ndarray
    prev_shape: tuple[int, int]

    @property
    def n_patterns(self) -> int:
        return self.keys.size

    @property
    def n_p(self) -> int:
        return self.decks.shape[0]

    @property
    def n_states(self) -> int:
        return self.n_p * self.n_patterns

    @property
    def n_games(self) -> int:
        """Matrix games solved for the values: every (state, upcard) but those of V = Y
        (with strategies the kernel also solves those n_P * j games, for their bids)."""
        return self.n_p * (self.n_patterns - 1) * self.j


def level_layout(n_cards: int, j: int) -> LevelLayout:
    """Build the layout of level j (0 <= j <= N) of the N-card game."""
    keys = patterns.canonical_patterns(n_cards, j)
    decks = cards.subsets(n_cards, j)
    if j == 0:
        child = np.zeros((1, 0, 0), np.int32)
        child_sign = duel = np.zeros((1, 0, 0), np.int8)
        prev_shape = (1, 1)  # unused: level 0 is f = 0
    else:
        parent_keys = patterns.canonical_patterns(n_cards, j - 1)
        child, child_sign, duel = patterns.child_table(keys, parent_keys, j)
        prev_shape = (comb(n_cards, j - 1), parent_keys.size)
    symmetric = int(np.searchsorted(keys, patterns.pattern_key(range(j), range(j))))
    return LevelLayout(n_cards, j, keys, symmetric, decks, cards.drop_ranks(decks),
                       child, child_sign, duel, prev_shape)


def shard_rows(layout: LevelLayout, target_states_per_shard: int) -> int:
    """P ranks per shard (the chunk length of every level array on its first axis)."""
    return max(1, min(layout.n_p, target_states_per_shard // layout.n_patterns))


def shard_ranges(layout: LevelLayout, target_states_per_shard: int) -> list[tuple[int, int]]:
    """Contiguous P-rank ranges [p_lo, p_hi) of ``shard_rows`` each (the last may be short)."""
    rows = shard_rows(layout, target_states_per_shard)
    return [(lo, min(lo + rows, layout.n_p)) for lo in range(0, layout.n_p, rows)]


@dataclass(frozen=True, eq=False)
class ShardResult:
    """Level j on the P ranks p_lo..p_hi-1 (n = p_hi - p_lo rows).

    values          (n, n_patterns) float64        f
    upcard_values   (n, n_patterns, j) float64     f_k
    strategies      (n, n_patterns, j, j) float32  [r, p, k, i] player one bids V_i on P_k
    strategies_two  (n, n_patterns, j, j) float32  [r, p, k, l] player two bids Y_l on P_k
    (both None unless asked for).  games: matrix games solved; saddles: those with a pure
    saddle point; pivots: simplex pivots in all; max_gap: the largest certified gap, so
    every value of the shard is within max_gap / 2 of the value of its own matrix game.
    """

    p_lo: int
    p_hi: int
    values: np.ndarray
    upcard_values: np.ndarray
    strategies: np.ndarray | None
    strategies_two: np.ndarray | None
    games: int
    saddles: int
    pivots: int
    max_gap: float


@njit(cache=True, nogil=True, inline="always")
def _payoff(X, p, prize, prev_row, child, child_sign, duel):
    j = X.shape[0]
    for i in range(j):
        for l in range(j):
            X[i, l] = duel[p, i, l] * prize + child_sign[p, i, l] * prev_row[child[p, i, l]]


@njit(cache=True, nogil=True)
def _solve_rows(decks, drop_rank, child, child_sign, duel, symmetric, prev, with_strategies,
                values, upcard_values, strat_one, strat_two, stats):
    n_rows, j = decks.shape
    n_patterns = child.shape[0]
    X = np.empty((j, j))
    tab = np.empty((j + 1, j + 1))
    row_var = np.empty(j, np.int64)
    col_var = np.empty(j, np.int64)
    x = np.empty(j)
    y = np.empty(j)
    games = saddles = pivots = 0
    max_gap = 0.0
    values[:] = 0.0
    upcard_values[:] = 0.0
    for r in range(n_rows):
        for k in range(j):
            prize = float(decks[r, k])
            prev_row = prev[drop_rank[r, k]]
            for p in range(n_patterns):
                if p == symmetric and not with_strategies:
                    continue
                _payoff(X, p, prize, prev_row, child, child_sign, duel)
                value, gap, steps = solve_into(X, j, j, tab, row_var, col_var, x, y)
                if steps < 0:
                    return -1
                games += 1
                saddles += steps == 0
                pivots += steps
                max_gap = max(max_gap, gap)
                if with_strategies:
                    for i in range(j):
                        strat_one[r, p, k, i] = x[i]
                        strat_two[r, p, k, i] = y[i]
                if p != symmetric:
                    upcard_values[r, p, k] = value
                    values[r, p] += value
        for p in range(n_patterns):
            values[r, p] /= j
    stats[0] = games
    stats[1] = saddles
    stats[2] = pivots
    stats[3] = max_gap
    return 0


def solve_shard(layout: LevelLayout, prev_values: np.ndarray, p_lo: int, p_hi: int,
                with_strategies: bool) -> ShardResult:
    """Solve the states of level ``layout.j`` with P ranks p_lo..p_hi-1.

    prev_values is level j-1's values array, shape ``layout.prev_shape`` (ignored for
    j = 0; for j = 1 it is level 0's values, the (1, 1) zeros).  The kernel releases the
    GIL, so threads overlap.
    """
    if not 0 <= p_lo <= p_hi <= layout.n_p:
        raise ValueError(f"P-rank range [{p_lo}, {p_hi}) outside 0..{layout.n_p}")
    prev = np.ascontiguousarray(prev_values, dtype=np.float64)
    if layout.j > 0 and prev.shape != layout.prev_shape:
        raise ValueError(f"prev_values has shape {prev.shape}, level {layout.j - 1} of "
                         f"N={layout.n_cards} is {layout.prev_shape}")
    n, j, n_pat = p_hi - p_lo, layout.j, layout.n_patterns
    values = np.empty((n, n_pat))
    upcard_values = np.empty((n, n_pat, j))
    strat_shape = (n, n_pat, j, j) if with_strategies else (0, 0, 0, 0)
    strat_one = np.zeros(strat_shape, np.float32)
    strat_two = np.zeros(strat_shape, np.float32)
    stats = np.zeros(4)
    if j == 0:
        values[:] = 0.0
    elif _solve_rows(layout.decks[p_lo:p_hi], layout.drop_rank[p_lo:p_hi], layout.child,
                     layout.child_sign, layout.duel, layout.symmetric, prev,
                     with_strategies, values, upcard_values, strat_one, strat_two,
                     stats) < 0:
        raise ArithmeticError(f"simplex failure in level {j} ranks [{p_lo}, {p_hi})")
    if stats[3] > GAP_LIMIT:
        raise ArithmeticError(f"certified gap {stats[3]:.3g} exceeds {GAP_LIMIT:g} in level "
                              f"{j} ranks [{p_lo}, {p_hi})")
    return ShardResult(p_lo, p_hi, values, upcard_values,
                       strat_one if with_strategies else None,
                       strat_two if with_strategies else None,
                       int(stats[0]), int(stats[1]), int(stats[2]), float(stats[3]))


def payoff_matrices(layout: LevelLayout, prev_values: np.ndarray, p_rank: int,
                    k: int) -> np.ndarray:
    """The matrices X^k of every pattern at deck rank p_rank: (n_patterns, j, j) float64."""
    prev = np.ascontiguousarray(prev_values, dtype=np.float64)
    prev_row = prev[layout.drop_rank[p_rank, k]]
    out = np.empty((layout.n_patterns, layout.j, layout.j))
    for p in range(layout.n_patterns):
        _payoff(out[p], p, float(layout.decks[p_rank, k]), prev_row, layout.child,
                layout.child_sign, layout.duel)
    return out


def solve_levels(n_cards: int, with_strategies: bool = False
                 ) -> Iterator[tuple[LevelLayout, ShardResult]]:
    """The whole game in memory, level 0 to N, each level as one shard (tests, benchmarks)."""
    prev = np.zeros((1, 1))
    for j in range(n_cards + 1):
        layout = level_layout(n_cards, j)
        result = solve_shard(layout, prev, 0, layout.n_p, with_strategies)
        yield layout, result
        prev = result.values
