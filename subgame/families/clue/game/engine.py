"""The arbiter: deals, turns, answers, guesses, ranks.

Rules (the seed's, with the choices made where it is silent marked *):

* Deal: a permutation of 1..N from ``numpy.random.default_rng(seed)``: its first h cards are
  hidden, the next k go to seat 0, the next k to seat 1, ...; then the first seat is drawn
  uniformly.  Hands are kept sorted.
* Turns go round the table from the first seat, skipping players who have left.  A round
  is one turn of one player; rounds are numbered 1, 2, ...
* On its turn a player interrogates or guesses.  Illegal, raising ``IllegalMove`` with the
  seat, the strategy's name, the game's seed, the round and the move: an empty list, a card
  out of 1..N, *a card listed twice, interrogating oneself, a seat out of range or a player
  who has left, a guess that is not h distinct cards of 1..N, a move of another type, and an
  answer that is not a listed card of the target's hand.
* An interrogated player holding a listed card chooses one to show (``Player.answer``);
  otherwise the answer is "none".
* A guess leaves the game, right or wrong, and reveals the guesser's hand to all.
* *The game ends when the round limit is reached, or when fewer than two players are left
  in it: a lone player sees every other hand, so it knows the hidden cards and stays in
  (its place, after every correct guesser, is the one a correct guess would have given it).
* Ranking: correct guessers in the order they guessed, then the players still in the game
  at the end, *sharing the first place of their block (ranks 1, 2, 2, 4 ...), then the
  wrong guessers, the latest wrong guess first and the earliest last.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence

import numpy as np

from .moves import Departure, Event, Guess, Interrogate, Interrogation, Move, View
from .rules import GameSize


_CARD_TYPES = {int, np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32, np.uint16, np.uint8}


class Player(Protocol):
    """A strategy.  ``start`` once, then ``observe`` every event of the game as this seat
    sees it (its own moves included), ``move`` on its turns, ``answer`` when it must show."""

    name: str

    def start(self, view: View) -> None: ...

    def observe(self, event: Event) -> None: ...

    def move(self, round: int) -> Move: ...

    def answer(self, asker: int, cards: tuple[int, ...]) -> int: ...


class IllegalMove(Exception):
    """A strategy broke the rules; the message carries what is needed to replay the game."""

    def __init__(self, seat: int, strategy: str, seed: int | None, round: int,
                 move: object, reason: str):
        self.seat, self.strategy, self.seed, self.round = seat, strategy, seed, round
        self.move, self.reason = move, reason
        super().__init__(f"seat {seat} ({strategy}) in the game of seed {seed}, round {round}: "
                         f"{reason}: {move!r}")


@dataclass(frozen=True)
class GuessRecord:
    round: int
    seat: int
    correct: bool


@dataclass(frozen=True)
class GameResult:
    """The whole game as the arbiter saw it.  ``record`` has every event with the shown
    card filled in; ``public_record`` and ``record_of(seat)`` give what others saw."""

    size: GameSize
    seed: int | None
    hidden: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    first: int
    rounds: int
    ranks: tuple[int, ...]
    guesses: tuple[GuessRecord, ...]
    record: tuple[Event, ...] = field(repr=False)

    def public_record(self) -> list[Event]:
        return [_seen_by(e, None) for e in self.record]

    def record_of(self, seat: int) -> list[Event]:
        return [_seen_by(e, seat) for e in self.record]


def _seen_by(event: Event, seat: int | None) -> Event:
    if isinstance(event, Interrogation) and event.card is not None \
            and seat not in (event.asker, event.target):
        return Interrogation(event.round, event.asker, event.target, event.cards, True)
    return event


def deal(size: GameSize, rng: np.random.Generator) -> tuple[tuple[int, ...], list[tuple[int, ...]], int]:
    """(hidden cards, hands by seat, first seat), drawn as the module docstring says."""
    order = rng.permutation(size.cards) + 1
    h, k = size.hidden, size.per_player
    hidden = tuple(sorted(int(c) for c in order[:h]))
    hands = [tuple(sorted(int(c) for c in order[h + s * k: h + (s + 1) * k]))
             for s in range(size.players)]
    return hidden, hands, int(rng.integers(size.players))


def play_game(players: Sequence[Player], size: GameSize, seed: int,
              round_limit: int | None = None) -> GameResult:
    """Play one game between ``players`` (seat i is players[i]) dealt from ``seed``."""
    if len(players) != size.players:
        raise ValueError(f"{len(players)} players for a game of {size.players}")
    limit = size.default_round_limit if round_limit is None else round_limit
    hidden, hands, first = deal(size, np.random.default_rng(seed))
    for seat, player in enumerate(players):
        player.start(View(size.cards, size.hidden, size.players, seat, hands[seat], first,
                          limit, np.random.default_rng([seed, seat])))
    arbiter = _Arbiter(players, size, seed, hidden, hands)
    seat, rounds = first, 0
    while rounds < limit and len(arbiter.active) >= 2:
        rounds += 1
        arbiter.turn(seat, rounds)
        seat = arbiter.next_seat(seat)
    return GameResult(size, seed, hidden, tuple(hands), first, rounds, arbiter.ranks(),
                      tuple(arbiter.guesses), tuple(arbiter.record))


class _Arbiter:
    def __init__(self, players, size, seed, hidden, hands):
        self.players, self.size, self.seed = players, size, seed
        self.hidden, self.hands = frozenset(hidden), [frozenset(h) for h in hands]
        self.sorted_hands = hands
        self.active = list(range(size.players))
        self.guesses: list[GuessRecord] = []
        self.record: list[Event] = []

    def illegal(self, seat, round, move, reason):
        return IllegalMove(seat, getattr(self.players[seat], "name", type(self.players[seat]).__name__),
                           self.seed, round, move, reason)

    def next_seat(self, seat: int) -> int:
        later = [s for s in self.active if s > seat]
        return later[0] if later else self.active[0] if self.active else seat

    def turn(self, seat: int, round: int) -> None:
        move = self.players[seat].move(round)
        if isinstance(move, Interrogate):
            self.interrogate(seat, round, move)
        elif isinstance(move, Guess):
            self.guess(seat, round, move)
        else:
            raise self.illegal(seat, round, move, "a move must be an Interrogate or a Guess")

    def check_cards(self, seat, round, move, cards):
        n = self.size.cards
        if not set(map(type, cards)) <= _CARD_TYPES or not 1 <= min(cards) <= max(cards) <= n:
            raise self.illegal(seat, round, move, f"cards must be numbers 1..{n}")
        if len(set(cards)) != len(cards):
            raise self.illegal(seat, round, move, "a card is listed twice")

    def interrogate(self, seat: int, round: int, move: Interrogate) -> None:
        target, cards = move.target, move.cards if isinstance(move.cards, (tuple, list)) else ()
        if not cards:
            raise self.illegal(seat, round, move, "the list of cards is empty")
        self.check_cards(seat, round, move, cards)
        cards = tuple(int(c) for c in cards)
        if target == seat:
            raise self.illegal(seat, round, move, "a player cannot interrogate itself")
        if isinstance(target, bool) or target not in self.active:
            raise self.illegal(seat, round, move, "the target is not a player in the game")
        matching = self.hands[target].intersection(cards)
        card = None
        if matching:
            card = self.players[target].answer(seat, cards)
            if card not in matching:
                raise self.illegal(target, round, (seat, cards, card),
                                   "the answer is not a listed card of the target's hand")
            card = int(card)
        full = Interrogation(round, seat, target, cards, bool(matching), card)
        public = _seen_by(full, None)
        self.record.append(full)
        for s in self.active:
            self.players[s].observe(full if s in (seat, target) else public)

    def guess(self, seat: int, round: int, move: Guess) -> None:
        cards = move.cards if isinstance(move.cards, (tuple, list)) else ()
        if len(cards) != self.size.hidden:
            raise self.illegal(seat, round, move, f"a guess names exactly {self.size.hidden} cards")
        self.check_cards(seat, round, move, cards)
        self.guesses.append(GuessRecord(round, seat, set(cards) == self.hidden))
        self.active.remove(seat)
        event = Departure(round, seat, self.sorted_hands[seat])
        self.record.append(event)
        for s in self.active:
            self.players[s].observe(event)

    def ranks(self) -> tuple[int, ...]:
        ranks = [0] * self.size.players
        correct = [g.seat for g in self.guesses if g.correct]
        wrong = [g.seat for g in reversed(self.guesses) if not g.correct]
        for place, seat in enumerate(correct, 1):
            ranks[seat] = place
        for seat in self.active:
            ranks[seat] = len(correct) + 1
        for place, seat in enumerate(wrong, len(correct) + len(self.active) + 1):
            ranks[seat] = place
        return tuple(ranks)
