"""Higher/lower with n distinct cards: P_all(n) and the expected streak, level by level.

State (u, n): the up card has index u among the n cards not yet discarded (the up card and
the n - 1 face-down cards).  The majority policy guesses "higher" iff more face-down cards
are higher, i.e. iff u < n/2 (a tie, u = (n-1)/2, is a coin toss either way).  After a right
guess the first face-down card d becomes the up card, renumbered d - [d > u] among n - 1.

Counting orders of the face-down cards instead of probabilities keeps everything integral.
Let f_n(u) = (n-1)! P(all right | u, n), the number of orders guessed entirely right.  Then
f_1(0) = 1 and, for n >= 2, a right "lower" guess from u leads to any of 0..u-1, a right
"higher" guess to any of u..n-2; with the mirror symmetry f(v) = f(n-2-v) both are a
prefix sum:

    f_n(u) = S_{n-1}(max(u, n-1-u)),   S_{n-1}(m) = sum_{v<m} f_{n-1}(v),

and C_n = sum_u f_n(u) = n! P_all(n).  Only the upper half a_n(i) = f_n(n//2 + i) is kept.
The lower half of level n-1 mirrors its stored upper half, so S_{n-1}(n//2) = sum a_{n-1}:

    a_n(0) = sum_i a_{n-1}(i),   a_n(i+1) = a_n(i) + a_{n-1}(i + [n even]),

one running sum over half a level: O(n) per level, O(N^2) for all n <= N.

The streak is the number of right guesses before the first miss (n - 1 if none is missed),
the up card being a uniformly random card.  With E_n(u) its expectation from (u, n) and
e_n(u) = (n-1)! E_n(u), an integer, e_1 = 0 and

    e_n(u) = sum over right draws of [(n-2)! + e_{n-1}(next)]
           = sum_{v < m} (e_{n-1}(v) + (n-2)!),  m = max(u, n-1-u),

the same running sum applied to e_{n-1} + (n-2)!.  `E[streak](n) = sum_u e_n(u) / n!`.

Floats: P_all(n) falls like 0.72^n and leaves float64 near n = 2170, so the float sweep
keeps the level vector scaled by a power of two (exact) and reports P_all(n) = mantissa
2^exponent.  In the continuum limit the level map becomes (K g)(x) = int_0^{max(x, 1-x)} g
on [0, 1]; its top eigenvalue and the fixed point of the streak recursion give the limits
of the ratio P_all(n+1)/P_all(n) and of E[streak] in closed form:

    ratio -> 1 / (2 ln 2),     E[streak] -> (3 sqrt(e) - 4) / (2 - sqrt(e)),

which :func:`extrapolate` recovers from the sweep without being told.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from itertools import accumulate
from typing import Iterator

import numpy as np
from numba import njit

RATIO_LIMIT = 1 / (2 * math.log(2))
STREAK_LIMIT = (3 * math.sqrt(math.e) - 4) / (2 - math.sqrt(math.e))


@dataclass(frozen=True)
class ExactLevel:
    """Level n in integers; the state a sweep resumes from.

    ``wins[i] = f_n(u)`` and ``streak[i] = e_n(u)`` for the up-card index u = n//2 + i
    (and, by symmetry, n-1-u).  Everything else is derived.
    """

    n: int
    wins: tuple[int, ...]
    streak: tuple[int, ...]

    @cached_property
    def wins_half(self) -> int:
        return sum(self.wins)

    @cached_property
    def streak_half(self) -> int:
        return sum(self.streak)

    @property
    def count(self) -> int:
        """C_n = n! P_all(n): orders of the n cards guessed entirely right."""
        return _whole(self.wins_half, self.wins, self.n)

    @property
    def streak_total(self) -> int:
        """`n! E[streak](n)`."""
        return _whole(self.streak_half, self.streak, self.n)

    @property
    def p_all(self) -> Fraction:
        return Fraction(self.count, math.factorial(self.n))

    @property
    def expected_streak(self) -> Fraction:
        return Fraction(self.streak_total, math.factorial(self.n))


FIRST_EXACT = ExactLevel(1, (1,), (0,))


def _whole(half_sum, half, n):
    """Sum over all n up cards from the sum over the stored upper half (the middle card,
    n odd, is stored once and must not be doubled)."""
    return 2 * half_sum - (half[0] if n % 2 else 0)


def exact_levels(n_max: int, level: ExactLevel = FIRST_EXACT) -> Iterator[ExactLevel]:
    """Yield the levels level.n + 1 .. n_max, each from the one before, in exact integers."""
    for n in range(level.n + 1, n_max + 1):
        start, add = 1 - n % 2, math.factorial(n - 2)
        wins = accumulate(level.wins[start:], initial=level.wins_half)
        streak = accumulate((e + add for e in level.streak[start:]),
                            initial=level.streak_half + add * len(level.streak))
        level = ExactLevel(n, tuple(wins), tuple(streak))
        yield level


def exact_counts(n_max: int) -> list[int]:
    """[C_1, ..., C_{n_max}], C_n = n! P_all(n)."""
    return [FIRST_EXACT.count] + [lv.count for lv in exact_levels(n_max)]


@dataclass(frozen=True)
class FloatLevel:
    """Level n in floats: P(all right | u, n) = x[i] 2^exponent and E_n(u) = streak[i],
    u = n//2 + i.  Small and serialisable: two float64 vectors of length ceil(n/2)."""

    n: int
    x: np.ndarray
    exponent: int
    streak: np.ndarray

    @property
    def p_all(self) -> float:
        """P_all(n) as a float (0.0 once it underflows; FloatSweep keeps the exponent)."""
        return math.ldexp(_whole(math.fsum(self.x), self.x, self.n) / self.n, self.exponent)


