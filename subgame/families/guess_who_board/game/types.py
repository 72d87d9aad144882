"""Types of reachable sets: sets that play alike, so the pair solve runs on types.

Two reductions, both computed level by level in the set size k:

- "bisimulation": S and S' of one size have the same type when the sets of child-type
  pairs of their splits, {{type(S∩q), type(S\\q)} : q}, coincide (under the variant rules
  naming c adds the pair (type(S\\{c}), NAMED)).  Then a(S, T) = a(S', T) and
  a(T, S) = a(T, S') for every T.
- "dominance": besides, a preorder X >= Y on types of one size ("X is at least as rich":
  every move of Y is matched, side by side in size, by a move of X whose children are >=);
  a move whose children are matched that way by another move of the same type is dropped
  (it never does better), and types whose remaining move sets coincide are merged.  The
  preorder is computed among the types of a size while it is cheap (GE_WORK comparisons);
  beyond that only X >= X is used, which keeps every rule sound.

A move (pair of child types) is encoded as one int64: lo << 32 | hi with lo <= hi, or
t << 32 | NAMED_CODE for naming a character (variant rules).  Type ids are numbered by size
(then by first appearance), so a TypeFamily feeds PairIndex and solve_pairs as a SetFamily
does: sizes, move_ptr, move_children.

Memory: the sorted reachable masks and their types (12 bytes per set), the hash index of
the masks (32-64 bytes per set), per level the hashes of the level's sets (16 bytes per set),
and the type tables.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numba import njit

from subgame.errors import InvalidInput

from . import bitsets
from .bitsets import NAMED
from .board import Character
from .reachable import RULES, BoardSets, question_sets, reachable_masks

REDUCTIONS = ("bisimulation", "dominance")
NAMED_CODE = 0xFFFFFFFF
# Comparisons (pairs of types x pairs of moves) allowed for one size's preorder.
GE_WORK = 2e8


@njit(cache=True, inline="always")
def _set_signature(standing, questions, keys, values, bits, set_type, variant, out, buffer):
    """The sorted distinct move codes of one set into ``out``; returns how many."""
    splits = bitsets.distinct_splits(questions, standing, buffer)
    count = 0
    for i in range(splits):
        a = set_type[bitsets.find(keys, values, bits, buffer[i])]
        b = set_type[bitsets.find(keys, values, bits, standing ^ buffer[i])]
        out[count] = (min(a, b) << 32) | max(a, b)
        count += 1
    if variant and standing & (standing - 1):
        rest = standing
        while rest:
            bit = rest & -rest
            rest ^= bit
            out[count] = (set_type[bitsets.find(keys, values, bits, standing ^ bit)] << 32
                          ) | NAMED_CODE
            count += 1
    return bitsets.sorted_distinct(out, count)


@njit(cache=True)
def _level_hashes(masks, questions, keys, values, bits, set_type, variant, n):
    """Two independent 64-bit hashes of each set's signature."""
    hashes = np.empty((len(masks), 2), np.uint64)
    out = np.empty(len(questions) + n, np.int64)
    buffer = np.empty(len(questions), np.int64)
    for i in range(len(masks)):
        count = _set_signature(masks[i], questions, keys, values, bits, set_type, variant,
                               out, buffer)
        h1, h2 = np.uint64(count), np.uint64(count) ^ np.uint64(0x5BD1E995)
        for j in range(count):
            code = np.uint64(out[j])
            h1 = (h1 ^ code) * np.uint64(0x100000001B3)
            h2 = (h2 + code) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x632BE59BD9B4E019)
            h2 ^= h2 >> np.uint64(29)
        hashes[i, 0], hashes[i, 1] = h1, h2
    return hashes


