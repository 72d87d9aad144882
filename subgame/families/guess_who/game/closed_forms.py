"""The paper's closed forms for the variant rules (its Theorems 1-3), vectorised.

The series (k >= 1; T = 3 * 2^j is the multiple of 3 by a power of two with T < k <= 2T):

    ★k = 1, 2, 3, 6 (x3), 12 (x6), 24 (x12), ...       ★k = k for k <= 3, else 2T
    ☆k = 1, 1, 1, 1, 2, 3, 3 (x3), 4, 5, 6, 6 (x6), 7, ..., 12, 12 (x12), 13, ...
         ☆k = max(1, k - 3) for k <= 6, else T/2 while k <= 3T/2, then k - T

Theorem 1:  a_II(n, m) = sum_{k=1..m} min(n, ★k)
Theorem 2:  a_II(n, m) = nm - (★n/2)(n - ★n/3) + [n <= 2]/3     if ★n <= ★m
                         ★m (m - ★m/3) + [m <= 2]/3               if ★n > ★m
Theorem 3:  the optimal guesses at (n, m) are exactly the s with lower <= s <= upper,
            lower = 1 (n <= 3), ☆n (n >= 4, ★n <= ★m), ★m/2 (n >= 4, ★n > ★m);
            upper = 1 (n <= 3), 1 (n >= 4, m <= 2), 2 (n = 4, m >= 3), n - lower (n > 4, m >= 3).

Corollary 1 (split in half):  s(n, m) = max(1, floor(n/2)) if m >= 3, else 1
Corollary 2 (risky search):   s(n, m) = max(1, floor(n/2)) if ★n <= ★m, else max(1, floor(★m/2))

The Remark (n, m >= 3), with r = n/m, d_n = n/★n, d_m = m/★m and A(x) = (3x - 1)/(3x^2):

    p_II(n, m) = 1 - r A(d_n) / 2    if r <= d_n/d_m   (that is ★n <= ★m)
                 A(d_m) / r          if r > d_n/d_m;

by powers of two, for n, m >= 4 and k >= 0 (the paper's "3·2^k+1" is 3·2^(k+1)):

    3·2^k < n <= 3·2^(k+1) < m:   p_II(n, m) = 1 - (3·2^k / m)(1 - 2^(k+1)/n)
    3·2^k < m <= 3·2^(k+1) < n:   p_II(n, m) = (3·2^(k+1) / n)(1 - 2^(k+1)/m).

Arguments are integer arrays (or scalars) that broadcast; states are 1-based.  These are
the formulas as printed, and Theorem 3 corrected: as printed it is wrong in column m = 3.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def _block(k: np.ndarray) -> np.ndarray:
    """T = 3 * 2^j with T < k <= 2T, for k >= 4 (T is garbage below)."""
    q = np.maximum((k - 1) // 3, 1)
    # frexp gives the exact bit length of q (q < 2^53): 2^(e-1) <= q < 2^e.
    _, e = np.frexp(q.astype(np.float64))
    return 3 * (np.int64(1) << (e.astype(np.int64) - 1))


def star(k) -> np.ndarray:
    """★k, the series of Theorem 1."""
    k = np.asarray(k, dtype=np.int64)
    return np.where(k <= 3, k, 2 * _block(k))


def white_star(k) -> np.ndarray:
    """☆k, the series of Theorem 3."""
    k = np.asarray(k, dtype=np.int64)
    t = _block(k)
    return np.where(k <= 6, np.maximum(1, k - 3), np.where(2 * k <= 3 * t, t // 2, k - t))


def variant_theorem1(n, m) -> np.ndarray:
    """a_II(n, m) by Theorem 1, as int64.

    ★ is nondecreasing, so with J the number of k <= m with ★k <= n the sum is
    ★1 + ... + ★J + (m - J) n.
    """
    n, m = np.broadcast_arrays(np.asarray(n, dtype=np.int64), np.asarray(m, dtype=np.int64))
    series = star(np.arange(1, int(m.max()) + 1))
    prefix = np.concatenate(([0], np.cumsum(series)))
    j = np.minimum(np.searchsorted(series, n, side="right"), m)
    return prefix[j] + (m - j) * n


def variant_theorem2(n, m) -> np.ndarray:
    """a_II(n, m) by Theorem 2, as int64.

    Six times the formula is an integer divisible by 6 (★ is 1, 2, 3 or a multiple of 6,
    and the [. <= 2] terms cancel the remainders at 1 and 2), so the division is exact.
    """
    n = np.asarray(n, dtype=np.int64)
    m = np.asarray(m, dtype=np.int64)
    sn, sm = star(n), star(m)
    six = np.where(
        sn <= sm,
        6 * n * m - 3 * sn * n + sn * sn + 2 * (n <= 2),
        6 * sm * m - 2 * sm * sm + 2 * (m <= 2),
    )
    return six // 6


def variant_theorem3(n, m) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) of Theorem 3 as float64, exact: ★m/2 is 1/2 at m = 1 and 3/2 at m = 3."""
    n = np.asarray(n, dtype=np.int64)
    m = np.asarray(m, dtype=np.int64)
    sn, sm = star(n), star(m)
    lower = np.where(n <= 3, 1.0, np.where(sn <= sm, white_star(n), sm / 2))
    upper = np.where(n <= 3, 1.0, np.where(m <= 2, 1.0, np.where(n == 4, 2.0, n - lower)))
    return lower, upper


