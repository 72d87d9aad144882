"""Zero-sum matrix games, compiled: the value and optimal mixed strategies of an m x n game.

The row player maximises x^T X y.  A pure saddle point (max_i min_l X = min_l max_i X) is
taken first.  Otherwise X is shifted and scaled into B = (X - min X) / (max X - min X) + 1,
whose entries lie in [1, 2], and the column player's problem is the linear program

    maximise sum(w)  subject to  B w <= 1,  w >= 0,

with optimum 1 / val(B): y = w / sum(w) is an optimal column strategy and the duals u of
the m constraints give the row strategy x = u / sum(u).  It is solved by the simplex method
on the condensed (Tucker) tableau, starting from the slack basis; the first column to enter
is the column player's best pure strategy (the smallest column maximum, which the saddle
check has found), which saves about one pivot in nine on GOPS games.  GOPS matrices are
highly degenerate, so Dantzig's entering rule gives way to Bland's smallest-index rule
(which cannot cycle) after a run of degenerate pivots.  The strategies are read off the
optimal tableau (w from its basic variables, u from its reduced costs); when their
certificate (below) is not tight enough, w and u are solved afresh from X restricted to the
optimal basis, which keeps the rounding picked up along the pivot path out of them.

A game may come with a guessed optimal basis (its neighbour's, see ``level._solve_rows``):
after the saddle check the strategies are solved on that support first (by Cramer's rule
for a support of 2..4 rows and columns), and taken, without a pivot, when their
certificate is as tight as the simplex path's must be; else the simplex method runs as
above.

Every answer carries a certificate: x guarantees g_lo = min_l (x^T X)_l and y concedes at
most g_hi = max_i (X y)_i, so g_lo <= val(X) <= g_hi.  The value returned is the midpoint;
its error is at most gap / 2 with gap = g_hi - g_lo (at most a few 1e-12 on GOPS matrices
read off the tableau, about 1e-14 when solved afresh).

The tableau accumulates rounding along the pivot path, and on entries 1e-8 apart it can lose
the optimal basis (a gap of 1e-8 on one game of level 7 of N = 13).  A game whose gap
exceeds _REFINE * (max X - min X) (1 in 1.7 million GOPS games) is refined: the simplex
method goes on from the basis reached, rebuilding the tableau from X before every pivot,
with dual pivots for basic variables left slightly negative (``_refine``).  Only those
games pay for it; the common path costs one comparison more.

Compiled without numba's reference counts (``_nrt=False``): every array these functions
see is their caller's, and numba would otherwise count references to each array argument
and view with two atomic instructions (a ``lock`` prefix each) on entry and exit, about 30
a game, a large share of a game's time.  Such a function cannot allocate, so callers hand
in all scratch space, and copies between slices are written as loops.

The solver's steps are inlined into their caller (``inline="always"``), so a caller that
knows m and n when it is compiled (``level._solve_rows`` specialised to a level's j) has
them as constants in every loop; a caller with run-time sizes gets loops over them.
"""

from __future__ import annotations

import numpy as np

from subgame.jit import literal_unroll, njit