@njit(cache=True)
def _class_signatures(masks, representatives, questions, keys, values, bits, set_type,
                      variant, n):
    """The signatures of the representative sets as CSR (ptr, codes)."""
    out = np.empty(len(questions) + n, np.int64)
    buffer = np.empty(len(questions), np.int64)
    ptr = np.zeros(len(representatives) + 1, np.int64)
    codes = np.empty(16 + len(representatives) * 8, np.int64)
    for c in range(len(representatives)):
        count = _set_signature(masks[representatives[c]], questions, keys, values, bits,
                               set_type, variant, out, buffer)
        if ptr[c] + count > len(codes):
            grown = np.empty(2 * (ptr[c] + count), np.int64)
            grown[:ptr[c]] = codes[:ptr[c]]
            codes = grown
        codes[ptr[c]:ptr[c] + count] = out[:count]
        ptr[c + 1] = ptr[c] + count
    return ptr, codes[:ptr[-1]]


@njit(cache=True)
def _mismatches(masks, classes, ptr, codes, questions, keys, values, bits, set_type,
                variant, n):
    """How many sets' signatures differ from their class representative's (hash
    collisions: the exact check behind the hashes)."""
    out = np.empty(len(questions) + n, np.int64)
    buffer = np.empty(len(questions), np.int64)
    wrong = 0
    for i in range(len(masks)):
        count = _set_signature(masks[i], questions, keys, values, bits, set_type, variant,
                               out, buffer)
        c = classes[i]
        if count != ptr[c + 1] - ptr[c] or (out[:count] != codes[ptr[c]:ptr[c + 1]]).any():
            wrong += 1
    return wrong


@njit(cache=True, inline="always")
def _child_ge(x, y, type_size, type_rank, ge_flat, ge_start, ge_count):
    """x >= y for two types (False across sizes); identity where no preorder is kept."""
    if x == y:
        return True
    size = type_size[x]
    if type_size[y] != size or ge_count[size] == 0:
        return False
    return ge_flat[ge_start[size] + type_rank[x] * ge_count[size] + type_rank[y]]


@njit(cache=True, inline="always")
def _move_ge(a, b, type_size, type_rank, ge_flat, ge_start, ge_count):
    """Move a's children dominate move b's, side by side (either pairing when the sides
    have one size)."""
    a1, a2, b1, b2 = a >> 32, a & NAMED_CODE, b >> 32, b & NAMED_CODE
    if (a2 == NAMED_CODE) != (b2 == NAMED_CODE):
        return False
    if a2 == NAMED_CODE:
        return _child_ge(a1, b1, type_size, type_rank, ge_flat, ge_start, ge_count)
    if (_child_ge(a1, b1, type_size, type_rank, ge_flat, ge_start, ge_count)
            and _child_ge(a2, b2, type_size, type_rank, ge_flat, ge_start, ge_count)):
        return True
    return (_child_ge(a1, b2, type_size, type_rank, ge_flat, ge_start, ge_count)
            and _child_ge(a2, b1, type_size, type_rank, ge_flat, ge_start, ge_count))


@njit(cache=True)
def _prune(ptr, codes, type_size, type_rank, ge_flat, ge_start, ge_count):
    """Each class's moves less the dominated ones: b goes when another move a >= b, and,
    if b >= a as well, a comes first (one of equivalent moves stays)."""
    keep = np.ones(len(codes), np.bool_)
    for c in range(len(ptr) - 1):
        for j in range(ptr[c], ptr[c + 1]):
            for i in range(ptr[c], ptr[c + 1]):
                if i != j and keep[i] and _move_ge(codes[i], codes[j], type_size, type_rank,
                                                    ge_flat, ge_start, ge_count):
                    if i < j or not _move_ge(codes[j], codes[i], type_size, type_rank,
                                             ge_flat, ge_start, ge_count):
                        keep[j] = False
                        break
    return keep


@njit(cache=True)
def _preorder(ptr, codes, type_size, type_rank, ge_flat, ge_start, ge_count):
    """ge[x, y]: every move of y is dominated by some move of x (types of one size)."""
    m = len(ptr) - 1
    ge = np.zeros((m, m), np.bool_)
    for x in range(m):
        for y in range(m):
            if x == y:
                ge[x, y] = True
                continue
            covered = True
            for j in range(ptr[y], ptr[y + 1]):
                found = False
                for i in range(ptr[x], ptr[x + 1]):
                    if _move_ge(codes[i], codes[j], type_size, type_rank, ge_flat, ge_start,
                                ge_count):
                        found = True
                        break
                if not found:
                    covered = False
                    break
            ge[x, y] = covered
    return ge


