"""What players do and what they see.

Moves: ``Interrogate(target, cards)`` asks one opponent still in the game about a non-empty
list of distinct cards; ``Guess(cards)`` names the h hidden cards and leaves the game.

Events, delivered after every turn to each player still in the game:
``Interrogation(round, asker, target, cards, shown, card)``: everyone sees who asked whom
about what and whether a card was shown; ``card`` is the card shown in the asker's and the
target's copy only (None in everyone else's, and None when nothing was shown).
``Departure(round, seat, hand)``: a player guessed and left; its hand is now public.  Nobody
but the arbiter learns what it guessed or whether it was right.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Interrogate:
    target: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class Guess:
    cards: tuple[int, ...]


Move = Interrogate | Guess


@dataclass(frozen=True)
class Interrogation:
    round: int
    asker: int
    target: int
    cards: tuple[int, ...]
    shown: bool
    card: int | None = None


@dataclass(frozen=True)
class Departure:
    round: int
    seat: int
    hand: tuple[int, ...]


Event = Interrogation | Departure


@dataclass(frozen=True)
class View:
    """What a player is told when the game starts.  ``rng`` is its own generator, seeded
    from the game's seed and its seat, so a game replays exactly from its seed."""

    cards: int
    hidden: int
    players: int
    seat: int
    hand: tuple[int, ...]
    first: int
    round_limit: int
    rng: np.random.Generator

    @property
    def per_player(self) -> int:
        return len(self.hand)

    @property
    def core_bound(self) -> int:
        return (self.cards - self.per_player - self.hidden) * self.players