_TOL = 1e-11  # pivot and optimality tolerance on the scaled tableau (entries of order 1)
_TIE = 1e-12  # relative tolerance under which two ratios tie in the ratio test
_STALL = 6  # degenerate pivots in a row before Bland's rule takes over
_MAX_PIVOTS = 5000  # GOPS and random 16 x 16 games need at most a few dozen: a failure
_REFINE = 1e-13  # a gap above this times (max X - min X): solve afresh, then _refine
_EXACT_TOL = 1e-14  # optimality tolerance of _refine, whose tableaux are exact to rounding
_INFEASIBLE = 1e-15  # in _refine, a basic variable below -this leaves by a dual pivot
_GUESS_SLACK = 1e-9  # a guessed support whose w or u has an entry below -this is wrong
_THRESHOLD = 0.1  # a guess's elimination swaps rows only for a pivot below this of the largest
_SINGULAR = 1e-14  # in _refine, a basis whose elimination meets no larger pivot is singular
_u = np.uintp  # an index type: numba wraps negative signed indices around, not unsigned ones


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _ratio_test(tab, m, n, s, row_var, bland):
    """The leaving row for entering column s (-1: unbounded).  Ratios within _TIE of the
    smallest count as ties, broken by the smallest label (Bland) or else by the largest
    pivot element.  Two passes with few data-dependent branches: the minimum first."""
    low = np.inf
    for i in range(m):
        a = tab[_u(i), _u(s)]
        low = min(low, max(tab[_u(i), _u(n)], 0.0) / a if a > _TOL else np.inf)
    if low == np.inf:
        return -1
    bound = low + _TIE * (1.0 + low)
    r = -1
    for i in range(m):
        a = tab[_u(i), _u(s)]
        if a > _TOL and max(tab[_u(i), _u(n)], 0.0) <= bound * a:
            if r < 0 or ((row_var[_u(i)] < row_var[_u(r)]) if bland else (a > tab[_u(r), _u(s)])):
                r = i
    return r


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _pivot(tab, m, n, r, s):
    """Exchange basic variable r and non-basic variable s of the (m+1) x (n+1) tableau."""
    p = 1.0 / tab[_u(r), _u(s)]
    for c in range(n + 1):
        tab[_u(r), _u(c)] *= p
    tab[_u(r), _u(s)] = p
    for i in range(m + 1):
        f = tab[_u(i), _u(s)]
        if i != r and f != 0.0:
            for c in range(n + 1):
                tab[_u(i), _u(c)] -= f * tab[_u(r), _u(c)]
            tab[_u(i), _u(s)] = -f * p


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _entering(tab, m, n, col_var, bland):
    """The entering column (-1: optimal): Dantzig's, the largest reduced cost above _TOL,
    or Bland's, the smallest label among those above _TOL."""
    s = -1
    if bland:
        for c in range(n):
            if tab[_u(m), _u(c)] > _TOL and (s < 0 or col_var[_u(c)] < col_var[_u(s)]):
                s = c
    else:
        best = _TOL
        for c in range(n):
            if tab[_u(m), _u(c)] > best:
                best = tab[_u(m), _u(c)]
                s = c
    return s


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _simplex(tab, m, n, row_var, col_var, first):
    """Run the simplex method to optimality, column ``first`` entering first; return the
    number of pivots (-1: failure).

    Row i holds basic variable row_var[i] = b_i - sum_c tab[i, c] * (non-basic col_var[c]),
    b_i = tab[i, n]; row m holds the reduced costs.  Variables 0..n-1 are w, n.. the slacks.
    """
    bland = False
    stall = 0
    for pivots in range(_MAX_PIVOTS):
        s = first if pivots == 0 else _entering(tab, m, n, col_var, bland)
        if s < 0:
            return pivots
        r = _ratio_test(tab, m, n, s, row_var, bland)
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


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _certify(X, m, n, x, y):
    """(g_lo + g_hi) / 2 and g_hi - g_lo for the strategies x, y (see the module text)."""
    lo = np.inf
    for c in range(n):
        t = 0.0
        for i in range(m):
            t += x[_u(i)] * X[_u(i), _u(c)]
        lo = min(lo, t)
    hi = -np.inf
    for i in range(m):
        t = 0.0
        for c in range(n):
            t += X[_u(i), _u(c)] * y[_u(c)]
        hi = max(hi, t)
    return 0.5 * (lo + hi), hi - lo


@njit(cache=True, nogil=True, _nrt=False)
def _normalise(v, size):
    total = 0.0
    for i in range(size):
        total += v[i]
    for i in range(size):
        v[i] /= total


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _tableau_solution(m, n, tab, row_var, col_var, x, y):
    """Strategies read off the optimal tableau: w_c is the value of w_c if basic (else 0),
    the dual u_i is minus the reduced cost of the slack of row i (0 if that slack is
    basic); normalised, y = w / sum(w) and x = u / sum(u)."""
    for i in range(m):
        if row_var[i] < n:
            y[row_var[i]] = max(tab[i, n], 0.0)
    for c in range(n):
        if col_var[c] >= n:
            x[col_var[c] - n] = max(-tab[m, c], 0.0)
    _normalise(x, m)
    _normalise(y, n)


