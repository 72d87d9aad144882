"""From explicit card sets to stored entries, and from stored entries back to cards.

A state (V, Y, P) is stored once per pair {(V, Y), (Y, V)} as (level j, pattern, rank(P)).
When the stored orientation is (Y, V) the stored values carry sign -1 and the two players
trade strategy arrays: the row strategies (``strategies``) are then player two's bids.
Under the win objective the state has the difference d so far, and f(V, Y, P, d) =
-f(Y, V, P, -d): the stored orientation (Y, V) is read at difference -d.
Stored bid index i means the i-th smallest card of the hand it belongs to; upcard index k
the k-th smallest card of P.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import cards, patterns


@dataclass(frozen=True)
class StateRef:
    """Where (V, Y, P) lives.  f(V, Y, P) = sign * values[p_rank, pattern] (same for
    upcard_values[p_rank, pattern, k]).  Player one's bids are ``one_array`` ('strategies'
    or 'strategies_two') at [p_rank, pattern, k, b], bid index b meaning card one_cards[b]
    of V; player two's likewise.  Under win the arrays have the difference axis after the
    deck axis: f(V, Y, P, d) = sign * values[p_rank, diff + diff_max, pattern], with
    ``diff`` = sign * d, unless the state is ``saturated`` (|d| > sum(P): f = sign(d),
    nothing stored needed)."""

    level: int
    pattern: int
    sign: int
    p_rank: int
    upcards: tuple[int, ...]
    one_array: str
    one_cards: tuple[int, ...]
    two_array: str
    two_cards: tuple[int, ...]
    diff: int = 0
    saturated: bool = False


@dataclass(frozen=True)
class StateAnswer:
    """f(V, Y, P), f_k by upcard card (None when the level's f_k were not stored), and each
    player's mixed bid {card: probability} by upcard card (None when strategies were not
    stored)."""

    value: float
    upcard_values: dict[int, float] | None
    bids_one: dict[int, dict[int, float]] | None
    bids_two: dict[int, dict[int, float]] | None


# A query enumerates a level's patterns by numpy up to this many: up to N = 14 (362,893 at
# its widest level) that costs a query process less than importing numba does.
QUERY_SMALL_PATTERNS = 400_000


@lru_cache(maxsize=64)
def _stored_keys(n_cards: int, j: int) -> np.ndarray:
    return patterns.canonical_patterns(n_cards, j, QUERY_SMALL_PATTERNS)


def _hand(name: str, hand, n_cards: int) -> tuple[int, ...]:
    values = [int(c) for c in hand]
    if len(set(values)) != len(values):
        raise ValueError(f"{name} has duplicate cards: {sorted(values)}")
    if any(not 1 <= c <= n_cards for c in values):
        raise ValueError(f"{name} has cards outside 1..{n_cards}: {sorted(values)}")
    return tuple(sorted(values))


def locate(n_cards: int, v_hand, y_hand, deck, diff: int = 0) -> StateRef:
    """The stored address of (V, Y, P) with difference d = ``diff`` so far (win; 0 for
    points) in the N-card game; raises ValueError on bad input, including |d| larger than
    the points already played (T - sum(P), T = N(N+1)/2)."""
    v = _hand("V", v_hand, n_cards)
    y = _hand("Y", y_hand, n_cards)
    p = _hand("P", deck, n_cards)
    if not len(v) == len(y) == len(p):
        raise ValueError(f"V, Y and P must have equal sizes, got {len(v)}, {len(y)}, {len(p)}")
    key = patterns.pattern_key(v, y)
    swapped = patterns.swap(key)
    sign = 1 if key <= swapped else -1
    keys = _stored_keys(n_cards, len(p))
    index = int(np.searchsorted(keys, min(key, swapped)))
    if sign > 0:
        one, two = ("strategies", v), ("strategies_two", y)
    else:  # stored as (Y, V): its row player is player two
        one, two = ("strategies_two", v), ("strategies", y)
    played = n_cards * (n_cards + 1) // 2 - sum(p)
    if abs(diff) > played:
        raise ValueError(f"the difference {diff} is unreachable: only {played} points have "
                         f"been played when the prizes {list(p)} are left")
    return StateRef(len(p), index, sign, cards.subset_rank(p), p,
                    one[0], one[1], two[0], two[1], sign * diff, abs(diff) > sum(p))


@dataclass(frozen=True)
class Children:
    """The children (V - V_i, Y - Y_l, P - P_k) of a state of level j after the bids V_i and
    Y_l (i-th and l-th smallest) on the upcard P_k.  The hands' pattern depends on the bids
    alone and the deck on the upcard alone: f(child) = sign[i, l] * values[p_rank[k],
    pattern[i, l]] of level j - 1 (under win at the difference sign[i, l] * d', d' =
    d + duel[i, l] P_k, unless |d'| > left[k] = sum(P) - P_k, where f = sign(d'))."""

    level: int           # j - 1
    pattern: np.ndarray  # (j, j) index among level j-1's stored patterns
    sign: np.ndarray     # (j, j) 1 where stored as (V - V_i, Y - Y_l), -1 as its swap
    duel: np.ndarray     # (j, j) sign(V_i - Y_l)
    p_rank: np.ndarray   # (j,) rank(P - P_k)
    left: np.ndarray     # (j,) sum(P) - P_k


def children(n_cards: int, v_hand, y_hand, deck) -> Children:
    """The children of (V, Y, P) in the N-card game (j^2 patterns and j decks, not j^3
    located one by one); raises ValueError on bad input, as `locate`."""
    ref = locate(n_cards, v_hand, y_hand, deck)
    j = ref.level
    key = np.array([patterns.pattern_key(v_hand, y_hand)], np.int64)
    index, sign, duel = patterns.child_table(key, _stored_keys(n_cards, j - 1), j)
    p = np.array(ref.upcards, np.int64)
    return Children(j - 1, index[0], np.where(sign[0] < 0, -1, 1), duel[0],
                    cards.drop_ranks(p[None, :])[0], p.sum() - p)


def answer(ref: StateRef, value: float, upcard_values: np.ndarray | None,
           strategies: np.ndarray | None = None,
           strategies_two: np.ndarray | None = None) -> StateAnswer:
    """Read a state in card terms from its stored entries at [p_rank, pattern]:
    value (scalar), upcard_values (j,) or None, strategies and strategies_two (j, j) or
    None."""
    stored = {"strategies": strategies, "strategies_two": strategies_two}

    def bids(array_name, hand):
        table = stored[array_name]
        if table is None:
            return None
        return {card: {c: float(q) for c, q in zip(hand, table[k])}
                for k, card in enumerate(ref.upcards)}

    return StateAnswer(
        ref.sign * float(value),
        None if upcard_values is None else
        {card: ref.sign * float(u) for card, u in zip(ref.upcards, upcard_values)},
        bids(ref.one_array, ref.one_cards),
        bids(ref.two_array, ref.two_cards),
    )


def saturated_answer(ref: StateRef, with_strategies: bool) -> StateAnswer:
    """A saturated state (|d| > sum(P)): f = f_k = sign(d) and every bid is optimal (the
    uniform bid is reported)."""
    outcome = float(np.sign(ref.diff * ref.sign))
    j = len(ref.upcards)

    def uniform(hand):
        return {card: {c: 1.0 / j for c in hand} for card in ref.upcards}

    return StateAnswer(outcome, {card: outcome for card in ref.upcards},
                       uniform(ref.one_cards) if with_strategies else None,
                       uniform(ref.two_cards) if with_strategies else None)
