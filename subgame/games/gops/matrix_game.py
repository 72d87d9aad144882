"""Zero-sum matrix games, compiled: the value and optimal mixed strategies of an m x n game.

The row player maximises x^T X y.  A pure saddle point (max_i min_l X = min_l max_i X) is
taken first.  Otherwise X is shifted and scaled into B = (X - min X) / (max X - min X) + 1,
whose entries lie in [1, 2], and the column player's problem is the linear program

    maximise sum(w)  subject to  B w <= 1,  w >= 0,

with optimum 1 / val(B): y = w / sum(w) is an optimal column strategy and the duals u of
the m constraints give the row strategy x = u / sum(u).  It is solved by the simplex method
on the condensed (Tucker) tableau, starting from the slack basis.  GOPS matrices are highly
degenerate, so Dantzig's entering rule gives way to Bland's smallest-index rule (which
cannot cycle) after a run of degenerate pivots.  The simplex method only chooses the optimal
basis: w and u are then solved afresh from X restricted to it.

Every answer carries a certificate: x guarantees g_lo = min_l (x^T X)_l and y concedes at
most g_hi = max_i (X y)_i, so g_lo <= val(X) <= g_hi.  The value returned is the midpoint;
its error is at most gap / 2 with gap = g_hi - g_lo (about 1e-14 on GOPS matrices).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_TOL = 1e-11  # pivot and optimality tolerance on the scaled tableau (entries of order 1)
_TIE = 1e-12  # relative tolerance under which two ratios tie in the ratio test
_STALL = 6  # degenerate pivots in a row before Bland's rule takes over
_MAX_PIVOTS = 5000  # GOPS and random 16 x 16 games need at most a few dozen: a failure


@njit(cache=True, nogil=True, inline="always")
def _pivot(tab, m, n, r, s):
    """Exchange basic variable r and non-basic variable s of the (m+1) x (n+1) tableau."""
    p = 1.0 / tab[r, s]
    for c in range(n + 1):
        tab[r, c] *= p
    tab[r, s] = p
    for i in range(m + 1):
        f = tab[i, s]
        if i != r and f != 0.0:
            for c in range(n + 1):
                tab[i, c] -= f * tab[r, c]
            tab[i, s] = -f * p


@njit(cache=True, nogil=True)
def _simplex(tab, m, n, row_var, col_var):
    """Run the simplex method to optimality; return the number of pivots (-1: failure).

    Row i holds basic variable row_var[i] = b_i - sum_c tab[i, c] * (non-basic col_var[c]),
    b_i = tab[i, n]; row m holds the reduced costs.  Variables 0..n-1 are w, n.. the slacks.
    """
    bland = False
    stall = 0
    for pivots in range(_MAX_PIVOTS):
        s = -1
        best = _TOL
        for c in range(n):
            cost = tab[m, c]
            if cost > _TOL:
                if bland:
                    if s < 0 or col_var[c] < col_var[s]:
                        s = c
                elif cost > best:
                    best = cost
                    s = c
        if s < 0:
            return pivots
        r = -1
        low = 0.0
        for i in range(m):
            a = tab[i, s]
            if a > _TOL:
                ratio = max(tab[i, n], 0.0) / a
                if r < 0 or ratio < low - _TIE * (1.0 + low):
                    r, low = i, ratio
                elif ratio <= low + _TIE * (1.0 + low):
                    if (row_var[i] < row_var[r]) if bland else (a > tab[r, s]):
                        r = i
        if r < 0:
            return -1  # unbounded: impossible for B >= 1, so the tableau has lost accuracy
        if tab[r, n] <= _TOL:
            stall += 1
            bland = bland or stall >= _STALL
        else:
            stall = 0
        _pivot(tab, m, n, r, s)
        row_var[r], col_var[s] = col_var[s], row_var[r]
    return -1


@njit(cache=True, nogil=True)
def _certify(X, m, n, x, y):
    """(g_lo + g_hi) / 2 and g_hi - g_lo for the strategies x, y (see the module text)."""
    lo = np.inf
    for c in range(n):
        t = 0.0
        for i in range(m):
            t += x[i] * X[i, c]
        lo = min(lo, t)
    hi = -np.inf
    for i in range(m):
        t = 0.0
        for c in range(n):
            t += X[i, c] * y[c]
        hi = max(hi, t)
    return 0.5 * (lo + hi), hi - lo


@njit(cache=True, nogil=True)
def _normalise(v, size):
    total = 0.0
    for i in range(size):
        total += v[i]
    for i in range(size):
        v[i] /= total


@njit(cache=True, nogil=True)
def _basis_solution(X, m, n, lo, scale, tab, row_var, col_var, x, y):
    """Strategies from the optimal basis, solved afresh from X.

    The basis pairs the k tight rows R (non-basic slacks) with the k basic columns S:
    B[R, S] w_S = 1 and u_R B[R, S] = 1.  Solving these by Gaussian elimination with
    partial pivoting keeps the rounding picked up along the pivot path (tiny pivots
    between nearly equal GOPS entries) out of the strategies.
    """
    k = 0
    for i in range(m):
        if row_var[i] < n:
            row_var[k] = row_var[i]  # S, reusing the finished label arrays
            k += 1
    t = 0
    for c in range(n):
        if col_var[c] >= n:
            col_var[t] = col_var[c] - n  # R
            t += 1
    for a in range(k):
        for b in range(k):
            tab[a, b] = (X[col_var[a], row_var[b]] - lo) * scale + 1.0
    for c in range(k):  # LU with row pivoting; swapping rows of B[R, S] permutes R
        piv = c
        for a in range(c + 1, k):
            if abs(tab[a, c]) > abs(tab[piv, c]):
                piv = a
        if piv != c:
            for b in range(k):
                tab[c, b], tab[piv, b] = tab[piv, b], tab[c, b]
            col_var[c], col_var[piv] = col_var[piv], col_var[c]
        for a in range(c + 1, k):
            f = tab[a, c] / tab[c, c]
            tab[a, c] = f
            for b in range(c + 1, k):
                tab[a, b] -= f * tab[c, b]
    w = tab[k]  # a spare row of the tableau (k <= m)
    for a in range(k):  # L z = 1, then U w = z
        z = 1.0
        for b in range(a):
            z -= tab[a, b] * w[b]
        w[a] = z
    for a in range(k - 1, -1, -1):
        z = w[a]
        for b in range(a + 1, k):
            z -= tab[a, b] * w[b]
        w[a] = z / tab[a, a]
    for b in range(k):
        y[row_var[b]] = max(w[b], 0.0)
    for b in range(k):  # U^T s = 1, then L^T u = s
        z = 1.0
        for a in range(b):
            z -= tab[a, b] * w[a]
        w[b] = z / tab[b, b]
    for b in range(k - 1, -1, -1):
        z = w[b]
        for a in range(b + 1, k):
            z -= tab[a, b] * w[a]
        w[b] = z
    for a in range(k):
        x[col_var[a]] = max(w[a], 0.0)
    _normalise(x, m)
    _normalise(y, n)


@njit(cache=True, nogil=True)
def solve_into(X, m, n, tab, row_var, col_var, x, y):
    """Solve the game X[:m, :n] into x[:m], y[:n]; return (value, gap, pivots).

    tab ((m+1) x (n+1) or larger), row_var (m), col_var (n) are scratch space; pivots is 0
    for a saddle point and -1 if the simplex method failed (value NaN).
    """
    lo = np.inf
    hi = -np.inf
    maximin = -np.inf
    best_row = 0
    for i in range(m):
        row_min = np.inf
        for c in range(n):
            e = X[i, c]
            row_min = min(row_min, e)
            lo = min(lo, e)
            hi = max(hi, e)
        if row_min > maximin:
            maximin, best_row = row_min, i
    minimax = np.inf
    best_col = 0
    for c in range(n):
        col_max = -np.inf
        for i in range(m):
            col_max = max(col_max, X[i, c])
        if col_max < minimax:
            minimax, best_col = col_max, c
    x[:m] = 0.0
    y[:n] = 0.0
    if minimax - maximin <= 1e-13 * (hi - lo):  # a pure saddle point, up to rounding
        x[best_row] = 1.0
        y[best_col] = 1.0
        return 0.5 * (maximin + minimax), minimax - maximin, 0

    scale = 1.0 / (hi - lo)
    for i in range(m):
        for c in range(n):
            tab[i, c] = (X[i, c] - lo) * scale + 1.0
        tab[i, n] = 1.0
        row_var[i] = n + i
    for c in range(n):
        tab[m, c] = 1.0
        col_var[c] = c
    tab[m, n] = 0.0
    pivots = _simplex(tab, m, n, row_var, col_var)
    if pivots < 0:
        return np.nan, np.inf, -1
    _basis_solution(X, m, n, lo, scale, tab, row_var, col_var, x, y)
    value, gap = _certify(X, m, n, x, y)
    if not gap < np.inf:  # NaN from a singular basis: a failure, not a small gap
        return np.nan, np.inf, -1
    return value, gap, pivots


@njit(cache=True, nogil=True)
def solve_matrix_games(games):
    """Solve a batch of games, shape (B, m, n) float64.

    Returns values (B,), row strategies (B, m), column strategies (B, n), certified gaps
    (B,) with |value - val| <= gap / 2, and pivots (B,) (0: saddle point, -1: failure).
    """
    count, m, n = games.shape
    values = np.empty(count)
    gaps = np.empty(count)
    pivots = np.empty(count, np.int64)
    rows = np.empty((count, m))
    cols = np.empty((count, n))
    tab = np.empty((m + 1, n + 1))
    row_var = np.empty(m, np.int64)
    col_var = np.empty(n, np.int64)
    for b in range(count):
        values[b], gaps[b], pivots[b] = solve_into(games[b], m, n, tab, row_var, col_var,
                                                   rows[b], cols[b])
    return values, rows, cols, gaps, pivots


def solve_matrix_game(payoff):
    """Value, optimal row strategy, optimal column strategy and certified gap of one game."""
    games = np.ascontiguousarray(payoff, dtype=np.float64)[None]
    values, rows, cols, gaps, pivots = solve_matrix_games(games)
    if pivots[0] < 0:
        raise ArithmeticError("simplex method failed on this matrix game")
    return float(values[0]), rows[0], cols[0], float(gaps[0])
