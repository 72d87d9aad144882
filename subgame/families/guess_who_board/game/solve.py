"""Stage 2: exact optimal play for every pair of reachable sets, level by level.

The mover holds the standing set S, the opponent T; a(S, T) = |S||T| p(S, T) is an integer
(p: the mover's win probability when each identity is uniform on the standing set).

Official rules (naming a character is the final guess, won if right and lost if wrong):

    a(S, T) = |T|                                                           if |S| = 1
    a(S, T) = max(|T|, max_q |S||T| - a(T, S∩q) - a(T, S\\q))               otherwise

over the nontrivial splits q of S.  Variant rules (O'Neill's II): naming c wins if right
and otherwise passes the move with S\\{c}, so it contributes |S||T| - a(T, S\\{c}); there is
no losing final guess, and a(S, T) = |T| when |S| = 1 as before.  When every split is
available, a depends on |S| and |T| only and equals O'Neill's a_I(|S|, |T|) (a_II).

Level |S| + |T|: both terms on the right have level |T| + |S'| with S' ⊊ S, so a level
needs only lower levels.  PairIndex numbers the pairs of a level contiguously (blocks by
|S|, then S, then T), so a pipeline can shard a level by ranges of positions and
solve_pairs needs nothing but a lookup of lower levels' values by global pair index.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from subgame.errors import InvalidInput

from .reachable import NAMED, SetFamily

# Pairs per solve_pairs call in solve_all: bounds the call's id and result arrays (the
# work inside goes one mover set at a time).
CHUNK_PAIRS = 200_000

# values of pairs given their PairIndex.global_index (any shape; lower levels only)
Lookup = Callable[[np.ndarray], np.ndarray]


class PairIndex:
    """The numbering of the pairs (S, T) of reachable sets, level by level.

    Sets are numbered by size, so the sets of size k are ids first[k] ..
    first[k] + count[k] - 1.  Level L holds the pairs with |S| + |T| = L in blocks
    |S| = i ascending; inside a block, S-major then T.  ``global_index`` numbers all pairs
    of all levels consecutively (level 2 first).
    """

    def __init__(self, family: SetFamily | np.ndarray):
        # A family (sets or types, numbered by size) or the sizes alone.
        sizes = family if isinstance(family, np.ndarray) else family.sizes
        largest = int(sizes.max())
        self.count = np.bincount(sizes, minlength=largest + 1).astype(np.int64)
        self.first = np.concatenate(([0], np.cumsum(self.count)[:-1])).astype(np.int64)
        self.largest = largest
        # block_start[i, j]: global index of the first pair with |S| = i, |T| = j.
        self.block_start = np.zeros((largest + 1, largest + 1), np.int64)
        self.level_start = np.zeros(2 * largest + 2, np.int64)
        position = 0
        for level in range(2, 2 * largest + 1):
            self.level_start[level] = position
            for i in self._block_sizes(level):
                self.block_start[i, level - i] = position
                position += int(self.count[i] * self.count[level - i])
        self.level_start[2 * largest + 1] = position
        self.sizes = sizes

    def _block_sizes(self, level: int) -> range:
        return range(max(1, level - self.largest), min(self.largest, level - 1) + 1)

    @property
    def levels(self) -> range:
        return range(2, 2 * self.largest + 1)

    @property
    def total(self) -> int:
        return int(self.level_start[-1])

    def level_size(self, level: int) -> int:
        return int(self.level_start[level + 1] - self.level_start[level])

    def rank(self, set_ids: np.ndarray) -> np.ndarray:
        """Each set's position among the sets of its size."""
        return set_ids - self.first[self.sizes[set_ids]]

    def column_start(self, s_size: int, t_ids: np.ndarray) -> np.ndarray:
        """The global index of (the first set of size s_size, T) for each T: the pairs
        (S, T) with |S| = s_size then follow at stride count[|T|]."""
        return self.block_start[s_size, self.sizes[t_ids]] + self.rank(t_ids)

    def global_index(self, s_ids: np.ndarray, t_ids: np.ndarray) -> np.ndarray:
        j = self.sizes[t_ids]
        return self.block_start[self.sizes[s_ids], j] + self.rank(s_ids) * self.count[j] + (
            self.rank(t_ids))

    def locate(self, s_ids: np.ndarray, t_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(level, position within the level) of each pair."""
        levels = self.sizes[s_ids] + self.sizes[t_ids]
        return levels, self.global_index(s_ids, t_ids) - self.level_start[levels]

    def pairs(self, level: int, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """The (S ids, T ids) at positions lo .. hi-1 of ``level``."""
        if not (0 <= lo <= hi <= self.level_size(level)):
            raise InvalidInput(f"level {level} has {self.level_size(level)} pairs; "
                               f"positions {lo}..{hi} are out of range")
        blocks = list(self._block_sizes(level))
        starts = np.array([self.block_start[i, level - i] for i in blocks], np.int64)
        position = self.level_start[level] + np.arange(lo, hi, dtype=np.int64)
        block = np.searchsorted(starts, position, side="right") - 1
        i = np.array(blocks, np.int64)[block]
        j = level - i
        local = position - starts[block]
        return self.first[i] + local // self.count[j], self.first[j] + local % self.count[j]


@dataclass(frozen=True)
class PairValues:
    """Values and optimal moves of a range of pairs.

    ``first_move``: the index (into the mover's moves, SetFamily.moves) of the first
    optimal move, -1 when only the final guess is optimal or there is no move;
    ``optimal_moves``: how many moves are optimal; ``final_optimal``: whether naming a
    character is optimal (official rules: the final guess; variant rules with |S| = 1:
    naming the last one).
    """

    values: np.ndarray
    first_move: np.ndarray
    optimal_moves: np.ndarray
    final_optimal: np.ndarray


def solve_pairs(family: SetFamily, index: PairIndex, level: int, lo: int, hi: int,
                lookup: Lookup) -> PairValues:
    """a(S, T) and the optimal moves of the pairs at positions lo .. hi-1 of ``level``.

    ``lookup(global_indices)`` returns a of pairs of lower levels (any vectorised source:
    an in-memory array of the lower levels, a store).
    """
    s_ids, t_ids = index.pairs(level, lo, hi)
    values = np.empty(hi - lo, np.int64)
    first_move = np.full(hi - lo, -1, np.int32)
    optimal_moves = np.zeros(hi - lo, np.int32)
    final_optimal = np.zeros(hi - lo, np.bool_)
    # Pairs come S-major: each run of one S (a row) shares S's moves, so a row is one
    # (opponent sets x moves) matrix.
    row_starts = np.flatnonzero(np.diff(s_ids, prepend=-1))
    row_ends = np.append(row_starts[1:], hi - lo)
    for start, end in zip(row_starts.tolist(), row_ends.tolist()):
        s_id = int(s_ids[start])
        row = slice(start, end)
        s_size, t_size = int(family.sizes[s_id]), family.sizes[t_ids[row]]
        # The final guess: always possible under the official rules, and the only move of
        # a single standing character under either rules.
        final_value = (t_size if s_size == 1 or family.rules == "official"
                       else np.full(end - start, np.iinfo(np.int64).min))
        moves = family.moves(s_id)
        if len(moves) == 0:
            values[row], final_optimal[row] = final_value, True
            continue
        # The opponent, now the mover, holds T; all T of a row have one size, so the
        # index of (T, child) is affine in T's rank with a per-child stride.
        movers = index.rank(t_ids[row])[:, None]
        named = moves[:, 1] == NAMED
        second = np.where(named, moves[:, 0], moves[:, 1])
        opponent = lookup(movers * index.count[family.sizes[moves[:, 0]]]
                          + index.column_start(int(t_size[0]), moves[:, 0]))
        # A naming move (variant rules) loses nothing on the branch where the name is right.
        opponent += np.where(named, 0, lookup(movers * index.count[family.sizes[second]]
                                              + index.column_start(int(t_size[0]), second)))
        move_value = (s_size * t_size)[:, None] - opponent
        best = np.maximum(move_value.max(axis=1), final_value)
        optimal = move_value == best[:, None]
        values[row] = best
        optimal_moves[row] = optimal.sum(axis=1)
        first_move[row] = np.where(optimal_moves[row] > 0, optimal.argmax(axis=1), -1)
        final_optimal[row] = final_value == best
    return PairValues(values, first_move, optimal_moves, final_optimal)


@dataclass(frozen=True)
class Solution:
    """Every pair's value and optimal moves, indexed by PairIndex.global_index."""

    family: SetFamily
    index: PairIndex
    values: np.ndarray
    first_move: np.ndarray
    optimal_moves: np.ndarray
    final_optimal: np.ndarray

    def lookup(self, global_indices: np.ndarray) -> np.ndarray:
        return self.values[global_indices]

    def a(self, s_id: int, t_id: int) -> int:
        return int(self.values[self.index.global_index(np.array([s_id]), np.array([t_id]))[0]])

    def probability(self, s_id: int, t_id: int) -> Fraction:
        """p(S, T) = a(S, T) / (|S||T|): the mover's win probability under optimal play."""
        sizes = self.family.sizes
        return Fraction(self.a(s_id, t_id), int(sizes[s_id] * sizes[t_id]))

    def optimal_questions(self, s_id: int, t_id: int) -> list[dict[str, bool] | str]:
        """The optimal moves of the mover at (S, T) as questions (variant rules: names)."""
        position = int(self.index.global_index(np.array([s_id]), np.array([t_id]))[0])
        value = int(self.values[position])
        sizes = self.family.sizes
        moves = self.family.moves(s_id)
        found = []
        for move, (first, second) in enumerate(moves.tolist()):
            opponent = self.a(t_id, first) + (0 if second == NAMED else self.a(t_id, second))
            if int(sizes[s_id] * sizes[t_id]) - opponent == value:
                found.append(self.family.describe_move(s_id, move))
        return found


def solve_all(family: SetFamily, chunk_pairs: int = CHUNK_PAIRS) -> Solution:
    """Every pair of reachable sets, level by level in memory (tests, small boards, and the
    classic board at one literal per question: 50 million pairs, about 1 GB)."""
    index = PairIndex(family)
    values = np.zeros(index.total, np.int64)
    first_move = np.zeros(index.total, np.int32)
    optimal_moves = np.zeros(index.total, np.int32)
    final_optimal = np.zeros(index.total, np.bool_)

    for level in index.levels:
        start = int(index.level_start[level])
        for lo in range(0, index.level_size(level), chunk_pairs):
            hi = min(lo + chunk_pairs, index.level_size(level))
            part = solve_pairs(family, index, level, lo, hi, values.__getitem__)
            values[start + lo:start + hi] = part.values
            first_move[start + lo:start + hi] = part.first_move
            optimal_moves[start + lo:start + hi] = part.optimal_moves
            final_optimal[start + lo:start + hi] = part.final_optimal
    return Solution(family, index, values, first_move, optimal_moves, final_optimal)