@njit(cache=True, nogil=True, _nrt=False)
def _basis_solution(X, m, n, lo, scale, tab, row_var, col_var, x, y):
    """Strategies from the optimal basis, solved afresh from X.

    The basis pairs the k tight rows R (non-basic slacks) with the k basic columns S;
    ``_square_solution`` solves for them.  Returns k, or -1 if B[R, S] is singular (x, y
    are then garbage).  Leaves S in row_var[:k] and R (permuted) in col_var[:k].
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
    return _square_solution(X, m, n, lo, scale, tab, col_var, row_var, k, x, y, False)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _square_solution(X, m, n, lo, scale, tab, tight, basic, k, x, y, guess):
    """x and y supported on the rows tight[:k] and the columns basic[:k]: B[R, S] w = 1
    and u B[R, S] = 1 (R = tight, S = basic), solved by Gaussian elimination, then
    y = w / sum(w), x = u / sum(u).  Elimination keeps the rounding picked up along a pivot
    path (tiny pivots between nearly equal GOPS entries) out of the strategies.

    An optimal basis is solved with partial pivoting (swapping rows of B[R, S] permutes
    tight[:k]).  A guessed support (``guess``) swaps rows only where a pivot is below
    _THRESHOLD of the largest entry under it (threshold pivoting): the largest entry is a
    reduction without branches and the swap is almost never taken, where partial
    pivoting's search for the row is a chain of data-dependent branches in every column.
    A guess with an entry of w or u below -_GUESS_SLACK is refused at once; otherwise
    negative entries are clipped to 0 (a wrong support then shows in the certificate).  Returns k, or -1 if B[R, S] is singular (or the guess
    refused).  The pivots' reciprocals replace U's diagonal: multiplications instead of
    divisions on the solves' dependency chains.  Indices are unsigned (``_u``)."""
    for a in range(k):
        row = _u(tight[a])
        for b in range(k):
            tab[_u(a), _u(b)] = (X[row, _u(basic[b])] - lo) * scale + 1.0
    for c in range(k):  # LU; swapping rows of B[R, S] permutes R
        largest = 0.0
        for a in range(c + 1, k):
            largest = max(largest, abs(tab[_u(a), _u(c)]))
        if not guess or abs(tab[_u(c), _u(c)]) < _THRESHOLD * largest:
            piv = c
            for a in range(c + 1, k):
                if abs(tab[_u(a), _u(c)]) > abs(tab[_u(piv), _u(c)]):
                    piv = a
            if piv != c:
                for b in range(k):
                    tab[_u(c), _u(b)], tab[_u(piv), _u(b)] = tab[_u(piv), _u(b)], tab[_u(c), _u(b)]
                tight[c], tight[piv] = tight[piv], tight[c]
        if tab[_u(c), _u(c)] == 0.0:
            return -1  # the basis is singular in X: only rounding made it a basis
        inverse = 1.0 / tab[_u(c), _u(c)]
        tab[_u(c), _u(c)] = inverse
        for a in range(c + 1, k):
            f = tab[_u(a), _u(c)] * inverse
            tab[_u(a), _u(c)] = f
            for b in range(c + 1, k):
                tab[_u(a), _u(b)] -= f * tab[_u(c), _u(b)]
    w = tab[k]  # a spare row of the tableau (k <= m)
    for a in range(k):  # L z = 1, then U w = z
        z = 1.0
        for b in range(a):
            z -= tab[_u(a), _u(b)] * w[_u(b)]
        w[_u(a)] = z
    total_y = 0.0
    for a in range(k - 1, -1, -1):
        z = w[_u(a)]
        for b in range(a + 1, k):
            z -= tab[_u(a), _u(b)] * w[_u(b)]
        z *= tab[_u(a), _u(a)]
        w[_u(a)] = z
        if guess and z < -_GUESS_SLACK:
            return -1
        z = max(z, 0.0)  # summed from the register: y[basic[a]] read back waited on the store
        y[_u(basic[a])] = z
        total_y += z
    for b in range(k):  # U^T s = 1, then L^T u = s
        z = 1.0
        for a in range(b):
            z -= tab[_u(a), _u(b)] * w[_u(a)]
        w[_u(b)] = z * tab[_u(b), _u(b)]
    total_x = 0.0
    for b in range(k - 1, -1, -1):
        z = w[_u(b)]
        for a in range(b + 1, k):
            z -= tab[_u(a), _u(b)] * w[_u(a)]
        w[_u(b)] = z
        if guess and z < -_GUESS_SLACK:
            return -1
        z = max(z, 0.0)
        x[_u(tight[b])] = z
        total_x += z
    if not (total_x > 0.0 and total_y > 0.0):
        return -1  # a wrong support clipped to nothing (or NaN)
    total_x, total_y = 1.0 / total_x, 1.0 / total_y
    for a in range(k):
        x[_u(tight[a])] *= total_x
        y[_u(basic[a])] *= total_y
    return k


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _cramer_solution(X, lo, scale, tight, basic, k, x, y, sums):
    """A guess of size k = 2, 3 or 4 solved by Cramer's rule: B[R, S] w = 1 gives
    w_b = det(B with column b replaced by ones) / det(B), the cofactors' column sums over
    det(B), and u B[R, S] = 1 gives u_a, their row sums over det(B).  The cofactors are
    independent products, where the elimination's pivots are a chain of divisions, each
    waiting on the one before (the latency of a small system, not its flops).  Refused
    as ``_square_solution`` refuses a guess: an entry of w or u below -_GUESS_SLACK, a
    zero determinant, nothing left after clipping.  sums (2 x k) is scratch."""
    b00 = (X[_u(tight[0]), _u(basic[0])] - lo) * scale + 1.0
    b01 = (X[_u(tight[0]), _u(basic[1])] - lo) * scale + 1.0
    b10 = (X[_u(tight[1]), _u(basic[0])] - lo) * scale + 1.0
    b11 = (X[_u(tight[1]), _u(basic[1])] - lo) * scale + 1.0
    if k == 2:
        det = b00 * b11 - b01 * b10
        sums[0, 0], sums[0, 1] = b11 - b01, b00 - b10  # rows of adj(B) = [[b11, -b01],
        sums[1, 0], sums[1, 1] = b11 - b10, b00 - b01  # [-b10, b00]], then its columns
    else:
        b02 = (X[_u(tight[0]), _u(basic[2])] - lo) * scale + 1.0
        b12 = (X[_u(tight[1]), _u(basic[2])] - lo) * scale + 1.0
        b20 = (X[_u(tight[2]), _u(basic[0])] - lo) * scale + 1.0
        b21 = (X[_u(tight[2]), _u(basic[1])] - lo) * scale + 1.0
        b22 = (X[_u(tight[2]), _u(basic[2])] - lo) * scale + 1.0
        if k == 3:
            c00 = b11 * b22 - b12 * b21  # c_rc: the cofactor of B[r, c]
            c01 = b12 * b20 - b10 * b22
            c02 = b10 * b21 - b11 * b20
            c10 = b02 * b21 - b01 * b22
            c11 = b00 * b22 - b02 * b20
            c12 = b01 * b20 - b00 * b21
            c20 = b01 * b12 - b02 * b11
            c21 = b02 * b10 - b00 * b12
            c22 = b00 * b11 - b01 * b10
            det = b00 * c00 + b01 * c01 + b02 * c02
            sums[0, 0], sums[0, 1], sums[0, 2] = c00 + c10 + c20, c01 + c11 + c21, c02 + c12 + c22
            sums[1, 0], sums[1, 1], sums[1, 2] = c00 + c01 + c02, c10 + c11 + c12, c20 + c21 + c22
        else:  # k = 4: the 2 x 2 minors of rows 0, 1 (s) and of rows 2, 3 (c)
            b03 = (X[_u(tight[0]), _u(basic[3])] - lo) * scale + 1.0
            b13 = (X[_u(tight[1]), _u(basic[3])] - lo) * scale + 1.0
            b23 = (X[_u(tight[2]), _u(basic[3])] - lo) * scale + 1.0
            b30 = (X[_u(tight[3]), _u(basic[0])] - lo) * scale + 1.0
            b31 = (X[_u(tight[3]), _u(basic[1])] - lo) * scale + 1.0
            b32 = (X[_u(tight[3]), _u(basic[2])] - lo) * scale + 1.0
            b33 = (X[_u(tight[3]), _u(basic[3])] - lo) * scale + 1.0
            s0 = b00 * b11 - b10 * b01
            s1 = b00 * b12 - b10 * b02
            s2 = b00 * b13 - b10 * b03
            s3 = b01 * b12 - b11 * b02
            s4 = b01 * b13 - b11 * b03
            s5 = b02 * b13 - b12 * b03
            c5 = b22 * b33 - b32 * b23
            c4 = b21 * b33 - b31 * b23
            c3 = b21 * b32 - b31 * b22
            c2 = b20 * b33 - b30 * b23
            c1 = b20 * b32 - b30 * b22
            c0 = b20 * b31 - b30 * b21
            det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0
            # a[b][a'] = the cofactor of B[a', b] (the adjugate, row b)
            a00 = b11 * c5 - b12 * c4 + b13 * c3
            a01 = b02 * c4 - b01 * c5 - b03 * c3
            a02 = b31 * s5 - b32 * s4 + b33 * s3
            a03 = b22 * s4 - b21 * s5 - b23 * s3
            a10 = b12 * c2 - b10 * c5 - b13 * c1
            a11 = b00 * c5 - b02 * c2 + b03 * c1
            a12 = b32 * s2 - b30 * s5 - b33 * s1
            a13 = b20 * s5 - b22 * s2 + b23 * s1
            a20 = b10 * c4 - b11 * c2 + b13 * c0
            a21 = b01 * c2 - b00 * c4 - b03 * c0
            a22 = b30 * s4 - b31 * s2 + b33 * s0
            a23 = b21 * s2 - b20 * s4 - b23 * s0
            a30 = b11 * c1 - b10 * c3 - b12 * c0
            a31 = b00 * c3 - b01 * c1 + b02 * c0
            a32 = b31 * s1 - b30 * s3 - b32 * s0
            a33 = b20 * s3 - b21 * s1 + b22 * s0
            sums[0, 0], sums[0, 1] = a00 + a01 + a02 + a03, a10 + a11 + a12 + a13
            sums[0, 2], sums[0, 3] = a20 + a21 + a22 + a23, a30 + a31 + a32 + a33
            sums[1, 0], sums[1, 1] = a00 + a10 + a20 + a30, a01 + a11 + a21 + a31
            sums[1, 2], sums[1, 3] = a02 + a12 + a22 + a32, a03 + a13 + a23 + a33
    if det == 0.0:
        return -1
    inverse = 1.0 / det
    total_y = total_x = 0.0
    for a in range(k):
        w = sums[0, _u(a)] * inverse
        u = sums[1, _u(a)] * inverse
        if w < -_GUESS_SLACK or u < -_GUESS_SLACK:
            return -1
        w, u = max(w, 0.0), max(u, 0.0)
        y[_u(basic[a])] = w
        x[_u(tight[a])] = u
        total_y += w
        total_x += u
    if not (total_x > 0.0 and total_y > 0.0):
        return -1
    total_x, total_y = 1.0 / total_x, 1.0 / total_y
    for a in range(k):
        x[_u(tight[a])] *= total_x
        y[_u(basic[a])] *= total_y
    return k


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _slack_tableau(X, m, n, lo, scale, tab, row_var, col_var):
    """The starting tableau: B = (X - lo) * scale + 1 with the slack basis."""
    for i in range(m):
        for c in range(n):
            tab[_u(i), _u(c)] = (X[_u(i), _u(c)] - lo) * scale + 1.0
        tab[_u(i), _u(n)] = 1.0
        row_var[_u(i)] = n + i
    for c in range(n):
        tab[_u(m), _u(c)] = 1.0
        col_var[_u(c)] = c
    tab[_u(m), _u(n)] = 0.0


