"""What `subgame web` answers about higher/lower beyond `query`: the odds of each guess
given the cards seen, in a deck of n distinct cards 1..n.

With c cards not yet seen and the up card of index u among the c + 1 cards left (u cards
lower), a "higher" guess is right with chance (c - u) / c and "lower" with u / c. After a
right guess the next up card has index v among c, uniformly, v >= u after "higher" and
v < u after "lower"; from (v, c) the optimal (majority) player then guesses all the rest
right in f_c(v) of the (c - 1)! orders (game/distinct.py), so

    P(all right | higher now) = sum_{v >= u} f_c(v) / c!,   likewise below u for lower,

and the better of the two is the chance from here. The deck's P_all(n) is the stored
sweep's, so a deck is served where the store holds its exact count.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import factorial
from pathlib import Path
from typing import Any

from subgame.errors import InvalidInput
from subgame.exact import fraction_text
from subgame.families.higher_lower import game as hl
from subgame.families.higher_lower.read import query_n
from subgame.family import Oracle
from subgame.storage import resolve_store

MAX_CARDS = 200  # a deck a person plays by hand; its levels cost O(n^2) exact integers


@lru_cache(maxsize=MAX_CARDS)
def orders_right(n: int) -> tuple[int, ...]:
    """f_n(u) for u = 0..n-1: orders of the n - 1 face-down cards guessed entirely right."""
    level = hl.FIRST_EXACT if n == 1 else list(hl.exact_levels(n))[-1]
    upper = level.wins  # f_n(n//2 + i); the lower half mirrors it: f_n(u) = f_n(n-1-u)
    return tuple(upper[max(u, n - 1 - u) - n // 2] for u in range(n))


def _fraction(value: Fraction) -> dict[str, Any]:
    return {"p": fraction_text(value), "p_float": float(value)}


def odds(cards: int, seen: str, store: str | None = None) -> dict[str, Any]:
    """Per guess, the chance it is right and the chance of guessing every card after it
    right (playing optimally), at the state after the cards ``seen`` (in the order turned;
    the last is the up card)."""
    if not 2 <= cards <= MAX_CARDS:
        raise InvalidInput(f"cards must be in 2..{MAX_CARDS}, got {cards}")
    try:
        turned = [int(c) for c in seen.split(",")]
    except ValueError:
        raise InvalidInput(f"seen takes a comma-separated list of cards, got {seen!r}") \
            from None
    if any(not 1 <= c <= cards for c in turned) or len(set(turned)) != len(turned):
        raise InvalidInput(f"seen must list distinct cards of 1..{cards}, got {seen!r}")
    deck = query_n(resolve_store(store), cards)
    up, hidden = turned[-1], sorted(set(range(1, cards + 1)) - set(turned))
    result = {"cards": cards, "seen": turned, "up": up, "face_down": len(hidden),
              "deck_p_all": deck["p_all_exact"], "deck_p_all_float": deck["p_all"],
              "guesses": {}, "optimal": None}
    if not hidden:
        return result
    c, u = len(hidden), sum(card < up for card in hidden)
    after = orders_right(c)
    for guess, right, indices in (("higher", c - u, range(u, c)), ("lower", u, range(u))):
        result["guesses"][guess] = {
            "right": _fraction(Fraction(right, c)),
            "all_right": _fraction(Fraction(sum(after[v] for v in indices), factorial(c)))}
    chances = {g: Fraction(r["all_right"]["p"]) for g, r in result["guesses"].items()}
    result["optimal"] = "higher" if chances["higher"] >= chances["lower"] else "lower"
    result["all_right"] = _fraction(chances[result["optimal"]])
    return result


ORACLE = Oracle(answers={"odds": odds}, script=str(Path(__file__).with_name("web.js")))
