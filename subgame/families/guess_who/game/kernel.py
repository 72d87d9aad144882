"""Exact Guess Who tables, band by band: a(n, m) and the optimal-move sets of every state.

Recursions (a(n, m) = n m p(n, m), a(1, m) = m under both rules):

    official (I):  a(n, m) = max( m,                max_{1<=s<n} nm - a(m, s) - a(m, n-s) )
    variant (II):  a(n, m) = max( nm - a(m, n-1), max_{2<=s<n} nm - a(m, s) - a(m, n-s) )

(official: s = 0 is the final guess, worth m; variant: s = 1 names one character.)

Level L = max(n, m): the cells (L, k), k < L, read rows k < L at columns < L; the cells
(n, L), n <= L, read row L at columns < n, which the first kind wrote.

The split term is a (min,+) self-convolution of the row r = a(m, .): f(s) = r(s) + r(n-s).
Both parity sub-rows r(1), r(3), ... and r(2), r(4), ... turn out to be convex (for the
variant rules the whole row is).  Restricted to one parity class of s, f is then a convex
function of s plus a convex function of n - s, hence convex along the class, and its
minimisers form a run s0 + 2i, i1 <= i <= i2, found by searching the sign of
f(s+2) - f(s).  The convexity is checked as each row grows; a prefix that fails the check
is scanned in full, so the tables are exact whatever the data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from subgame.jit import njit

RULES = ("official", "variant")

# a(n, m) <= nm and the kernel forms sums of two table entries: 2 U^2 must stay below
# 2^63, and moves are stored as int32.
MAX_N = 2**31 - 1

_NO_VIOLATION = np.iinfo(np.int64).max


@dataclass(frozen=True)
class BandMoves:
    """Optimal-move sets of the cells solved by one :func:`solve_band` call.

    ``bottom_*`` cover rows n = lo..hi, columns m = 1..hi (shape (hi-lo+1, hi), entry
    [n-lo, m-1]); ``right_*`` cover rows n = 1..lo-1, columns m = lo..hi (shape
    (lo-1, hi-lo+1), entry [n-1, m-lo]).  Per cell: the smallest and largest optimal move
    (int32), the number of optimal moves (int32) and whether the final guess is optimal.

    Moves range over every allowed move: s in 0..n-1 for the official rules (s = 0 is the
    final guess, so ``min == 0`` exactly when ``final`` is set), s in 1..n-1 for the variant
    rules (s = 1 is the single-character guess; ``final`` is always False).  For n = 1 the
    only move is s = 0 (official) or s = 1 (variant), with count 1.
    """

    bottom_min: np.ndarray
    bottom_max: np.ndarray
    bottom_count: np.ndarray
    bottom_final: np.ndarray
    right_min: np.ndarray
    right_max: np.ndarray
    right_count: np.ndarray
    right_final: np.ndarray


def new_table(max_n: int) -> np.ndarray:
    """Zeroed int64 table for 1 <= n, m <= max_n; row and column 0 are unused."""
    if not 1 <= max_n <= MAX_N:
        raise ValueError(f"max_n must lie in 1..{MAX_N} (int64 overflow guard), got {max_n}")
    return np.zeros((max_n + 1, max_n + 1), dtype=np.int64)


# ---------------------------------------------------------------------------------------
# Kernel.  The helpers are inlined into _solve_band, each from one or two call sites: a
# compiled call that passes arrays pays reference counting, which costs more than a probe.


@njit(inline="always")
def _slope(a, m, n, s):
    """f(s+2) - f(s) for f(s) = a(m, s) + a(m, n-s)."""
    return (a[m, s + 2] - a[m, s]) - (a[m, n - s] - a[m, n - s - 2])


@njit(inline="always")
def _first_slope(a, m, n, s0, lo, hi, t, guess):
    """Least i in [lo, hi) with _slope(a, m, n, s0 + 2i) >= t, or hi if there is none.

    The slope is nondecreasing in i.  The search gallops out from ``guess`` (the answer of
    a neighbouring cell, usually off by at most two) and then bisects the bracket found.
    """
    g = min(max(guess, lo), hi)
    step = 1
    if g < hi and _slope(a, m, n, s0 + 2 * g) < t:
        lo = g + 1
        while lo + step - 1 < hi:
            j = lo + step - 1
            if _slope(a, m, n, s0 + 2 * j) >= t:
                hi = j
                break
            lo = j + 1
            step *= 2
    else:
        hi = g
        while hi - step >= lo:
            j = hi - step
            if _slope(a, m, n, s0 + 2 * j) < t:
                lo = j + 1
                break
            hi = j
            step *= 2
    while lo < hi:
        j = (lo + hi) // 2
        if _slope(a, m, n, s0 + 2 * j) >= t:
            hi = j
        else:
            lo = j + 1
    return lo


@njit(inline="always")
def _split_min(a, m, n, lo_s, convex, hints, kind):
    """min over lo_s <= s <= n - lo_s of f(s) = a(m, s) + a(m, n-s): (f_min, least argmin, count).

    The argmin set is symmetric under s -> n - s, so its largest element is n - least.
    ``convex``: both parity sub-rows of a(m, 1..n-1) are convex.  Then f is convex along
    each parity class s = s0, s0 + 2, ...; its minimisers there are s0 + 2i, i1 <= i <= i2,
    with i1 the first index where f(s+2) - f(s) >= 0 and i2 the first where it is > 0.
    hints[kind, slot] holds the previous (i1, i2) of the same slot and is updated.
    """
    if not convex:
        best = a[m, lo_s] + a[m, n - lo_s]
        smin = lo_s
        count = 0
        for s in range(lo_s, n // 2 + 1):
            v = a[m, s] + a[m, n - s]
            if v < best:
                best = v
                smin = s
                count = 0
            if v == best:
                count += 1 if 2 * s == n else 2
        return best, smin, count
    # n odd: s and n - s have opposite parities, the class of lo_s mirrors the other one.
    # n even: each class is mapped onto itself by s -> n - s, so its minimisers are centred
    # on n/2 and only i1 needs a search (slot = class).
    symmetric = n % 2 == 0
    best = np.int64(0)
    smin = 0
    count = 0
    for c in range(2 if symmetric else 1):
        s0 = lo_s + c
        k = (n - 2 * s0) // 2 + 1 if symmetric else (n - 2 * lo_s + 1) // 2
        if k <= 0:
            continue
        slot = c if symmetric else 2
        i1 = _first_slope(a, m, n, s0, 0, (k - 1) // 2 if symmetric else k - 1, 0,
                          hints[kind, slot, 0])  # fmt: skip
        if symmetric:
            i2 = k - 1 - i1
            first = s0 + 2 * i1
            size = k - 2 * i1
        else:
            i2 = _first_slope(a, m, n, s0, i1, k - 1, 1, hints[kind, slot, 1])
            first = min(s0 + 2 * i1, n - s0 - 2 * i2)
            size = 2 * (i2 - i1 + 1)
        hints[kind, slot, 0] = i1
        hints[kind, slot, 1] = i2
        f = a[m, s0 + 2 * i1] + a[m, n - s0 - 2 * i1]
        if count == 0 or f < best:
            best, smin, count = f, first, size
        elif f == best:
            smin = min(smin, first)
            count += size
    return best, smin, count


@njit(inline="always")
def _solve_cell(a, n, m, variant, convex, hints, kind):
    """a(n, m) and its optimal moves: (value, smin, smax, count, final)."""
    if n == 1:
        s = 1 if variant else 0
        return np.int64(m), s, s, 1, not variant
    nm = n * m
    lo_s = 2 if variant else 1
    split, lo, count = np.int64(0), 0, 0
    if n >= 2 * lo_s:
        f, lo, count = _split_min(a, m, n, lo_s, convex, hints, kind)
        split = nm - f
    if not variant:  # the final guess s = 0 is worth m
        if m > split:
            return np.int64(m), 0, 0, 1, True
        if m == split:
            return split, 0, n - lo, count + 1, True
        return split, lo, n - lo, count, False
    best = nm - a[m, n - 1]  # s = 1: a right guess wins, a wrong one leaves n - 1
    smin = 1
    smax = 1
    moves = 1
    if n >= 3:  # s = n - 1 as an ordinary split
        v = nm - a[m, 1] - a[m, n - 1]
        if v > best:
            best, smin, smax, moves = v, n - 1, n - 1, 1
        elif v == best:
            smax = n - 1
            moves += 1
    if count > 0:
        if split > best:
            best, smin, smax, moves = split, lo, n - lo, count
        elif split == best:
            smin = min(smin, lo)
            smax = max(smax, n - lo)
            moves += count
    return best, smin, smax, moves, False


@njit(cache=True)
def _violations(a, known, viol):
    """viol[row] = least x with a(row, x+2) - a(row, x) < a(row, x) - a(row, x-2), over the
    filled columns 1..known of rows 1..known.  The prefix a(row, 1..y) has convex parity
    sub-rows iff viol[row] > y - 2."""
    for row in range(1, known + 1):
        # OR-ing the second differences keeps any sign bit and vectorises; a row that has
        # a negative one is searched again for the first.
        signs = 0
        for x in range(3, known - 1):
            signs |= a[row, x + 2] - 2 * a[row, x] + a[row, x - 2]
        if signs < 0:
            for x in range(3, known - 1):
                if a[row, x + 2] - 2 * a[row, x] + a[row, x - 2] < 0:
                    viol[row] = x
                    break


@njit(cache=True)
def _solve_band(a, lo, hi, variant, viol, bmin, bmax, bcount, bfinal, rmin, rmax, rcount, rfinal):
    # Cell (L, k), k < L, reads row k up to column L - 1; cell (k, L) reads row L up to
    # column k - 1.  Sweeping k outermost respects both, appends to every row in column
    # order (so viol stays exact), and keeps row k hot while the levels L run through it.
    # Search hints: [cells (L, k) | cells (k, L)][n even, class lo_s | n even, class lo_s + 1
    # | n odd][i1, i2]; a neighbouring cell's answer is a good first guess.
    hints = np.zeros((2, 3, 2), dtype=np.int64)
    for k in range(1, hi + 1):
        for level in range(max(lo, k), hi + 1):
            for kind in range(0 if k < level else 1, 2):
                n, m = (level, k) if kind == 0 else (k, level)
                v, smin, smax, count, final = _solve_cell(
                    a, n, m, variant, viol[m] > n - 3, hints, kind
                )
                a[n, m] = v
                if m >= 5 and viol[n] == _NO_VIOLATION:
                    if v - 2 * a[n, m - 2] + a[n, m - 4] < 0:
                        viol[n] = m - 2
                if n >= lo:
                    bmin[n - lo, m - 1] = smin
                    bmax[n - lo, m - 1] = smax
                    bcount[n - lo, m - 1] = count
                    bfinal[n - lo, m - 1] = final
                else:
                    rmin[n - 1, m - lo] = smin
                    rmax[n - 1, m - lo] = smax
                    rcount[n - 1, m - lo] = count
                    rfinal[n - 1, m - lo] = final


def solve_band(a: np.ndarray, lo: int, hi: int, rules: str) -> BandMoves:
    """Fill a[n, m] in place for lo <= max(n, m) <= hi and return those cells' optimal moves.

    Every cell with max(n, m) < lo must already be filled (a solved cell is >= 1: guessing
    at once wins with probability >= 1/n).  Memory beyond ``a``: the two
    strips of :class:`BandMoves` and O(hi) integers.  The convexity of the parity sub-rows is
    re-checked on the filled part of ``a`` (an O(lo^2) pass, small against the band's work
    unless bands are very narrow) and then tracked as rows grow.
    """
    if rules not in RULES:
        raise ValueError(f"rules must be one of {RULES}, got {rules!r}")
    if a.dtype != np.int64 or a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("a must be a square int64 table from new_table()")
    size = a.shape[0] - 1
    if size > MAX_N:
        raise ValueError(f"table of size {size} exceeds MAX_N = {MAX_N} (int64 overflow guard)")
    if not 1 <= lo <= hi <= size:
        raise ValueError(f"need 1 <= lo <= hi <= {size}, got lo={lo}, hi={hi}")
    if lo > 1 and (np.any(a[lo - 1, 1:lo] <= 0) or np.any(a[1:lo, lo - 1] <= 0)):
        raise ValueError(f"level {lo - 1} is not filled; solve the bands in order")
    if not a.flags.c_contiguous:
        raise ValueError("a must be C-contiguous")
    width = hi - lo + 1
    bottom = (width, hi)
    right = (lo - 1, width)
    moves = BandMoves(
        bottom_min=np.zeros(bottom, np.int32),
        bottom_max=np.zeros(bottom, np.int32),
        bottom_count=np.zeros(bottom, np.int32),
        bottom_final=np.zeros(bottom, np.bool_),
        right_min=np.zeros(right, np.int32),
        right_max=np.zeros(right, np.int32),
        right_count=np.zeros(right, np.int32),
        right_final=np.zeros(right, np.bool_),
    )
    viol = np.full(hi + 1, _NO_VIOLATION, dtype=np.int64)
    _violations(a, lo - 1, viol)
    _solve_band(
        a, lo, hi, rules == "variant", viol,
        moves.bottom_min, moves.bottom_max, moves.bottom_count, moves.bottom_final,
        moves.right_min, moves.right_max, moves.right_count, moves.right_final,
    )  # fmt: skip
    return moves
