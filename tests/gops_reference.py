"""Independent GOPS for small N: the paper's recursion over explicit card sets, with every
matrix game solved by scipy's HiGHS.  No patterns, no antisymmetry, no ranks, no shortcuts.

    f(V, Y, P) = mean over P_k in P of val(X),
    X[i, l]    = sign(V_i - Y_l) P_k + f(V - V_i, Y - Y_l, P - P_k)
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


def sign(a: int, b: int) -> int:
    return (a > b) - (a < b)


def payoff(v: tuple, y: tuple, p: tuple, prize: int) -> np.ndarray:
    """X for upcard ``prize``: rows are V ascending, columns Y ascending."""
    rest = tuple(c for c in p if c != prize)
    return np.array([[sign(a, b) * prize + value(drop(v, a), drop(y, b), rest)
                      for b in y] for a in v])


def drop(hand: tuple, card: int) -> tuple:
    return tuple(c for c in hand if c != card)


@lru_cache(maxsize=None)
def upcard_values(v: tuple, y: tuple, p: tuple) -> tuple[float, ...]:
    """f_k(V, Y, P) for the upcards of P in ascending order (hands as sorted tuples)."""
    return tuple(highs_game(payoff(v, y, p, prize))[0] for prize in p)


def value(v: tuple, y: tuple, p: tuple) -> float:
    return float(np.mean(upcard_values(v, y, p))) if p else 0.0


def all_states(n_cards: int):
    """Every (V, Y, P) with |V| = |Y| = |P| = j >= 1, as sorted tuples."""
    cards = range(1, n_cards + 1)
    for j in range(1, n_cards + 1):
        hands = list(combinations(cards, j))
        for v in hands:
            for y in hands:
                for p in hands:
                    yield v, y, p
