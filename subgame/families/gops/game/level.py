"""One level of GOPS: its layout, its shards and the compiled kernel that solves a shard.

Level j holds the states with j cards in each hand and in the deck P.  With the upcard P_k
turned, player one bids V_i and player two Y_l.  Two objectives share everything but the
payoff of a round:

points (Rhoads & Bartholdi: expected point difference; f = 0 at j = 0)

    f(V, Y, P)     = (1/j) sum_k f_k(V, Y, P),     f_k = val(X^k)
    X^k[i, l]      = sign(V_i - Y_l) P_k + f(V - V_i, Y - Y_l, P - P_k)

win (P(win) - P(lose); d = points so far, player one minus player two; f = sign(d) at j = 0)

    f(V, Y, P, d)  = (1/j) sum_k f_k(V, Y, P, d),  f_k = val(X^k)
    X^k[i, l]      = f(V - V_i, Y - Y_l, P - P_k, d + sign(V_i - Y_l) P_k)

(val: value of the matrix game, row player maximising).  Under win a state also has the
difference d.  Saturation: f = sign(d) when |d| > sum(P) (the prizes left cannot turn the
game).  Reachability: |d| <= T - sum(P), T = N(N+1)/2 (the prizes played).  A deck P's states
are computed for |d| <= reach(P) = min(sum(P), T - sum(P)); the children of those are
reachable, so each is saturated or computed at level j-1.  The level stores d in
[-diff_max, diff_max], diff_max = max_P reach(P); a cell with reach(P) < |d| is filled:
saturated (|d| > sum(P)) with f = f_k = sign(d) and uniform bids (every bid is optimal),
unreachable (|d| > T - sum(P)) with NaN and zero bids.  Points is the case of one d (= 0).

Through the layout the child's value is sign * prev[rank(P - P_k), d', child(pattern, i, l)]
(d' = sign * (d + duel P_k) under win: a child stored swapped is read at -d'), one block of
level j-1 per (P, k): the kernel loops over P, then k, then d, then the patterns.  Player
one's optimal mixed bids x^k over V are the row strategies; the column strategies are
player two's bids over Y, i.e. player one's at the swapped state (Y, V, P, -d).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from subgame.jit import njit

from . import cards, lanes, patterns
from .matrix_game import _u, sizes_up_to, solve_into
from .objective import OBJECTIVES, deck_reach, diff_max

GAP_LIMIT = 1e-9  # a shard whose certified gap exceeds this raises (see matrix_game)
# Games in a range of a shard's patterns that solve_shard hands to map_parts: 0.05-0.1 s of
# work, so that a level's last shards share out over the cores in a few ranges each
PART_GAMES = 1 << 17
MapParts = Callable[[Callable[[int], Any], Sequence[int]], list]
# numba's loop (_solve_rows) compiled once for every j or for the level's j alone
# ("specialised"), or numpy's lanes (lanes.py): GopsConfig.kernel picks
KERNELS = ("compiled", "specialised", "lanes")
# Warm-start slots: slot t holds the bases as the last deck row whose cards begin 1..t (or
# 1..more) left them; a row beginning 1..t guesses from slot min(t, WARM_SLOTS - 1)
# (``_solve_rows``).  A row whose nearest deck is not the previous row then still guesses
# from its neighbour (`python bench/gops.py --carried-bases 13 --store S` measures the
# guessed share and time against one slot).
WARM_SLOTS = 4


@dataclass(frozen=True, eq=False)
class LevelLayout:
    """Everything level j of the N-card game needs besides level j-1's values.

    objective       'points' or 'win'
    keys            (n_patterns,) int64   stored pattern keys, sorted (see ``patterns``)
    symmetric       int                   index of the pattern V = Y (value 0 at d = 0)
    decks           (n_P, j) int8         cards of the deck of each rank, ascending
    drop_rank       (n_P, j) int64        rank of P - P_k at level j-1
    child           (n_patterns, j, j) int32  level j-1 pattern index of (pattern, i, l)
    child_sign      (n_patterns, j, j) int8   f(child) = child_sign * stored value (0: V=Y)
    duel            (n_patterns, j, j) int8   sign(V_i - Y_l)
    reach           (n_P,) int64          win: min(sum(P), T - sum(P)), the |d| computed;
                                          points: 0
    diff_max        int                   max(reach): stored d in [-diff_max, diff_max]
    prev_shape      level j-1's state_shape: the shape of the kernel's input
    """

    n_cards: int
    j: int
    objective: str
    keys: np.ndarray
    symmetric: int
    decks: np.ndarray
    drop_rank: np.ndarray
    child: np.ndarray
    child_sign: np.ndarray
    duel: np.ndarray
    reach: np.ndarray
    diff_max: int
    prev_shape: tuple[int, ...]

    @property
    def n_patterns(self) -> int:
        return self.keys.size

    @property
    def n_p(self) -> int:
        return self.decks.shape[0]

    @property
    def n_diffs(self) -> int:
        return 2 * self.diff_max + 1

    @property
    def state_shape(self) -> tuple[int, ...]:
        """Shape of the level's values: (n_P, n_patterns), win (n_P, n_diffs, n_patterns)."""
        if self.objective == "points":
            return (self.n_p, self.n_patterns)
        return (self.n_p, self.n_diffs, self.n_patterns)

    @property
    def n_states(self) -> int:
        """States computed (win: the differences |d| <= reach(P) of every deck)."""
        return int((2 * self.reach + 1).sum()) * self.n_patterns

    @property
    def n_games(self) -> int:
        """Matrix games solved for the values: every (state, upcard) but those of V = Y at
        d = 0 (with strategies the kernel also solves those n_P * j games, for their bids)."""
        return (self.n_states - self.n_p) * self.j


