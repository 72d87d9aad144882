"""The explicit-set evaluation of a policy (the first implementation of
``subgame.families.gops.game.evaluate``, kept as its independent check): states are
(V, Y, P, d) with V, Y, P as deck ranks of level j, dense arrays of C(N, j)^3 (2 D_j + 1)
cells per level; each policy is written in card terms (``_policy_bids``: the upcard, the
next card above it, the card of the upcard's rank, uniform), the stored strategies are
looked up through the pattern of (V, Y) per pair of hands.  Same recursion as the module's
docstring: mass pushed down the levels, then the best response bottom up.  Practical up to
N = 8."""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit

from subgame.families.gops.game import cards, patterns
from subgame.families.gops.game.evaluate import (POLICIES, Evaluation, StoredStrategies,
                                                 max_played)

_STORED = 4  # policy code of a stored strategy (POLICIES' order)
_NONE = np.zeros((1, 1, 1, 1, 1), np.float32)


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


def _whole(strategies: StoredStrategies) -> tuple[np.ndarray, np.ndarray]:
    return strategies.rows(0, strategies.one.shape[0])


def evaluate(n_cards: int, policy: str, objective: str, opponent, policy_strategies=None
             ) -> Evaluation:
    """What ``evaluate.evaluate`` computes (same arguments), over explicit states."""
    code = POLICIES.index(policy)
    total = n_cards * (n_cards + 1) // 2
    mass = np.zeros((1, 1, 1, 1))
    mass[0, 0, 0, 0] = 1.0
    levels = {}
    for j in range(n_cards, 0, -1):  # the law of d_final against the stored opponent
        hands, drop, sums = _level(n_cards, j)
        index, sign = pattern_tables(n_cards, j)
        opp = opponent(j)
        pol = policy_strategies(j) if code >= _STORED else None
        own = _whole(pol) if pol else (_NONE, _NONE)
        levels[j] = (hands, drop, sums, index, sign, pol, own)
        n_below = comb(n_cards, j - 1)
        below = np.zeros((n_below, n_below, n_below, 2 * max_played(n_cards, j - 1) + 1))
        _forward(hands, drop, sums, total, code, *own, bool(pol and pol.objective == "win"),
                 *_whole(opp), opp.objective == "win", index, sign, mass, below)
        mass = below
    law = mass[0, 0, 0]
    diffs = np.arange(-total, total + 1)
    utility = diffs.astype(float) if objective == "points" else np.sign(diffs).astype(float)
    value = utility[None, None, None, :].copy()
    for j in range(1, n_cards + 1):  # the best response, bottom up
        hands, drop, sums, index, sign, pol, own = levels[j]
        n = comb(n_cards, j)
        out = np.empty((n, n, n, 2 * max_played(n_cards, j) + 1))
        _best_response(hands, drop, sums, total, code, *own,
                       bool(pol and pol.objective == "win"), index, sign, value, out)
        value = out
    return Evaluation(float(law @ diffs), float(law[diffs > 0].sum()),
                      float(law[diffs == 0].sum()), float(law[diffs < 0].sum()),
                      -float(value[0, 0, 0, 0]))
