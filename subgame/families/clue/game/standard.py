"""The standard game of Clue (the Speed Clue contest's rules) as a rule set of the family.

The cards fall into categories C_1, ..., C_m (the standard game: 6 suspects, 6 weapons,
9 rooms, cards numbered 1..21 in that order).  The solution S holds exactly one card of
each category; the other n = |C_1| + ... + |C_m| - m cards are dealt to p players, seat i
getting floor(n / p) + [n mod p > i] of them.

Seat 0 starts.  On a turn the active player a *suggests* (c_1, ..., c_m), c_j in C_j, never
one it suggested before.  The players after a in seat order (eliminated ones too) are
asked in turn; the first that holds a suggested card *disproves*: it shows one of them to
a alone, and everyone learns who disproved (or that nobody could).  Then a may *accuse*
(c_1, ..., c_m): if it is S, a wins; otherwise a is eliminated (it still disproves), and
when one player alone is not eliminated, that player wins.  The turn passes to the next
seat not eliminated; a round ends when the turn passes seat 0 going round.

The contest adds two rules a player breaks at the cost of disqualification: after a
suggestion that nobody disproved, a player that holds none of its cards and was shown none
of them must accuse; and an accusation naming a card the player holds or was shown is
suicidal.

Exact inference (``solution_posterior``): the owners are the p hands (their sizes above)
and m hidden slots of size 1, slot j taking only cards of C_j, so a deal fills every
owner.  The posterior is uniform over the deals consistent with what one player saw
(``inference.Facts`` with these owners), and P(c in S) is the share of them that give c
to its category's slot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product

from subgame.errors import InvalidInput, check_int

from .inference import DEFAULT_BUDGET, Facts, Posterior, count_deals, posterior

STANDARD_CATEGORIES = (6, 6, 9)


@dataclass(frozen=True)
class Rules:
    """Category sizes |C_1|, ..., |C_m| and the number of players p."""

    categories: tuple[int, ...]
    players: int

    @property
    def cards(self) -> int:
        return sum(self.categories)

    @property
    def dealt(self) -> int:
        return self.cards - len(self.categories)

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        n, p = self.dealt, self.players
        return tuple(n // p + (n % p > i) for i in range(p))

    def category_cards(self, j: int) -> range:
        start = 1 + sum(self.categories[:j])
        return range(start, start + self.categories[j])

    def category_of(self, card: int) -> int:
        for j in range(len(self.categories)):
            if card in self.category_cards(j):
                return j
        raise InvalidInput(f"card {card} is not one of 1..{self.cards}")

    def is_suggestion(self, cards: tuple[int, ...]) -> bool:
        """One card of each category, in category order."""
        return len(cards) == len(self.categories) and all(
            isinstance(c, int) and c in self.category_cards(j) for j, c in enumerate(cards))


def rules(categories: tuple[int, ...], players: int) -> Rules:
    """The rules after checking that there are categories of at least one card each and
    that every one of the p >= 2 players is dealt a card."""
    categories = tuple(check_int("category size", c, 1) for c in categories)
    players = check_int("players", players, 2)
    if not categories:
        raise InvalidInput("a game needs at least one category")
    if sum(categories) - len(categories) < players:
        raise InvalidInput(f"{sum(categories) - len(categories)} dealt cards cannot give each "
                           f"of {players} players a card")
    return Rules(categories, players)


def standard_rules(players: int) -> Rules:
    """The standard game for 3 to 6 players."""
    return rules(STANDARD_CATEGORIES, check_int("players", players, 3, 6))


@dataclass
class CategoryFacts(Facts):
    """``Facts`` whose owners are the hands (sizes ``hand_sizes``) then one slot of size 1
    per category; build with ``category_facts``."""

    hand_sizes: tuple[int, ...] = ()
    categories: tuple[int, ...] = ()

    @property
    def sizes(self) -> list[int]:
        return list(self.hand_sizes) + [1] * len(self.categories)

    def copy(self) -> "CategoryFacts":
        return CategoryFacts(self.cards, self.hidden, self.players, list(self.fixed),
                             set(self.excluded), list(self.clauses), self.hand_sizes,
                             self.categories)


def category_facts(rules: Rules) -> CategoryFacts:
    """The facts known to everyone: slot j holds no card outside C_j."""
    facts = CategoryFacts(rules.cards, len(rules.categories), rules.players,
                          hand_sizes=rules.hand_sizes, categories=rules.categories)
    for j in range(len(rules.categories)):
        facts.lacks(rules.players + j, [c for c in range(1, rules.cards + 1)
                                        if c not in rules.category_cards(j)])
    return facts


@dataclass
class SolutionPosterior:
    """The exact posterior over consistent deals, read per category slot."""

    rules: Rules
    post: Posterior

    @property
    def deals(self) -> int:
        return self.post.deals

    def p_solution(self, card: int) -> Fraction:
        slot = self.rules.players + self.rules.category_of(card)
        return Fraction(self.post.holds[card][slot], self.post.deals)

    def candidates(self, j: int) -> list[int]:
        """The cards of C_j that may be the solution's."""
        slot = self.rules.players + j
        return [c for c in self.rules.category_cards(j) if self.post.holds[c][slot]]

    def certain(self) -> bool:
        return all(len(self.candidates(j)) == 1 for j in range(len(self.rules.categories)))

    def most_probable(self, budget: int = DEFAULT_BUDGET) -> tuple[tuple[int, ...], Fraction]:
        """The most probable solution (the first in card order among equals) and its
        probability, exactly, by branch and bound: P(S = s) <= min_j P(s_j in S)."""
        slots = range(len(self.rules.categories))
        counts = {c: self.post.holds[c][self.rules.players + j]
                  for j in slots for c in self.candidates(j)}
        best, best_count = None, 0
        for s in product(*(sorted(self.candidates(j), key=lambda c: -counts[c]) for j in slots)):
            if min(counts[c] for c in s) < best_count:
                continue
            facts = self.post.facts.copy()
            for j, c in enumerate(s):
                facts.holds(self.rules.players + j, c)
            n = count_deals(facts, budget)
            if n > best_count or n == best_count and n and s < best:
                best, best_count = s, n
        return best, Fraction(best_count, self.post.deals)


