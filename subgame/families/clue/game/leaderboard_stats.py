"""A tournament's rates, their 95 % intervals and the paired comparison with the leader,
from its per-deal moments (``tournament.QUANTITIES``; the deal is the independent unit).

Every rate is a ratio R = sum(a) / sum(b) of two per-deal totals of one strategy (first
places per seat-game, wrong guesses per guess, rank, guess round and lead per seat-game,
guess and lead).  Its variance is the linearised (sandwich) one over deals: with
e_d = (a_d - R b_d) / sum(b), Var R ~ sum_d e_d^2, a quadratic form of the stored second
moments.  This counts a deal once however many games it was played (balanced seating) and
however many seats a strategy holds, where the games of a deal are correlated.

* proportions (first share, wrong rate): the Wilson score interval over the effective
  number of trials n_eff = R (1 - R) / Var R (Kish).  With one seat and one game a deal
  this is the plain Wilson interval over the seat-games (n_eff = trials exactly).
* means (rank, guess round, lead): Student's t with deals - 1 degrees of freedom and the
  variance scaled by deals / (deals - 1).
* distinguishable from the leader (the highest first share): the paired difference of the
  two first shares over the same deals (e_d of the leader less e_d of the other), a t test
  with deals - 1 degrees of freedom, the p-values of all comparisons with the leader
  Holm-adjusted; "distinguishable" when the adjusted p-value is below 1 - confidence, so
  the chance of calling any equal strategy different is at most 5 %.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from subgame.intervals import CONFIDENCE, holm, t_interval, t_p_value, wilson

from .tournament import QUANTITIES

# rate: (numerator, denominator, proportion?)
RATES = {"first_share": ("first_places", "seat_games", True),
         "wrong_rate": ("wrong_guesses", "guesses", True),
         "mean_rank": ("rank_sum", "seat_games", False),
         "mean_guess_round": ("guess_round_sum", "guesses", False),
         "mean_lead": ("lead_sum", "leads", False)}
LEADER_RATE = "first_share"


class DealMoments:
    """The summed outer products of (1, per-deal totals) of one grid point.

    The quadratic forms are taken in exact rationals over the stored integers: a rate
    that never varies between deals then has variance exactly 0, where floats leave
    cancellation noise."""

    def __init__(self, matrix: np.ndarray, strategies: Sequence[str]):
        matrix = np.asarray(matrix).astype(object)
        self.strategies = list(strategies)
        self.deals = int(matrix[0, 0])
        self.sums, self.second = matrix[0, 1:], matrix[1:, 1:]

    def _at(self, strategy: int, quantity: str) -> int:
        return strategy * len(QUANTITIES) + QUANTITIES.index(quantity)

    def ratio(self, strategy: int, rate: str) -> tuple[float, dict[int, Fraction]]:
        """R and the weights w with e_d = w . v_d (None where the denominator is 0)."""
        num, den, _ = RATES[rate]
        a, b = self._at(strategy, num), self._at(strategy, den)
        if self.sums[b] == 0:
            return math.nan, {}
        value = Fraction(int(self.sums[a]), int(self.sums[b]))
        weights = {a: Fraction(1, int(self.sums[b])), b: -value / int(self.sums[b])}
        return float(value), weights

    def spread(self, w: dict[int, Fraction]) -> float:
        """sum_d (w . v_d)^2, exactly, as a float."""
        return float(sum(wi * wj * int(self.second[i, j])
                         for i, wi in w.items() for j, wj in w.items()))

    def rate(self, strategy: int, rate: str, confidence: float = CONFIDENCE) -> dict[str, Any]:
        value, w = self.ratio(strategy, rate)
        if math.isnan(value):
            return {rate: None, f"{rate}_low": None, f"{rate}_high": None}
        num, den, proportion = RATES[rate]
        if proportion:
            variance = self.spread(w)
            informative = variance > 0 and 0 < value < 1
            effective = value * (1 - value) / variance if informative else self.deals
            low, high = wilson(self.sums[self._at(strategy, num)],
                               self.sums[self._at(strategy, den)], confidence, effective)
        else:
            low, high = t_interval(value, self.spread(w) * self.deals / max(self.deals - 1, 1),
                                   self.deals - 1, confidence)
        return {rate: value, f"{rate}_low": _number(low), f"{rate}_high": _number(high)}

    def against_leader(self, confidence: float = CONFIDENCE) -> dict[str, Any]:
        """The leader by first share and, per other strategy, the paired comparison."""
        shares = [self.ratio(s, LEADER_RATE) for s in range(len(self.strategies))]
        ranked = [s for s in range(len(shares)) if not math.isnan(shares[s][0])]
        if not ranked:
            return {"leader": None, "others": {}}
        leader = max(ranked, key=lambda s: shares[s][0])
        others = [s for s in ranked if s != leader]
        rows, p_values = {}, []
        for s in others:
            difference = shares[leader][0] - shares[s][0]
            w = dict(shares[leader][1])
            for i, weight in shares[s][1].items():
                w[i] = w.get(i, 0) - weight
            variance = self.spread(w) * self.deals / max(self.deals - 1, 1)
            p_values.append(t_p_value(difference, variance, self.deals - 1))
            rows[self.strategies[s]] = {"difference": difference,
                                        "p_value": _number(p_values[-1])}
        for row, adjusted in zip(rows.values(), holm(np.array(p_values)) if others else []):
            row["p_holm"] = _number(adjusted)
            row["distinguishable"] = bool(adjusted < 1 - confidence)
        return {"leader": self.strategies[leader], "others": rows}


def _number(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)
