"""Players of the standard game (``standard_match.Seat``), the family's players adapted.

* ``core`` (the seed's core player adapted): learns from the answers to its own
  suggestions, every "nobody / not me" pass it sees, and the disprovers' clauses, closed
  under the unit rules of ``inference.reduce`` only (no counting).  It suggests, in each
  category, the lowest card that may still be the solution's and that it has not asked
  about in that category yet, else the lowest that may be; it accuses once each category
  has one possible card: never wrong.
* ``exact``: the exact posterior of ``standard.solution_posterior``.  It suggests the
  triple, among all it has not suggested, that minimises the expected entropy of the
  solution after the answer, over ``samples`` deals drawn exactly from the posterior (the
  answer of a deal: who disproves and, when that is this seat's question, which card; a
  disprover holding several is taken to show one at random).  It accuses when certain,
  or, with ``threshold`` < 1, when the most probable solution reaches it.  Past the
  counting budget it falls back to the core player's move.
* ``random``: suggests a uniformly drawn triple it has not made; accuses when the unit
  rules leave one card per category.

All show, when they hold several suggested cards, one already shown to that suggester if
there is one, else the lowest.
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product

import numpy as np

from .inference import TooLarge, reduce
from .standard import Accused, Knowledge, Rules, Suggested, solution_posterior


class CorePlayer:
    name = "core"

    def __init__(self, seed: int | None = None):
        # A string seed: a player's draws never repeat a deal's drawn from the same integer.
        self.rng = random.Random(None if seed is None else f"player {seed}")

    def reset(self, rules: Rules, seat: int, hand: tuple[int, ...]) -> None:
        self.rules, self.seat = rules, seat
        self.knowledge = Knowledge(rules, seat, tuple(hand))
        self.made: set[tuple[int, ...]] = set()
        self.asked: set[int] = set()
        self.shown_to: dict[int, set[int]] = {}

    def possible(self) -> list[list[int]]:
        """Per category, the cards the unit rules leave possible for the solution."""
        red = reduce(self.knowledge.facts)
        return [[c for c in self.rules.category_cards(j)
                 if red is None or red.allowed[c] >> (self.rules.players + j) & 1]
                for j in range(len(self.rules.categories))]

    def suggest(self) -> tuple[int, ...]:
        picks = []
        for cards in self.possible():
            fresh = [c for c in cards if c not in self.asked]
            picks.append((fresh or cards)[0])
        choice = tuple(picks)
        if choice in self.made:
            choice = self.unmade(self.possible())
        return self.made_now(choice)

    def unmade(self, preferred: list[list[int]]) -> tuple[int, ...]:
        """The first unmade triple of the preferred cards, else of all cards."""
        everything = [list(self.rules.category_cards(j)) for j in range(len(self.rules.categories))]
        for pool in (preferred, everything):
            for s in product(*pool):
                if s not in self.made:
                    return s
        raise RuntimeError("every suggestion has been made")   # 324 turns: never reached

    def made_now(self, choice: tuple[int, ...]) -> tuple[int, ...]:
        self.made.add(choice)
        self.asked.update(choice)
        return choice

    def disprove(self, suggester: int, cards: tuple[int, ...]) -> int:
        held = [c for c in cards if c in self.knowledge.hand]
        again = [c for c in held if c in self.shown_to.get(suggester, ())]
        card = (again or sorted(held))[0]
        self.shown_to.setdefault(suggester, set()).add(card)
        return card

    def suggestion(self, event: Suggested) -> None:
        self.knowledge.observe(event)

    def accuse(self) -> tuple[int, ...] | None:
        possible = self.possible()
        if all(len(cards) == 1 for cards in possible):
            return tuple(cards[0] for cards in possible)
        return None

    def accusation(self, event: Accused) -> None:
        """A wrong accusation rules out one triple, not a card: the facts have no place
        for it, and it is not used."""


class RandomPlayer(CorePlayer):
    name = "random"

    def suggest(self) -> tuple[int, ...]:
        while True:
            choice = tuple(self.rng.choice(self.rules.category_cards(j))
                           for j in range(len(self.rules.categories)))
            if choice not in self.made:
                return self.made_now(choice)


class ExactPlayer(CorePlayer):
    def __init__(self, seed: int | None = None, threshold: Fraction = Fraction(1),
                 samples: int = 64, budget: int = 60_000):
        super().__init__(seed)
        self.np_rng = np.random.default_rng(seed)
        self.threshold, self.samples, self.budget = threshold, samples, budget
        self.name = "exact" if threshold == 1 else f"exact-{float(threshold):g}"

    def posterior(self):
        try:
            return solution_posterior(self.knowledge.facts, self.rules, self.budget)
        except TooLarge:
            return None

    def suggest(self) -> tuple[int, ...]:
        post = self.posterior()
        if post is None:
            return super().suggest()
        owners = np.array([post.post.counter.sample(self.rng) for _ in range(self.samples)]).T
        triples = np.array(list(product(*(self.rules.category_cards(j)
                                            for j in range(len(self.rules.categories))))))
        scores = self.expected_entropy(owners, triples)
        for i, s in enumerate(map(tuple, triples.tolist())):
            if s in self.made:
                scores[i] = np.inf
        return self.made_now(tuple(int(c) for c in triples[int(np.argmin(scores))]))

    def expected_entropy(self, owners: np.ndarray, triples: np.ndarray) -> np.ndarray:
        """Per triple, the mean over the predicted answers of the empirical entropy (nats)
        of the solution given the answer: H(S | A) = (sum_a n_a ln n_a - sum_(a,s) n_as
        ln n_as) / draws.  ``owners``: card x draw -> owner (row 0 unused)."""
        p, draws = self.rules.players, owners.shape[1]
        slots = owners >= p
        solution = np.zeros(draws, dtype=np.int64)
        for j in range(len(self.rules.categories)):
            cards = np.asarray(self.rules.category_cards(j))
            solution = solution * len(cards) + np.argmax(slots[cards], axis=0)
        # Seats after this one are 1..p-1 away; cards of this seat or of no seat are never shown.
        distance = np.where(slots | (owners == self.seat), p, (owners - self.seat) % p)
        noisy = distance[triples] + self.np_rng.random((len(triples), triples.shape[1], draws)) / 2
        shown = np.argmin(noisy, axis=1)
        nearest = np.take_along_axis(distance[triples], shown[:, None, :], axis=1)[:, 0, :]
        answer = np.where(nearest >= p, 0, 1 + nearest * triples.shape[1] + shown)
        joint = answer * (solution.max() + 1) + solution[None, :]
        return (_sum_n_log_n(answer) - _sum_n_log_n(joint)) / draws

    def accuse(self) -> tuple[int, ...] | None:
        post = self.posterior()
        if post is None:
            return super().accuse()
        if post.certain():
            return tuple(post.candidates(j)[0] for j in range(len(self.rules.categories)))
        if self.threshold < 1:
            solution, probability = post.most_probable(self.budget)
            if probability >= self.threshold:
                return solution
        return None


def _sum_n_log_n(keys: np.ndarray) -> np.ndarray:
    """Per row, the sum of n ln n over the counts n of its distinct values."""
    rows, width = keys.shape
    ordered = np.sort(keys, axis=1)
    new = np.ones_like(ordered, dtype=bool)
    new[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    run = np.cumsum(new, axis=1) - 1 + (np.arange(rows) * width)[:, None]
    n = np.bincount(run.ravel(), minlength=rows * width).astype(float)
    return (n * np.log(np.maximum(n, 1))).reshape(rows, width).sum(axis=1)


PLAYERS = {"core": CorePlayer, "exact": ExactPlayer, "random": RandomPlayer,
           "exact-0.5": lambda seed=None: ExactPlayer(seed, Fraction(1, 2))}