def _state_shape(objective: str, n_p: int, diff_max: int, n_patterns: int) -> tuple[int, ...]:
    return (n_p, n_patterns) if objective == "points" else (n_p, 2 * diff_max + 1, n_patterns)


def level_layout(n_cards: int, j: int, objective: str = "points") -> LevelLayout:
    """Build the layout of level j (0 <= j <= N) of the N-card game."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    keys = patterns.canonical_patterns(n_cards, j)
    decks = cards.subsets(n_cards, j)
    if j == 0:
        child = np.zeros((1, 0, 0), np.int32)
        child_sign = duel = np.zeros((1, 0, 0), np.int8)
        prev_shape = _state_shape(objective, 1, 0, 1)  # unused: level 0 is f = sign(d)
    else:
        parent_keys = patterns.canonical_patterns(n_cards, j - 1)
        child, child_sign, duel = patterns.child_table(keys, parent_keys, j)
        prev_shape = _state_shape(objective, comb(n_cards, j - 1),
                                  diff_max(n_cards, j - 1, objective), parent_keys.size)
    symmetric = int(np.searchsorted(keys, patterns.pattern_key(range(j), range(j))))
    reach = deck_reach(n_cards, decks, objective)
    assert int(reach.max()) == diff_max(n_cards, j, objective)
    return LevelLayout(n_cards, j, objective, keys, symmetric, decks, cards.drop_ranks(decks),
                       child, child_sign, duel, reach, int(reach.max()), prev_shape)


def shard_rows(layout: LevelLayout, target_states_per_shard: int) -> int:
    """P ranks per shard (the chunk length of every level array on its first axis)."""
    per_deck = layout.n_patterns * (layout.n_diffs if layout.objective == "win" else 1)
    return max(1, min(layout.n_p, target_states_per_shard // per_deck))


def shard_ranges(layout: LevelLayout, target_states_per_shard: int) -> list[tuple[int, int]]:
    """Contiguous P-rank ranges [p_lo, p_hi) of ``shard_rows`` each (the last may be short)."""
    rows = shard_rows(layout, target_states_per_shard)
    return [(lo, min(lo + rows, layout.n_p)) for lo in range(0, layout.n_p, rows)]


@dataclass(frozen=True, eq=False)
class ShardResult:
    """Level j on the P ranks p_lo..p_hi-1 (n = p_hi - p_lo rows); under win every array
    has the difference axis after the deck axis ([r, d + diff_max, ...]).

    values          (n, n_patterns) float64        f
    upcard_values   (n, n_patterns, j) float64     f_k (None unless asked for)
    strategies      (n, n_patterns, j, j) float32  [r, p, k, i] player one bids V_i on P_k
    strategies_two  (n, n_patterns, j, j) float32  [r, p, k, l] player two bids Y_l on P_k
    (both None unless asked for).  games: matrix games solved; saddles: those with a pure
    saddle point; pivots: simplex pivots in all; guessed: games solved on the support
    guessed from a neighbour, without a pivot (neither saddles nor pivots count them);
    max_gap: the largest certified gap, so every value of the shard is within max_gap / 2
    of the value of its own matrix game.  guesses ((2, j + 1) int64, the compiled
    kernels only, else None): [0, k] the games without a saddle point whose guess had k
    tight rows (k = 0: no guess), [1, k] those of them its guess solved (the work of the
    guesses, for ``bench/gops.py --cost-model``).
    """

    p_lo: int
    p_hi: int
    values: np.ndarray
    upcard_values: np.ndarray
    strategies: np.ndarray | None
    strategies_two: np.ndarray | None
    games: int
    saddles: int
    pivots: int
    max_gap: float
    guessed: int = 0
    guesses: np.ndarray | None = None


@njit(cache=True, nogil=True, inline="always", _nrt=False)
def _payoff_points(X, j, p, duel_prize, signed_prev, n_prev, child, child_sign, duel):
    """X[i, l] = sign(V_i - Y_l) P_k + f(V - V_i, Y - Y_l, P - P_k), with the products
    looked up: duel_prize[1 + s] = s P_k, signed_prev[(1 - s) n_prev + c] = s f_c (level
    j-1's row: f, zeros, -f; ``_signed_row``): the same numbers as the products, without
    converting two int8 to floats and multiplying twice an entry."""
    for i in range(j):
        for l in range(j):
            X[_u(i), _u(l)] = (duel_prize[_u(1 + duel[_u(p), _u(i), _u(l)])]
                               + signed_prev[_u(child[_u(p), _u(i), _u(l)] + n_prev
                                                - n_prev * child_sign[_u(p), _u(i), _u(l)])])


@njit(cache=True, nogil=True, inline="always", _nrt=False)
def _signed_row(prev_row, signed_prev, prize, duel_prize):
    """signed_prev = (f, zeros, -f) of level j-1's row (its middle third left as it was,
    zeros) and duel_prize = (-P_k, 0, P_k), for ``_payoff_points``."""
    n_prev = prev_row.shape[0]
    for c in range(n_prev):
        signed_prev[_u(c)] = prev_row[_u(c)]
        signed_prev[_u(2 * n_prev + c)] = -prev_row[_u(c)]
    duel_prize[0] = -prize
    duel_prize[1] = 0.0
    duel_prize[2] = prize


@njit(cache=True, nogil=True, inline="always", _nrt=False)
def _payoff_win(X, j, p, prize, d, prev_block, prev_diff_max, prizes_left, child, child_sign,
                duel):
    """X[i, l] = f(V - V_i, Y - Y_l, P - P_k, d + sign(V_i - Y_l) P_k), sign(d') when the
    child is saturated (|d'| > sum(P - P_k) = prizes_left); a child stored swapped is
    read at -d' and negated, the child V = Y (child_sign 0) is read as stored."""
    for i in range(j):
        for l in range(j):
            after = d + duel[p, i, l] * prize
            if after > prizes_left:
                X[i, l] = 1.0
            elif after < -prizes_left:
                X[i, l] = -1.0
            elif child_sign[p, i, l] < 0:
                X[i, l] = -prev_block[prev_diff_max - after, child[p, i, l]]
            else:
                X[i, l] = prev_block[prev_diff_max + after, child[p, i, l]]


@njit(cache=True, nogil=True, inline="always", _nrt=False)
def _unpack_basis(mask, j, support):
    """support (``solve_into``'s layout) from a basis mask (0: no guess).  Without
    branches: every index is written at the next place, which moves on only if its bit is
    set (branches on the bits of successive games mispredict)."""
    k = 0
    for i in range(j):
        support[_u(k + 1)] = i
        k += (mask >> i) & 1
    t = k
    for c in range(j):
        support[_u(t + 1)] = c
        t += (mask >> (16 + c)) & 1
    support[0] = k


@njit(cache=True, nogil=True, inline="always", _nrt=False)
def _pack_basis(support):
    k = support[0]
    mask = 0
    for a in range(k):
        mask |= (1 << support[1 + a]) | (1 << (16 + support[1 + k + a]))
    return np.int32(mask)


@njit(cache=True, nogil=True)
def _solve_rows(decks, drop_rank, child, child_sign, duel, symmetric, reach, win, prev,
                with_strategies, with_upcard_values, values, upcard_values, strat_one,
                strat_two, stats, guesses, warm_start, bases, patterns_lo, patterns_hi, size,
                sized):
    """values[r, d + diff_max, p] and the rest for every computed state of the rows and
    the patterns patterns_lo <= p < patterns_hi (the rest of the arrays is left as it
    was); the difference axis has one entry (d = 0) under points.  prev[drop_rank[r, k]]
    is the block of level j-1 that deck row r reads for upcard k.  stats gets (games,
    saddles, pivots, max_gap, guessed), guesses[0, k] the games without a saddle point
    whose guess had k tight rows, guesses[1, k] those of them the guess solved.

    Warm start: each game first tries the optimal basis of the game of the same upcard
    index k and pattern at the nearest deck row already solved (or the previous
    difference) as its support (``solve_into``): the two games' matrices are close and so,
    seven times in ten or more, is their optimal support.  In colex order a deck follows the one
    with one of its cards one lower, except where its cards begin 1..t (t >= 1) and go on
    with c > t + 2: the decks between began with less of 1..t, and the nearest is the
    last deck that began with 1..t too (c one lower).  So ``bases[t]`` holds the bases as
    the last row beginning with 1..t or more left them (slot 0: the previous row); a row
    beginning with exactly 1..t reads slot s = min(t, WARM_SLOTS - 1) (slot 0 where slot
    s holds no basis yet, as in a call's first rows), its games write slot 0, and the
    row, once solved, copies slot 0 into slots 1..s.  The bases are bit masks, tight rows
    in bits 0..15, basic columns in bits 16..31 (j <= 16), one int32 per (slot, k,
    pattern), read and left as the last games made them (zeros: no guess), so that the
    next rows, in another call, guess from these.  A game's guess comes only from games
    of its own pattern, so a range of patterns is solved exactly as in the whole shard:
    ranges can share out over threads (``level.solve_shard``).

    j = len(size), decks.shape[1]: size is an int8 array (one compiled kernel for every j)
    or a tuple of j zeros, whose length numba knows when it compiles, so that the kernel is
    compiled for that j alone with j a constant in every loop of the solver (inlined:
    ``matrix_game``).  That one is faster on large levels and gives the same results bit
    for bit, for tens of seconds of compiling a j, cached on disk (`python bench/gops.py
    --specialised 13` measures both)."""
    j = len(size)
    return _solve_rows_into(decks, drop_rank, child, child_sign, duel, symmetric, reach, win,
                            prev, with_strategies, with_upcard_values, values, upcard_values,
                            strat_one, strat_two, stats, guesses, warm_start, patterns_lo,
                            patterns_hi, size, np.empty((j, j)),
                            np.empty((j + 1, j + 1)), np.empty(j, np.int64),
                            np.empty(j, np.int64), np.empty(j), np.empty(j), bases,
                            np.zeros(1 + 2 * j, np.int64), np.empty((2, j)),
                            np.empty((2, j), np.int64), np.zeros(3 * prev.shape[2]),
                            np.empty(3), sized)


@njit(cache=True, nogil=True, _nrt=False)
def _solve_rows_into(decks, drop_rank, child, child_sign, duel, symmetric, reach, win, prev,
                     with_strategies, with_upcard_values, values, upcard_values, strat_one,
                     strat_two, stats, guesses, warm_start, patterns_lo, patterns_hi, size,
                     X, tab, row_var, col_var, x, y, bases, support, refine_strategies,
                     refine_basis, signed_prev, duel_prize, sized):
    """``_solve_rows`` given its scratch space: X, the tableau and its labels, x, y, the
    basis masks, solve_into's support and scratch, and the payoffs' lookups (points:
    ``_signed_row``; 3 n_prev and 3 floats).  Compiled without reference counts,
    as ``matrix_game``'s kernels are (its module text says why), so it allocates nothing."""
    n_rows, j = decks.shape[0], len(size)
    diff_max = (values.shape[1] - 1) // 2
    prev_diff_max = (prev.shape[1] - 1) // 2
    n_prev = prev.shape[2]
    games = saddles = pivots = guessed = 0
    max_gap = 0.0
    for r in range(n_rows):
        source = 0  # the slot this row guesses from: its cards begin 1..source
        while source < min(j, bases.shape[0] - 1) and decks[r, source] == source + 1:
            source += 1
        for d in range(-diff_max, diff_max + 1):
            for p in range(patterns_lo, patterns_hi):
                values[r, d + diff_max, p] = 0.0
        prizes = np.int64(0)
        for k in range(j):
            prizes += decks[r, k]
        for k in range(j):
            card = np.int64(decks[r, k])
            prize = float(card)
            prev_block = prev[drop_rank[r, k]]
            if not win:
                _signed_row(prev_block[0], signed_prev, prize, duel_prize)
            for d in range(-reach[r], reach[r] + 1):
                at = d + diff_max
                slot = source if d == -reach[r] else 0  # later d: the previous d's
                for p in range(patterns_lo, patterns_hi):
                    if p == symmetric and d == 0 and not with_strategies:
                        continue
                    if win:
                        _payoff_win(X, j, p, card, d, prev_block, prev_diff_max,
                                    prizes - card, child, child_sign, duel)
                    else:
                        _payoff_points(X, j, p, duel_prize, signed_prev, n_prev, child,
                                       child_sign, duel)
                    mask = bases[slot, k, p]
                    if mask == 0:  # no row began with 1..slot yet
                        mask = bases[0, k, p]
                    _unpack_basis(mask if warm_start else 0, j, support)
                    tried = support[0]
                    value, gap, steps, hit = solve_into(X, j, j, tab, row_var, col_var, x, y,
                                                        support, refine_strategies,
                                                        refine_basis, sized)
                    if steps < 0:
                        return -1
                    guesses[0, _u(tried)] += (steps > 0) | hit  # no branch
                    guesses[1, _u(tried)] += hit
                    bases[0, k, p] = _pack_basis(support) if steps > 0 else mask
                    games += 1
                    guessed += hit
                    saddles += steps == 0 and not hit
                    pivots += steps
                    max_gap = max(max_gap, gap)
                    if with_strategies:
                        for i in range(j):
                            strat_one[_u(r), _u(at), _u(p), _u(k), _u(i)] = x[_u(i)]
                            strat_two[_u(r), _u(at), _u(p), _u(k), _u(i)] = y[_u(i)]
                    if p != symmetric or d != 0:
                        if with_upcard_values:
                            upcard_values[r, at, p, k] = value
                        values[r, at, p] += value
        for d in range(-reach[r], reach[r] + 1):
            for p in range(patterns_lo, patterns_hi):
                values[r, d + diff_max, p] /= j
        for slot in range(1, source + 1):  # this row is the last to begin with 1..slot
            for k in range(j):
                for p in range(patterns_lo, patterns_hi):
                    bases[slot, k, p] = bases[0, k, p]
        for d in range(-diff_max, diff_max + 1):  # win only: states beyond reach(P)
            if abs(d) <= reach[r]:
                continue
            saturated = abs(d) > prizes
            fill = (1.0 if d > 0 else -1.0) if saturated else np.nan
            for p in range(patterns_lo, patterns_hi):
                values[r, d + diff_max, p] = fill
                for k in range(j):
                    if with_upcard_values:
                        upcard_values[r, d + diff_max, p, k] = fill
                    if with_strategies and saturated:
                        for i in range(j):
                            strat_one[r, d + diff_max, p, k, i] = 1.0 / j
                            strat_two[r, d + diff_max, p, k, i] = 1.0 / j
    stats[0] = games
    stats[1] = saddles
    stats[2] = pivots
    stats[3] = max_gap
    stats[4] = guessed
    return 0


def previous_rows(layout: LevelLayout, p_lo: int, p_hi: int) -> np.ndarray:
    """The level j-1 deck ranks that the shard [p_lo, p_hi) of level j reads, sorted and
    unique: the ranks of P - P_k for its decks P and upcards k, drop_rank[p_lo:p_hi].  In
    colex order a run of consecutive decks shares its high cards, so these are about j
    runs of consecutive ranks, each about as long as the shard: a few chunks of level j-1."""
    # (np.unique would import numpy.ma, 10 ms of a small run's start)
    return np.flatnonzero(np.bincount(layout.drop_rank[p_lo:p_hi].ravel()))


def solve_shard(layout: LevelLayout, prev_values: np.ndarray, p_lo: int, p_hi: int,
                with_strategies: bool, with_upcard_values: bool = True,
                prev_ranks: np.ndarray | None = None, warm_start: bool = True,
                kernel: str = "compiled", map_parts: MapParts | None = None,
                bases: np.ndarray | None = None) -> ShardResult:
    """Solve the states of level ``layout.j`` with P ranks p_lo..p_hi-1.

    prev_values is level j-1's values: the whole array, shape ``layout.prev_shape``, or,
    given ``prev_ranks`` (``previous_rows(layout, p_lo, p_hi)``), only those rows of it,
    in that order (ignored for j = 0; for j = 1 it is level 0's values: zeros of shape
    (1, 1), win (1, 1, 1), f = 0 at d = 0).  Without ``with_upcard_values`` the f_k are
    summed into f but not kept (``upcard_values`` is None).  ``warm_start=False`` solves
    every game from the slack basis (the same values within the certified gaps; the
    strategies may be other optimal ones where a game has several).  The compiled kernel
    releases the GIL, so threads overlap; ``kernel="specialised"`` is it compiled for this
    j alone (``_solve_rows``: faster on large levels, the same results bit for bit, once
    compiled for j on this machine).  ``kernel="lanes"`` solves the shard on
    numpy (``lanes.solve_rows``: no numba, no warm starts, the results of ``warm_start=False``).

    Given ``map_parts`` (``map_parts(solve_part, parts)``: each part's result, in order),
    the compiled kernel solves the shard's patterns in ranges of about PART_GAMES games,
    through it (on threads, say): a pattern's guesses come from its own games alone, so
    the results are those of one call, bit for bit.

    ``bases`` (int32, (slots, j, n_patterns); ``new_bases``: WARM_SLOTS slots, or 1 for
    guesses from the previous deck alone) carries the warm starts from call to call: the
    first deck row guesses from it (zeros: no guess) and it is left as the last games made
    it, so that consecutive ranges solved with one array give the results of one call
    over all their rows, bit for bit (by default a range starts with no guesses).
    """
    if not 0 <= p_lo <= p_hi <= layout.n_p:
        raise ValueError(f"P-rank range [{p_lo}, {p_hi}) outside 0..{layout.n_p}")
    prev = np.ascontiguousarray(prev_values, dtype=np.float64)
    drop_rank = layout.drop_rank[p_lo:p_hi]
    expected = layout.prev_shape
    if prev_ranks is not None:  # read row prev_ranks[t] at t
        expected = (len(prev_ranks), *layout.prev_shape[1:])
        drop_rank = np.searchsorted(prev_ranks, drop_rank)
        if not np.array_equal(np.take(prev_ranks, drop_rank, mode="clip"),
                              layout.drop_rank[p_lo:p_hi]):
            raise ValueError(f"prev_ranks lacks level {layout.j - 1} rows that ranks "
                             f"[{p_lo}, {p_hi}) read")
    if layout.j > 0 and prev.shape != expected:
        raise ValueError(f"prev_values has shape {prev.shape}, level {layout.j - 1} of "
                         f"N={layout.n_cards} ({layout.objective}) needs {expected}")
    n, j, n_pat, n_d = p_hi - p_lo, layout.j, layout.n_patterns, layout.n_diffs
    where = f"level {j} ranks [{p_lo}, {p_hi})"
    values = np.empty((n, n_d, n_pat))
    upcard_values = np.zeros((n, n_d, n_pat, j) if with_upcard_values else (0, 0, 0, 0))
    strat_shape = (n, n_d, n_pat, j, j) if with_strategies else (0, 0, 0, 0, 0)
    strat_one = np.zeros(strat_shape, np.float32)
    strat_two = np.zeros(strat_shape, np.float32)
    stats = np.zeros(5)
    guesses = np.zeros((2, j + 1), np.int64) if kernel in ("compiled", "specialised") else None
    if bases is None:
        bases = new_bases(layout)
    elif bases.ndim != 3 or bases.shape[0] < 1 or bases.shape[1:] != (j, n_pat) or \
            bases.dtype != np.int32:
        raise ValueError(f"bases must be int32 of shape (slots, {j}, {n_pat}), got "
                         f"{bases.dtype} {bases.shape}")
    rows = (layout.decks[p_lo:p_hi], drop_rank, layout.child, layout.child_sign, layout.duel,
            layout.symmetric, layout.reach[p_lo:p_hi], layout.objective == "win",
            prev.reshape(prev.shape[0], -1, prev.shape[-1]), with_strategies,
            with_upcard_values, values, upcard_values, strat_one, strat_two, stats)
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    if j == 0:
        values[:] = 0.0
    elif kernel == "lanes":
        if lanes.solve_rows(*rows) < 0:
            raise ArithmeticError(f"simplex failure in {where}")
    else:
        _solve_patterns(rows, guesses, warm_start, bases, kernel == "specialised", map_parts,
                        n_pat, n * n_d * n_pat * j, where)
    if stats[3] > GAP_LIMIT:
        raise ArithmeticError(f"certified gap {stats[3]:.3g} exceeds {GAP_LIMIT:g} in {where}")
    if layout.objective == "points":  # drop the difference axis (one entry, d = 0)
        values = values[:, 0]
        if with_upcard_values:
            upcard_values = upcard_values[:, 0]
        if with_strategies:
            strat_one, strat_two = strat_one[:, 0], strat_two[:, 0]
    return ShardResult(p_lo, p_hi, values, upcard_values if with_upcard_values else None,
                       strat_one if with_strategies else None,
                       strat_two if with_strategies else None,
                       int(stats[0]), int(stats[1]), int(stats[2]), float(stats[3]),
                       int(stats[4]), guesses)


def new_bases(layout: LevelLayout, slots: int = WARM_SLOTS) -> np.ndarray:
    """Warm-start bases that guess nothing, for ``solve_shard`` (one slot: every deck
    guesses from the previous one)."""
    return np.zeros((slots, layout.j, layout.n_patterns), np.int32)


def _solve_patterns(rows: tuple, guesses: np.ndarray, warm_start: bool, bases: np.ndarray,
                    specialised: bool, map_parts: MapParts | None, n_patterns: int,
                    n_games: int, where: str) -> None:
    """``_solve_rows`` on ``rows`` (solve_shard's arguments: n_patterns patterns, about
    n_games games), compiled for their j alone if ``specialised``, its patterns in ranges
    of about PART_GAMES games through ``map_parts``, or all in one call without it; the
    ranges' counts go to ``rows``' stats (games, saddles, pivots and guessed added, the
    largest gap) and to ``guesses`` (added)."""
    *arrays, stats = rows
    count = 1 if map_parts is None else max(1, min(n_patterns, n_games // PART_GAMES))
    edges = np.linspace(0, n_patterns, count + 1).astype(np.int64)
    j = arrays[0].shape[1]
    size = (0,) * j if specialised else np.zeros(j, np.int8)
    sized = sizes_up_to(j) if specialised else None  # guesses' copies for their size

    def solve_part(part: int) -> tuple[np.ndarray, np.ndarray]:
        counts, sizes = np.zeros_like(stats), np.zeros_like(guesses)
        if _solve_rows(*arrays, counts, sizes, warm_start, bases, edges[part],
                       edges[part + 1], size, sized) < 0:
            raise ArithmeticError(f"simplex failure in {where}")
        return counts, sizes

    parts = map_parts(solve_part, range(count)) if map_parts else [solve_part(0)]
    counts = np.array([counts for counts, _ in parts])
    stats[:] = counts.sum(axis=0)
    stats[3] = counts[:, 3].max()
    guesses[:] = sum(sizes for _, sizes in parts)


def payoff_matrices(layout: LevelLayout, prev_values: np.ndarray, p_rank: int,
                    k: int, diff: int = 0) -> np.ndarray:
    """The matrices X^k of every pattern at deck rank p_rank (and, under win, difference
    d = diff): (n_patterns, j, j) float64."""
    prev = np.ascontiguousarray(prev_values, dtype=np.float64)
    every = np.arange(layout.n_patterns)
    return lanes.payoffs(layout.decks, layout.drop_rank, layout.child, layout.child_sign,
                         layout.duel, layout.objective == "win",
                         prev.reshape(prev.shape[0], -1, prev.shape[-1]),
                         np.full_like(every, p_rank), np.full_like(every, k),
                         np.full_like(every, diff), every).transpose(2, 0, 1).copy()


def level_zero(objective: str = "points") -> np.ndarray:
    """Level 0's values: f = 0 (points) or f = sign(d) = 0 at the one stored d = 0 (win)."""
    return np.zeros(_state_shape(objective, 1, 0, 1))


def solve_levels(n_cards: int, with_strategies: bool = False, objective: str = "points"
                 ) -> Iterator[tuple[LevelLayout, ShardResult]]:
    """The whole game in memory, level 0 to N, each level as one shard (tests, benchmarks)."""
    prev = level_zero(objective)
    for j in range(n_cards + 1):
        layout = level_layout(n_cards, j, objective)
        result = solve_shard(layout, prev, 0, layout.n_p, with_strategies)
        yield layout, result
        prev = result.values