@dataclass(frozen=True)
class TypeFamily(BoardSets):
    """The types of one board's reachable sets, and their moves.

    ``masks`` are the reachable sets (sorted by size, then mask), ``set_type[i]`` the type
    of masks[i]; type t has size sizes[t], a representative set representative[t], and the
    moves move_children[move_ptr[t]:move_ptr[t + 1]] (pairs of child types, or
    (t', NAMED) for naming a character) after the reduction's pruning.
    ``classes_per_size`` counts the bisimulation classes of each size before merging.
    """

    characters: tuple[Character, ...]
    max_literals: int | None
    rules: str
    reduction: str
    masks: np.ndarray
    set_type: np.ndarray
    sizes: np.ndarray
    representative: np.ndarray
    move_ptr: np.ndarray
    move_children: np.ndarray
    classes_per_size: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.sizes)

    @property
    def full(self) -> int:
        return int(self.set_type[-1])

    def moves(self, type_id: int) -> np.ndarray:
        return self.move_children[self.move_ptr[type_id]:self.move_ptr[type_id + 1]]

    @property
    def types_per_size(self) -> np.ndarray:
        """Index k: the number of types of size k."""
        return np.bincount(self.sizes, minlength=len(self.characters) + 1)

    @property
    def sets_per_size(self) -> np.ndarray:
        return np.bincount(bitsets.popcounts(self.masks), minlength=len(self.characters) + 1)

    @cached_property
    def _index(self):
        return bitsets.index_masks(self.masks, len(self.characters))

    def type_of(self, mask: int) -> int:
        """The type of a reachable set; InvalidInput if it is not reachable."""
        position = int(bitsets.find(*self._index, mask))
        if position < 0:
            raise InvalidInput(f"the set {self.names(mask)} is not reachable")
        return int(self.set_type[position])


