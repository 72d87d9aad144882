"""The seed's brute force: play every order of n distinct cards with the majority policy.

    n! P_all(n) = #{orders c of range(n) : guess_all(c)}

``guess_all`` is the seed's own (``seed.py``); only the count is kept, so the answer is an
exact integer where the seed averages floats.  It costs n! plays: the count is refused
above ``MAX_BRUTE_FORCE`` cards.
"""

from __future__ import annotations

from itertools import permutations

from subgame.errors import InvalidInput

from .seed import guess_all

MAX_BRUTE_FORCE = 10  # 10! = 3 628 800 plays, about half a minute on one core


def orders_guessed_all_right(n: int) -> int:
    """How many of the n! orders of n distinct cards the majority policy guesses all right."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_BRUTE_FORCE:
        raise InvalidInput(f"the brute force plays all n! orders: n must lie in "
                           f"1..{MAX_BRUTE_FORCE}, got {n!r}")
    return sum(guess_all(cards) for cards in permutations(range(n)))
