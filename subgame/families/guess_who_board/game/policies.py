"""Simple policies, evaluated exactly against the optimal player and against themselves.

A policy fixes one move per standing set S:

- closest_to_half_moves: the seed's rule, best_description over the traits of the standing
  characters restricted to at most d literals: the description whose potential is closest
  to |S|/2, ties to the first in the seed's order (Board.best_description);
- most_balanced_trait_moves: binary search on single traits: the trait whose split is most
  balanced, ties to the first trait in sorted order.

Convention: the policy names the character when one stands; otherwise it asks its
question; if its rule yields no splitting question (impossible on a board whose
characters the allowed questions tell apart) it makes the final guess.  With
``guess_facing_last`` it also makes the final guess whenever the opponent has one character
standing (the opponent names it next turn, so asking can only lose); the count of the
opponent's standing characters is visible on the table.

With b(S, T) = |S||T| P(the policy, to move with S, wins against an opponent holding T)
and m(S) = (S1, S2) the policy's split:

    b(S, T) = |T|                       if |S| = 1, S has no move (or guessing facing |T| = 1)
    b(S, T) = |S||T| - o(T, S1) - o(T, S2)                  otherwise

where o is the opponent's a-value when it moves against the policy: against itself
o = b; against the optimal player

    o(T, S) = |S| if |T| = 1, else max(|S|, max_q |T||S| - b(S, T∩q) - b(S, T\\q)),

the optimal recursion with the policy's b in place of a (solve_pairs with b as lookup).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from subgame.errors import InvalidInput

from .board import descriptions_up_to
from .reachable import NAMED, SetFamily, described_mask, literal_masks
from .solve import Lookup, PairIndex, solve_pairs

NO_MOVE = -1
OPPONENTS = ("optimal", "self")

_BYTE_POPCOUNT = np.array([bin(byte).count("1") for byte in range(256)], np.int64)


def _popcount(masks: np.ndarray) -> np.ndarray:
    return _BYTE_POPCOUNT[masks.astype(np.int64).view(np.uint8)].reshape(-1, 8).sum(axis=1)


def closest_to_half_moves(family: SetFamily, max_literals: int | None = 1) -> np.ndarray:
    """Per set, the index of the policy's move in family.moves(S) (NO_MOVE: none).

    The policy's questions must be moves of the family: ``max_literals`` at most the
    family's limit.
    """
    if family.max_literals is not None and (max_literals is None
                                            or max_literals > family.max_literals):
        raise InvalidInput(f"a policy of {max_literals} literals needs a family built with "
                           f"at least that many, not {family.max_literals}")
    traits = list(family.traits)
    by_trait = literal_masks(family.characters, traits)
    # All candidate descriptions, in the seed's order over the full sorted trait list; for
    # the traits of a standing set (a sorted sub-list) the order is the same, as the
    # unused positions are None in every candidate.
    candidates = descriptions_up_to(traits, max_literals)
    described = np.array([described_mask(q, by_trait, family.full_mask) for q in candidates],
                         np.int64)
    uses = np.array([sum(1 << traits.index(t) for t in q) for q in candidates], np.int64)
    moves = np.full(len(family), NO_MOVE, np.int64)
    for set_id, standing in enumerate(family.masks.tolist()):
        size = int(family.sizes[set_id])
        if size == 1:
            continue
        present = sum(1 << i for i, t in enumerate(traits) if by_trait[t] & standing)
        eligible = np.flatnonzero((uses & ~present) == 0)
        potential = _popcount(described[eligible] & standing)
        # argmin returns the first minimum: the first candidate in the seed's order.
        best = eligible[np.argmin(np.abs(2 * potential - size))]
        moves[set_id] = _move_index(family, set_id, int(described[best]) & standing)
    return moves


def most_balanced_trait_moves(family: SetFamily) -> np.ndarray:
    """Per set, the move that splits on the single trait with the most balanced split
    (ties: the first trait in sorted order); NO_MOVE for single characters."""
    by_trait = literal_masks(family.characters, family.traits)
    moves = np.full(len(family), NO_MOVE, np.int64)
    for set_id, standing in enumerate(family.masks.tolist()):
        size = int(family.sizes[set_id])
        if size == 1:
            continue
        imbalance = [abs(2 * (by_trait[t] & standing).bit_count() - size)
                     for t in family.traits]
        inside = by_trait[family.traits[int(np.argmin(imbalance))]] & standing
        moves[set_id] = _move_index(family, set_id, inside)
    return moves


def _move_index(family: SetFamily, set_id: int, inside: int) -> int:
    """The index of the split of S into ``inside`` and the rest; NO_MOVE if trivial."""
    standing = int(family.masks[set_id])
    if inside in (0, standing):
        return NO_MOVE
    children = {family.id_of(inside), family.id_of(standing & ~inside)}
    for index, (first, second) in enumerate(family.moves(set_id).tolist()):
        if second != NAMED and {first, second} == children:
            return index
    raise AssertionError("the family holds every split its questions make")  # pragma: no cover


@dataclass(frozen=True)
class PolicyValues:
    """b (the policy to move) and o (the opponent to move), by PairIndex.global_index."""

    family: SetFamily
    index: PairIndex
    policy_to_move: np.ndarray
    opponent_to_move: np.ndarray

    def _at(self, table: np.ndarray, s_id: int, t_id: int) -> Fraction:
        sizes = self.family.sizes
        value = int(table[self.index.global_index(np.array([s_id]), np.array([t_id]))[0]])
        return Fraction(value, int(sizes[s_id] * sizes[t_id]))

    def policy_wins(self, policy_set: int, opponent_set: int) -> Fraction:
        """The policy's win probability when it moves first."""
        return self._at(self.policy_to_move, policy_set, opponent_set)

    def opponent_wins(self, opponent_set: int, policy_set: int) -> Fraction:
        """The opponent's win probability when it moves first."""
        return self._at(self.opponent_to_move, opponent_set, policy_set)


