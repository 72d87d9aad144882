"""A GOPS shard on numpy, the games side by side: one lane per matrix game.

The games of one level all have one size, j x j.  Here every game of a shard (each deck
row r, upcard index k, difference d and pattern p, as ``level._solve_rows`` visits them)
is a lane: its payoff matrix

    points  X[i, l] = sign(V_i - Y_l) P_k + f(V - V_i, Y - Y_l, P - P_k)
    win     X[i, l] = f(V - V_i, Y - Y_l, P - P_k, d + sign(V_i - Y_l) P_k)   (sign(d')
            where the child is saturated)

is gathered for all lanes at once from level j-1's values, and the matrix games are solved
by the method of ``matrix_game.solve_into`` with the slack basis, in lockstep: the saddle
check of every lane in one pass, then simplex pivots on a tableau laid out
structure-of-arrays (lanes last, ``tab[row, column, lane]``), where each lane picks its own
entering column (Dantzig's rule, Bland's after ``_STALL`` degenerate pivots) and leaving row
(the ratio test with its tie rules), and one dense update pivots every lane.  A lane whose
tableau is optimal is read off and idles; once half the batch idles it is compacted.

Same arithmetic, same answers: every operation of a lane is the scalar kernel's, in the
same order (sums over a row or column are accumulated one term at a time, as there), so a
game's value, strategies, certificate and pivots are bit for bit those of ``solve_into``
without a guessed support, i.e. of ``solve_shard(..., warm_start=False)``.  Every game keeps
its certificate: x guarantees g_lo = min_l (x^T X)_l, y concedes g_hi = max_i (X y)_i, the
value is their midpoint.  A game whose tableau strategies certify no better than _REFINE
(max X - min X) has them solved afresh on its optimal basis (``_square_solution``, run as
plain Python: a handful of games a level); the very rare game that still misses, or whose
simplex run fails, is handed to the compiled ``solve_into`` (which imports numba).

Pure numpy: no numba, so a small run never pays numba's import and cache load (``jit``).
"""

from __future__ import annotations

import numpy as np

from . import matrix_game as mg

BATCH = 8192  # lanes solved together: a j <= 8 tableau batch stays within a few MiB
_BIG = np.iinfo(np.int64).max


def payoffs(decks, drop_rank, child, child_sign, duel, win, prev, rows, ups, diffs, pats):
    """X of the games (rows[g], ups[g], diffs[g], pats[g]), lanes last: (j, j, G) float64.

    prev is level j-1 as (deck rank, d + diff_max, pattern) (one d under points);
    drop_rank[r, k] is the rank of P - P_k in it."""
    card = decks[rows, ups].astype(np.int64)
    block = drop_rank[rows, ups]
    to, sign, duels = (np.take(np.ascontiguousarray(table.transpose(1, 2, 0)), pats, axis=2)
                       for table in (child, child_sign, duel))
    if not win:
        return duels * card.astype(np.float64) + sign * prev[block, 0, to]
    left = decks.astype(np.int64).sum(axis=1)[rows] - card
    after = diffs + duels * card
    centre = (prev.shape[1] - 1) // 2
    at = np.clip(np.where(sign < 0, centre - after, centre + after), 0, prev.shape[1] - 1)
    read = prev[block, at, to]
    return np.where(after > left, 1.0, np.where(after < -left, -1.0,
                                                np.where(sign < 0, -read, read)))


def _sequential_sum(terms):
    """terms summed over their first axis one at a time, as the scalar loops add them."""
    total = terms[0] + 0.0
    for term in terms[1:]:
        total = total + term
    return total


def _certify(X, x, y):
    """(value, gap) of strategies x (m, G), y (n, G) in X (m, n, G), as ``_certify``."""
    low = _sequential_sum(x[:, None, :] * X).min(axis=0)
    high = _sequential_sum((X * y[None, :, :]).transpose(1, 0, 2)).max(axis=0)
    return 0.5 * (low + high), high - low


def _normalise(v):
    return v / _sequential_sum(v)


def _first(a, best):
    """Per lane (column) of a (rows, lanes), the first row where a equals best (lanes,):
    the index np.argmax / np.argmin give, without their slow reduction over axis 0."""
    index = np.zeros(a.shape[1], np.int64)
    for i in range(a.shape[0] - 1, -1, -1):
        index[a[i] == best] = i
    return index


