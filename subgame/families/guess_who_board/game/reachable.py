"""Stage 1: the sets of standing characters a player can reach, and the moves out of each.

Characters are numbered in board order and a set of them is an int bitmask.  A question is
a description of at most d literals (trait or not-trait); on the standing set S it splits S
into S∩q and S\\q.  Two questions with the same split are one move, and only nontrivial
splits count (both sides non-empty).

Questions as sets.  A description of at most d literals describes the set
Q_d = {L_1 ∩ ... ∩ L_k : k <= d, L_i literal sets}, built round by round
(Q_k = Q_(k-1) ∪ {q ∩ L}) rather than by trying the 3^traits descriptions; the rounds stop
early when Q stops growing, which is the unlimited family: every conjunction-definable set,
i.e. the closed sets of the characters/traits context (7065 of them, the empty set
included, on the classic board).

Reachable sets: the closure of the full board under S -> S∩q, S\\q.  A character that some
question describes alone ("identifiable") can be split off any set holding it, so when every
character is identifiable every non-empty subset is reachable (2^n - 1); reachable_sets
refuses such families beyond ``max_sets`` before enumerating them.

Rules.  Official: the moves of S (|S| >= 2) are its distinct splits; the final guess is
left to the solver.  Variant (O'Neill's rules II): naming a character c is also a move, won
outright when right and leaving S\\{c} when wrong; every subset of the board is then
reachable, so only small boards fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from subgame.errors import InvalidInput

from . import bitsets
from .bitsets import NAMED
from .board import Character, descriptions_up_to

RULES = ("official", "variant")
UNLIMITED = None
# Sort keys pack (size, mask) into one int64: size << n | mask.
MAX_CHARACTERS = 56
DEFAULT_MAX_SETS = 200_000


class BoardSets:
    """Sets of a board's characters as bitmasks: bit i is ``characters[i]``."""

    characters: tuple[Character, ...]

    def names(self, mask: int) -> list[str]:
        return [c.name for i, c in enumerate(self.characters) if mask >> i & 1]

    def mask_of(self, names: Sequence[str]) -> int:
        index = {c.name: i for i, c in enumerate(self.characters)}
        unknown = [name for name in names if name not in index]
        if unknown:
            raise InvalidInput(f"unknown character {unknown[0]!r}")
        return sum(1 << index[name] for name in set(names))

    @property
    def full_mask(self) -> int:
        return (1 << len(self.characters)) - 1


@dataclass(frozen=True)
class SetFamily(BoardSets):
    """The reachable sets of one board under one question limit and one rule set.

    ``masks[i]`` is set i (sets are numbered by size, then mask, so ids of one size are
    contiguous); the moves of set i are ``move_children[move_ptr[i]:move_ptr[i + 1]]``,
    each a pair of child set ids (S∩q, S\\q) with the smaller mask first, or (S\\{c}, NAMED)
    for naming c under the variant rules.
    """

    characters: tuple[Character, ...]
    traits: tuple[str, ...]
    max_literals: int | None
    rules: str
    masks: np.ndarray
    sizes: np.ndarray
    move_ptr: np.ndarray
    move_children: np.ndarray

    def __len__(self) -> int:
        return len(self.masks)

    @property
    def full(self) -> int:
        """The id of the full board (the last set: the only one of the largest size)."""
        return len(self.masks) - 1

    @cached_property
    def _keys(self) -> np.ndarray:
        return _sort_keys(self.masks, len(self.characters))

    def id_of(self, mask: int) -> int:
        """The id of the set ``mask``; InvalidInput if it is not reachable."""
        key = _sort_keys(np.array([mask], np.int64), len(self.characters))[0]
        index = int(np.searchsorted(self._keys, key))
        if index == len(self._keys) or self._keys[index] != key:
            raise InvalidInput(f"the set {self.names(mask)} is not reachable")
        return index

    def moves(self, set_id: int) -> np.ndarray:
        return self.move_children[self.move_ptr[set_id]:self.move_ptr[set_id + 1]]

    def describe_move(self, set_id: int, move: int) -> dict[str, bool] | str:
        """A question that makes move ``move`` of set ``set_id`` (describe_split); under the
        variant rules a naming move is reported as the character's name."""
        first, second = (int(x) for x in self.moves(set_id)[move])
        standing = int(self.masks[set_id])
        if second == NAMED:
            (name,) = self.names(standing & ~int(self.masks[first]))
            return name
        return describe_split(self.characters, self.max_literals, standing,
                              int(self.masks[first]))


def describe_split(characters: Sequence[Character], max_literals: int | None, standing: int,
                   part: int) -> dict[str, bool]:
    """A question that splits ``standing`` into ``part`` and the rest: the shortest
    description, first in the seed's order among those."""
    traits = sorted({t for c in characters for t in c.traits})
    wanted = {part, standing ^ part}
    masks = literal_masks(characters, traits)
    full = (1 << len(characters)) - 1
    limit = len(traits) if max_literals is None else max_literals
    for size in range(1, limit + 1):
        for question in descriptions_up_to(traits, size):
            if len(question) == size and standing & described_mask(
                    question, masks, full) in wanted:
                return question
    raise AssertionError("every move comes from a question")  # pragma: no cover


