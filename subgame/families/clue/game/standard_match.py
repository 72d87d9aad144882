"""The arbiter of the standard game (``standard``'s rules, the contest's order of messages).

A seat is a ``Seat``: ``reset`` when the game starts, ``suggest`` on its turns,
``disprove`` when it is the first to hold suggested cards and holds more than one of them
(holding one, the arbiter shows it), ``suggestion`` after every suggestion as that seat
sees it, ``accuse`` after its own suggestion (None: no accusation), ``accusation`` after
every accusation.  Every seat, eliminated or not, is told every event.

A seat that breaks a rule (a suggestion not of one card per category or made before by
it, a disproval with a card it does not hold or that was not suggested, a missed or
suicidal accusation, ``standard``'s docstring) raises ``RuleBroken`` naming it; a remote
seat raises it also for a message outside the protocol's grammar.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol, Sequence

from .standard import Accused, Rules, Suggested, deal


class Seat(Protocol):
    name: str

    def reset(self, rules: Rules, seat: int, hand: tuple[int, ...]) -> None: ...

    def suggest(self) -> tuple[int, ...]: ...

    def disprove(self, suggester: int, cards: tuple[int, ...]) -> int: ...

    def suggestion(self, event: Suggested) -> None: ...

    def accuse(self) -> tuple[int, ...] | None: ...

    def accusation(self, event: Accused) -> None: ...


class RuleBroken(Exception):
    """Seat ``seat`` broke the rules or the protocol; the game does not count."""

    def __init__(self, seat: int, reason: str):
        self.seat, self.reason = seat, reason
        super().__init__(f"seat {seat}: {reason}")


@dataclass(frozen=True)
class MatchResult:
    solution: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    winner: int
    rounds: int
    accusations: tuple[Accused, ...]


def play_match(seats: Sequence[Seat], rules: Rules, rng: random.Random,
               max_turns: int = 10_000) -> MatchResult:
    """One game; seat i is seats[i].  ``max_turns`` only stops seats that never accuse
    (after every distinct suggestion has been made the rules force an accusation)."""
    p = rules.players
    if len(seats) != p:
        raise ValueError(f"{len(seats)} seats for a game of {p}")
    solution, hands = deal(rules, rng)
    for i, s in enumerate(seats):
        s.reset(rules, i, hands[i])
    made: list[set] = [set() for _ in range(p)]
    seen = [set(h) for h in hands]
    out: set[int] = set()
    accusations: list[Accused] = []
    active, rounds = 0, 1
    for _ in range(max_turns):
        cards = tuple(seats[active].suggest())
        if not rules.is_suggestion(cards):
            raise RuleBroken(active, f"suggestion {cards} is not one card of each category")
        if cards in made[active]:
            raise RuleBroken(active, f"suggestion {cards} was made before")
        made[active].add(cards)
        disprover, shown = _disprove(seats, hands, active, cards)
        if shown is not None:
            seen[active].add(shown)
        for i, s in enumerate(seats):
            s.suggestion(Suggested(active, cards, disprover,
                                   shown if i in (active, disprover) else None))
        accusation = seats[active].accuse()
        if accusation is None:
            if disprover is None and not seen[active].intersection(cards):
                raise RuleBroken(active, "no accusation after an undisproved suggestion of "
                                         "unseen cards")
        else:
            accusation = tuple(accusation)
            if not rules.is_suggestion(accusation):
                raise RuleBroken(active, f"accusation {accusation} is not one card of each "
                                         "category")
            if seen[active].intersection(accusation):
                raise RuleBroken(active, f"accusation {accusation} names a card it has seen")
            event = Accused(active, accusation, accusation == solution)
            accusations.append(event)
            for s in seats:
                s.accusation(event)
            if event.correct:
                return MatchResult(solution, tuple(hands), active, rounds, tuple(accusations))
            out.add(active)
            if len(out) == p - 1:
                winner = next(i for i in range(p) if i not in out)
                return MatchResult(solution, tuple(hands), winner, rounds, tuple(accusations))
        following = (active + 1) % p
        while following in out:
            following = (following + 1) % p
        if following <= active:
            rounds += 1
        active = following
    raise RuleBroken(active, f"no accusation in {max_turns} turns")


def _disprove(seats, hands, active, cards) -> tuple[int | None, int | None]:
    p = len(seats)
    for step in range(1, p):
        i = (active + step) % p
        held = [c for c in cards if c in hands[i]]
        if len(held) == 1:
            return i, held[0]
        if held:
            card = seats[i].disprove(active, cards)
            if card not in held:
                raise RuleBroken(i, f"shows {card!r}, not a suggested card of its hand")
            return i, card
    return None, None
