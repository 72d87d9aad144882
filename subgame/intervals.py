"""Confidence intervals for sampled rates and means, and the multiple-comparison step.

Pure arithmetic (numpy and scipy.stats only), shared by the families that simulate:
higher/lower's Monte Carlo decks and Clue's tournaments.

- :func:`wilson`: the Wilson score interval for a proportion.  It keeps its coverage near
  0 and 1, where the normal (Wald) interval does not; its endpoints are exactly 0 / 1 at
  no / all successes.  With ``effective`` trials (Kish's effective sample size, for
  correlated trials: the variance of the observed proportion is that of ``effective``
  independent ones) it widens accordingly.
- :func:`mean_interval`: Student's t interval for a mean from its sums.
- :func:`holm`: Holm's step-down adjustment, which keeps the chance of any false
  "distinguishable" among several tests at most the stated level.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
from scipy import stats

CONFIDENCE = 0.95


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(successes: float, trials: float, confidence: float = CONFIDENCE,
           effective: float | None = None) -> tuple[float, float]:
    """(low, high) of the Wilson score interval for successes / trials; the proportion is
    taken as observed over ``effective`` independent trials when that is given."""
    if trials <= 0:
        return math.nan, math.nan
    p = successes / trials
    n = trials if effective is None else effective
    if not n > 0:  # a proportion that never varied between deals: no spread measured
        return p, p
    z2 = _z(confidence) ** 2 / n
    centre = (p + z2 / 2) / (1 + z2)
    half = math.sqrt(z2) / (1 + z2) * math.sqrt(p * (1 - p) + z2 / 4)
    # At no (all) successes the lower (upper) end is exactly 0 (1); rounding would move it.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def mean_interval(total: float, total_squares: float, count: int,
                  confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """(mean, low, high): Student's t interval for the mean of ``count`` observations
    whose sum and sum of squares are given; NaN where fewer than two were seen."""
    if count < 1:
        return math.nan, math.nan, math.nan
    mean = total / count
    if count < 2:
        return mean, math.nan, math.nan
    variance = max(0.0, (total_squares - count * mean * mean) / (count - 1))
    half = stats.t.ppf(0.5 + confidence / 2, count - 1) * math.sqrt(variance / count)
    return mean, mean - half, mean + half


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values (same order): reject test i at level alpha iff its adjusted
    p-value is <= alpha; the family-wise error rate is then at most alpha."""
    p_values = np.asarray(p_values, dtype=float)
    order = np.argsort(p_values)
    m = len(p_values)
    stepped = np.maximum.accumulate((m - np.arange(m)) * p_values[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted
