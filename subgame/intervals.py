"""Confidence intervals for sampled rates and means, and the multiple-comparison step.

Pure arithmetic (numpy and scipy.stats only), shared by the families that simulate:
higher/lower's Monte Carlo decks and Clue's tournaments.

- :func:`wilson`: the Wilson score interval for a proportion.  It keeps its coverage near
  0 and 1, where the normal (Wald) interval does not; its endpoints are exactly 0 / 1 at
  no / all successes.  With ``effective`` trials (Kish's effective sample size, for
  correlated trials: the variance of the observed proportion is that of ``effective``
  independent ones) it widens accordingly.
- :func:`t_interval`, :func:`t_p_value`: Student's t interval of an estimate with a given
  variance, and the two-sided p-value of a difference.
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


def t_interval(estimate: float, variance: float, dof: int,
               confidence: float = CONFIDENCE) -> tuple[float, float]:
    """(low, high) = estimate -+ Student's t quantile (dof) x sqrt(variance); NaN without
    a degree of freedom."""
    if dof < 1 or math.isnan(variance):
        return math.nan, math.nan
    half = stats.t.ppf(0.5 + confidence / 2, dof) * math.sqrt(max(variance, 0.0))
    return estimate - half, estimate + half


def t_p_value(difference: float, variance: float, dof: int) -> float:
    """Two-sided p-value of difference / sqrt(variance) under Student's t (dof)."""
    if dof < 1:
        return math.nan
    if variance <= 0:
        return 1.0 if difference == 0 else 0.0
    return float(2 * stats.t.sf(abs(difference) / math.sqrt(variance), dof))


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