def policy_pairs(family: SetFamily, index: PairIndex, level: int, lo: int, hi: int,
                 policy_moves: np.ndarray, opponent_lookup: Lookup,
                 guess_facing_last: bool = False) -> np.ndarray:
    """b(S, T) of the pairs at positions lo .. hi-1 of ``level``, the policy to move.

    ``opponent_lookup(global_indices)`` returns o of lower levels (b for self-play);
    the opponent's side of a level, o against the optimal player, is
    solve_pairs(family, index, level, lo, hi, lookup into b).  Levels, shards and lookups
    work as in stage 2.
    """
    s_ids, t_ids = index.pairs(level, lo, hi)
    moves = policy_moves[s_ids] >= 0
    if guess_facing_last:
        moves &= family.sizes[t_ids] > 1
    chosen = family.move_ptr[s_ids[moves]] + policy_moves[s_ids[moves]]
    first, second = family.move_children[chosen, 0], family.move_children[chosen, 1]
    # No move: the final guess (or naming the last character), worth |T|.
    values = family.sizes[t_ids].copy()
    values[moves] = (family.sizes[s_ids] * family.sizes[t_ids])[moves] - opponent_lookup(
        index.global_index(t_ids[moves], first)) - opponent_lookup(
        index.global_index(t_ids[moves], second))
    return values


def evaluate_policy(family: SetFamily, policy_moves: np.ndarray, opponent: str = "optimal",
                    guess_facing_last: bool = False) -> PolicyValues:
    """b and o for every pair of reachable sets, level by level in memory (see the module
    docstring)."""
    if opponent not in OPPONENTS:
        raise InvalidInput(f"opponent must be one of {OPPONENTS}, got {opponent!r}")
    if family.rules != "official":
        raise InvalidInput("policies are evaluated under the official rules only")
    index = PairIndex(family)
    policy_to_move = np.zeros(index.total, np.int64)
    opponent_to_move = policy_to_move if opponent == "self" else np.zeros(index.total,
                                                                           np.int64)

    for level in index.levels:
        start, size = int(index.level_start[level]), index.level_size(level)
        policy_to_move[start:start + size] = policy_pairs(
            family, index, level, 0, size, policy_moves, opponent_to_move.__getitem__,
            guess_facing_last)
        if opponent == "optimal":
            opponent_to_move[start:start + size] = solve_pairs(
                family, index, level, 0, size, policy_to_move.__getitem__).values
    return PolicyValues(family, index, policy_to_move, opponent_to_move)