def corrected_theorem3(n, m) -> tuple[np.ndarray, np.ndarray]:
    """The least and the largest optimal guess, as int64: Theorem 3 with its lower bound
    ★m/2 (n >= 4, ★n > ★m) read as max(1, floor(★m/2)), as Corollary 2 has it.

    This changes column m = 3, n >= 4 only (★m is even for m >= 4, and ceil(★m/2) = 1 for
    m <= 2): as printed, lower = 3/2 leaves out s = 1, which the exact tables show optimal
    there. The upper bound n - 3/2 keeps the printed lower bound: the largest optimal guess
    is n - 2."""
    lower, upper = variant_theorem3(n, m)
    n = np.asarray(n, dtype=np.int64)
    sm = star(np.asarray(m, dtype=np.int64))
    first = np.where((n >= 4) & (star(n) > sm), np.maximum(1, sm // 2), np.ceil(lower))
    return first.astype(np.int64), np.floor(upper).astype(np.int64)


def corollary1(n, m) -> np.ndarray:
    """Corollary 1's guess, the split-in-half search: max(1, floor(n/2)), or 1 when m <= 2."""
    n, m = np.broadcast_arrays(np.asarray(n, dtype=np.int64), np.asarray(m, dtype=np.int64))
    return np.where(m >= 3, np.maximum(1, n // 2), 1)


def corollary2(n, m) -> np.ndarray:
    """Corollary 2's guess, the risky search when behind: max(1, floor(n/2)) if ★n <= ★m,
    else max(1, floor(★m/2))."""
    n, m = np.broadcast_arrays(np.asarray(n, dtype=np.int64), np.asarray(m, dtype=np.int64))
    return np.where(star(n) <= star(m), np.maximum(1, n // 2), np.maximum(1, star(m) // 2))


def remark_a(x: Fraction) -> Fraction:
    """A(x) = (3x - 1) / (3x^2)."""
    return (3 * x - 1) / (3 * x * x)


def remark_win_probability(n: int, m: int) -> Fraction:
    """p_II(n, m) by the Remark's A(x) form (n, m >= 3), exactly."""
    if n < 3 or m < 3:
        raise ValueError(f"the Remark's form needs n, m >= 3, got ({n}, {m})")
    r = Fraction(n, m)
    d_n, d_m = Fraction(n, int(star(n))), Fraction(m, int(star(m)))
    return 1 - r * remark_a(d_n) / 2 if r <= d_n / d_m else remark_a(d_m) / r


def remark_powers_of_two(n: int, m: int) -> Fraction | None:
    """p_II(n, m) by the Remark's powers-of-two form, where one of its two cases holds
    (n, m >= 4); None elsewhere (n and m in the same block 3·2^k < . <= 3·2^(k+1))."""
    for k in range(max(n, m).bit_length()):
        low, high = 3 * 2**k, 3 * 2 ** (k + 1)
        if low < n <= high < m:
            return 1 - Fraction(low, m) * (1 - Fraction(2 ** (k + 1), n))
        if low < m <= high < n:
            return Fraction(high, n) * (1 - Fraction(2 ** (k + 1), m))
    return None
