"""Interleaving patterns: what f(V, Y, P) knows about the two bidding hands.

A bid only meets the other player's bid in a comparison, so f(V, Y, P) depends on (V, Y)
through the order of V u Y alone.  Merge both hands in increasing order and record, per
position t, whether the card is in V only, Y only or in both; a pattern of level j has
j V-cards, j Y-cards and at most N positions.  A pattern is stored as an integer key with
two bits per position: bit 2t says "V holds it", bit 2t+1 says "Y holds it".

Swapping the players swaps the two bits of every position and negates f
(f(Y, V, P) = -f(V, Y, P)).  Of a pattern and its swap we keep the smaller key (V holds
the highest card that the hands do not share); the one pattern equal to its swap is V = Y,
where f = 0.

Playing V_i against Y_l (i-th and l-th smallest cards) removes one V bit and one Y bit;
positions left empty disappear.  The child of (pattern, i, l) is the pattern of level j-1
that remains, and the duel sign(V_i - Y_l) is the order of their positions.
"""

from __future__ import annotations

from math import factorial

import numpy as np

from subgame.jit import njit

_V_BITS = 0x5555_5555_5555_5555  # bit 2t of every position t
MAX_CARDS = 31  # two bits per position in an int64 key
# Up to this many patterns a level's enumeration and child table use numpy (_small_*), so
# small runs never import numba (subgame/jit.py); beyond it the compiled loops are faster.
SMALL_PATTERNS = 4096


def pattern_count(n_cards: int, j: int) -> int:
    """Number of patterns of level j, both orientations: sum over m shared-out cards of
    the multinomial (j+m)! / (m! m! (j-m)!) with j + m <= N positions."""
    return sum(factorial(j + m) // (factorial(m) ** 2 * factorial(j - m))
               for m in range(min(j, n_cards - j) + 1))


def stored_pattern_count(n_cards: int, j: int) -> int:
    """Patterns of level j stored (one of each swapped pair; V = Y is its own swap), i.e.
    ``canonical_patterns(n_cards, j).size`` without enumerating them."""
    return (pattern_count(n_cards, j) - 1) // 2 + 1


def pattern_key(v_cards, y_cards) -> int:
    """Key of the interleaving pattern of two hands (any order, any card values)."""
    v, y = set(v_cards), set(y_cards)
    key = 0
    for t, card in enumerate(sorted(v | y)):
        key |= ((card in v) | (card in y) << 1) << (2 * t)
    return key


def swap(keys):
    """The pattern of (Y, V) for the pattern of (V, Y) (ints or int64 arrays)."""
    return ((keys & _V_BITS) << 1) | ((keys >> 1) & _V_BITS)


@njit(cache=True)
def _enumerate(n_cards, j, out):
    """Fill ``out`` with every pattern of level j (depth-first over positions)."""
    digit = np.zeros(n_cards + 1, np.int64)
    n_v = np.zeros(n_cards + 1, np.int64)
    n_y = np.zeros(n_cards + 1, np.int64)
    key = np.zeros(n_cards + 1, np.int64)
    count = 0
    pos = 0
    while pos >= 0:
        digit[pos] += 1
        if digit[pos] > 3:
            digit[pos] = 0
            pos -= 1
            continue
        d = digit[pos]
        n_v[pos + 1] = n_v[pos] + (d & 1)
        n_y[pos + 1] = n_y[pos] + (d >> 1)
        key[pos + 1] = key[pos] | (d << (2 * pos))
        if n_v[pos + 1] > j or n_y[pos + 1] > j:
            continue
        if n_v[pos + 1] == j and n_y[pos + 1] == j:
            out[count] = key[pos + 1]
            count += 1
        elif pos + 1 < n_cards:
            pos += 1
    return count


def _small_enumerate(n_cards: int, j: int) -> np.ndarray:
    """Every pattern of level j, by numpy: the prefixes grow one position at a time (digit
    1: V only, 2: Y only, 3: both), those over j cards of a hand are dropped and those
    with j of each are complete."""
    key = n_v = n_y = np.zeros(1, np.int64)
    done = []
    for pos in range(n_cards):
        digit = np.arange(1, 4)
        key = (key[:, None] | digit << (2 * pos)).ravel()
        n_v = (n_v[:, None] + (digit & 1)).ravel()
        n_y = (n_y[:, None] + (digit >> 1)).ravel()
        keep = (n_v <= j) & (n_y <= j)
        key, n_v, n_y = key[keep], n_v[keep], n_y[keep]
        complete = (n_v == j) & (n_y == j)
        done.append(key[complete])
        key, n_v, n_y = key[~complete], n_v[~complete], n_y[~complete]
    return np.concatenate(done)