def solution_posterior(facts: CategoryFacts, rules: Rules,
                       budget: int = DEFAULT_BUDGET) -> SolutionPosterior | None:
    """Exact; None when no deal is consistent; ``inference.TooLarge`` past ``budget``."""
    post = posterior(facts, budget)
    return None if post is None else SolutionPosterior(rules, post)


@dataclass(frozen=True)
class Suggested:
    """A suggestion as a seat sees it: ``card`` is the card shown, in the suggester's and
    the disprover's copy only; ``disprover`` is None when nobody could."""

    suggester: int
    cards: tuple[int, ...]
    disprover: int | None
    card: int | None = None


@dataclass(frozen=True)
class Accused:
    seat: int
    cards: tuple[int, ...]
    correct: bool


@dataclass
class Knowledge:
    """What one seat has seen, as ``CategoryFacts``, and the cards it has seen (its hand
    and the cards shown to it: an accusation naming one is suicidal)."""

    rules: Rules
    seat: int
    hand: tuple[int, ...]
    facts: CategoryFacts = field(init=False)
    seen: set[int] = field(init=False)

    def __post_init__(self):
        self.facts = category_facts(self.rules)
        self.facts.hand(self.seat, self.hand)
        self.facts.lacks(self.seat, [c for c in range(1, self.rules.cards + 1)
                                     if c not in self.hand])
        self.seen = set(self.hand)

    def observe(self, event: Suggested) -> None:
        """Everyone between the suggester and the disprover (all others when nobody
        disproved) holds none of the cards; the disprover holds the shown card, or one of
        the suggested cards when this seat was not shown it."""
        p = self.rules.players
        stop = event.suggester if event.disprover is None else event.disprover
        seat = (event.suggester + 1) % p
        while seat != stop:
            self.facts.lacks(seat, event.cards)
            seat = (seat + 1) % p
        if event.disprover is None:
            return
        if event.card is not None:
            self.facts.holds(event.disprover, event.card)
            if event.suggester == self.seat:
                self.seen.add(event.card)
        elif event.disprover != self.seat:
            self.facts.some_of(event.disprover, event.cards)

    def must_accuse(self, event: Suggested) -> bool:
        """The contest's rule: own suggestion, nobody disproved, none of its cards seen."""
        return event.suggester == self.seat and event.disprover is None \
            and not self.seen.intersection(event.cards)


def deal(rules: Rules, rng) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
    """(solution, hands by seat): a uniform card of each category, then the rest shuffled
    and dealt in seat order by the hand sizes.  ``rng``: a ``random.Random``."""
    solution = tuple(rng.choice(rules.category_cards(j)) for j in range(len(rules.categories)))
    deck = [c for c in range(1, rules.cards + 1) if c not in solution]
    rng.shuffle(deck)
    hands, at = [], 0
    for size in rules.hand_sizes:
        hands.append(tuple(sorted(deck[at:at + size])))
        at += size
    return solution, hands