@njit(cache=True, nogil=True, _nrt=False)
def _reinvert(X, m, n, lo, scale, tab, row_var, col_var, basic, tight, k):
    """Rebuild from X the tableau of the basis with basic columns basic[:k] and tight rows
    tight[:k] (non-basic slacks).  Gauss-Jordan elimination with partial pivoting: each w_s
    in turn enters on the unused tight row with the largest |entry|.  Returns False if the
    basis matrix is singular (a pivot below _SINGULAR)."""
    _slack_tableau(X, m, n, lo, scale, tab, row_var, col_var)
    for a in range(k):
        s = basic[a]  # column s still holds w_s: only the columns of basic[:a] have pivoted
        r = -1
        big = _SINGULAR
        for b in range(k):
            i = tight[b]
            if row_var[i] >= n and abs(tab[i, s]) > big:
                r, big = i, abs(tab[i, s])
        if r < 0:
            return False
        _pivot(tab, m, n, r, s)
        row_var[r], col_var[s] = col_var[s], row_var[r]
    return True


@njit(cache=True, nogil=True, _nrt=False)
def _basis_labels(m, n, row_var, col_var, basic, tight):
    """basic[:k] = basic columns, tight[:k] = non-basic slacks' rows of a tableau; return k."""
    k = 0
    for i in range(m):
        if row_var[i] < n:
            basic[k] = row_var[i]
            k += 1
    t = 0
    for c in range(n):
        if col_var[c] >= n:
            tight[t] = col_var[c] - n
            t += 1
    return k


