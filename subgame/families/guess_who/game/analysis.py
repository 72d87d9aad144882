"""Win probabilities, first-mover and game-state advantages and fair states of a table.

p(n, m) = a(n, m) / (n m).  The paper splits p into its symmetric and antisymmetric parts,
p(n, m) = 1/2 + F(n, m) + G(n, m):

    F(n, m) = (p(n, m) + p(m, n) - 1) / 2     first-mover advantage,  F(n, m) = F(m, n)
    G(n, m) = (p(n, m) - p(m, n)) / 2         game-state advantage,   G(n, m) = -G(m, n)

A state is fair when p(n, m) = 1/2, tested in integers: 2 a(n, m) = n m.  Tables are
square int64 arrays in the layout of ``new_table`` (row and column 0 unused).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def win_probability(a_nm: int, n: int, m: int) -> Fraction:
    """p(n, m) = a(n, m) / (n m), exactly."""
    return Fraction(int(a_nm), int(n) * int(m))


def first_mover_advantage(a_nm: int, a_mn: int, n: int, m: int) -> Fraction:
    """F(n, m) from a(n, m) and a(m, n), exactly."""
    return (win_probability(a_nm, n, m) + win_probability(a_mn, m, n) - 1) / 2


def game_state_advantage(a_nm: int, a_mn: int, n: int, m: int) -> Fraction:
    """G(n, m) from a(n, m) and a(m, n), exactly."""
    return (win_probability(a_nm, n, m) - win_probability(a_mn, m, n)) / 2


def probability_table(a: np.ndarray) -> np.ndarray:
    """float64 p(n, m) in the layout of ``a``; row and column 0 are NaN."""
    k = np.arange(a.shape[0], dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = a / np.multiply.outer(k, k)
    p[0, :] = np.nan
    p[:, 0] = np.nan
    return p


def advantage_tables(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float64 tables (F, G) in the layout of ``a`` (which must be square)."""
    p = probability_table(a)
    return (p + p.T - 1) / 2, (p - p.T) / 2


def fair_states(a: np.ndarray) -> np.ndarray:
    """The fair states (n, m), n, m >= 1, as an int64 array of shape (count, 2), by n then m.

    Unfilled cells (zeros) are never fair.
    """
    k = np.arange(a.shape[0], dtype=np.int64)
    fair = 2 * a == np.multiply.outer(k, k)
    fair[0, :] = False
    fair[:, 0] = False
    return np.argwhere(fair)