def _first_max(a):
    return _first(a, a.max(axis=0))


def _first_min(a):
    return _first(a, a.min(axis=0))


def _simplex_lanes(B, first):
    """The simplex method of ``matrix_game._simplex`` on every lane of B (m, n, G), slack
    basis, column first[g] entering first.  Returns pivots (G,) (-1: failure) and the
    strategies read off each optimal tableau (``_tableau_solution``), x (m, G), y (n, G),
    and the final basis labels, row_var (m, G) and col_var (n, G), as ``_simplex`` leaves
    them."""
    m, n, count = B.shape
    tab = np.empty((m + 1, n + 1, count))
    tab[:m, :n] = B
    tab[:m, n] = 1.0
    tab[m, :n] = 1.0
    tab[m, n] = 0.0
    row_var = np.repeat(np.arange(n, n + m)[:, None], count, axis=1)
    col_var = np.repeat(np.arange(n)[:, None], count, axis=1)
    bland = np.zeros(count, bool)
    stall = np.zeros(count, np.int64)
    lane = np.arange(count)  # the game of each column of the batch
    live = np.ones(count, bool)  # finished and failed lanes idle until the batch shrinks
    pivots = np.full(count, -1)
    x, y = np.zeros((m, count)), np.zeros((n, count))
    final_rows, final_cols = np.zeros((m, count), np.int64), np.zeros((n, count), np.int64)
    s = np.asarray(first)
    scratch = np.empty_like(tab)
    here = np.arange(count)
    # Gathers and scatters through flat indices into tab (and the label arrays): numpy's
    # 1-D take and assignment are about 3x faster than indexing with two index arrays.
    flat, width = tab.reshape(-1), count
    for step in range(mg._MAX_PIVOTS):
        if step:
            reduced = tab[m, :n]
            positive = reduced > mg._TOL
            s = _first_max(reduced)
            if bland.any():
                s = np.where(bland, _first_min(np.where(positive, col_var, _BIG)), s)
            optimal = live & ~positive.any(axis=0)
            if optimal.any():  # read off the strategies
                done = lane[optimal]
                pivots[done] = step
                t, rv, cv = tab[:, :, optimal], row_var[:, optimal], col_var[:, optimal]
                w = np.zeros((n + m, done.size))
                np.put_along_axis(w, rv, np.maximum(t[:m, n], 0.0), axis=0)
                u = np.zeros((n + m, done.size))
                np.put_along_axis(u, cv, np.maximum(-t[m, :n], 0.0), axis=0)
                x[:, done] = _normalise(u[n:])
                y[:, done] = _normalise(w[:n])
                final_rows[:, done], final_cols[:, done] = rv, cv
                live &= ~optimal
            if 2 * live.sum() < lane.size:  # drop the idle lanes
                if not live.any():
                    break
                # np.compress keeps the lanes last in memory too (indexing with a mask on
                # the last axis would not, and flat would no longer be a view of tab)
                tab, row_var, col_var = (np.compress(live, a, axis=-1)
                                         for a in (tab, row_var, col_var))
                bland, stall, lane, s = bland[live], stall[live], lane[live], s[live]
                live = np.ones(lane.size, bool)
                scratch = np.empty_like(tab)
                here = np.arange(lane.size)
                flat, width = tab.reshape(-1), lane.size
        in_column = np.arange(m + 1)[:, None] * ((n + 1) * width) + (s * width + here)
        factor = flat.take(in_column)  # (m + 1, lanes): the entering column s of each lane
        column = factor[:m]  # the entering column of each lane
        rhs = np.maximum(tab[:m, n], 0.0)
        allowed = column > mg._TOL
        with np.errstate(divide="ignore", invalid="ignore"):
            low = np.where(allowed, rhs / column, np.inf).min(axis=0)
            bound = low + mg._TIE * (1.0 + low)
            tied = allowed & (rhs <= bound * column)
        r = _first_max(np.where(tied, column, -np.inf))
        if bland.any():
            r = np.where(bland, _first_min(np.where(tied, row_var, _BIG)), r)
        live &= low != np.inf  # unbounded: the tableau lost accuracy (pivots stay -1)
        in_row = np.arange(n + 1)[:, None] * width + (r * ((n + 1) * width) + here)
        pivot_row = flat.take(in_row)  # (n + 1, lanes): the leaving row r of each lane
        stall = np.where(live & (pivot_row[n] <= mg._TOL), stall + 1, 0)
        bland |= stall >= mg._STALL
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # idle lanes
            p = 1.0 / pivot_row[s, here]
            pivot_row *= p
            pivot_row[s, here] = p
            np.multiply(factor[:, None, :], pivot_row[None], out=scratch)
            tab -= scratch
            flat[in_column] = -factor * p
        flat[in_row] = pivot_row
        leaving, entering = r * width + here, s * width + here
        row_labels, col_labels = row_var.reshape(-1), col_var.reshape(-1)
        row_labels[leaving], col_labels[entering] = col_labels[entering], row_labels[leaving]
    return pivots, x, y, final_rows, final_cols