FIRST_FLOAT = FloatLevel(1, np.ones(1), 0, np.zeros(1))


@dataclass(frozen=True)
class FloatSweep:
    """Levels n[0] < n[1] < ... of a float sweep.

    P_all(n) = mantissa * 2**exponent (mantissa in [0.5, 1)); ``streak`` = ``E[streak](n)``;
    ``ratio`` = P_all(n) / P_all(n - 1) (the seed tabulates the same number under n - 1).
    """

    n: np.ndarray
    mantissa: np.ndarray
    exponent: np.ndarray
    streak: np.ndarray
    ratio: np.ndarray

    @property
    def log_p(self) -> np.ndarray:
        """Natural log of P_all(n)."""
        return np.log(self.mantissa) + self.exponent * math.log(2)


@njit(cache=True, inline="always")
def _kahan_add(total, carry, value):
    y = value - carry
    t = total + y
    return t, (t - total) - y


@njit(cache=True)
def _float_sweep(x, half, exponent, streak, streak_half, n0, n_stop,
                 mantissa, exponents, streaks, ratios):
    """Advance the upper halves x, streak (arrays sized for n_stop) and their sums from
    level n0 to n_stop, one table row per level.  Returns the final halves and sums.

    Four compensated (Kahan) running sums per level: the two prefix sums that build the new
    halves and the two new half sums.  The chains are independent, so one loop keeps them
    all in flight.
    """
    new_x, new_streak = np.empty_like(x), np.empty_like(streak)
    total = 2.0 * half - (n0 % 2) * x[0]
    for n in range(n0 + 1, n_stop + 1):
        start, size = 1 - n % 2, (n + 1) // 2
        # The largest new entry is the old total / (n-1): 2^-k keeps it in [0.5, 1).
        k = math.frexp(total / (n - 1))[1]
        scale = math.ldexp(1.0 / (n - 1), -k)
        # The streak recursion sums e_{n-1} + (n-2)!, that is E_{n-1} + 1.
        run, run_c, s_run, s_run_c = half, 0.0, streak_half + n // 2, 0.0
        new_x[0], new_streak[0] = run * scale, s_run / (n - 1)
        half, half_c, streak_half, s_half_c = new_x[0], 0.0, new_streak[0], 0.0
        for i in range(1, size):
            run, run_c = _kahan_add(run, run_c, x[start + i - 1])
            s_run, s_run_c = _kahan_add(s_run, s_run_c, streak[start + i - 1] + 1.0)
            new_x[i], new_streak[i] = run * scale, s_run / (n - 1)
            half, half_c = _kahan_add(half, half_c, new_x[i])
            streak_half, s_half_c = _kahan_add(streak_half, s_half_c, new_streak[i])
        x, new_x, streak, new_streak = new_x, x, new_streak, streak
        middle = n % 2
        new_total = 2.0 * half - middle * x[0]
        i = n - n0 - 1
        ratios[i] = math.ldexp(new_total / n / (total / (n - 1)), k)
        exponent += k
        total = new_total
        mantissa[i], shift = math.frexp(total / n)
        exponents[i] = exponent + shift
        streaks[i] = (2.0 * streak_half - middle * streak[0]) / n
    return x, half, exponent, streak, streak_half