@njit(cache=True, nogil=True, _nrt=False)
def _careful_pivot(tab, m, n, row_var, col_var):
    """One pivot on a freshly reinverted tableau: 1 pivoted, 0 optimal, -1 stuck.

    A positive reduced cost: a primal pivot by Bland's rule.  Otherwise (dual feasible) a
    basic variable below -_INFEASIBLE (left by a tie within _TIE in a ratio test): a dual
    pivot, entering column by the dual ratio test, ties to the smallest label."""
    s = -1
    for c in range(n):
        if tab[m, c] > _EXACT_TOL and (s < 0 or col_var[c] < col_var[s]):
            s = c
    if s >= 0:
        r = _ratio_test(tab, m, n, s, row_var, True)
        if r < 0:
            return -1
    else:
        r = -1
        low = -_INFEASIBLE
        for i in range(m):
            if tab[i, n] < low:
                r, low = i, tab[i, n]
        if r < 0:
            return 0
        best = 0.0
        for c in range(n):
            a = tab[r, c]
            if a < -_TOL:
                ratio = max(-tab[m, c], 0.0) / -a
                if s < 0 or ratio < best - _TIE * (1.0 + best):
                    s, best = c, ratio
                elif ratio <= best + _TIE * (1.0 + best) and col_var[c] < col_var[s]:
                    s = c
        if s < 0:
            return -1
    _pivot(tab, m, n, r, s)
    row_var[r], col_var[s] = col_var[s], row_var[r]
    return 1


