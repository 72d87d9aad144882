"""A GOPS shard on compiled lanes: the games' simplex pivots side by side, in lockstep.

The compiled twin of ``lanes`` (numpy): the games of a shard (``lanes.game_index``) flow
through LANES lanes of one tableau laid out structure-of-arrays, ``tab[row, column, lane]``.
A game's payoff matrix is built and its saddle check made as ``_solve_rows`` does; a game
that is no saddle point takes a free lane, with the slack tableau of ``solve_into``.  Then
each step, every lane picks its own entering column (Dantzig's rule, Bland's after
``_STALL`` degenerate pivots, as ``_entering``) and leaving row (as ``_ratio_test``), and
gathers its pivot column (zero on the pivot row) and its scaled pivot row; one dense update
over every lane, ``tab[i, c, l] -= factor[i, l] * pivot_row[c, l]``, whose innermost loop
runs over contiguous lanes and is vectorised (AVX-512: 8 lanes an instruction), also
writes the pivot row and column as ``_pivot`` leaves them.  A lane whose tableau is optimal
is read off (``_tableau_solution``), certified, and refilled at once from the queue of
games, so every lane stays busy until the queue runs dry.  A lane's game and tableau are
read and written by index, never through views of them (each costs numba two atomic
reference counts: they were 29 % of the kernel's time).

Same arithmetic, same answers: each lane's operations are ``_pivot``'s in the same order
(no fused multiply-add: numba compiles without fastmath), so a game's value, strategies,
certificate and pivots are bit for bit those of ``solve_into`` from the slack basis, i.e.
of ``solve_shard(..., warm_start=False)`` (an exact zero may carry the other sign).  A
game whose tableau strategies certify no better than _REFINE (max X - min X), or whose
simplex run fails, is solved afresh by ``solve_into``, which then re-solves it on its basis
and refines it as always (about 3 games in 1e5).

The issue's second road, games side by side in SIMD lanes, measured against the warm
starts (``bench/gops.py --lockstep``): at N = 11 1.3-1.8x the previous release's kernel,
but since the warm starts' guesses need no search for pivots they are faster on values
alone too, so no run uses the lanes (``GopsConfig.kernel``; docs/gops.md, "Compiled
lanes", "Guesses without a pivot search"); ``solve_shard(..., kernel="lockstep")``.
"""

from __future__ import annotations

import numpy as np

from subgame.jit import njit

from . import lanes
from .matrix_game import _MAX_PIVOTS, _REFINE, _STALL, _TIE, _TOL, _saddle_check, solve_into

LANES = 64  # games pivoted together: the 12 x 12 tableau of j = 11 on 64 lanes is 72 KiB