def _basis_resolve(X, lo, scale, row_var, col_var):
    """``matrix_game._basis_solution`` for one game whose tableau strategies did not
    certify: x, y solved afresh on the final basis (basic columns S, the rows R whose slacks
    left it) by ``_square_solution``, run as plain Python.  Returns (k, x, y); k = -1 when
    B[R, S] is singular."""
    m, n = X.shape
    basic = np.array([v for v in row_var if v < n], np.int64)
    tight = np.array([v - n for v in col_var if v >= n], np.int64)
    x, y = np.zeros(m), np.zeros(n)
    k = mg._square_solution.py_func(X, m, n, lo, scale, np.empty((m + 1, n + 1)), tight,
                                    basic, basic.size, x, y, False)
    return k, x, y


def solve_games(X):
    """Value, certified gap, pivots (0: saddle point, -1: failure) and strategies x (m, G),
    y (n, G) of every game of X (m, n, G), lanes last, as ``solve_into`` from the slack
    basis."""
    m, n, count = X.shape
    row_min, col_max = X.min(axis=1), X.max(axis=0)
    maximin, minimax = row_min.max(axis=0), col_max.min(axis=0)
    lo, hi = row_min.min(axis=0), col_max.max(axis=0)
    best_row, best_col = _first(row_min, maximin), _first(col_max, minimax)
    values = 0.5 * (maximin + minimax)
    gaps = minimax - maximin
    x, y = np.zeros((m, count)), np.zeros((n, count))
    x[best_row, np.arange(count)] = 1.0
    y[best_col, np.arange(count)] = 1.0
    pivots = np.zeros(count, np.int64)
    lp = np.flatnonzero(~(gaps <= 1e-13 * (hi - lo)))
    if lp.size:
        game, lo, hi = np.take(X, lp, axis=2), lo[lp], hi[lp]
        scale = 1.0 / (hi - lo)
        steps, lx, ly, row_var, col_var = _simplex_lanes((game - lo) * scale + 1.0,
                                                         best_col[lp])
        value, gap = _certify(game, lx, ly)
        target = mg._REFINE * (hi - lo)
        for t in np.flatnonzero(~(np.abs(gap) <= target) & (steps >= 0)):  # rare
            k, bx, by = _basis_resolve(game[:, :, t], lo[t], scale[t], row_var[:, t],
                                       col_var[:, t])
            if k >= 0:
                lx[:, t], ly[:, t] = bx, by
                one = slice(t, t + 1)
                value[one], gap[one] = _certify(game[:, :, one], lx[:, one], ly[:, one])
        for t in np.flatnonzero(~(np.abs(gap) <= target) | (steps < 0)):  # 1 in 1e6
            value[t], gap[t], steps[t], lx[:, t], ly[:, t] = _exact_game(game[:, :, t])
        values[lp], gaps[lp], pivots[lp], x[:, lp], y[:, lp] = value, gap, steps, lx, ly
    return values, gaps, pivots, x, y


def _exact_game(X):
    """A game whose simplex run failed or whose basis strategies still do not certify
    (``_refine``'s games): the compiled ``solve_into`` solves it afresh.  Returns (value,
    gap, pivots, x, y)."""
    value, gap, pivots, _, x, y = mg.solve_alone(X)
    return value, gap, pivots, x, y


