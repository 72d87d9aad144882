"""Policies evaluated exactly: a fixed bidding policy of player one against the stored
optimal strategy of player two, and against its best response, level by level on the
solver's own states.

A state is the solver's (rank of P, d, stored pattern p) with an orientation o: o = 0 means
the actual hands are (V, Y) as stored, o = 1 that they are stored swapped, (Y, V).  The
pattern reduction holds for the evaluation because nothing here looks at more than the
pattern and P: the duel sign(V_i - Y_l) and the child pattern come from the pattern, the
opponent's bids are stored per (P, d, pattern), and each policy's bid is a function of
(P, d, pattern, upcard index k):

    match        the upcard: V and P start equal (1..N) and both lose the upcard each
                 round, so V = P on every path and the upcard is V_k
    greedy-rank  V_k, the card whose rank in V is the upcard's rank in P (the same bids as
                 match: V = P)
    upcard+1     the smallest card above the upcard, else the lowest.  This is circular
                 parking (upcard u takes the first free card from u + 1 on, cyclically),
                 and parking is abelian: the cards spent depend on the set of upcards
                 played, not their order.  So V = park(P) is a function of P.
    random       uniform over V
    optimal-points, optimal-win   the stored optimal strategy of that objective

At level j the arrays have shape (C(N, j), 2 D_j + 1, n_patterns(j), 2) (deck, d + D_j,
pattern, orientation), D_j = T - j(j+1)/2 the most points played (T = N(N+1)/2); only cells
with |d| <= T - sum(P) are reached, and the pattern V = Y has orientation 0 only.

Against a fixed player two (bids y over Y) the probability mass of each state flows from
the root (the pattern V = Y of level N, P = 1..N, d = 0) down the levels,

    m(V - V_i, Y - Y_l, P - P_k, d + sign(V_i - Y_l) P_k) += m(V, Y, P, d) x_i y_l / j,

and at j = 0 it is the law of the final difference: E[d], P(d > 0), P(d = 0), P(d < 0).
The best response to the policy (player two minimising player one's objective u, u(d) = d
for points, sign(d) for win) is a min over bids per state, no LP:

    b(V, Y, P, d) = (1/j) sum_k min_l sum_i x_i b(V - V_i, Y - Y_l, P - P_k, d + sign(V_i - Y_l) P_k),
    b = u(d) at j = 0 (and b = sign(d) under win once |d| > sum(P));
    exploitability = -b(root): what the best response gains (the game's value is 0, so an
    optimal policy has exploitability 0).

Each pass reads one level at a time and the stored strategies of that level in blocks of
deck ranks (``StoredStrategies.rows``), as the solver's shards do: memory holds two levels'
state arrays and one block of strategies.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Any, Callable

import numpy as np
from numba import njit

from .level import level_layout
from .patterns import stored_pattern_count

SIMPLE_POLICIES = ("match", "random", "upcard+1", "greedy-rank")
POLICIES = SIMPLE_POLICIES + ("optimal-points", "optimal-win")
_FIXED, _UNIFORM, _STORED = 0, 1, 2  # how player one's bids are found
_READ_BYTES = 1 << 27  # stored strategies read per block (both arrays of one objective)


@dataclass(frozen=True)
class StoredStrategies:
    """Level j's stored optimal strategies of one objective: one = 'strategies', two =
    'strategies_two', shape (C(N, j), [2 diff_max + 1 under win,] n_patterns, j, j); numpy
    arrays or anything sliced lazily along the deck axis (Zarr arrays)."""

    objective: str
    one: Any
    two: Any

    @property
    def deck_bytes(self) -> int:
        """Bytes of both arrays per deck rank."""
        return 2 * 4 * int(np.prod(self.one.shape[1:]))

    def rows(self, p_lo: int, p_hi: int) -> tuple[np.ndarray, np.ndarray]:
        """Deck ranks p_lo..p_hi-1 of both arrays as float32 with a difference axis (of
        length 1 under points)."""
        one, two = (np.ascontiguousarray(array[p_lo:p_hi], np.float32)
                    for array in (self.one, self.two))
        if self.objective == "points":
            return one[:, None], two[:, None]
        return one, two


@dataclass(frozen=True)
class Evaluation:
    """A policy of player one against an opponent: law of the final difference and what a
    best response gains."""

    expected_points: float
    p_win: float
    p_tie: float
    p_lose: float
    exploitability: float


_NONE = np.zeros((1, 1, 1, 1, 1), np.float32)


def max_played(n_cards: int, j: int) -> int:
    """D_j: the most points played when j cards are left."""
    return n_cards * (n_cards + 1) // 2 - j * (j + 1) // 2


def parked_hand(n_cards: int, deck) -> list[int]:
    """Player one's hand under upcard+1 when the prizes ``deck`` are left: 1..N less the
    cards that circular parking gives the upcards played (in any order: parking is
    abelian)."""
    left = set(deck)
    free = list(range(1, n_cards + 1))
    for upcard in (c for c in range(1, n_cards + 1) if c not in left):
        above = [c for c in free if c > upcard]
        free.remove(above[0] if above else free[0])
    return free


def fixed_bids(n_cards: int, policy: str, decks: np.ndarray) -> np.ndarray:
    """[r, k]: the bid index (into V, ascending) of a deterministic policy on upcard index k
    at deck rank r (match, greedy-rank: k; upcard+1: from the parked hand)."""
    n_p, j = decks.shape
    if policy != "upcard+1":
        return np.tile(np.arange(j, dtype=np.int64), (n_p, 1))
    out = np.empty((n_p, j), np.int64)
    for r, deck in enumerate(decks.tolist()):
        hand = parked_hand(n_cards, deck)
        for k, upcard in enumerate(deck):
            above = [i for i, c in enumerate(hand) if c > upcard]
            out[r, k] = above[0] if above else 0
    return out


@njit(cache=True, nogil=True)
def _stored_bids(one, two, win, r, d, p, o, k, prizes, player, out):
    """Player ``player``'s stored optimal bids at block row r, difference d, pattern p in
    orientation o, upcard index k: stored swapped (o = 1), player one's bids are the
    stored player two's at -d."""
    j = out.size
    if win and abs(d) > prizes:  # saturated: every bid optimal, the stored one uniform
        out[:] = 1.0 / j
        return
    at = ((d if o == 0 else -d) + (one.shape[1] - 1) // 2) if win else 0
    table = one if (o == 0) == (player == 1) else two
    mass = 0.0
    for b in range(j):
        out[b] = table[r, at, p, k, b]
        mass += out[b]
    out /= mass  # float32 probabilities: a distribution again


@njit(cache=True, nogil=True)
def _policy_bids(kind, fixed, one, two, win, r, d, p, o, k, prizes, out):
    """Player one's bids under the policy (``kind``: fixed bid index, uniform, stored)."""
    if kind == _STORED:
        _stored_bids(one, two, win, r, d, p, o, k, prizes, 1, out)
    elif kind == _UNIFORM:
        out[:] = 1.0 / out.size
    else:
        out[:] = 0.0
        out[fixed[r, k]] = 1.0


@njit(cache=True, nogil=True, inline="always")
def _child(child, child_sign, duel, p, o, i, l):
    """Player one's V_i against Y_l at pattern p in orientation o: (child pattern, its
    orientation, sign(V_i - Y_l)).  Stored swapped, V_i is the stored Y's i-th card."""
    if o == 0:
        return (np.int64(child[p, i, l]), np.int64(child_sign[p, i, l] < 0),
                np.int64(duel[p, i, l]))
    return (np.int64(child[p, l, i]), np.int64(child_sign[p, l, i] > 0),
            -np.int64(duel[p, l, i]))


@njit(cache=True, nogil=True)
def _forward(decks, drop_rank, sums, total, child, child_sign, duel, symmetric, kind, fixed,
             pol_one, pol_two, pol_win, opp_one, opp_two, opp_win, p_lo, mass, below):
    """Push the mass of level j's deck ranks p_lo.. (block rows r) into level j-1."""
    n_rows, j = decks.shape
    n_patterns = child.shape[0]
    top = (mass.shape[1] - 1) // 2
    low = (below.shape[1] - 1) // 2
    x = np.empty(j)
    y = np.empty(j)
    for r in range(n_rows):
        played = total - sums[r]
        for d in range(-played, played + 1):
            for p in range(n_patterns):
                for o in range(1 if p == symmetric else 2):
                    m = mass[p_lo + r, d + top, p, o]
                    if m == 0.0:
                        continue
                    m /= j
                    for k in range(j):
                        _policy_bids(kind, fixed, pol_one, pol_two, pol_win, r, d, p, o, k,
                                     sums[r], x)
                        _stored_bids(opp_one, opp_two, opp_win, r, d, p, o, k, sums[r], 2, y)
                        prize = np.int64(decks[r, k])
                        rank = drop_rank[r, k]
                        for i in range(j):
                            if x[i] == 0.0:
                                continue
                            for l in range(j):
                                if y[l] == 0.0:
                                    continue
                                c, co, won = _child(child, child_sign, duel, p, o, i, l)
                                below[rank, d + won * prize + low, c, co] += m * x[i] * y[l]


@njit(cache=True, nogil=True, inline="always")
def _later(below, rank, d, won, prize, low, c, co, additive):
    """b of the child; ``additive``: below holds b(., 0) only and b(., d) = d + b(., 0)."""
    if additive:
        return d + won * prize + below[rank, 0, c, co]
    return below[rank, d + won * prize + low, c, co]


@njit(cache=True, nogil=True)
def _best_response(decks, drop_rank, sums, total, child, child_sign, duel, symmetric, kind,
                   fixed, pol_one, pol_two, pol_win, win, additive, p_lo, below, out):
    """b at level j's deck ranks p_lo.. (``out``) from b at level j-1 (``below``).
    ``additive`` (points, a policy blind to d): only d = 0 is computed."""
    n_rows, j = decks.shape
    n_patterns = child.shape[0]
    top = (out.shape[1] - 1) // 2
    low = (below.shape[1] - 1) // 2
    x = np.empty(j)
    for r in range(n_rows):
        span = 0 if additive else total - sums[r]
        for d in range(-span, span + 1):
            if win and abs(d) > sums[r]:  # decided whatever is bid
                out[p_lo + r, d + top] = 1.0 if d > 0 else -1.0
                continue
            for p in range(n_patterns):
                for o in range(1 if p == symmetric else 2):
                    acc = 0.0
                    for k in range(j):
                        prize = np.int64(decks[r, k])
                        rank = drop_rank[r, k]
                        best = np.inf
                        if kind == _FIXED:  # one bid: no sum over i
                            i = fixed[r, k]
                            for l in range(j):
                                c, co, won = _child(child, child_sign, duel, p, o, i, l)
                                best = min(best, _later(below, rank, d, won, prize, low, c,
                                                        co, additive))
                            acc += best
                            continue
                        _policy_bids(kind, fixed, pol_one, pol_two, pol_win, r, d, p, o, k,
                                     sums[r], x)
                        for l in range(j):
                            value = 0.0
                            for i in range(j):
                                if x[i] == 0.0:
                                    continue
                                c, co, won = _child(child, child_sign, duel, p, o, i, l)
                                value += x[i] * _later(below, rank, d, won, prize, low, c, co,
                                                       additive)
                            best = min(best, value)
                        acc += best
                    out[p_lo + r, d + top, p, o] = acc / j


def _blocks(n_p: int, *strategies: StoredStrategies | None) -> list[tuple[int, int]]:
    """Deck-rank blocks [p_lo, p_hi) whose stored strategies fit ``_READ_BYTES``."""
    per_deck = sum(s.deck_bytes for s in strategies if s is not None) or 1
    rows = max(1, min(n_p, _READ_BYTES // per_deck))
    return [(lo, min(lo + rows, n_p)) for lo in range(0, n_p, rows)]


def _rows(strategies: StoredStrategies | None, p_lo: int, p_hi: int):
    """(one, two, is win) of a block, placeholders when there is nothing stored to read."""
    if strategies is None:
        return _NONE, _NONE, False
    return (*strategies.rows(p_lo, p_hi), strategies.objective == "win")


def evaluate(n_cards: int, policy: str, objective: str,
             opponent: Callable[[int], StoredStrategies],
             policy_strategies: Callable[[int], StoredStrategies] | None = None
             ) -> Evaluation:
    """Evaluate ``policy`` (player one) against the optimal strategy of ``objective``
    (player two); exploitability is measured in that objective.

    opponent(j) -> StoredStrategies of ``objective`` for level j; policy_strategies(j) ->
    StoredStrategies of the policy's objective (optimal-points, optimal-win only)."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    kind = (_STORED if policy.startswith("optimal-") else
            _UNIFORM if policy == "random" else _FIXED)
    if kind == _STORED and policy_strategies is None:
        raise ValueError(f"{policy} needs the stored strategies of its objective")
    total = n_cards * (n_cards + 1) // 2

    def level(j: int):
        layout = level_layout(n_cards, j)
        sums = layout.decks.astype(np.int64).sum(axis=1)
        fixed = (fixed_bids(n_cards, policy, layout.decks) if kind == _FIXED
                 else np.zeros((layout.n_p, 1), np.int64))
        return layout, sums, fixed, (policy_strategies(j) if kind == _STORED else None)

    def states(j: int) -> tuple[int, int, int, int]:
        return (comb(n_cards, j), 2 * max_played(n_cards, j) + 1,
                stored_pattern_count(n_cards, j), 2)

    mass = np.zeros(states(n_cards))
    mass[0, 0, 0, 0] = 1.0  # the root: V = Y = P = 1..N, d = 0
    for j in range(n_cards, 0, -1):  # the law of d_final against the stored opponent
        layout, sums, fixed, own = level(j)
        opp = opponent(j)
        below = np.zeros(states(j - 1))
        for p_lo, p_hi in _blocks(layout.n_p, own, opp):
            _forward(layout.decks[p_lo:p_hi], layout.drop_rank[p_lo:p_hi], sums[p_lo:p_hi],
                     total, layout.child, layout.child_sign, layout.duel, layout.symmetric,
                     kind, fixed[p_lo:p_hi], *_rows(own, p_lo, p_hi),
                     *_rows(opp, p_lo, p_hi), p_lo, mass, below)
        mass = below
    law = mass[0, :, 0, 0]
    diffs = np.arange(-total, total + 1)
    # Under points a policy that does not look at d meets a best response that does not
    # either, so b(., d) = d + b(., 0): one difference per state instead of 2 D_j + 1.
    additive = objective == "points" and policy != "optimal-win"
    utility = diffs.astype(float) if objective == "points" else np.sign(diffs).astype(float)
    value = (np.zeros((1, 1, 1, 2)) if additive
             else utility[None, :, None, None].repeat(2, axis=3))
    for j in range(1, n_cards + 1):  # the best response, bottom up
        layout, sums, fixed, own = level(j)
        shape = states(j)
        out = np.full((shape[0], 1, *shape[2:]) if additive else shape, np.nan)
        for p_lo, p_hi in _blocks(layout.n_p, own):
            _best_response(layout.decks[p_lo:p_hi], layout.drop_rank[p_lo:p_hi],
                           sums[p_lo:p_hi], total, layout.child, layout.child_sign,
                           layout.duel, layout.symmetric, kind, fixed[p_lo:p_hi],
                           *_rows(own, p_lo, p_hi), objective == "win", additive, p_lo,
                           value, out)
        value = out
    return Evaluation(float(law @ diffs), float(law[diffs > 0].sum()),
                      float(law[diffs == 0].sum()), float(law[diffs < 0].sum()),
                      -float(value[0, 0, 0, 0]))