def float_sweep(n_stop: int, level: FloatLevel = FIRST_FLOAT) -> tuple[FloatSweep, FloatLevel]:
    """Levels level.n + 1 .. n_stop in float64, and the state at n_stop to resume from.

    Every entry and sum is a compensated (Kahan) sum of positive terms, and a positive linear
    map carries componentwise relative errors through unamplified, so the error grows at
    most linearly in n (`python bench/higher_lower.py` measures the relative error of P_all(n)
    against the exact counts; the tests bound it).
    """
    if n_stop < level.n:
        raise ValueError(f"cannot sweep back from level {level.n} to {n_stop}")
    size = (n_stop + 1) // 2
    x, streak = np.zeros((2, size))
    x[:level.x.size] = level.x
    streak[:level.streak.size] = level.streak
    count = n_stop - level.n
    mantissa, streaks, ratios = np.empty((3, count))
    exponents = np.empty(count, dtype=np.int64)
    x, _, exponent, streak, _ = _float_sweep(
        x, math.fsum(level.x), level.exponent, streak, math.fsum(level.streak),
        level.n, n_stop, mantissa, exponents, streaks, ratios)
    table = FloatSweep(np.arange(level.n + 1, n_stop + 1), mantissa, exponents, streaks, ratios)
    return table, FloatLevel(n_stop, x, int(exponent), streak)


@dataclass(frozen=True)
class Extrapolation:
    """An estimated limit and its error estimate (see :func:`extrapolate`)."""

    limit: float
    error: float


# The fits whose spread makes the error: (order above the reported one, lower end of the
# window as a fraction of the largest n): one more term on the same upper half; the
# reported order and one more on the upper third; the reported order on the upper two
# thirds.
VARIANTS = ((1, 1 / 2), (0, 2 / 3), (1, 2 / 3), (0, 1 / 3))
# The spread is doubled: the truncated 1/n series converges from one side, so the fits
# lie on one side of the truth and their spread alone can just miss it; doubled, the
# stated error covers the closed forms at every sweep length the tests try.
SAFETY = 2.0


def _intercepts(n: np.ndarray, values: np.ndarray, order: int, low: float) -> list[float]:
    """a_0 of the least-squares fit a_0 + a_1/n + ... + a_order/n^order on n >= low, for
    even and for odd n."""
    fits = []
    for parity in (0, 1):
        pick = (n >= low) & (n % 2 == parity)
        if pick.sum() <= order:
            raise ValueError(f"{pick.sum()} levels of parity {parity} from n = {low:g} cannot "
                             f"fit order {order}")
        h = n[pick].min() / n[pick]  # in (0, 1]: keeps the fit well conditioned
        fits.append(float(np.polynomial.polynomial.polyfit(h, values[pick], order)[0]))
    return fits


def extrapolate(n: np.ndarray, values: np.ndarray, order: int = 3,
                window: float = 0.5) -> Extrapolation:
    """Limit of values(n) as n -> infinity, from the levels n >= (1 - window) max(n).

    Least squares fit values ~ a_0 + a_1/n + ... + a_order/n^order, separately on even and
    odd n (the sequences carry a (-1)^n n^-2 term, the midpoint card existing for odd n
    only).  The limit is the mean of the two a_0.  The error is ``SAFETY`` times the
    largest distance from it of a_0 on either parity, at ``order`` and ``order + 1`` on the
    upper half and the upper third, and at ``order`` on the upper two thirds (``VARIANTS``); a sweep too
    short for those fits is refused (ValueError; ``MIN_SWEEP``).
    """
    n = np.asarray(n)
    values = np.asarray(values)
    top = n.max()
    reported = _intercepts(n, values, order, (1 - window) * top)
    limit = sum(reported) / 2
    others = [a for extra, low in VARIANTS
              for a in _intercepts(n, values, order + extra, low * top)]
    spread = max(abs(a - limit) for a in reported + others)
    return Extrapolation(float(limit), float(SAFETY * spread))


# The shortest sweep (largest n) whose every variant fit is determined at order 3.
MIN_SWEEP = 27


def asymptotics(table: FloatSweep, order: int = 3, window: float = 0.5) -> dict[str, Extrapolation]:
    """Limits of P_all(n) / P_all(n-1) and of ``E[streak](n)`` extrapolated from a sweep."""
    return {"ratio": extrapolate(table.n, table.ratio, order, window),
            "streak": extrapolate(table.n, table.streak, order, window)}
