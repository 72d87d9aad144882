"""The exact-inference player (beyond the seed).

It turns everything it sees into ``inference.Facts`` and, on each turn:

* computes the posterior over consistent deals exactly (``inference.posterior``); past
  the counting budget it falls back to ``inference.importance_sample`` with ``samples``
  draws;
* guesses when the most probable hidden set has probability >= ``threshold``.  With the
  default threshold 1 it guesses only when certain, so it is never wrong: exactly, when h
  cards can be hidden; in the sampling fallback, only when the unit rules of
  ``inference.reduce`` alone leave h possible hidden cards (sound, possibly later);
* otherwise interrogates: for every opponent still in, candidate lists are every card the
  target may or may not hold (the core list), those of them that may be hidden, and
  alone each of the ``SINGLES`` of them most likely hidden.  Each candidate is scored on ``samples`` deals drawn from the posterior
  (exact draws, or importance draws resampled by weight): the answer each deal would give
  under the seed's answering rule, then the expected entropy of the hidden set given the
  answer (``expected_entropy``).  The lowest wins; ties go to the earlier candidate (targets in seat
  order after the last one asked).  The entropy uses the answering rule to predict; the
  posterior itself never assumes it.
"""

from __future__ import annotations

import random
from collections import Counter as Tally
from fractions import Fraction
from math import log

import numpy as np

from .inference import DEFAULT_BUDGET, Facts, TooLarge, best_hidden_sets, importance_sample, posterior, reduce
from .moves import Departure, Guess, Interrogate, View
from .players import CorePlayer


SINGLES = 8
PLAYER_BUDGET = DEFAULT_BUDGET // 20


class ExactPlayer(CorePlayer):
    """``budget``: transitions of the counting programme before falling back to sampling
    (the default gives up after about 0.15 s; see the package docstring for figures)."""

    def __init__(self, threshold: Fraction = Fraction(1), samples: int = 48,
                 budget: int = PLAYER_BUDGET):
        self.threshold, self.samples, self.budget = threshold, samples, budget
        self.name = "exact" if threshold == 1 else f"exact-{float(threshold):g}"

    def start(self, view: View) -> None:
        super().start(view)
        self.facts = Facts(view.cards, view.hidden, view.players)
        self.facts.hand(view.seat, view.hand)
        self.sampled_turns = 0
        self.shown_to_me: dict[int, set[int]] = {}

    def observe(self, event) -> None:
        super().observe(event)
        if isinstance(event, Departure):
            self.facts.hand(event.seat, event.hand)
        elif event.asker == self.seat:
            if event.card is not None:
                self.facts.holds(event.target, event.card)
                self.shown_to_me.setdefault(event.target, set()).add(event.card)
            else:
                self.facts.lacks(event.target, event.cards)
        elif event.target != self.seat:
            if event.shown:
                self.facts.some_of(event.target, event.cards)
            else:
                self.facts.lacks(event.target, event.cards)

    def move(self, round: int):
        rng = random.Random(int(self.view.rng.integers(2 ** 63)))
        try:
            return self.exact_move(rng)
        except TooLarge:
            return self.sampled_move(rng)

    def exact_move(self, rng: random.Random):
        post = posterior(self.facts, self.budget)
        if post.certain():
            return Guess(tuple(post.possible_hidden()))
        if self.threshold < 1:
            sets, _ = best_hidden_sets(post, self.budget, at_least=self.threshold)
            if sets:
                return Guess(sets[0])
        deals = [post.counter.sample(rng) for _ in range(self.samples)]
        return self.interrogation(deals, lambda t, c: 0 < post.holds[c][t] < post.deals,
                                  lambda c: post.holds[c][self.facts.hidden_owner] / post.deals)

    def sampled_move(self, rng: random.Random):
        self.sampled_turns += 1
        red = reduce(self.facts)
        hid = self.facts.hidden_owner
        possible = [c for c in range(1, self.view.cards + 1) if red.allowed[c] >> hid & 1]
        if len(possible) == self.view.hidden:
            return Guess(tuple(possible))
        est = importance_sample(self.facts, self.samples, self.view.rng)
        if est is None:     # no draw satisfied the facts: ask like the core player
            return self.interrogation([], lambda t, c: red.allowed[c] >> t & 1 and red.owner_of(c) != t,
                                      lambda c: float(red.allowed[c] >> hid & 1))
        picks = self.view.rng.choice(len(est.weights), self.samples, p=est.weights)
        if self.threshold < 1:
            tally = Tally(tuple(np.flatnonzero(est.owners[i] == hid)) for i in picks)
            best, n = tally.most_common(1)[0]
            if n >= self.threshold * self.samples:
                return Guess(tuple(int(c) for c in best))
        deals = [est.owners[i].tolist() for i in picks]
        return self.interrogation(deals, lambda t, c: red.allowed[c] >> t & 1 and red.owner_of(c) != t,
                                  lambda c: est.p_hidden[c] if red.allowed[c] >> hid & 1 else 0.0)

    def interrogation(self, deals, may_hold, p_hidden) -> Interrogate:
        p = self.view.players
        order = [(self.last_target + i) % p for i in range(1, p + 1)]
        hid = self.facts.hidden_owner
        hidden_sets = [tuple(c for c in range(1, len(owner)) if owner[c] == hid) for owner in deals]
        best = None
        for t in order:
            if t == self.seat or t not in self.in_game:
                continue
            unsure = [c for c in range(1, self.view.cards + 1) if may_hold(t, c)]
            maybe_hidden = [c for c in unsure if p_hidden(c) > 0]
            singles = sorted(maybe_hidden, key=lambda c: (-p_hidden(c), c))[:SINGLES]
            for cards in [unsure, maybe_hidden] + [[c] for c in singles]:
                if not cards:
                    continue
                score = self.expected_entropy(deals, hidden_sets, t, cards)
                if best is None or score < best[0] - 1e-12:
                    best = (score, t, cards)
        self.last_target = best[1]
        return Interrogate(best[1], tuple(best[2]))

    def expected_entropy(self, deals, hidden_sets, target: int, cards: list[int]) -> float:
        """Mean over the answers of the empirical entropy (nats) of the hidden set given the
        answer.  With draws fewer than the possible hidden sets most draws are alone in
        their set, and the score mostly rewards questions whose answers split the draws
        most finely, which the cards' binary entropies, scored instead, do not."""
        shown_before = self.shown_to_me.get(target, set())
        outcomes: dict[object, Tally] = {}
        for owner, hidden_set in zip(deals, hidden_sets):
            held = [c for c in cards if owner[c] == target]
            again = [c for c in held if c in shown_before]
            answer = again[0] if again else (held[0] if held else None)
            outcomes.setdefault(answer, Tally())[hidden_set] += 1
        if not deals:
            return 0.0
        return sum(sum(n * log(sum(t.values()) / n) for n in t.values())
                   for t in outcomes.values()) / len(deals)
