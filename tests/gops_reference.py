"""Independent GOPS for small N: the paper's recursion over explicit card sets, every matrix
game with no saddle point solved by scipy's HiGHS.  No patterns, no antisymmetry, no ranks,
no other shortcuts (no saturation either).

points:  f(V, Y, P)    = mean over P_k in P of val(X),  f = 0 at P = {}
         X[i, l]       = sign(V_i - Y_l) P_k + f(V - V_i, Y - Y_l, P - P_k)
win:     f(V, Y, P, d) = mean over P_k in P of val(X),  f = sign(d) at P = {}
         X[i, l]       = f(V - V_i, Y - Y_l, P - P_k, d + sign(V_i - Y_l) P_k)

The functions take ``diff=None`` for points and the difference d so far for win.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np
from scipy.optimize import linprog

HIGHS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def highs_game(payoff: np.ndarray) -> tuple[float, np.ndarray]:
    """Value and an optimal row strategy: maximise v s.t. x^T X >= v, sum x = 1, x >= 0."""
    m, n = payoff.shape
    cost = np.zeros(m + 1)
    cost[-1] = -1.0
    a_ub = np.hstack([-payoff.T, np.ones((n, 1))])
    a_eq = np.append(np.ones(m), 0.0)[None]
    res = linprog(cost, A_ub=a_ub, b_ub=np.zeros(n), A_eq=a_eq, b_eq=[1.0],
                  bounds=[(0, None)] * m + [(None, None)], method="highs", options=HIGHS)
    assert res.status == 0, res.message
    return -res.fun, res.x[:m]


def game_value(payoff: np.ndarray) -> float:
    """val(X): the entry of a saddle point where max_i min_l X = min_l max_i X (a pure
    equilibrium), else HiGHS's value."""
    lower, upper = payoff.min(axis=1).max(), payoff.max(axis=0).min()
    return float(lower) if lower == upper else highs_game(payoff)[0]


def sign(a: int, b: int) -> int:
    return (a > b) - (a < b)


def payoff(v: tuple, y: tuple, p: tuple, prize: int, diff: int | None = None) -> np.ndarray:
    """X for upcard ``prize``: rows are V ascending, columns Y ascending."""
    rest = tuple(c for c in p if c != prize)
    if diff is None:
        return np.array([[sign(a, b) * prize + value(drop(v, a), drop(y, b), rest)
                          for b in y] for a in v])
    return np.array([[value(drop(v, a), drop(y, b), rest, diff + sign(a, b) * prize)
                      for b in y] for a in v])


def drop(hand: tuple, card: int) -> tuple:
    return tuple(c for c in hand if c != card)


def upcard_values(v: tuple, y: tuple, p: tuple, diff: int | None = None) -> tuple[float, ...]:
    """f_k for the upcards of P in ascending order (hands as sorted tuples)."""
    return _upcard_values(v, y, p, diff)


@lru_cache(maxsize=None)
def _upcard_values(v: tuple, y: tuple, p: tuple, diff: int | None) -> tuple[float, ...]:
    # One cache key per state: f(V, Y, P) and f(V, Y, P, None) are the same state.
    return tuple(game_value(payoff(v, y, p, prize, diff)) for prize in p)


def value(v: tuple, y: tuple, p: tuple, diff: int | None = None) -> float:
    if p:
        return float(np.mean(upcard_values(v, y, p, diff)))
    return 0.0 if diff is None else float(sign(diff, 0))


def all_states(n_cards: int):
    """Every (V, Y, P) with |V| = |Y| = |P| = j >= 1, as sorted tuples."""
    cards = range(1, n_cards + 1)
    for j in range(1, n_cards + 1):
        hands = list(combinations(cards, j))
        for v in hands:
            for y in hands:
                for p in hands:
                    yield v, y, p


def reachable_diffs(n_cards: int, p: tuple) -> range:
    """The differences d a state with prizes P left can have: |d| <= the points played."""
    played = n_cards * (n_cards + 1) // 2 - sum(p)
    return range(-played, played + 1)


# Strategies are stored as float32: each probability within 6e-8 of the computed one.
STORED_TOLERANCE = 1e-6


def guarantees(bids: dict, payoff: np.ndarray, value: float, rows: tuple, player: int) -> bool:
    """A stored mixed bid is optimal iff it secures the value against every pure reply."""
    x = np.array([bids[str(c)] for c in rows])
    slack = STORED_TOLERANCE * max(1.0, np.abs(payoff).max())
    if player == 1:
        return bool(np.all(x @ payoff >= value - slack))
    return bool(np.all(payoff @ x <= value + slack))