def game_index(reach, j, n_patterns, symmetric, with_strategies):
    """(row, upcard index, d, pattern) of every game a shard solves: each deck row r, each
    d with |d| <= reach[r], each k and pattern, but the V = Y pattern at d = 0 unless its
    strategies are wanted (its value is 0)."""
    spans = 2 * reach + 1
    rows = np.repeat(np.arange(reach.size), spans)
    diffs = np.arange(spans.sum()) - np.repeat(np.cumsum(spans) - spans, spans) \
        - np.repeat(reach, spans)
    rows = np.repeat(rows, j * n_patterns)
    diffs = np.repeat(diffs, j * n_patterns)
    cells = np.arange(rows.size) % (j * n_patterns)
    ups, pats = cells // n_patterns, cells % n_patterns
    keep = with_strategies | (pats != symmetric) | (diffs != 0)
    return rows[keep], ups[keep], diffs[keep], pats[keep]


def solve_rows(decks, drop_rank, child, child_sign, duel, symmetric, reach, win, prev,
               with_strategies, with_upcard_values, values, upcard_values, strat_one,
               strat_two, stats):
    """``level._solve_rows`` without warm starts, on lanes: fills values[r, d + diff_max,
    p], upcard_values, the strategies and stats (games, saddles, pivots, max_gap,
    guessed = 0) in place; returns 0, or -1 if a game's simplex method failed."""
    n_rows, j = decks.shape
    n_patterns = child.shape[0]
    diff_max = (values.shape[1] - 1) // 2
    rows, ups, diffs, pats = game_index(reach, j, n_patterns, symmetric, with_strategies)
    per_game = np.zeros((n_rows, values.shape[1], n_patterns, j))
    games = saddles = pivots = 0
    max_gap = 0.0
    for start in range(0, rows.size, BATCH):
        part = slice(start, start + BATCH)
        r, k, d, p = rows[part], ups[part], diffs[part], pats[part]
        X = payoffs(decks, drop_rank, child, child_sign, duel, win, prev, r, k, d, p)
        value, gap, steps, x, y = solve_games(X)
        if (steps < 0).any():
            return -1
        games += value.size
        saddles += int((steps == 0).sum())
        pivots += int(steps.sum())
        max_gap = max(max_gap, float(gap.max(initial=0.0)))
        at = d + diff_max
        counted = (p != symmetric) | (d != 0)
        per_game[r[counted], at[counted], p[counted], k[counted]] = value[counted]
        if with_strategies:
            strat_one[r, at, p, k] = x.T
            strat_two[r, at, p, k] = y.T
    finish_rows(decks, reach, per_game, values, upcard_values, strat_one, strat_two,
                with_strategies, with_upcard_values)
    stats[:5] = games, saddles, pivots, max_gap, 0
    return 0


def finish_rows(decks, reach, per_game, values, upcard_values, strat_one, strat_two,
                with_strategies, with_upcard_values):
    """values (and upcard_values) from per_game[r, d + diff_max, p, k], the f_k (0 for
    V = Y at d = 0), summed over k in order as ``_solve_rows`` does; then the cells beyond
    reach."""
    values[:] = _sequential_sum(np.moveaxis(per_game, 3, 0)) / decks.shape[1]
    if with_upcard_values:
        upcard_values[:] = per_game
    _fill_beyond_reach(decks, reach, values, upcard_values, strat_one, strat_two,
                       with_strategies, with_upcard_values)


def _fill_beyond_reach(decks, reach, values, upcard_values, strat_one, strat_two,
                       with_strategies, with_upcard_values):
    """Cells with |d| > reach(P) (win only; under points there are none): saturated
    (|d| > sum(P)) f = f_k = sign(d) with uniform bids, unreachable NaN (bids stay zero)."""
    diff_max = (values.shape[1] - 1) // 2
    j = decks.shape[1]
    d = np.arange(-diff_max, diff_max + 1)
    prizes = decks.astype(np.int64).sum(axis=1)
    beyond = np.abs(d)[None, :] > reach[:, None]  # (rows, diffs)
    saturated = beyond & (np.abs(d)[None, :] > prizes[:, None])
    fill = np.where(saturated, np.sign(d)[None, :].astype(np.float64), np.nan)
    values[beyond] = fill[beyond][:, None]
    if with_upcard_values:
        upcard_values[beyond] = fill[beyond][:, None, None]
    if with_strategies:
        strat_one[saturated] = 1.0 / j
        strat_two[saturated] = 1.0 / j