def canonical_patterns(n_cards: int, j: int, small: int = SMALL_PATTERNS) -> np.ndarray:
    """Sorted keys of the stored patterns of level j: one of each swapped pair, and V = Y
    (enumerated by numpy up to ``small`` patterns, beyond by the compiled loop)."""
    if not 0 <= j <= n_cards <= MAX_CARDS:
        raise ValueError(f"need 0 <= j <= N <= {MAX_CARDS}, got j={j}, N={n_cards}")
    if j == 0:
        return np.zeros(1, dtype=np.int64)
    count = pattern_count(n_cards, j)
    if count <= small:
        keys = _small_enumerate(n_cards, j)
    else:
        keys = np.empty(count, dtype=np.int64)
        _enumerate(n_cards, j, keys)
    if keys.size != count:
        raise AssertionError("pattern enumeration disagrees with pattern_count")
    keys = keys[keys <= swap(keys)]
    keys.sort()
    return keys


@njit(cache=True)
def _children(keys, j, child, duel):
    """child[p, i, l]: key after V_i meets Y_l in pattern p; duel[p, i, l] = sign(V_i - Y_l)."""
    v_pos = np.empty(j, np.int64)
    y_pos = np.empty(j, np.int64)
    for p in range(keys.size):
        key = keys[p]
        n_v = 0
        n_y = 0
        length = 0
        while key >> (2 * length):
            d = (key >> (2 * length)) & 3
            if d & 1:
                v_pos[n_v] = length
                n_v += 1
            if d & 2:
                y_pos[n_y] = length
                n_y += 1
            length += 1
        for i in range(j):
            for l in range(j):
                left = key & ~((1 << (2 * v_pos[i])) | (2 << (2 * y_pos[l])))
                out = 0
                t_out = 0
                for t in range(length):
                    d = (left >> (2 * t)) & 3
                    if d:
                        out |= d << (2 * t_out)
                        t_out += 1
                child[p, i, l] = out
                duel[p, i, l] = (v_pos[i] > y_pos[l]) - (v_pos[i] < y_pos[l])


def _small_children(keys: np.ndarray, j: int):
    """``_children`` by numpy: the positions' digits of every key, the t-th V and Y
    positions, the digits left when V_i meets Y_l, and those packed without the empty
    positions (each keeps its place among the non-empty ones)."""
    length = max(1, (int(keys.max()).bit_length() + 1) // 2)
    digits = (keys[:, None] >> (2 * np.arange(length))) & 3  # (n, length)
    v_pos = np.argsort(-(digits & 1), axis=1, kind="stable")[:, :j]  # t-th V position
    y_pos = np.argsort(-(digits >> 1), axis=1, kind="stable")[:, :j]
    here = np.arange(length)
    v_hit = v_pos[:, :, None] == here  # (n, j, length)
    y_hit = y_pos[:, :, None] == here
    left = digits[:, None, None, :] & ~(v_hit[:, :, None, :] | y_hit[:, None, :, :] << 1)
    place = np.cumsum(left != 0, axis=-1) - 1
    raw = np.where(left != 0, left << (2 * place), 0).sum(axis=-1)
    duel = np.sign(v_pos[:, :, None] - y_pos[:, None, :]).astype(np.int8)
    return raw.astype(np.int64), duel


def child_table(keys: np.ndarray, parent_keys: np.ndarray, j: int):
    """(index, sign, duel) arrays of shape (n_patterns, j, j) for the patterns ``keys`` of
    level j: f(child) = sign * stored value at ``index`` among ``parent_keys`` (level j-1);
    sign is 0 for the child V = Y, whose value is 0."""
    if keys.size <= SMALL_PATTERNS:
        raw, duel = _small_children(keys, j)
    else:
        raw = np.empty((keys.size, j, j), dtype=np.int64)
        duel = np.empty((keys.size, j, j), dtype=np.int8)
        _children(keys, j, raw, duel)
    swapped = swap(raw)
    stored = np.minimum(raw, swapped)
    index = np.searchsorted(parent_keys, stored)
    if raw.size and not np.array_equal(parent_keys[np.minimum(index, parent_keys.size - 1)],
                                       stored):
        raise AssertionError("a child pattern is missing from level j-1")
    sign = np.where(raw == swapped, 0, np.where(raw < swapped, 1, -1)).astype(np.int8)
    return index.astype(np.int32), sign, duel


def describe(key: int) -> str:
    """Human-readable pattern, low card first: 'v' V only, 'y' Y only, '=' both."""
    out = []
    while key:
        out.append(".vy="[key & 3])
        key >>= 2
    return "".join(out)


def pattern_labels(n_cards: int, j: int) -> np.ndarray:
    """The stored patterns of level j as ``describe`` text (the labels of a level's pattern
    axis), e.g. 'yv=': the lowest card in Y only, the next in V only, the highest in both
    (V = {2, 3}, Y = {1, 3}, or any hands ordered alike). (V, Y) is stored under the
    pattern of (V, Y) or of (Y, V), whichever is stored, with f negated for the latter."""
    return np.array([describe(int(key)) for key in canonical_patterns(n_cards, j)])