@njit(cache=True, nogil=True)
def _solve_games(decks, drop_rank, child, child_sign, duel, symmetric, win, prev, rows,
                 ups, diffs, pats, given, with_strategies, per_game, strat_one, strat_two,
                 stats, width):
    """Solve the games (rows[g], ups[g], diffs[g], pats[g]) on ``width`` lanes: their values
    into per_game[r, d + diff_max, p, k] (0 for V = Y at d = 0), their strategies, and
    stats[:4] = games, saddles, pivots, max_gap.  Returns 0, or -1 if a simplex run
    failed.  Game g's payoff matrix is given[g] where ``given`` holds games (the shard's
    layout arrays are then placeholders), else built from level j-1 as ``_solve_rows``
    builds it.

    Every per-lane choice is a loop over the lanes too, written with selects so that it
    vectorises: the entering column (both rules, each lane then takes its own), the pivot
    column (a gather), both passes of the ratio test and the pivot row (a gather).  Only
    what a few lanes need each step runs lane by lane: reading off and refilling the lanes
    whose tableau is optimal, and swapping the basis labels."""
    n_rows, j = decks.shape
    m = n = j
    diff_max = (per_game.shape[1] - 1) // 2
    prev_diff_max = (prev.shape[1] - 1) // 2
    count = rows.size
    tab = np.zeros((m + 1, n + 1, width))  # zeros: an idle lane's update stays finite
    factor = np.zeros((m + 1, width))  # the pivot column of each lane, 0 on its pivot row
    pivot_row = np.zeros((n + 1, width))  # the scaled pivot row of each lane
    row_var = np.zeros((m, width), np.int64)
    col_var = np.zeros((n, width), np.int64)
    games = np.empty((width * j, j))  # the lanes' payoff matrices: lane's from row lane * j
    game = np.full(width, -1)  # the game in each lane, -1: none
    low = np.empty(width)  # min X and max X of each lane's game
    high = np.empty(width)
    steps = np.zeros(width, np.int64)
    stall = np.zeros(width, np.int64)
    bland = np.zeros(width, np.bool_)
    active = np.zeros(width, np.bool_)  # pivots this step
    enter = np.zeros(width, np.int64)
    leave = np.zeros(width, np.int64)
    dantzig = np.zeros(width, np.int64)  # each rule's entering column (-1: optimal)
    smallest = np.zeros(width, np.int64)
    best = np.zeros(width)  # running maximum of the reduced costs, smallest label
    label = np.zeros(width, np.int64)  # then the entering variable's
    dantzig_label = np.zeros(width, np.int64)
    ratio = np.zeros(width)  # the ratio test: the smallest ratio, then the tie bound
    element = np.zeros(width)  # the pivot element of the row chosen so far, its label
    leaving = np.zeros(width, np.int64)  # and its right-hand side
    rhs = np.zeros(width)
    scale = np.zeros(width)
    x = np.empty(j)
    y = np.empty(j)
    tab_one = np.empty((m + 1, n + 1))  # for solve_into, the games it solves afresh
    rows_one = np.empty(m, np.int64)
    cols_one = np.empty(n, np.int64)
    support = np.zeros(1 + 2 * j, np.int64)
    refine_strategies = np.empty((2, j))
    refine_basis = np.empty((2, j), np.int64)
    big = np.iinfo(np.int64).max
    prizes = np.zeros(n_rows, np.int64)
    for r in range(n_rows):
        for k in range(j):
            prizes[r] += decks[r, k]
    solved = saddles = pivots = 0
    max_gap = 0.0
    queued = 0  # the next game of the queue
    busy = width  # lanes at and above this are empty for good
    while busy > 0:
        for lane in range(busy):  # both entering rules, every lane
            best[lane] = _TOL
            dantzig[lane] = smallest[lane] = -1
            label[lane] = big
        for c in range(n):
            for lane in range(busy):
                v = tab[m, c, lane]
                labelled = col_var[c, lane]
                up = v > best[lane]
                best[lane] = v if up else best[lane]
                dantzig[lane] = c if up else dantzig[lane]
                dantzig_label[lane] = labelled if up else dantzig_label[lane]
                lower = (v > _TOL) & (labelled < label[lane])
                label[lane] = labelled if lower else label[lane]
                smallest[lane] = c if lower else smallest[lane]
        for lane in range(busy):
            s = smallest[lane] if bland[lane] else dantzig[lane]
            enter[lane] = s
            label[lane] = label[lane] if bland[lane] else dantzig_label[lane]
            active[lane] = (game[lane] >= 0) & (s >= 0) & (steps[lane] < _MAX_PIVOTS)
        for lane in range(busy):  # lane by lane: read off the optimal games and refill
            if active[lane]:
                continue
            while True:  # until the lane has a pivot to make, or the queue is empty
                g = game[lane]
                value = gap = 0.0
                if g < 0:
                    if queued == count:
                        break
                    g = queued
                    queued += 1
                    r, k, d, p = rows[g], ups[g], diffs[g], pats[g]
                    # The lane's game, its slack tableau and (below) its read-off and
                    # certificate are level._payoff_points / _payoff_win, _slack_tableau,
                    # _tableau_solution and _certify, the same numbers (the points payoff
                    # as products, which _payoff_points looks up) and the same operations
                    # in the same order, written out on the lane's own entries: views of them
                    # (games[lane], tab[:, :, lane]) and the calls that take them cost
                    # numba two atomic reference counts each, which were 29 % of this
                    # kernel's time (docs/gops.md, "Compiled lanes").  The saddle check
                    # takes the stacked games and the lane's first row.
                    base = lane * j
                    card = np.int64(decks[r, k])
                    at_prev = drop_rank[r, k]
                    if given.shape[0]:
                        for i in range(m):
                            for c in range(n):
                                games[base + i, c] = given[g, i, c]
                    elif win:
                        prize = card
                        prizes_left = prizes[r] - card
                        for i in range(j):
                            for l in range(j):
                                after = d + duel[p, i, l] * prize
                                if after > prizes_left:
                                    games[base + i, l] = 1.0
                                elif after < -prizes_left:
                                    games[base + i, l] = -1.0
                                elif child_sign[p, i, l] < 0:
                                    games[base + i, l] = -prev[at_prev, prev_diff_max - after,
                                                              child[p, i, l]]
                                else:
                                    games[base + i, l] = prev[at_prev, prev_diff_max + after,
                                                             child[p, i, l]]
                    else:
                        prize = float(card)
                        for i in range(j):
                            for l in range(j):
                                games[base + i, l] = (
                                    duel[p, i, l] * prize + child_sign[p, i, l]
                                    * prev[np.uintp(at_prev), 0, np.uintp(child[p, i, l])])
                    maximin, minimax, lo, hi, best_row, best_col = _saddle_check(
                        games, m, n, x, y, base)
                    if not minimax - maximin <= 1e-13 * (hi - lo):  # as solve_into
                        game[lane] = g
                        low[lane], high[lane] = lo, hi
                        scaling = 1.0 / (hi - lo)
                        for i in range(m):
                            for c in range(n):
                                tab[i, c, lane] = (games[base + i, c] - lo) * scaling + 1.0
                            tab[i, n, lane] = 1.0
                            row_var[i, lane] = n + i
                        for c in range(n):
                            tab[m, c, lane] = 1.0
                            col_var[c, lane] = c
                        tab[m, n, lane] = 0.0
                        steps[lane] = stall[lane] = 0
                        bland[lane] = False
                        enter[lane] = label[lane] = best_col  # w_best_col, as labelled
                        active[lane] = True
                        break
                    x[best_row] = 1.0
                    y[best_col] = 1.0
                    value, gap = 0.5 * (maximin + minimax), minimax - maximin
                    saddles += 1
                else:
                    for i in range(m):
                        x[i] = 0.0
                    for c in range(n):
                        y[c] = 0.0
                    base = lane * j
                    ok = False
                    if enter[lane] < 0 and steps[lane] < _MAX_PIVOTS:  # read off, certify
                        for i in range(m):
                            if row_var[i, lane] < n:
                                y[row_var[i, lane]] = max(tab[i, n, lane], 0.0)
                        for c in range(n):
                            if col_var[c, lane] >= n:
                                x[col_var[c, lane] - n] = max(-tab[m, c, lane], 0.0)
                        total = 0.0
                        for i in range(m):
                            total += x[i]
                        for i in range(m):
                            x[i] /= total
                        total = 0.0
                        for c in range(n):
                            total += y[c]
                        for c in range(n):
                            y[c] /= total
                        cert_lo = np.inf
                        for c in range(n):
                            t = 0.0
                            for i in range(m):
                                t += x[i] * games[base + i, c]
                            cert_lo = min(cert_lo, t)
                        cert_hi = -np.inf
                        for i in range(m):
                            t = 0.0
                            for c in range(n):
                                t += games[base + i, c] * y[c]
                            cert_hi = max(cert_hi, t)
                        value, gap = 0.5 * (cert_lo + cert_hi), cert_hi - cert_lo
                        ok = abs(gap) <= _REFINE * (high[lane] - low[lane])
                    if not ok:  # afresh, re-solved on its basis and refined as always
                        support[0] = 0
                        value, gap, done, _ = solve_into(games[base:base + m], m, n, tab_one,
                                                         rows_one, cols_one, x, y, support,
                                                         refine_strategies, refine_basis,
                                                         None)
                        if done < 0:
                            return -1
                        steps[lane] = done
                    pivots += steps[lane]
                    game[lane] = -1
                r, k, d, p = rows[g], ups[g], diffs[g], pats[g]
                at = d + diff_max
                solved += 1
                max_gap = max(max_gap, gap)
                if p != symmetric or d != 0:
                    per_game[r, at, p, k] = value
                if with_strategies:
                    for a in range(j):
                        strat_one[r, at, p, k, a] = x[a]
                        strat_two[r, at, p, k, a] = y[a]
        while busy > 0 and game[busy - 1] < 0:
            busy -= 1
        for lane in range(busy):  # the pivot column (0 for idle lanes) and the ratio test
            enter[lane] = enter[lane] if active[lane] else 0
            ratio[lane] = np.inf
        # Gathers index with unsigned integers: numba then adds no wraparound of negative
        # indices, which would keep the loop scalar.
        for a in range(m + 1):
            for lane in range(busy):
                f = tab[a, np.uintp(enter[lane]), lane]
                factor[a, lane] = f if active[lane] else 0.0
        for i in range(m):  # the smallest ratio, as _ratio_test
            for lane in range(busy):
                v = factor[i, lane]
                ratio[lane] = min(ratio[lane], max(tab[i, n, lane], 0.0) / v
                                  if v > _TOL else np.inf)
        for lane in range(busy):
            leave[lane] = -1
            element[lane] = 0.0
            leaving[lane] = big
            ratio[lane] = ratio[lane] + _TIE * (1.0 + ratio[lane])
        for i in range(m):  # the ties within _TIE: smallest label, else largest element
            for lane in range(busy):
                v = factor[i, lane]
                b = tab[i, n, lane]
                labelled = row_var[i, lane]
                tied = (v > _TOL) & (max(b, 0.0) <= ratio[lane] * v)
                ahead = (labelled < leaving[lane]) if bland[lane] else (v > element[lane])
                better = tied & ((leave[lane] < 0) | ahead)
                leave[lane] = i if better else leave[lane]
                element[lane] = v if better else element[lane]
                leaving[lane] = labelled if better else leaving[lane]
                rhs[lane] = b if better else rhs[lane]
        for lane in range(busy):  # unbounded: the tableau lost accuracy; solved afresh
            if active[lane] and leave[lane] < 0:
                active[lane] = False
                steps[lane] = _MAX_PIVOTS
                factor[:, lane] = 0.0
        for lane in range(busy):
            on = active[lane]
            degenerate = rhs[lane] <= _TOL
            stall[lane] = (stall[lane] + 1 if degenerate else 0) if on else stall[lane]
            bland[lane] = bland[lane] | (on & (stall[lane] >= _STALL))
            steps[lane] += on
            scale[lane] = 1.0 / element[lane] if on else 0.0
            leave[lane] = leave[lane] if on else 0
        for c in range(n + 1):  # the pivot row, scaled (0 for idle lanes)
            for lane in range(busy):
                v = tab[np.uintp(leave[lane]), c, lane] * scale[lane]
                pivot_row[c, lane] = scale[lane] if c == enter[lane] else v
        # The pivots of every lane: the vectorised update, with the pivot row and column
        # written as _pivot leaves them (an idle lane: zeros into its row 0, a tableau
        # rebuilt before it is read again).
        for a in range(m + 1):
            for lane in range(busy):
                factor[a, lane] = 0.0 if a == leave[lane] else factor[a, lane]
            for c in range(n + 1):
                for lane in range(busy):
                    f = factor[a, lane]
                    v = tab[a, c, lane] - f * pivot_row[c, lane]
                    v = -f * scale[lane] if (c == enter[lane]) & (f != 0.0) else v
                    tab[a, c, lane] = pivot_row[c, lane] if a == leave[lane] else v
        for lane in range(busy):  # the entering and the leaving variable swap places
            i, s = leave[lane], enter[lane]
            on = active[lane]
            row_var[i, lane] = label[lane] if on else row_var[i, lane]
            col_var[s, lane] = leaving[lane] if on else col_var[s, lane]
    stats[0] = solved
    stats[1] = saddles
    stats[2] = pivots
    stats[3] = max_gap
    return 0


