"""The seed's code (seeds/004), as given: the baseline for benchmarks and the source of the
published figures.  Brute force over permutations, then a memoised recursion over (up, n).

P_all_given is an lru_cache'd recursion n calls deep: call P_all(n) for large n with a raised
recursion limit (see bench/higher_lower.py).
"""

from functools import lru_cache
from statistics import mean


def guess_all(cards) -> bool:
    """You guess all the cards right if you guess the first right and the rest right."""
    return len(cards) <= 2 or guess_first(cards) and guess_all(cards[1:])


def guess_first(cards) -> bool:
    """Guess that the first down card will be "higher" or "lower" according to majority
    counts of the down cards; return True if the guess is correct."""
    up, *down = cards
    higher = sum(d > up for d in down)
    lower = sum(d < up for d in down)
    return (higher > lower) == (down[0] > up)


def P_all(n) -> float:
    """Probability of guessing all n cards right."""
    return mean(P_all_given(up, n) for up in range(n))


@lru_cache(None)
def P_all_given(up, n) -> float:
    """Probability of guessing all n cards right, given the index of the up card."""
    return (1 if n <= 2 else
            mean(guess_first_given(up, down1, n) and P_all_given(renumber(down1, up), n - 1)
                 for down1 in range(n) if down1 != up))


def guess_first_given(up, down1, n) -> bool:
    """Do we guess the first down card right given the up card,
    when the set of cards (including up and down) is range(n)?"""
    return (up < n / 2) == (down1 > up)


def renumber(card, discard) -> int: return card - (discard < card)
