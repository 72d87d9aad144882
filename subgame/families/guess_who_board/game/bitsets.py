"""Compiled kernels over sets of characters as int64 bitmasks (numba).

- closure: the reachable sets, breadth-first from the full board; the seen set a byte per
  subset (n <= 28) or an open-addressing hash set of masks (larger boards);
- index_masks / find: mask -> position in an array of masks (a direct table, or the same
  hash table with values);
- distinct_splits: the distinct nontrivial splits {S∩q, S\\q} of one standing set, the side
  with the smaller mask first, ascending;
- set_moves: every set's moves as pairs of child ids (the CSR arrays of SetFamily).

A hash slot holds mask + 1 (0 is empty); masks are non-negative, so mask + 1 never wraps.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# A naming move's second child (variant rules): the branch where the name is right.
NAMED = -1
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
# Up to this many characters the closure's seen set is a byte per subset (256 MiB).
BITMAP_CHARACTERS = 28
# Up to this many characters mask -> position is a direct table of every subset.
DIRECT_CHARACTERS = 26


@njit(cache=True, inline="always")
def _slot(mask, bits):
    # Fibonacci hashing: the top ``bits`` bits of mask * 2^64 / phi.
    return np.int64((np.uint64(mask) * _GOLDEN) >> np.uint64(64 - bits))


@njit(cache=True, inline="always")
def _insert(keys, values, bits, mask, value):
    """Insert mask (absent) with value; returns False if it was present."""
    slot = _slot(mask, bits)
    size = len(keys) - 1
    while keys[slot] != 0:
        if keys[slot] == mask + 1:
            return False
        slot = (slot + 1) & size
    keys[slot] = mask + 1
    values[slot] = value
    return True


@njit(cache=True, inline="always")
def find(keys, values, bits, mask):
    """The value stored for mask, -1 if absent (bits = 0: ``keys`` is a direct table)."""
    if bits == 0:
        return np.int64(keys[mask])
    slot = _slot(mask, bits)
    size = len(keys) - 1
    while keys[slot] != 0:
        if keys[slot] == mask + 1:
            return values[slot]
        slot = (slot + 1) & size
    return -1


@njit(cache=True)
def _grow(keys, values, bits):
    new_bits = bits + 1
    new_keys = np.zeros(1 << new_bits, np.int64)
    new_values = np.zeros(1 << new_bits, np.int64)
    for slot in range(len(keys)):
        if keys[slot] != 0:
            _insert(new_keys, new_values, new_bits, keys[slot] - 1, values[slot])
    return new_keys, new_values, new_bits


@njit(cache=True)
def closure(questions, n, variant, max_sets):
    """The masks reachable from the full board of n characters under S -> S∩q, S\\q (and
    S -> S\\{c} when ``variant``), in discovery order; stops once more than max_sets are
    found (the caller compares the length with max_sets).

    The seen set is a byte per subset up to BITMAP_CHARACTERS characters (16 MiB for 24),
    a hash table beyond (32-64 bytes per set)."""
    full = (1 << n) - 1
    seen = np.zeros(1 << n if n <= BITMAP_CHARACTERS else 0, np.uint8)
    bits = 10
    keys = np.zeros(1 << bits, np.int64)
    values = np.zeros(1 << bits, np.int64)
    found = np.empty(1024, np.int64)
    found[0] = full
    if len(seen):
        seen[full] = 1
    else:
        _insert(keys, values, bits, full, 0)
    head, tail = 0, 1
    children = np.empty(2 * len(questions) + 2 * n, np.int64)
    while head < tail:
        standing = found[head]
        head += 1
        count = 0
        for q in questions:
            inside = standing & q
            if inside != 0 and inside != standing:
                children[count] = inside
                children[count + 1] = standing ^ inside
                count += 2
        if variant and standing & (standing - 1):
            rest = standing
            while rest:
                bit = rest & -rest
                rest ^= bit
                children[count] = standing ^ bit
                count += 1
        for c in range(count):
            child = children[c]
            # (inline, not a helper: a call per child here cost 50x in numba 0.68)
            if len(seen):
                if seen[child]:
                    continue
                seen[child] = 1
            else:
                if 2 * tail >= len(keys):
                    keys, values, bits = _grow(keys, values, bits)
                if not _insert(keys, values, bits, child, 0):
                    continue
            if tail == len(found):
                grown = np.empty(2 * len(found), np.int64)
                grown[:tail] = found
                found = grown
            found[tail] = child
            tail += 1
            if tail > max_sets:
                return found[:tail]
    return found[:tail]


def index_masks(masks: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, int]:
    """mask -> its position in ``masks`` (-1: absent), as find reads it: a direct int32
    table of all 2^n masks up to DIRECT_CHARACTERS characters (64 MiB for 24), else a hash
    table (32-64 bytes per mask)."""
    if n <= DIRECT_CHARACTERS:
        table = np.full(1 << n, -1, np.int32)
        table[masks] = np.arange(len(masks), dtype=np.int32)
        return table, table, 0
    return _hash_index(masks)


@njit(cache=True)
def _hash_index(masks):
    bits = 4
    while (1 << bits) < 4 * len(masks):
        bits += 1
    keys = np.zeros(1 << bits, np.int64)
    values = np.zeros(1 << bits, np.int64)
    for position in range(len(masks)):
        _insert(keys, values, bits, masks[position], position)
    return keys, values, bits


@njit(cache=True, inline="always")
def sorted_distinct(out, count):
    """Sorts ``out[:count]`` and keeps each value once, in place; returns how many."""
    ordered = np.sort(out[:count])
    distinct = 0
    for i in range(count):
        if i == 0 or ordered[i] != ordered[i - 1]:
            out[distinct] = ordered[i]
            distinct += 1
    return distinct


@njit(cache=True, inline="always")
def distinct_splits(questions, standing, out):
    """Writes into ``out`` the distinct S∩q or S\\q, whichever mask is smaller, over the
    nontrivial splits of S = standing, ascending; returns how many."""
    count = 0
    for q in questions:
        inside = standing & q
        if inside != 0 and inside != standing:
            out[count] = min(inside, standing ^ inside)
            count += 1
    return sorted_distinct(out, count)


def set_moves(masks: np.ndarray, questions: np.ndarray, variant: bool, n: int
              ) -> tuple[np.ndarray, np.ndarray]:
    return _set_moves(masks, questions, variant, *index_masks(masks, n))


@njit(cache=True)
def _set_moves(masks, questions, variant, keys, values, bits):
    """Every set's moves, as SetFamily stores them: (move_ptr, move_children), each split's
    children ids with the smaller mask first, in ascending order of it; then, under the
    variant rules, naming each character (lowest bit first) as (S\\{c}, NAMED)."""
    move_ptr = np.zeros(len(masks) + 1, np.int64)
    buffer = np.empty(len(questions), np.int64)
    capacity = 4 * len(masks) + 16
    children = np.empty((capacity, 2), np.int64)
    total = 0
    for set_id in range(len(masks)):
        standing = masks[set_id]
        splits = distinct_splits(questions, standing, buffer)
        named = 0
        if variant and standing & (standing - 1):
            rest = standing
            while rest:
                rest &= rest - 1
                named += 1
        if total + splits + named > capacity:
            capacity = 2 * (total + splits + named)
            grown = np.empty((capacity, 2), np.int64)
            grown[:total] = children[:total]
            children = grown
        for i in range(splits):
            children[total, 0] = find(keys, values, bits, buffer[i])
            children[total, 1] = find(keys, values, bits, standing ^ buffer[i])
            total += 1
        if named:
            rest = standing
            while rest:
                bit = rest & -rest
                rest ^= bit
                children[total, 0] = find(keys, values, bits, standing ^ bit)
                children[total, 1] = NAMED
                total += 1
        move_ptr[set_id + 1] = total
    return move_ptr, children[:total]


@njit(cache=True)
def popcounts(masks):
    out = np.empty(len(masks), np.int64)
    for i in range(len(masks)):
        x, c = masks[i], 0
        while x:
            x &= x - 1
            c += 1
        out[i] = c
    return out
