"""The standard game's rule set: exact inference against brute force on small category
games, the arbiter's rules, the players."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations, product

import pytest

from subgame.errors import InvalidInput
from subgame.families.clue.game.standard import Knowledge, rules, solution_posterior, standard_rules
from subgame.families.clue.game.standard_match import RuleBroken, play_match
from subgame.families.clue.game.standard_players import PLAYERS, CorePlayer, ExactPlayer, RandomPlayer


class Recording(RandomPlayer):
    """A random player that keeps every event it is told."""

    def reset(self, rules, seat, hand):
        super().reset(rules, seat, hand)
        self.events = []

    def suggestion(self, event):
        super().suggestion(event)
        self.events.append(event)


def all_deals(r):
    """Every (solution, hands) of the rules, listed."""
    cards = range(1, r.cards + 1)
    for solution in product(*(r.category_cards(j) for j in range(len(r.categories)))):
        rest = [c for c in cards if c not in solution]

        def split(left, sizes):
            if not sizes:
                yield ()
                return
            for hand in combinations(left, sizes[0]):
                for tail in split([c for c in left if c not in hand], sizes[1:]):
                    yield (frozenset(hand),) + tail
        for hands in split(rest, list(r.hand_sizes)):
            yield solution, hands


def consistent(r, seat, hand, events, solution, hands):
    """The deal gives this seat its hand and answers every event the way this seat saw."""
    if hands[seat] != frozenset(hand):
        return False
    for e in events:
        stop = e.suggester if e.disprover is None else e.disprover
        i = (e.suggester + 1) % r.players
        while i != stop:
            if hands[i].intersection(e.cards):
                return False
            i = (i + 1) % r.players
        if e.disprover is not None:
            if e.card is not None and e.card not in hands[e.disprover]:
                return False
            if not hands[e.disprover].intersection(e.cards):
                return False
    return True


@pytest.mark.parametrize("categories, players", [((2, 2, 3), 2), ((2, 3, 3), 3), ((3, 3), 2)])
def test_posterior_equals_brute_force(categories, players):
    r = rules(categories, players)
    deals = list(all_deals(r))
    checked = 0
    for game in range(4):
        seats = [Recording(seed=game * 10 + i) for i in range(players)]
        play_match(seats, r, random.Random(game))
        for s in seats:
            knowledge = Knowledge(r, s.seat, s.knowledge.hand)
            for n, event in enumerate(s.events):
                knowledge.observe(event)
                matching = [d for d in deals
                            if consistent(r, s.seat, s.knowledge.hand, s.events[:n + 1], *d)]
                post = solution_posterior(knowledge.facts, r)
                assert post.deals == len(matching)
                for c in range(1, r.cards + 1):
                    expected = Fraction(sum(c in sol for sol, _ in matching), len(matching))
                    assert post.p_solution(c) == expected
                best, p_best = post.most_probable()
                tally = {}
                for sol, _ in matching:
                    tally[sol] = tally.get(sol, 0) + 1
                assert p_best == Fraction(max(tally.values()), len(matching))
                assert tally[best] == max(tally.values())
                checked += 1
    assert checked > 10


def test_hand_sizes_follow_the_contest_table():
    assert [standard_rules(p).hand_sizes for p in (3, 4, 5, 6)] == [
        (6, 6, 6), (5, 5, 4, 4), (4, 4, 4, 3, 3), (3, 3, 3, 3, 3, 3)]
    with pytest.raises(InvalidInput):
        standard_rules(7)


@pytest.mark.parametrize("players", [3, 6])
def test_certain_players_never_accuse_wrongly(players):
    r = standard_rules(players)
    for game in range(3):
        seats = [(CorePlayer, ExactPlayer, RandomPlayer)[i % 3](seed=game * 10 + i)
                 for i in range(players)]
        result = play_match(seats, r, random.Random(game))
        assert all(a.correct for a in result.accusations)
        assert result.accusations[-1].seat == result.winner
        assert result.accusations[-1].cards == result.solution


class Repeats(CorePlayer):
    def suggest(self):
        return (1, 7, 13)


class Silent(CorePlayer):
    def accuse(self):
        return None


class Reckless(CorePlayer):
    def accuse(self):
        return tuple(sorted(self.knowledge.hand)[:1]) + (7, 13) \
            if sorted(self.knowledge.hand)[0] <= 6 else (1, 7, 13)


class WrongShow(CorePlayer):
    def disprove(self, suggester, cards):
        return 21


@pytest.mark.parametrize("breaker, reason", [(Repeats, "made before"),
                                             (Silent, "no accusation"),
                                             (Reckless, "names a card it has seen"),
                                             (WrongShow, "not a suggested card")])
def test_rule_breakers_are_named(breaker, reason):
    r = standard_rules(3)
    broken = []
    for game in range(40):
        seats = [breaker(seed=game), ExactPlayer(seed=game), ExactPlayer(seed=game + 1)]
        try:
            play_match(seats, r, random.Random(game))
        except RuleBroken as exc:
            broken.append(exc)
            break
    assert broken and broken[0].seat == 0 and reason in broken[0].reason


def test_registry_names_players():
    assert {"core", "exact", "random"} <= set(PLAYERS)
