"""Any OpenSpiel policy of goofspiel measured exactly against the stored equilibrium, by a
walk of the game tree.

The policy plays one seat, the stored equilibrium (``StoredEquilibrium``) the other.  With
u player one's objective in subgame's units (d under points, sign(d) under win: OpenSpiel's
returns are d / 2 and sign(d), ``states.RETURNS_PER_UNIT``), the walk computes at each
bidding node, from the children's values,

    v = sum_i sum_l x_i y_l v(child i, l)                the policy against the equilibrium
    b = min_l sum_i x_i b(child i, l)   (policy in seat one, x its bids)
    b = max_i sum_l y_l b(child i, l)   (policy in seat two, y its bids)

and averages over the upcards at chance nodes: b is the value when the other seat best
responds to the policy, which sees the same public history (both bids are revealed), so
the best response is a choice per node.  OpenSpiel's NashConv of a policy playing both
seats is the two best responses' gains, b(seat two) - b(seat one) (the game's value is 0),
and its exploitability half that.

A policy over information states sees, at a node, only the node's information state
(prize sequence, hands, who won each round, scores), so equal information states have
equal subtrees: the walk visits each once.  A policy that depends only on the hands, the
prizes, the upcard (and, under win, d) is walked once per such state (``markov``), and
under points the values are then kept less the points so far: v(d) = d + v(0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from subgame.errors import InvalidInput

from .states import RETURNS_PER_UNIT, Seen, observe
from .stored import StoredEquilibrium

Bids = Callable[[object, int], dict]  # (turn-based state, player) -> {action: probability}


@dataclass(frozen=True)
class SeatResult:
    """The policy in one seat: ``value`` E[u] against the stored equilibrium and
    ``best_response`` E[u] against a best response (u: player one's objective)."""

    value: float
    best_response: float


@dataclass(frozen=True)
class PolicyMeasure:
    """A policy in both seats, in subgame's units (d, or sign(d)); ``nodes`` the bidding
    nodes walked for each seat."""

    cards: int
    objective: str
    seat_one: SeatResult
    seat_two: SeatResult
    nodes: int

    @property
    def nash_conv(self) -> float:
        return self.seat_two.best_response - self.seat_one.best_response

    @property
    def exploitability(self) -> float:
        """OpenSpiel's exploitability, NashConv / 2, in subgame's units."""
        return self.nash_conv / 2

    @property
    def openspiel_exploitability(self) -> float:
        """The exploitability in OpenSpiel's returns (``states.RETURNS_PER_UNIT``)."""
        return self.exploitability * RETURNS_PER_UNIT[self.objective]


def _probabilities(found: dict, hand: tuple[int, ...]) -> np.ndarray:
    """A policy's {action: probability} as an array over ``hand`` (ascending)."""
    out = np.array([float(found.get(card - 1, 0.0)) for card in hand])
    extra = {a for a, q in found.items() if q > 0} - {card - 1 for card in hand}
    if extra or abs(out.sum() - 1.0) > 1e-6:
        raise InvalidInput(f"the policy's bids {dict(found)} are not a distribution over the "
                         f"hand {list(hand)}")
    return out / out.sum()


def measure_seat(game, bids: Bids, stored: StoredEquilibrium, seat: int,
                 markov: bool = False) -> tuple[SeatResult, int]:
    """The policy ``bids`` in ``seat`` (0 or 1) against the stored equilibrium, and the
    number of bidding nodes walked; ``game`` is ``states.load_game``'s."""
    cards, points = stored.cards, stored.objective == "points"
    memo: dict = {}

    def bidding(state, seen: Seen) -> tuple[float, float]:
        """(v, b) at a bidding node, less d under points."""
        if markov:
            key = (seen.hands, seen.prizes, seen.upcard, 0 if points else seen.diff)
        else:
            key = state.information_state_string(0)
        if key in memo:
            return memo[key]
        one, two = stored.bids(seen)
        if seat == 0:
            x = one = _probabilities(bids(state, 0), seen.hands[0])
        else:
            answer = state.clone()
            answer.apply_action(seen.hands[0][0] - 1)  # player two does not see the bid
            x = two = _probabilities(bids(answer, 1), seen.hands[1])
        j = len(seen.prizes)
        v, b = np.zeros((j, j)), np.zeros((j, j))
        for i, card_one in enumerate(seen.hands[0]):
            for l, card_two in enumerate(seen.hands[1]):
                child = state.clone()
                child.apply_action(card_one - 1)
                child.apply_action(card_two - 1)
                gain = ((card_one > card_two) - (card_one < card_two)) * seen.upcard
                v[i, l], b[i, l] = after(child, seen.diff + gain)
                if points:
                    v[i, l] += gain
                    b[i, l] += gain
        value = float(one @ v @ two)
        best = float((x @ b).min() if seat == 0 else (b @ x).max())
        memo[key] = value, best
        return value, best

    def after(state, diff: int) -> tuple[float, float]:
        """(v, b) after a round (d = ``diff``), less d under points."""
        if state.is_terminal():  # goofspiel plays the last round itself: u from the returns
            u = state.returns()[0] / RETURNS_PER_UNIT[stored.objective] - (diff if points else 0)
            return u, u
        v = b = 0.0
        outcomes = state.chance_outcomes()
        for action, probability in outcomes:
            child = state.child(action)
            found = bidding(child, observe(child.information_state_string(0), cards))
            v += probability * found[0]
            b += probability * found[1]
        return v, b

    root = game.new_initial_state()
    value, best = after(root, 0)
    return SeatResult(value, best), len(memo)


def measure(game, bids: Bids, stored: StoredEquilibrium, markov: bool = False) -> PolicyMeasure:
    """The policy ``bids`` in both seats against the stored equilibrium."""
    one, nodes = measure_seat(game, bids, stored, 0, markov)
    two, _ = measure_seat(game, bids, stored, 1, markov)
    return PolicyMeasure(stored.cards, stored.objective, one, two, nodes)
