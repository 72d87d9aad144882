"""The messages of the Speed Clue protocol (protocol.md), parsed and written.

Server to player::

    reset playerCount playerIndex card...     (3..6 players, 3..6 cards)
    suggest
    disprove suggestingPlayer Suspect Weapon Room
    suggestion activePlayer Suspect Weapon Room (disprovingPlayer [Card] | -)
    accuse
    accusation player Suspect Weapon Room (+ | -)
    done

Player to server: ``{identifier} alive`` once, then ``ok`` (after reset, suggestion,
accusation), ``suggest Suspect Weapon Room``, ``show Card``, ``-`` or ``accuse Suspect
Weapon Room``, ``dead`` (after done).  Messages are ASCII and case-insensitive (protocol.md);
a parse that fails raises ``ProtocolError`` with the message and what was expected.

Cards are numbered as in ``game.standard``: the suspects 1..6, the weapons 7..12, the
rooms 13..21, each category in the order of card_abbreviations.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from subgame.errors import InvalidInput

ABBREVIATIONS = ("Gr", "Mu", "Pe", "Pl", "Sc", "Wh",
                 "Ca", "Kn", "Pi", "Re", "Ro", "Wr",
                 "Ba", "Bi", "Co", "Di", "Ha", "Ki", "Li", "Lo", "St")
_CARD = {a.lower(): i for i, a in enumerate(ABBREVIATIONS, 1)}
_SUSPECT = "|".join(a.lower() for a in ABBREVIATIONS[:6])
_WEAPON = "|".join(a.lower() for a in ABBREVIATIONS[6:12])
_ROOM = "|".join(a.lower() for a in ABBREVIATIONS[12:])
_TRIPLE = f"({_SUSPECT}) ({_WEAPON}) ({_ROOM})"
_ANY = "|".join(_CARD)


class ProtocolError(InvalidInput):
    """A message outside the grammar, or one that comes out of turn."""

    def __init__(self, message: str, expected: str):
        self.message, self.expected = message, expected
        super().__init__(f"protocol violation: expected {expected}, got {message!r}")


def code(card: int) -> str:
    return ABBREVIATIONS[card - 1]


def triple(cards: tuple[int, ...]) -> str:
    return " ".join(code(c) for c in cards)


def _cards(groups) -> tuple[int, ...]:
    return tuple(_CARD[g] for g in groups)


@dataclass(frozen=True)
class Reset:
    players: int
    seat: int
    hand: tuple[int, ...]


@dataclass(frozen=True)
class Disprove:
    suggester: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class Suggestion:
    suggester: int
    cards: tuple[int, ...]
    disprover: int | None
    card: int | None


@dataclass(frozen=True)
class Accusation:
    seat: int
    cards: tuple[int, ...]
    correct: bool


@dataclass(frozen=True)
class Bare:
    """``suggest``, ``accuse`` or ``done``."""

    word: str


ServerMessage = Reset | Disprove | Suggestion | Accusation | Bare

_SERVER = [
    (re.compile(rf"reset ([3-6]) ([0-5])((?: (?:{_ANY})){{3,6}})"),
     lambda m: Reset(int(m[1]), int(m[2]), tuple(_CARD[c] for c in m[3].split()))),
    (re.compile(rf"disprove ([0-5]) {_TRIPLE}"),
     lambda m: Disprove(int(m[1]), _cards(m.groups()[1:]))),
    (re.compile(rf"suggestion ([0-5]) {_TRIPLE} (?:-|([0-5])(?: ({_ANY}))?)"),
     lambda m: Suggestion(int(m[1]), _cards(m.groups()[1:4]),
                          None if m[5] is None else int(m[5]),
                          None if m[6] is None else _CARD[m[6]])),
    (re.compile(rf"accusation ([0-5]) {_TRIPLE} ([+-])"),
     lambda m: Accusation(int(m[1]), _cards(m.groups()[1:4]), m[5] == "+")),
    (re.compile("(suggest|accuse|done)"), lambda m: Bare(m[1])),
]


def parse_server(text: str) -> ServerMessage:
    """A server message, or ProtocolError."""
    lowered = text.lower()
    for pattern, build in _SERVER:
        m = pattern.fullmatch(lowered)
        if m:
            return build(m)
    raise ProtocolError(text, "a server message of protocol.md")


def reset_text(m: Reset) -> str:
    return f"reset {m.players} {m.seat} {' '.join(code(c) for c in m.hand)}"


def suggestion_text(m: Suggestion) -> str:
    answer = "-" if m.disprover is None else str(m.disprover) + (
        "" if m.card is None else f" {code(m.card)}")
    return f"suggestion {m.suggester} {triple(m.cards)} {answer}"


def accusation_text(m: Accusation) -> str:
    return f"accusation {m.seat} {triple(m.cards)} {'+' if m.correct else '-'}"


def parse_alive(text: str, identifiers) -> str:
    """The identifier of an ``{identifier} alive`` message, one of ``identifiers``."""
    for identifier in identifiers:
        if text.lower() == f"{identifier} alive".lower():
            return identifier
    raise ProtocolError(text, "'{identifier} alive' of a launched agent")


def parse_word(text: str, word: str) -> None:
    """``ok`` or ``dead``."""
    if text.lower() != word:
        raise ProtocolError(text, repr(word))


def parse_suggest(text: str) -> tuple[int, ...]:
    m = re.fullmatch(f"suggest {_TRIPLE}", text.lower())
    if not m:
        raise ProtocolError(text, "'suggest Suspect Weapon Room'")
    return _cards(m.groups())


def parse_show(text: str) -> int:
    m = re.fullmatch(f"show ({_ANY})", text.lower())
    if not m:
        raise ProtocolError(text, "'show Card'")
    return _CARD[m[1]]


def parse_accuse(text: str) -> tuple[int, ...] | None:
    if text == "-":
        return None
    m = re.fullmatch(f"accuse {_TRIPLE}", text.lower())
    if not m:
        raise ProtocolError(text, "'-' or 'accuse Suspect Weapon Room'")
    return _cards(m.groups())
