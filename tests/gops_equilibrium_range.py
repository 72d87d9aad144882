"""What a policy of player one can score against *some* optimal player two (points).

Player two's optimal strategies are not unique, so a policy's value against "the" optimal
player two depends on which one the solver returned.  Here, independently of the package
(explicit card sets, every matrix game solved by scipy's HiGHS): the values f(V, Y, P),
then for a policy of player one that is blind to the score, the least and the most it can
expect against the strategies of player two that are optimal in every subgame, that is
mixes y with X y <= val(X) row by row at every state and upcard.  Both ends come from one
linear programme per (state, upcard) over that set, bottom up (the set at a state does not
depend on the choices elsewhere).  Small N only (N = 5: a few seconds)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.optimize import linprog

TOLERANCE = 1e-7  # slack on X y <= val: HiGHS solves to about 1e-9


def _sign(a: int) -> int:
    return (a > 0) - (a < 0)


def policy_bid(policy: str, hand: tuple[int, ...], upcard: int) -> int:
    """match: the upcard or the next card above; upcard+1: the next card above; either
    wraps to the lowest card (as ``evaluate``'s policies)."""
    above = [c for c in hand if (c >= upcard if policy == "match" else c > upcard)]
    return above[0] if above else hand[0]


def _game_value(matrix: np.ndarray) -> float:
    """val(X), the row player maximising: max v s.t. X^T x >= v, sum x = 1, x >= 0."""
    rows, cols = matrix.shape
    cost = np.r_[np.zeros(rows), -1.0]
    upper = np.c_[-matrix.T, np.ones(cols)]
    equal = np.r_[np.ones(rows), 0.0][None, :]
    result = linprog(cost, A_ub=upper, b_ub=np.zeros(cols), A_eq=equal, b_eq=[1.0],
                     bounds=[(0, None)] * rows + [(None, None)], method="highs")
    return -result.fun


def matrix(hand, other, prizes, k: int) -> np.ndarray:
    """X[i, l] = sign(V_i - Y_l) P_k + f(V - V_i, Y - Y_l, P - P_k)."""
    prize, rest = prizes[k], prizes[:k] + prizes[k + 1:]
    return np.array([[_sign(v - y) * prize + f(_without(hand, v), _without(other, y), rest)
                      for y in other] for v in hand])


@lru_cache(maxsize=None)
def game_value(hand, other, prizes, k: int) -> float:
    return _game_value(matrix(hand, other, prizes, k))


@lru_cache(maxsize=None)
def f(hand, other, prizes) -> float:
    """The points value of (V, Y, P) for player one, tuples ascending."""
    if not prizes:
        return 0.0
    return float(np.mean([game_value(hand, other, prizes, k) for k in range(len(prizes))]))


class EquilibriumRange:
    """The range of a score-blind policy's expected points against player two's
    subgame-optimal strategies, over explicit (V, Y, P) (tuples, ascending)."""

    def __init__(self, policy: str):
        self.policy = policy

    @lru_cache(maxsize=None)
    def extreme(self, hand, other, prizes, sense: int) -> float:
        """sense = +1: the most the policy's expected points can be, -1: the least."""
        if not prizes:
            return 0.0
        total = 0.0
        for k, prize in enumerate(prizes):
            rest = prizes[:k] + prizes[k + 1:]
            bid = policy_bid(self.policy, hand, prize)
            gain = np.array([_sign(bid - y) * prize + self.extreme(
                _without(hand, bid), _without(other, y), rest, sense) for y in other])
            value = game_value(hand, other, prizes, k)
            result = linprog(-sense * gain, A_ub=matrix(hand, other, prizes, k),
                             b_ub=np.full(len(hand), value + TOLERANCE),
                             A_eq=np.ones((1, len(other))), b_eq=[1.0],
                             bounds=[(0, None)] * len(other), method="highs")
            total += sense * -result.fun
        return total / len(prizes)

    def value_range(self, n_cards: int) -> tuple[float, float]:
        full = tuple(range(1, n_cards + 1))
        return self.extreme(full, full, full, -1), self.extreme(full, full, full, +1)


def _without(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    return tuple(c for c in cards if c != card)


if __name__ == "__main__":  # python -m tests.gops_equilibrium_range N [policy ...]
    import sys

    n_cards = int(sys.argv[1])
    for name in sys.argv[2:] or ["match", "upcard+1"]:
        low, high = EquilibriumRange(name).value_range(n_cards)
        print(f"N = {n_cards} {name}: E[points] from {low:+.4f} to {high:+.4f} against player "
              "two's subgame-optimal strategies")