@njit(cache=True, nogil=True, _nrt=False)
def _refine(X, m, n, lo, scale, tab, row_var, col_var, x, y, k, value, gap, pivots,
            refine_strategies, refine_basis):
    """The simplex method again, reinverting the basis before every pivot; for the rare game
    whose certified gap exceeds _REFINE * (max X - min X).  Returns (value, gap, pivots).

    Pivots on tiny elements (GOPS entries 1e-8 apart) leave errors of order 1e-8 in the
    tableau, enough to flip the sign of a reduced cost of order 1e-10: the fast simplex
    method then stops one pivot short, and the basis solution misses a row or column of the
    true support (a gap of 1e-8 on a 7 x 7 game of level 7 of N = 13).  Rebuilt from X
    (``_reinvert``), a tableau is exact to the rounding of one elimination, and so are its
    reduced costs and basic variables.  Starting from the basis reached (basic columns
    row_var[:k], tight rows col_var[:k], as ``_basis_solution`` leaves them; k = -1 when
    that basis was singular), then if need be from the slack basis, each step reinverts and
    makes one pivot (``_careful_pivot``) until the fresh tableau is optimal; the strategies
    are re-solved from that basis and certified.  Keeps the best certified answer (x, y and
    the value, gap passed in, unless the new gap is smaller).
    """
    best_x = refine_strategies[0]
    best_y = refine_strategies[1]
    for i in range(m):
        best_x[i] = x[i]
    for c in range(n):
        best_y[c] = y[c]
    basic = refine_basis[0]
    tight = refine_basis[1]
    target = _REFINE / scale
    for start in range(2 if k > 0 else 1):
        if start == 0 and k > 0:
            for a in range(k):
                basic[a] = row_var[a]
                tight[a] = col_var[a]
        else:
            k = 0  # the slack basis
        optimal = False
        for step in range(_MAX_PIVOTS):
            if not _reinvert(X, m, n, lo, scale, tab, row_var, col_var, basic, tight, k):
                break
            moved = _careful_pivot(tab, m, n, row_var, col_var)
            if moved <= 0:
                optimal = moved == 0
                break
            pivots += 1
            k = _basis_labels(m, n, row_var, col_var, basic, tight)
        if optimal:
            x[:m] = 0.0
            y[:n] = 0.0
            if _basis_solution(X, m, n, lo, scale, tab, row_var, col_var, x, y) >= 0:
                new_value, new_gap = _certify(X, m, n, x, y)
                if abs(new_gap) < abs(gap):  # False for NaN; -inf comes from NaN in x, y
                    value, gap = new_value, new_gap
                    for i in range(m):
                        best_x[i] = x[i]
                    for c in range(n):
                        best_y[c] = y[c]
            if abs(gap) <= target:
                break
    for i in range(m):
        x[i] = best_x[i]
    for c in range(n):
        y[c] = best_y[c]
    return value, gap, pivots


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _saddle_check(X, m, n, x, y):
    """(max_i min_l X, min_l max_i X, min X, max X, the first maximin row, the first minimax
    column) (x and y hold the row minima and column maxima, then zeros): a pure saddle point
    when the first two meet up to rounding.

    The column maxima and the row minima are two passes, each extremum in a register: in
    one pass over the rows, y[c] would go to memory and back at every entry (numba cannot
    tell that y and X do not overlap)."""
    for c in range(n):
        column_max = X[0, c]
        for i in range(1, m):
            column_max = max(column_max, X[i, c])
        y[c] = column_max
    for i in range(m):
        row_min = X[i, 0]
        for c in range(1, n):
            row_min = min(row_min, X[i, c])
        x[i] = row_min
    lo = maximin = x[0]
    best_row = 0
    for i in range(1, m):
        lo = min(lo, x[i])
        if x[i] > maximin:
            maximin, best_row = x[i], i
    hi = minimax = y[0]
    best_col = 0
    for c in range(1, n):
        hi = max(hi, y[c])
        if y[c] < minimax:
            minimax, best_col = y[c], c
    for i in range(m):  # loops, not x[:m] = 0.0: a slice is a view, reference-counted
        x[i] = 0.0
    for c in range(n):
        y[c] = 0.0
    return maximin, minimax, lo, hi, best_row, best_col


