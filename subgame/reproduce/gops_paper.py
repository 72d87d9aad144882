"""Seed 001, Rhoads & Bartholdi, "The Game of Pure Strategy is solved!": the count (N!)^3,
the 46 points that win N = 13, f(V, V, P) = 0 and f(V, Y, P) = -f(Y, V, P), the 9-card
opening's 0.7475, the weakness of the points-optimal strategy against "always bid 1" on
the first upcard 9, and the extra chip's value η."""

from __future__ import annotations

from math import factorial
from typing import Any

from subgame.reproduce.claims import NOT_REPRODUCED, Claim, Reproduction, digits, holds, same
from subgame.reproduce.runs import ensure

DOCUMENT = "Rhoads & Bartholdi, The Game of Pure Strategy is solved! (seed 001)"
PAGE = "docs/reproduce/gops_paper.md"
# The paper's printed values.
VARIATIONS_13 = "2.4e29"  # (N!)^3 at N = 13
WIN_13 = 46  # "you need 46 or better to win"
BID_9_ON_9 = "0.7475"  # the 9-card game, upcard 9 first: the computer bids 9
SIZES = {"small": 6, "full": 9}  # N solved; the paper's opening claims are about N = 9


def reproduce(store: str | None, out: str, size: str) -> Reproduction:
    from subgame import api

    cards = SIZES[size]
    ensure("gops", store, cards=cards)
    result = Reproduction("gops-paper", DOCUMENT, size)
    result.add(digits("(N!)^3 ways of playing out the game, N = 13", VARIATIONS_13,
                      factorial(13) ** 3))
    result.add(same("points needed to win N = 13", WIN_13, sum(range(1, 14)) // 2 + 1))

    def value(hand, opponent, prizes, **more: Any) -> dict:
        return api.query("gops", store=store, cards=cards, hand=_listed(hand),
                         opponent=_listed(opponent), prizes=_listed(prizes), **more)

    full = range(1, cards + 1)
    opening = value(full, full, full, upcard=cards)
    tolerance = opening["tolerance"]
    result.add(holds("f(V, V, P) = 0", abs(opening["value"]) <= tolerance,
                     f"at N = {cards}: f = {opening['value']:.3g} (tolerance {tolerance:g})"))
    low, high, rest = range(1, cards), range(2, cards + 1), range(1, cards)
    swapped = value(low, high, rest)["value"] + value(high, low, rest)["value"]
    result.add(holds("f(V, Y, P) = -f(Y, V, P)", abs(swapped) <= 2 * tolerance,
                     f"at V = 1..{cards - 1}, Y = 2..{cards}, P = 1..{cards - 1}: the sum is "
                     f"{swapped:.3g}"))
    _bid_one(result, value, cards, opening["bids"][str(cards)]["player_one"])
    result.add(Claim("η, the value of an extra bidding chip, ≈ 1 + 1/(2N - 2) as R grows",
                     "1 + 1/(2N-2)", "not computed", NOT_REPRODUCED,
                     "the paper never defines the game η is measured on (R is not introduced); "
                     "the readings tried do not approach 1 + 1/(2N-2)", PAGE))
    return result


def _listed(cards) -> str:
    return ",".join(str(card) for card in cards)


def _bid_one(result: Reproduction, value, cards: int, mix: dict[str, float]) -> None:
    """The first upcard is N; you bid 1, the computer its optimal mix. After its bid b you
    hold 2..N, it holds the rest, the prizes 1..N-1 remain, and you stand at
    -N [b > 1] + f(2..N, 1..N minus b, 1..N-1) (both optimal from there)."""
    after = {}
    for bid, probability in mix.items():
        if probability > 0:
            lost = -cards if int(bid) > 1 else 0
            rest = [card for card in range(1, cards + 1) if card != int(bid)]
            after[int(bid)] = (probability, lost + value(range(2, cards + 1), rest,
                                                           range(1, cards))["value"])
    top_probability, top_value = after.get(cards, (0.0, float("-inf")))
    if cards == 9:
        result.add(digits("the 9-card game, upcard 9 first: the computer bids 9 with probability",
                          BID_9_ON_9, top_probability, f"{top_probability:.8f}"))
    result.add(holds(f"playing 1 against the computer's {cards} is to your advantage",
                     top_value > 0, f"at N = {cards}: you then stand at {top_value:+.4f} points"))
    advantage = sum(p for p, v in after.values() if v > 0)
    if cards == 9:
        result.add(holds("always bidding 1 on the first 9, you gain an advantage nearly 3/4 of "
                         "the time", 0.7 <= advantage < 0.75, f"in {advantage:.4f} of games",
                         f"in {advantage:.4f} of games"))
    small = {bid: v for bid, (p, v) in after.items() if v < 0}
    result.add(holds("when the computer bids low it gains more than you stand to get against "
                     "its top bid", all(-v > top_value for v in small.values()),
                     f"at N = {cards}: it gains " + ", ".join(
                         f"{-v:.3f} bidding {bid}" for bid, v in sorted(small.items()))
                     + f"; you get {top_value:.3f}"))
    expected = sum(p * v for p, v in after.values())
    result.add(holds("the computed strategies optimise the amount won: always 1 gains no "
                     "expected points against them", expected <= 1e-6,
                     f"at N = {cards}: always 1 expects {round(expected, 4) + 0.0:+.4f} points, the game "
                     f"value 0 at best"))
