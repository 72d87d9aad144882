"""The seed's players (seeds/003), each as its report describes it.

All of them answer the seed's way: show a listed card already shown to that asker if there
is one, else the first (lowest) listed card of the hand.  "Round" is the game's round
count (one turn of one player); the core bound is B = (N - k - h) p rounds.

* ``core``: learns only from its own questions (shown card: the target holds it; "none":
  the target holds none of the list) and revealed hands, closed under ``CardTable.settle``.
  It interrogates the opponents in seat order after the last one asked, skipping those it
  knows fully and those who left, about every card it is unsure of for that opponent; the
  target must hold one of them, so each of its turns places one more card and it is sure
  of the hidden cards within B rounds.  It guesses when the cards known to be no player's
  are exactly h: never wrong.
* ``padded-core``: the core player whose lists add every card known not to be the
  target's (so they are "every card except those known to be the target's"), to tell the
  other players less.  The later players all interrogate this way.
* ``weighted-*``: also learn from every "none" answer they see, and weigh the "some card
  shown" answers of others: weight[target, card] += w for each listed card, w = 1
  (``uniform``), 1/len(list) (``geometric``, the seed's convergent weights) or 1/len(list)
  read the other way round (``inverse``: the seed's reasoning that players do not ask
  about cards they know a target holds, so a light card is the likelier held).  They guess
  one card early: once the cards that may be hidden are at most h + 1, naming the h least
  likely to be held (lowest total weight over all players; highest for ``inverse``; ties
  to the lower card).  By then one player at most may still hold the candidates, so the
  evidence lies in the other players' rows: the asks that left a card out.
* ``conditional``: learns from every answer, keeps the "some card shown" answers as
  clauses and combines them on each of its turns (``deduction.combine``, capped rounds).
  It guesses when certain: the possible hidden cards are h, or h cards are known hidden.
* ``history-1/2``, ``history-2/3``: padded-core players that also guess, at round
  factor * B, the h most-asked cards over every interrogation seen (excluding their own
  hand; ties to the lower card).  The seed also repeated cards in its lists to weigh its
  own asks; lists with a repeated card are illegal here.
* ``group2``: the conditional player's knowledge, history mining at 2/3 for when to
  guess, and a guess checked against its knowledge: the known hidden cards, then the
  most-asked cards among those that may be hidden.
* ``weighted-asker``: the report's "safer alternative": the geometric weights steer its
  questions instead of an early guess.  It asks the target about the unsure cards with the
  target's largest weight (padded as padded-core), so a shown card confirms what the
  weights suggest and "none" rules them all out; it guesses when certain, never wrong.
* ``least-asked``: the report's second history idea, which it found wanting: a card a
  target was asked about least (at least once) is one the target holds.  At round 2/3 B
  it names each opponent's least-asked cards (as many as it still lacks of their hands)
  as held and guesses the h possible hidden cards not so named (ties to the lower card).
* ``random``: asks a uniformly drawn opponent about a uniformly drawn non-empty list, and
  on each turn guesses h random cards outside its hand with probability 1 / (N - k - h).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .deduction import combine
from .knowledge import CardTable
from .moves import Departure, Guess, Interrogate, Interrogation, View


class CorePlayer:
    name = "core"

    def start(self, view: View) -> None:
        self.view, self.seat = view, view.seat
        self.table = CardTable(view.cards, view.hidden, view.players, view.per_player)
        self.table.reveal(view.seat, view.hand)
        self.in_game = set(range(view.players))
        self.last_target = view.seat
        self.shown_to: dict[int, set[int]] = {}

    def observe(self, event) -> None:
        if isinstance(event, Departure):
            self.in_game.discard(event.seat)
            self.table.reveal(event.seat, event.hand)
        elif event.asker == self.seat:
            if event.card is not None:
                self.table.holds(event.target, event.card)
            else:
                self.table.lacks(event.target, event.cards)
        else:
            self.learn(event)

    def learn(self, event: Interrogation) -> None:
        """What an interrogation by someone else teaches; the core player ignores them."""

    def move(self, round: int):
        if self.ready(round):
            return Guess(tuple(self.guess_cards()))
        target = self.next_target()
        self.last_target = target
        return Interrogate(target, tuple(self.question(target)))

    def answer(self, asker: int, cards: tuple[int, ...]) -> int:
        shown, listed = self.shown_to.setdefault(asker, set()), set(cards)
        again = [c for c in cards if c in shown]
        card = again[0] if again else min(c for c in self.view.hand if c in listed)
        shown.add(card)
        return card

    # strategy
    def ready(self, round: int) -> bool:
        return len(self.table.candidates()) == self.view.hidden

    def guess_cards(self) -> list[int]:
        return self.table.candidates()[: self.view.hidden]

    def next_target(self) -> int:
        p = self.view.players
        order = [(self.last_target + i) % p for i in range(1, p + 1)]
        opponents = [s for s in order if s != self.seat and s in self.in_game]
        unknown = [s for s in opponents if not self.table.fully_known(s)]
        return (unknown or opponents)[0]

    def question(self, target: int) -> list[int]:
        return self.table.unknown_for(target)


class PaddedCorePlayer(CorePlayer):
    name = "padded-core"

    def question(self, target: int) -> list[int]:
        held = set(self.table.held_by(target))
        return [c for c in range(1, self.view.cards + 1) if c not in held]


class WeightedPlayer(PaddedCorePlayer):
    """``rule``: "uniform", "geometric" or "inverse" (see the module docstring)."""

    def __init__(self, rule: str):
        self.rule, self.name = rule, f"weighted-{rule}"

    def start(self, view: View) -> None:
        super().start(view)
        self.weight = np.zeros((view.players, view.cards + 1))

    def learn(self, event: Interrogation) -> None:
        if not event.shown:
            self.table.lacks(event.target, event.cards)
        elif event.target != self.seat:
            step = 1.0 if self.rule == "uniform" else 1.0 / len(event.cards)
            self.weight[event.target, list(event.cards)] += step

    def ready(self, round: int) -> bool:
        return len(self.table.candidates()) <= self.view.hidden + 1

    def guess_cards(self) -> list[int]:
        candidates = self.table.candidates()
        held_weight = self.weight[:, candidates].sum(axis=0)
        sign = -1.0 if self.rule == "inverse" else 1.0
        order = sorted(range(len(candidates)), key=lambda i: (sign * held_weight[i], candidates[i]))
        return sorted(candidates[i] for i in order[: self.view.hidden])


class ConditionalPlayer(PaddedCorePlayer):
    name = "conditional"

    def start(self, view: View) -> None:
        super().start(view)
        self.clauses: list[tuple[int, frozenset]] = []
        self.combination_rounds: list[int] = []

    def learn(self, event: Interrogation) -> None:
        if not event.shown:
            self.table.lacks(event.target, event.cards)
        elif event.target != self.seat:
            self.clauses.append((event.target, frozenset(event.cards)))

    def move(self, round: int):
        self.clauses, rounds = combine(self.table, self.clauses)
        self.combination_rounds.append(rounds)
        return super().move(round)

    def ready(self, round: int) -> bool:
        h = self.view.hidden
        return len(self.table.candidates()) == h or len(self.table.known_hidden()) == h

    def guess_cards(self) -> list[int]:
        known = self.table.known_hidden()
        return known if len(known) == self.view.hidden else super().guess_cards()


class MinesHistory:
    """Mixin: counts how often anyone asked about each card, and is ready to guess from
    round ``factor`` * core bound on."""

    factor: Fraction

    def start(self, view: View) -> None:
        super().start(view)
        self.asked = np.zeros(view.cards + 1, dtype=np.int64)

    def observe(self, event) -> None:
        if isinstance(event, Interrogation):
            self.asked[list(event.cards)] += 1
        super().observe(event)

    def ready(self, round: int) -> bool:
        return super().ready(round) or round >= self.factor * self.view.core_bound


class HistoryPlayer(MinesHistory, PaddedCorePlayer):
    """Guesses the most-asked cards at round ``factor`` * core bound (or when certain)."""

    def __init__(self, factor: Fraction):
        self.factor, self.name = factor, f"history-{factor}"

    def learn(self, event: Interrogation) -> None:
        if not event.shown:
            self.table.lacks(event.target, event.cards)

    def guess_cards(self) -> list[int]:
        if super().ready(0):
            return super().guess_cards()
        return self.most_asked([c for c in range(1, self.view.cards + 1) if c not in self.view.hand])

    def most_asked(self, cards: list[int]) -> list[int]:
        return sorted(sorted(cards, key=lambda c: (-self.asked[c], c))[: self.view.hidden])


class Group2Player(MinesHistory, ConditionalPlayer):
    name = "group2"
    factor = Fraction(2, 3)

    def guess_cards(self) -> list[int]:
        known = self.table.known_hidden()
        rest = [c for c in self.table.candidates() if c not in known]
        rest.sort(key=lambda c: (-self.asked[c], c))
        return sorted((known + rest)[: self.view.hidden])


class WeightedAsker(WeightedPlayer):
    name = "weighted-asker"

    def __init__(self) -> None:
        super().__init__("geometric")
        self.name = WeightedAsker.name

    def ready(self, round: int) -> bool:
        return CorePlayer.ready(self, round)

    def guess_cards(self) -> list[int]:
        return CorePlayer.guess_cards(self)

    def question(self, target: int) -> list[int]:
        unsure = self.table.unknown_for(target)
        if not unsure:
            return super().question(target)
        heaviest = self.weight[target, unsure].max()
        held = set(self.table.held_by(target))
        listed = {c for c in unsure if self.weight[target, c] == heaviest}
        listed |= {c for c in range(1, self.view.cards + 1) if c not in held and c not in unsure}
        return sorted(listed)


class LeastAskedPlayer(HistoryPlayer):
    name = "least-asked"

    def __init__(self) -> None:
        super().__init__(Fraction(2, 3))
        self.name = LeastAskedPlayer.name

    def start(self, view: View) -> None:
        super().start(view)
        self.asked_of = np.zeros((view.players, view.cards + 1), dtype=np.int64)

    def observe(self, event) -> None:
        if isinstance(event, Interrogation):
            self.asked_of[event.target, list(event.cards)] += 1
        super().observe(event)

    def guess_cards(self) -> list[int]:
        candidates = self.table.candidates()
        if len(candidates) == self.view.hidden:
            return candidates
        named: set[int] = set()
        for target in sorted(self.in_game - {self.seat}):
            missing = self.view.per_player - len(self.table.held_by(target))
            asked = [c for c in candidates if self.asked_of[target, c] > 0]
            named |= set(sorted(asked, key=lambda c: (self.asked_of[target, c], c))[:missing])
        return sorted(sorted(candidates, key=lambda c: (c in named, c))[: self.view.hidden])


class RandomPlayer(CorePlayer):
    name = "random"

    def move(self, round: int):
        v, rng = self.view, self.view.rng
        if rng.random() < 1.0 / max(1, v.cards - v.per_player - v.hidden):
            outside = [c for c in range(1, v.cards + 1) if c not in v.hand]
            return Guess(tuple(sorted(int(c) for c in rng.choice(outside, v.hidden, replace=False))))
        opponents = sorted(self.in_game - {self.seat})
        size = int(rng.integers(1, v.cards + 1))
        cards = rng.choice(np.arange(1, v.cards + 1), size, replace=False)
        return Interrogate(int(rng.choice(opponents)), tuple(int(c) for c in cards))