# A guess of size k = 1 or 5 <= k <= 12 is eliminated by a copy of ``_square_solution``
# compiled for that k (``_sized_guess``) where the caller asks for it (``solve_into``'s
# ``sized``; Cramer's rule takes k = 2, 3, 4).  Its loops then run to a constant, unrolled,
# without exits whose branches depend on a k that changes from game to game (the likely
# gain; this machine has no counters to show it).  The copies take seconds each to
# compile, and numba links their code into each kernel that calls them, so only the
# kernel specialised to a j asks for them, and only for the sizes its j x j games can
# have (`sizes_up_to`): it compiles once per machine and j (numba's cache keeps it).
_SIZES = tuple((0,) * k for k in (1, *range(5, 13)))


def sizes_up_to(k: int) -> tuple:
    """The copies' shapes (``solve_into``'s ``sized``) for guesses of at most k rows."""
    return tuple(shape for shape in _SIZES if len(shape) <= k)


@njit(cache=True, nogil=True, _nrt=False)
def _sized_guess(X, m, n, lo, scale, tab, tight, basic, x, y, shape):
    """``_square_solution`` of a guess of size len(shape), compiled for that size."""
    return _square_solution(X, m, n, lo, scale, tab, tight, basic, len(shape), x, y, True)


@njit(cache=True, nogil=True, _nrt=False)
def _sized_guesses(X, m, n, lo, scale, tab, tight, basic, k, x, y, sized):
    """``_sized_guess`` for k, one of the sizes in ``sized``: a comparison a size, one
    call."""
    result = -1
    for shape in literal_unroll(sized):
        if len(shape) == k:
            result = _sized_guess(X, m, n, lo, scale, tab, tight, basic, x, y, shape)
    return result


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _guess(X, m, n, lo, scale, tab, tight, basic, k, x, y, sized):
    """The strategies on a guess of size k: for k = 2, 3, 4 by Cramer's rule
    (``_cramer_solution``, inlined here once: no call, whose six arrays pass as some
    fifty scalars, and no copy of it in every copy below), else ``_square_solution``, by
    its size's own copy if ``sized`` holds one (a branch numba drops when it compiles, so
    a caller passing None compiles no copy)."""
    if 2 <= k <= 4:
        return _cramer_solution(X, lo, scale, tight, basic, k, x, y, tab)
    if sized is not None:
        if k <= len(sized[-1]):  # k = 1, or 5 up to the largest copy's size
            return _sized_guesses(X, m, n, lo, scale, tab, tight, basic, k, x, y, sized)
    return _square_solution(X, m, n, lo, scale, tab, tight, basic, k, x, y, True)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def solve_into(X, m, n, tab, row_var, col_var, x, y, support, refine_strategies, refine_basis,
               sized):
    """Solve the game X[:m, :n] into x[:m], y[:n]; return (value, gap, pivots, guessed).

    tab ((m+1) x (n+1) or larger), row_var (m), col_var (n), refine_strategies (float64,
    2 x max(m, n)) and refine_basis (int64, 2 x m) are scratch space; pivots is 0
    for a saddle point and for a game solved by its guessed support, -1 if the simplex
    method failed (value NaN).

    support (int64, 1 + 2 min(m, n) or more) is a guessed optimal basis on entry and the
    basis found on return: k = support[0] tight rows support[1:k+1] and basic columns
    support[k+1:2k+1] (k = 0: no guess).  A guess is taken when the strategies solved on
    it (``_square_solution``) certify as tightly as the simplex method's must
    (_REFINE * (max X - min X)); otherwise the simplex method runs from the slack basis.
    A saddle point leaves the guess as it was.  ``sized`` (None, or `sizes_up_to`'s
    shapes) eliminates a guess by the copy compiled for its size (``_guess``): the same
    operations, the same results bit for bit, faster (`python bench/gops.py --specialised
    13` times the kernel that asks for it).
    """
    maximin, minimax, lo, hi, best_row, best_col = _saddle_check(X, m, n, x, y)
    if minimax - maximin <= 1e-13 * (hi - lo):  # a pure saddle point, up to rounding
        x[best_row] = 1.0
        y[best_col] = 1.0
        return 0.5 * (maximin + minimax), minimax - maximin, 0, False

    scale = 1.0 / (hi - lo)
    k = support[0]
    if k > 0:  # the guess: labels copied, as the elimination permutes them
        for a in range(k):
            col_var[a] = support[1 + a]
            row_var[a] = support[1 + k + a]
        if _guess(X, m, n, lo, scale, tab, col_var, row_var, k, x, y, sized) >= 0:
            value, gap = _certify(X, m, n, x, y)
            if abs(gap) <= _REFINE * (hi - lo):
                return value, gap, 0, True
        x[:m] = 0.0
        y[:n] = 0.0
    _slack_tableau(X, m, n, lo, scale, tab, row_var, col_var)
    pivots = _simplex(tab, m, n, row_var, col_var, best_col)
    value, gap = np.nan, np.inf
    k = -1
    if pivots >= 0:
        _record_support(m, n, row_var, col_var, support)
        _tableau_solution(m, n, tab, row_var, col_var, x, y)
        value, gap = _certify(X, m, n, x, y)
        if not abs(gap) <= _REFINE * (hi - lo):
            x[:m] = 0.0
            y[:n] = 0.0
            k = _basis_solution(X, m, n, lo, scale, tab, row_var, col_var, x, y)
            if k >= 0:
                value, gap = _certify(X, m, n, x, y)
    else:
        pivots = 0
    if not abs(gap) <= _REFINE * (hi - lo):  # rare (and NaN, -inf): see _refine
        support[0] = 0  # the simplex basis was not optimal enough to guess from
        value, gap, pivots = _refine(X, m, n, lo, scale, tab, row_var, col_var, x, y, k,
                                     value, gap, pivots, refine_strategies, refine_basis)
        if not (abs(gap) < np.inf and abs(value) < np.inf):  # a failure, not a small gap
            return np.nan, np.inf, -1, False
    return value, gap, pivots, False


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _record_support(m, n, row_var, col_var, support):
    """support = the tableau's basis: its tight rows (non-basic slacks), basic columns."""
    k = 0
    for c in range(n):
        if col_var[c] >= n:
            k += 1
            support[k] = col_var[c] - n
    support[0] = k
    t = k
    for i in range(m):
        if row_var[i] < n:
            t += 1
            support[t] = row_var[i]


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
    support = np.zeros(1 + 2 * min(m, n), np.int64)
    refine_strategies = np.empty((2, max(m, n)))
    refine_basis = np.empty((2, m), np.int64)
    for b in range(count):
        support[0] = 0  # each game from the slack basis
        values[b], gaps[b], pivots[b], _ = solve_into(games[b], m, n, tab, row_var,
                                                      col_var, rows[b], cols[b], support,
                                                      refine_strategies, refine_basis, None)
    return values, rows, cols, gaps, pivots