class TypeLevels:
    """The types of a board's reachable sets, built level by level in the set size.

    ``add(k)`` computes the types of the sets of size k from those of the smaller sizes;
    ``restore(k, level_types)`` takes them as stored instead (a pipeline's stage writes each
    size's ``level_types`` and a later process resumes from them): the types of a size are
    numbered by their first set, so the representative of each, its pruned moves and the
    size's preorder follow from ``level_types`` alone, exactly as ``add`` made them.
    """

    def __init__(self, characters: Sequence[Character], max_literals: int | None,
                 rules: str, reduction: str, masks: np.ndarray):
        if rules not in RULES:
            raise InvalidInput(f"rules must be one of {RULES}, got {rules!r}")
        if reduction not in REDUCTIONS:
            raise InvalidInput(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")
        self.characters, self.max_literals = tuple(characters), max_literals
        self.rules, self.reduction = rules, reduction
        n = len(self.characters)
        self.questions = question_sets(self.characters, max_literals)
        self.masks = masks
        self.index = bitsets.index_masks(masks, n)
        self.bounds = np.searchsorted(bitsets.popcounts(masks), np.arange(n + 2))
        self.variant = rules == "variant"
        self.set_type = np.full(len(masks), -1, np.int64)
        self.type_size: list[np.ndarray] = []
        self.representatives: list[np.ndarray] = []
        self.move_lists: list[tuple[np.ndarray, np.ndarray]] = []
        self.classes_per_size = np.zeros(n + 1, np.int64)
        # The preorder per size, flat (empty where only identity is kept).
        self.ge_parts: list[np.ndarray] = []
        self.ge_start, self.ge_count = np.zeros(n + 2, np.int64), np.zeros(n + 2, np.int64)
        self.type_rank = np.zeros(0, np.int64)
        self.first_type = 0
        self.through = 0  # sizes 1 .. through are done

    def level(self, k: int) -> tuple[int, int]:
        """The positions lo .. hi-1 of the sets of size k in ``masks``."""
        return int(self.bounds[k]), int(self.bounds[k + 1])

    def _lower(self) -> tuple[np.ndarray, np.ndarray]:
        sizes = np.concatenate(self.type_size) if self.type_size else np.zeros(0, np.int64)
        ge = np.concatenate(self.ge_parts) if self.ge_parts else np.zeros(0, np.bool_)
        return sizes, ge

    def _signatures(self, lo: int, hi: int, first: np.ndarray):
        return _class_signatures(self.masks[lo:hi], first, self.questions, *self.index,
                                 self.set_type, self.variant, len(self.characters))

    def _next(self, k: int) -> tuple[int, int]:
        """The level of size k, which must be the next one."""
        if k != self.through + 1:
            raise ValueError(f"the types are known through size {self.through}; size {k} "
                             "is not the next")
        return self.level(k)

    def add(self, k: int) -> np.ndarray:
        """The types of the sets of size k (global type ids, one per set of the size)."""
        lo, hi = self._next(k)
        n = len(self.characters)
        if lo < hi:
            args = (self.questions, *self.index, self.set_type, self.variant, n)
            hashes = _level_hashes(self.masks[lo:hi], *args)
            _, first, classes = np.unique(hashes, axis=0, return_index=True,
                                          return_inverse=True)
            classes = classes.reshape(-1)
            # Classes in order of first appearance.
            order = np.argsort(first, kind="stable")
            relabel = np.empty_like(order)
            relabel[order] = np.arange(len(order))
            classes, first = relabel[classes], first[order]
            ptr, codes = self._signatures(lo, hi, first)
            if _mismatches(self.masks[lo:hi], classes, ptr, codes, *args):
                raise AssertionError("two signatures share both hashes")  # pragma: no cover
            self.classes_per_size[k] = len(first)
            if self.reduction == "dominance":
                first, classes, ptr, codes = _prune_and_merge(
                    first, classes, ptr, codes, _prune(ptr, codes, *self._pruning()))
            self._record(k, lo, first, classes, ptr, codes)
        self.through = k
        return self.set_type[lo:hi]

    def restore(self, k: int, level_types: np.ndarray, classes: int = 0) -> None:
        """Take the types of size k as ``add`` made them (``classes``: the bisimulation
        classes before merging, as add counted them, 0 if unknown)."""
        lo, hi = self._next(k)
        if lo < hi:
            local = np.asarray(level_types, np.int64) - self.first_type
            _, first = np.unique(local, return_index=True)
            if len(local) != hi - lo or (local < 0).any() or len(first) != local.max() + 1 \
                    or (np.diff(first) <= 0).any():
                raise ValueError(f"the stored types of size {k} are not numbered from "
                                 f"{self.first_type} by first set")
            ptr, codes = self._signatures(lo, hi, first)
            if self.reduction == "dominance":
                keep = _prune(ptr, codes, *self._pruning())
                counts = np.bincount(np.repeat(np.arange(len(first)), np.diff(ptr))[keep],
                                     minlength=len(first))
                ptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
                codes = codes[keep]
            self.classes_per_size[k] = classes
            self._record(k, lo, first, local, ptr, codes)
        self.through = k

    def _pruning(self):
        sizes, ge = self._lower()
        return sizes, self.type_rank, ge, self.ge_start, self.ge_count

    def _record(self, k, lo, first, classes, ptr, codes) -> None:
        count = len(first)
        _, ge_flat = self._lower()
        self.set_type[lo:lo + len(classes)] = self.first_type + classes
        self.type_size.append(np.full(count, k, np.int64))
        self.type_rank = np.concatenate((self.type_rank, np.arange(count, dtype=np.int64)))
        self.representatives.append(lo + first)
        self.move_lists.append((ptr, codes))
        if self.reduction == "dominance" and count * count * max(
                1, (len(codes) / count) ** 2) <= GE_WORK:
            ge = _preorder(ptr, codes, np.concatenate(self.type_size), self.type_rank,
                           ge_flat, self.ge_start, self.ge_count)
            self.ge_start[k], self.ge_count[k] = len(ge_flat), count
            self.ge_parts.append(ge.reshape(-1))
        self.first_type += count

    def family(self) -> TypeFamily:
        """The types of every size, once all are known."""
        if self.through < len(self.characters):
            raise ValueError(f"the types are known through size {self.through} only")
        return _family(self.characters, self.max_literals, self.rules, self.reduction,
                       self.masks, self.set_type, np.concatenate(self.type_size),
                       np.concatenate(self.representatives), self.move_lists,
                       self.classes_per_size)


def set_types(characters: Sequence[Character], max_literals: int | None = 1,
              rules: str = "official", reduction: str = "dominance",
              max_sets: int | None = None) -> TypeFamily:
    """The types of every reachable set, level by level in the set size."""
    characters = tuple(characters)
    if rules not in RULES:
        raise InvalidInput(f"rules must be one of {RULES}, got {rules!r}")
    masks = reachable_masks(question_sets(characters, max_literals), len(characters), rules,
                            max_sets)
    levels = TypeLevels(characters, max_literals, rules, reduction, masks)
    for k in range(1, len(characters) + 1):
        levels.add(k)
    return levels.family()


def _prune_and_merge(first, classes, ptr, codes, keep):
    """Drop the moves not kept, then merge the classes whose remaining moves coincide."""
    owner = np.repeat(np.arange(len(first)), np.diff(ptr))
    counts = np.bincount(owner[keep], minlength=len(first))
    codes = codes[keep]
    bounds = np.concatenate(([0], np.cumsum(counts))).tolist()
    lists = [codes[bounds[c]:bounds[c + 1]] for c in range(len(first))]
    merged: dict[bytes, int] = {}
    class_type = np.array([merged.setdefault(moves.tobytes(), len(merged))
                           for moves in lists], np.int64)
    kept = np.unique(class_type, return_index=True)[1]
    ptr = np.concatenate(([0], np.cumsum(counts[kept]))).astype(np.int64)
    codes = np.concatenate([lists[c] for c in kept.tolist()])
    return first[kept], class_type[classes], ptr, codes


def _family(characters, max_literals, rules, reduction, masks, set_type, sizes,
            representatives, move_lists, classes_per_size) -> TypeFamily:
    """Decode the move codes into (child, child) type pairs, in CSR."""
    counts = np.concatenate([np.diff(ptr) for ptr, _ in move_lists])
    codes = np.concatenate([c for _, c in move_lists])
    first, second = codes >> 32, codes & NAMED_CODE
    children = np.stack((first, np.where(second == NAMED_CODE, NAMED, second)), axis=1)
    move_ptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return TypeFamily(characters, max_literals, rules, reduction, masks,
                      set_type.astype(np.int32), sizes, representatives.astype(np.int64),
                      move_ptr, children.astype(np.int32), classes_per_size)


def concrete_moves(family: TypeFamily, standing: int) -> list[tuple[int, int]]:
    """Every move of the concrete set ``standing`` (pruned or not): (S∩q, S\\q) masks with
    the smaller mask first, ascending, then under the variant rules (S\\{c}, NAMED) for
    each character c, lowest first."""
    questions = question_sets(family.characters, family.max_literals)
    buffer = np.empty(len(questions), np.int64)
    count = bitsets.distinct_splits(questions, standing, buffer)
    moves = [(int(m), standing ^ int(m)) for m in buffer[:count].tolist()]
    if family.rules == "variant" and standing.bit_count() >= 2:
        moves += [(standing ^ (1 << i), NAMED) for i in range(standing.bit_length())
                  if standing >> i & 1]
    return moves


def optimal_moves(family: TypeFamily, a: Callable[[int, int], int], standing: int,
                  opponent: int) -> tuple[int, list[tuple[int, int]], bool]:
    """a(S, T) for concrete sets, from a(type, type); every optimal move of S (as
    concrete_moves gives them) and whether the final guess (or naming the last one) is
    optimal."""
    s_type, t_type = family.type_of(standing), family.type_of(opponent)
    value = a(s_type, t_type)
    product_ = standing.bit_count() * opponent.bit_count()
    best = []
    for move in concrete_moves(family, standing):
        taken = a(t_type, family.type_of(move[0])) + (
            0 if move[1] == NAMED else a(t_type, family.type_of(move[1])))
        if product_ - taken == value:
            best.append(move)
    final = standing.bit_count() == 1 or (family.rules == "official"
                                          and value == opponent.bit_count())
    return value, best, final