def literal_masks(characters: Sequence[Character], traits: Sequence[str]) -> dict[str, int]:
    """Per trait, the mask of the characters that have it."""
    return {t: sum(1 << i for i, c in enumerate(characters) if c.has(t)) for t in traits}


def described_mask(question: dict[str, bool], masks: dict[str, int], full: int) -> int:
    """The characters (of ``full``) that ``question`` describes, given each trait's mask."""
    described = full
    for trait, wanted in question.items():
        described &= masks[trait] if wanted else full & ~masks[trait]
    return described


def question_sets(characters: Sequence[Character], max_literals: int | None) -> np.ndarray:
    """The sorted distinct sets that descriptions of at most ``max_literals`` literals
    describe on the full board (None: any number)."""
    _check_board(characters)
    full = (1 << len(characters)) - 1
    traits = sorted({t for c in characters for t in c.traits})
    by_trait = literal_masks(characters, traits)
    literals = sorted({m for t in traits for m in (by_trait[t], full & ~by_trait[t])})
    described = {full}
    rounds = len(traits) if max_literals is None else max_literals
    for _ in range(rounds):
        grown = described | {q & literal for q in described for literal in literals}
        if len(grown) == len(described):
            break
        described = grown
    return np.array(sorted(described), np.int64)


def identifiable_characters(characters: Sequence[Character], max_literals: int | None
                            ) -> list[str]:
    """The characters that some description of at most ``max_literals`` literals describes
    alone: each can be split off any set that holds it."""
    described = set(question_sets(characters, max_literals).tolist())
    return [c.name for i, c in enumerate(characters) if 1 << i in described]


def reachable_sets(characters: Sequence[Character], max_literals: int | None = 1,
                   rules: str = "official", max_sets: int = DEFAULT_MAX_SETS) -> SetFamily:
    """The closure of the full board under the allowed moves, with each set's moves."""
    if rules not in RULES:
        raise InvalidInput(f"rules must be one of {RULES}, got {rules!r}")
    if max_literals is not None and (isinstance(max_literals, bool)
                                     or not isinstance(max_literals, int) or max_literals < 1):
        raise InvalidInput(f"questions need at least one literal: max_literals must be a "
                           f"positive integer or None (unlimited), got {max_literals!r}")
    characters = tuple(characters)
    questions = question_sets(characters, max_literals)
    n = len(characters)
    everything = 2**n - 1
    if everything > max_sets and (rules == "variant" or len(
            identifiable_characters(characters, max_literals)) == n):
        raise InvalidInput(
            f"every one of the {everything} non-empty subsets of the {n} characters is "
            f"reachable (each character can be split off alone), more than max_sets = "
            f"{max_sets}")
    masks = reachable_masks(questions, n, rules, max_sets)
    move_ptr, children = bitsets.set_moves(masks, questions, rules == "variant", n)
    return SetFamily(characters, tuple(sorted({t for c in characters for t in c.traits})),
                     max_literals, rules, masks, bitsets.popcounts(masks), move_ptr,
                     children.astype(np.int32))


def reachable_masks(questions: np.ndarray, n: int, rules: str = "official",
                    max_sets: int | None = None) -> np.ndarray:
    """The reachable masks of an n-character board, sorted by size then mask (compiled
    breadth-first closure, bitsets.closure: about 50 bytes per set at its peak);
    InvalidInput once more than ``max_sets`` are found."""
    limit = np.iinfo(np.int64).max if max_sets is None else max_sets
    found = bitsets.closure(questions, n, rules == "variant", limit)
    if len(found) > limit:
        raise InvalidInput(f"more than max_sets = {max_sets} reachable sets")
    return found[np.argsort(_sort_keys(found, n), kind="stable")]


def _sort_keys(masks: np.ndarray, n: int) -> np.ndarray:
    return (bitsets.popcounts(masks) << n) | masks


def _check_board(characters: Sequence[Character]) -> None:
    if not characters:
        raise InvalidInput("the board has no characters")
    if len(characters) > MAX_CHARACTERS:
        raise InvalidInput(f"at most {MAX_CHARACTERS} characters, got {len(characters)}")
    names = [c.name for c in characters]
    if len(set(names)) != len(names):
        raise InvalidInput("two characters share a name")
    if len({frozenset(c.traits) for c in characters}) != len(characters):
        raise InvalidInput("two characters have identical traits, so no question can tell "
                           "them apart")


def count_reachable(characters: Sequence[Character], max_literals: int | None) -> int:
    """How many sets are reachable under the official rules, without their moves (the
    classic board at d = 2 or 3, beyond what the set solver fits)."""
    return len(reachable_masks(question_sets(characters, max_literals), len(characters)))