def solve_alone(payoff, support=None, sized=False):
    """``solve_into`` on one game with scratch space of its own, from a guessed support
    (``solve_into``'s layout) or, without one, the slack basis; ``sized=True``: the guess
    eliminated by its size's copy.  Returns (value, gap, pivots, guessed, x, y)."""
    m, n = payoff.shape
    x, y = np.zeros(m), np.zeros(n)
    if support is None:
        support = np.zeros(1 + 2 * min(m, n), np.int64)
    value, gap, pivots, guessed = solve_into(
        np.ascontiguousarray(payoff, dtype=np.float64), m, n, np.empty((m + 1, n + 1)),
        np.empty(m, np.int64), np.empty(n, np.int64), x, y, support,
        np.empty((2, max(m, n))), np.empty((2, m), np.int64),
        sizes_up_to(min(m, n)) if sized else None)
    return value, gap, pivots, guessed, x, y


def solve_matrix_game(payoff):
    """Value, optimal row strategy, optimal column strategy and certified gap of one game."""
    games = np.ascontiguousarray(payoff, dtype=np.float64)[None]
    values, rows, cols, gaps, pivots = solve_matrix_games(games)
    if pivots[0] < 0:
        raise ArithmeticError("simplex method failed on this matrix game")
    return float(values[0]), rows[0], cols[0], float(gaps[0])
