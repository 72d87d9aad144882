"""Policies evaluated exactly: a fixed bidding policy of player one against the stored
optimal strategy of player two, and against its best response.

States are explicit, (V, Y, P, d) with V, Y, P as deck ranks (``cards``) of level j and d
the points so far (player one minus player two): the named policies look at card values,
not at interleaving patterns, so no pattern reduction applies.  At level j every array has
shape (C(N, j), C(N, j), C(N, j), 2 D_j + 1), D_j = T - j(j+1)/2 the most points played
(T = N(N+1)/2); only cells with |d| <= T - sum(P) are ever reached.

Against a fixed player two (bids y over Y) the probability mass of each state flows from the
root (V = Y = P = 1..N, d = 0) down the levels,

    m(V - V_i, Y - Y_l, P - P_k, d + sign(V_i - Y_l) P_k) += m(V, Y, P, d) x_i y_l / j,

and at j = 0 it is the law of the final difference: E[d], P(d > 0), P(d = 0), P(d < 0).
The best response to the policy (player two minimising player one's objective u, u(d) = d
for points, sign(d) for win) is a max over bids per state, no LP:

    b(V, Y, P, d) = (1/j) sum_k min_l sum_i x_i b(V - V_i, Y - Y_l, P - P_k, d + sign(V_i - Y_l) P_k),
    b = u(d) at j = 0;  exploitability = -b(root): what the best response gains (the game's
    value is 0, so an optimal policy has exploitability 0).

Policies (player one's bid on upcard P_k, hand V ascending):
    match        the upcard's card (V = P on every path, as both hands start as P)
    random       uniform over V
    upcard+1     the smallest card above the upcard, else the lowest card
    greedy-rank  V_k: the card whose rank in V is the upcard's rank in P
    optimal-points, optimal-win   the stored optimal strategy of that objective
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
from numba import njit

from . import cards, patterns

SIMPLE_POLICIES = ("match", "random", "upcard+1", "greedy-rank")
POLICIES = SIMPLE_POLICIES + ("optimal-points", "optimal-win")
_STORED = len(SIMPLE_POLICIES)  # policy code of a stored strategy


@dataclass(frozen=True)
class StoredStrategies:
    """Level j's stored optimal strategies of one objective, with a difference axis (of
    length 1 under points): one = 'strategies', two = 'strategies_two', shape
    (C(N, j), 2 diff_max + 1, n_patterns, j, j)."""

    objective: str
    one: np.ndarray
    two: np.ndarray

    @classmethod
    def from_arrays(cls, objective: str, one: np.ndarray, two: np.ndarray):
        if objective == "points":
            one, two = one[:, None], two[:, None]
        return cls(objective, np.ascontiguousarray(one, np.float32),
                   np.ascontiguousarray(two, np.float32))


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


def pattern_tables(n_cards: int, j: int) -> tuple[np.ndarray, np.ndarray]:
    """index[rV, rY], sign[rV, rY]: where the stored optimal strategies keep (V, Y) (stored
    pattern index, +1 as is, -1 stored as (Y, V))."""
    hands = cards.subsets(n_cards, j).tolist()
    keys = patterns.canonical_patterns(n_cards, j)
    raw = np.array([[patterns.pattern_key(v, y) for y in hands] for v in hands], np.int64)
    swapped = patterns.swap(raw)
    index = np.searchsorted(keys, np.minimum(raw, swapped)).astype(np.int64)
    return index, np.where(raw <= swapped, 1, -1).astype(np.int64)


@njit(cache=True, nogil=True)
def _stored_bids(one, two, uses_diff, pat_index, pat_sign, rv, ry, rp, d, prizes, k,
                 player, out):
    """Player ``player``'s stored optimal bids at (V, Y, P, d) on upcard index k."""
    j = out.size
    if uses_diff and abs(d) > prizes:  # saturated: every bid optimal, the stored one uniform
        out[:] = 1.0 / j
        return
    sign = pat_sign[rv, ry]
    at = (sign * d + (one.shape[1] - 1) // 2) if uses_diff else 0
    table = one if (sign > 0) == (player == 1) else two
    mass = 0.0
    for b in range(j):
        out[b] = table[rp, at, pat_index[rv, ry], k, b]
        mass += out[b]
    out /= mass  # float32 probabilities: a distribution again


@njit(cache=True, nogil=True)
def _policy_bids(policy, hand, deck, k, out):
    """A simple policy's bids over ``hand`` (ascending) on upcard deck[k]."""
    j = out.size
    out[:] = 0.0
    upcard = deck[k]
    if policy == 1:  # random
        out[:] = 1.0 / j
        return
    if policy == 3:  # greedy-rank
        out[k] = 1.0
        return
    pick = -1
    for b in range(j):  # match: the upcard (else the next above); upcard+1: next above
        if (hand[b] >= upcard if policy == 0 else hand[b] > upcard):
            pick = b
            break
    out[pick if pick >= 0 else 0] = 1.0


@njit(cache=True, nogil=True, inline="always")
def _duel(a, b):
    """sign(a - b)."""
    return 1 if a > b else (-1 if a < b else 0)


@njit(cache=True, nogil=True)
def _bids_of_one(policy, pol_one, pol_two, pol_diff, pat_index, pat_sign, hands, rv, ry, rp,
                 d, prizes, k, out):
    if policy >= 4:
        _stored_bids(pol_one, pol_two, pol_diff, pat_index, pat_sign, rv, ry, rp, d, prizes,
                     k, 1, out)
    else:
        _policy_bids(policy, hands[rv], hands[rp], k, out)


@njit(cache=True, nogil=True)
def _forward(hands, drop, sums, total, policy, pol_one, pol_two, pol_diff, opp_one, opp_two,
             opp_diff, pat_index, pat_sign, mass, below):
    """Push level j's mass (``mass``) into level j-1's (``below``)."""
    n, j = hands.shape
    top = (mass.shape[3] - 1) // 2
    low = (below.shape[3] - 1) // 2
    x = np.empty(j)
    y = np.empty(j)
    for rv in range(n):
        for ry in range(n):
            for rp in range(n):
                played = total - sums[rp]
                for d in range(-played, played + 1):
                    m = mass[rv, ry, rp, d + top]
                    if m == 0.0:
                        continue
                    for k in range(j):
                        _bids_of_one(policy, pol_one, pol_two, pol_diff, pat_index, pat_sign,
                                     hands, rv, ry, rp, d, sums[rp], k, x)
                        _stored_bids(opp_one, opp_two, opp_diff, pat_index, pat_sign, rv, ry,
                                     rp, d, sums[rp], k, 2, y)
                        prize = np.int64(hands[rp, k])
                        for i in range(j):
                            if x[i] == 0.0:
                                continue
                            for l in range(j):
                                if y[l] == 0.0:
                                    continue
                                after = d + _duel(hands[rv, i], hands[ry, l]) * prize
                                below[drop[rv, i], drop[ry, l], drop[rp, k], after + low] += (
                                    m * x[i] * y[l] / j)


@njit(cache=True, nogil=True)
def _best_response(hands, drop, sums, total, policy, pol_one, pol_two, pol_diff, pat_index,
                   pat_sign, below, out):
    """b at level j (``out``) from b at level j-1 (``below``)."""
    n, j = hands.shape
    top = (out.shape[3] - 1) // 2
    low = (below.shape[3] - 1) // 2
    x = np.empty(j)
    out[:] = np.nan
    for rv in range(n):
        for ry in range(n):
            for rp in range(n):
                played = total - sums[rp]
                for d in range(-played, played + 1):
                    acc = 0.0
                    for k in range(j):
                        _bids_of_one(policy, pol_one, pol_two, pol_diff, pat_index, pat_sign,
                                     hands, rv, ry, rp, d, sums[rp], k, x)
                        prize = np.int64(hands[rp, k])
                        best = np.inf
                        for l in range(j):
                            value = 0.0
                            for i in range(j):
                                if x[i] == 0.0:
                                    continue
                                after = d + _duel(hands[rv, i], hands[ry, l]) * prize
                                value += x[i] * below[drop[rv, i], drop[ry, l], drop[rp, k],
                                                      after + low]
                            best = min(best, value)
                        acc += best
                    out[rv, ry, rp, d + top] = acc / j


def _level(n_cards: int, j: int):
    hands = cards.subsets(n_cards, j)
    sums = hands.astype(np.int64).sum(axis=1)
    return hands, cards.drop_ranks(hands), sums


def evaluate(n_cards: int, policy: str, objective: str, opponent, policy_strategies=None
             ) -> Evaluation:
    """Evaluate ``policy`` (player one) against the optimal strategy of ``objective``
    (player two); exploitability is measured in that objective.

    opponent(j) -> StoredStrategies of ``objective`` for level j; policy_strategies(j) ->
    StoredStrategies of the policy's objective (optimal-points, optimal-win only)."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    code = POLICIES.index(policy)
    if code >= _STORED and policy_strategies is None:
        raise ValueError(f"{policy} needs the stored strategies of its objective")
    total = n_cards * (n_cards + 1) // 2
    mass = np.zeros((1, 1, 1, 1))
    mass[0, 0, 0, 0] = 1.0
    levels = {}
    for j in range(n_cards, 0, -1):  # the law of d_final against the stored opponent
        hands, drop, sums = _level(n_cards, j)
        index, sign = pattern_tables(n_cards, j)
        opp = opponent(j)
        pol = policy_strategies(j) if code >= _STORED else None
        levels[j] = (hands, drop, sums, index, sign, pol)
        n_below = comb(n_cards, j - 1)
        below = np.zeros((n_below, n_below, n_below, 2 * max_played(n_cards, j - 1) + 1))
        _forward(hands, drop, sums, total, code,
                 pol.one if pol else _NONE, pol.two if pol else _NONE,
                 bool(pol and pol.objective == "win"), opp.one, opp.two,
                 opp.objective == "win", index, sign, mass, below)
        mass = below
    law = mass[0, 0, 0]
    diffs = np.arange(-total, total + 1)
    utility = diffs.astype(float) if objective == "points" else np.sign(diffs).astype(float)
    value = utility[None, None, None, :].copy()
    for j in range(1, n_cards + 1):  # the best response, bottom up
        hands, drop, sums, index, sign, pol = levels[j]
        n = comb(n_cards, j)
        out = np.empty((n, n, n, 2 * max_played(n_cards, j) + 1))
        _best_response(hands, drop, sums, total, code,
                       pol.one if pol else _NONE, pol.two if pol else _NONE,
                       bool(pol and pol.objective == "win"), index, sign, value, out)
        value = out
    return Evaluation(float(law @ diffs), float(law[diffs > 0].sum()),
                      float(law[diffs == 0].sum()), float(law[diffs < 0].sum()),
                      -float(value[0, 0, 0, 0]))