def solve_rows(decks, drop_rank, child, child_sign, duel, symmetric, reach, win, prev,
               with_strategies, with_upcard_values, values, upcard_values, strat_one,
               strat_two, stats):
    """``level._solve_rows`` without warm starts, on compiled lanes: fills values,
    upcard_values, the strategies and stats (guessed = 0) in place; returns 0, or -1 if a
    game's simplex method failed."""
    j = decks.shape[1]
    rows, ups, diffs, pats = lanes.game_index(reach, j, child.shape[0], symmetric,
                                              with_strategies)
    per_game = np.zeros((decks.shape[0], values.shape[1], child.shape[0], j))
    stats[:] = 0.0
    if _solve_games(decks, drop_rank, child, child_sign, duel, symmetric, win, prev, rows,
                    ups, diffs, pats, np.empty((0, j, j)), with_strategies, per_game,
                    strat_one, strat_two, stats, LANES) < 0:
        return -1
    lanes.finish_rows(decks, reach, per_game, values, upcard_values, strat_one, strat_two,
                      with_strategies, with_upcard_values)
    return 0


def solve_matrices(games: np.ndarray):
    """Values, strategies x (G, j), y (G, j) (float32, as a shard stores them), pivots in
    all and the largest certified gap of square games (G, j, j) on the lanes, as
    ``solve_matrix_games`` solves them (tests, benchmarks)."""
    count, j, _ = games.shape
    placeholder = np.zeros((1, j), np.int64)
    tables = (np.zeros((1, j, j), np.int32), np.zeros((1, j, j), np.int8),
              np.zeros((1, j, j), np.int8))
    per_game = np.zeros((count, 1, 1, 1))
    x = np.zeros((count, 1, 1, 1, j), np.float32)  # as a shard stores them
    y = np.zeros_like(x)
    stats = np.zeros(5)
    every = np.arange(count)
    zeros = np.zeros(count, np.int64)
    if _solve_games(placeholder.astype(np.int8), placeholder, *tables, -1, False,
                    np.zeros((1, 1, 1)), every, zeros, zeros, zeros,
                    np.ascontiguousarray(games, dtype=np.float64), True, per_game, x, y,
                    stats, LANES) < 0:
        raise ArithmeticError("simplex method failed on a matrix game")
    return per_game[:, 0, 0, 0], x[:, 0, 0, 0], y[:, 0, 0, 0], int(stats[2]), stats[3]
