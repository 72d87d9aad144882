"""Generalized Clue: the engine's rules, the seed's players' invariants, the tournament
kernel (subgame/families/clue/game)."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.errors import InvalidInput
from subgame.families.clue.game.engine import IllegalMove, deal, play_game
from subgame.families.clue.game.moves import Departure, Guess, Interrogate, Interrogation
from subgame.families.clue.game.players import CorePlayer
from subgame.families.clue.game.registry import STRATEGIES, new_player
from subgame.families.clue.game.rules import game_size, grid_point
from subgame.families.clue.game.tournament import merge, simulate_batch

SMALL = grid_point(3, 3, 2)          # N = 11


class Scripted(CorePlayer):
    """A core player whose n-th turn (0-based) plays ``script[n](player)`` when given."""

    name = "scripted"

    def __init__(self, script=None):
        self.script, self.turns = script or {}, 0

    def move(self, round):
        n, self.turns = self.turns, self.turns + 1
        return self.script[n](self) if n in self.script else super().move(round)


def first_seat(size, seed):
    return deal(size, np.random.default_rng(seed))[2]


def hidden_cards(size, seed):
    return deal(size, np.random.default_rng(seed))[0]


# --- sizes -----------------------------------------------------------------------------

def test_grid_points():
    assert grid_point(3, 3, 2).cards == 11 and grid_point(9, 16, 3).core_bound == 128 * 9
    assert game_size(11, 2, 3).per_player == 3
    for bad in [(1, 3, 2), (3, 0, 2), (3, 3, 0), (3, True, 2), (3, 2.5, 1)]:
        with pytest.raises(InvalidInput):
            grid_point(*bad)
    with pytest.raises(InvalidInput, match="split evenly"):
        game_size(12, 2, 3)


# --- engine rules ----------------------------------------------------------------------

def test_deal_splits_the_cards():
    hidden, hands, first = deal(SMALL, np.random.default_rng(7))
    cards = sorted(hidden + sum(hands, ()))
    assert cards == list(range(1, 12)) and len(hidden) == 2 and all(len(h) == 3 for h in hands)
    assert 0 <= first < 3


ILLEGAL = {
    "empty list": lambda p: Interrogate((p.seat + 1) % 3, ()),
    "cards must be numbers": lambda p: Interrogate((p.seat + 1) % 3, (0,)),
    "out of range high": lambda p: Interrogate((p.seat + 1) % 3, (12,)),
    "not a number": lambda p: Interrogate((p.seat + 1) % 3, ("3",)),
    "listed twice": lambda p: Interrogate((p.seat + 1) % 3, (2, 2)),
    "itself": lambda p: Interrogate(p.seat, (1,)),
    "seat out of range": lambda p: Interrogate(3, (1,)),
    "guess of the wrong size": lambda p: Guess((1, 2, 3)),
    "guess out of range": lambda p: Guess((1, 99)),
    "not a move": lambda p: "pass",
}


@pytest.mark.parametrize("case", sorted(ILLEGAL))
def test_illegal_moves_name_the_player_and_the_seed(case):
    seed = 1234
    with pytest.raises(IllegalMove) as err:
        play_game([Scripted({0: ILLEGAL[case]}) for _ in range(3)], SMALL, seed)
    assert err.value.seat == first_seat(SMALL, seed) and err.value.seed == seed
    assert err.value.round == 1 and "scripted" in str(err.value) and "seed 1234" in str(err.value)


def test_interrogating_a_player_who_left_is_illegal():
    seed, first = 5, first_seat(SMALL, 5)
    second = (first + 1) % 3
    script = {first: {0: lambda p: Guess((1, 2))},
              second: {0: lambda p: Interrogate(first, (1,))}}
    with pytest.raises(IllegalMove, match="not a player in the game") as err:
        play_game([Scripted(script.get(s)) for s in range(3)], SMALL, seed)
    assert err.value.seat == second and err.value.round == 2


def test_an_answer_must_be_a_listed_card_of_the_hand():
    class Liar(CorePlayer):
        name = "liar"

        def answer(self, asker, cards):
            return max(set(range(1, 12)) - set(self.view.hand))

    with pytest.raises(IllegalMove, match="not a listed card") as err:
        play_game([Liar() for _ in range(3)], SMALL, 3)
    assert "liar" in str(err.value)


def test_replay_by_seed_gives_the_same_game():
    lineup = ["random", "weighted-geometric", "exact"]
    a = play_game([new_player(n) for n in lineup], SMALL, 99)
    b = play_game([new_player(n) for n in lineup], SMALL, 99)
    assert a == b and a.record == b.record
    c = play_game([new_player(n) for n in lineup], SMALL, 100)
    assert c.record != a.record


def test_records_hide_the_shown_card_from_bystanders():
    result = play_game([CorePlayer() for _ in range(3)], SMALL, 11)
    asks = [e for e in result.record if isinstance(e, Interrogation)]
    assert asks and all(e.card is not None for e in asks if e.shown)
    for seat in range(3):
        for full, seen in zip(result.record, result.record_of(seat)):
            if isinstance(full, Interrogation):
                assert seen.shown == full.shown and seen.cards == full.cards
                visible = seat in (full.asker, full.target)
                assert seen.card == (full.card if visible else None)
    assert all(getattr(e, "card", None) is None for e in result.public_record())
    departures = [e for e in result.record if isinstance(e, Departure)]
    assert all(e.hand == result.hands[e.seat] for e in departures)


def test_the_answer_repeats_a_card_already_shown_to_that_asker():
    player = CorePlayer()
    from subgame.families.clue.game.moves import View
    player.start(View(11, 2, 3, 0, (2, 5, 9), 0, 36, np.random.default_rng(0)))
    assert player.answer(1, (9, 5)) == 5            # first matching card of the hand
    assert player.answer(1, (2, 9)) == 2
    assert player.answer(1, (9, 5, 2)) == 5         # already shown to seat 1
    assert player.answer(2, (9, 2)) == 2


def test_ranking_order():
    """Seats in turn order A, B, C, D: A guesses wrong on its 1st turn, B right on its 1st,
    C wrong on its 2nd (round 5), which leaves D alone and ends the game: B, D, C, A."""
    size, seed = grid_point(4, 3, 2), 21
    first, hidden = first_seat(size, seed), hidden_cards(size, seed)
    wrong = tuple(sorted(set(range(1, 15)) - set(hidden)))[:2]
    a, b, c, d = [(first + i) % 4 for i in range(4)]
    scripts = {a: {0: lambda p: Guess(wrong)}, b: {0: lambda p: Guess(hidden)},
               c: {1: lambda p: Guess(wrong)}}
    result = play_game([Scripted(scripts.get(s)) for s in range(4)], size, seed, round_limit=8)
    assert [g.seat for g in result.guesses] == [a, b, c]
    assert [g.correct for g in result.guesses] == [False, True, False]
    assert result.ranks[b] == 1 and result.ranks[d] == 2 and result.ranks[c] == 3
    assert result.ranks[a] == 4 and result.rounds == 5


def test_players_still_in_share_a_rank_and_a_lone_player_ends_the_game():
    size, seed = grid_point(4, 3, 2), 22
    first, hidden = first_seat(size, seed), hidden_cards(size, seed)
    a, b, c, d = [(first + i) % 4 for i in range(4)]
    result = play_game([Scripted({0: lambda p: Guess(hidden)} if s == a else None)
                        for s in range(4)], size, seed, round_limit=3)
    assert result.ranks[a] == 1 and result.ranks[b] == result.ranks[c] == result.ranks[d] == 2
    scripts = {s: {0: lambda p: Guess(hidden)} for s in (a, b, c)}
    result = play_game([Scripted(scripts.get(s)) for s in range(4)], size, seed)
    assert result.rounds == 3 and sorted(result.ranks) == [1, 2, 3, 4] and result.ranks[d] == 4


def test_everyone_leaving_ends_the_game():
    size, seed = grid_point(2, 3, 1), 3
    hidden = hidden_cards(size, seed)
    wrong = tuple(c for c in range(1, 8) if c not in hidden)[:1]
    result = play_game([Scripted({0: lambda p: Guess(wrong)}) for _ in range(2)], size, seed)
    assert result.rounds == 1 and len(result.guesses) == 1   # the other is left alone
    assert result.ranks[result.guesses[0].seat] == 2


# --- players ---------------------------------------------------------------------------

def play_many(lineup, size, games, start=0):
    p = size.players
    for seed in range(start, start + games):
        names = [lineup[(s + seed) % len(lineup)] for s in range(p)]
        yield names, play_game([new_player(n) for n in names], size, seed)


@pytest.mark.parametrize("point", [(2, 4, 1), (3, 3, 2), (4, 2, 3), (5, 3, 3)])
def test_certain_players_are_never_wrong(point):
    size = grid_point(*point)
    lineup = ["core", "padded-core", "conditional", "exact", "history-1/2"]
    for names, result in play_many(lineup, size, 25):
        for g in result.guesses:
            if names[g.seat] in ("core", "padded-core", "conditional", "exact"):
                assert g.correct, (names, result.seed)


def test_core_players_guess_within_the_bound():
    size = grid_point(4, 3, 2)
    for names, result in play_many(["core", "padded-core"], size, 20):
        assert len(result.guesses) >= size.players - 1
        assert all(g.round <= size.core_bound + size.players for g in result.guesses)


def test_padded_lists_cover_every_card_but_the_targets_known_ones():
    result = play_game([new_player("padded-core") for _ in range(3)], SMALL, 8)
    for e in result.record:
        if isinstance(e, Interrogation):
            assert len(e.cards) >= SMALL.cards - SMALL.per_player


def test_history_players_guess_at_their_factor_of_the_bound():
    size = grid_point(5, 3, 2)
    for names, result in play_many(["history-1/2", "core", "core", "core", "core"], size, 10):
        mine = [g for g in result.guesses if names[g.seat] == "history-1/2"]
        assert mine and mine[0].round <= size.core_bound // 2 + size.players


def test_every_registered_strategy_plays_legally():
    names = sorted(STRATEGIES)
    size = grid_point(3, 2, 2)
    for i in range(0, len(names), 3):
        lineup = (names[i:i + 3] + names)[:3]
        for _, result in play_many(lineup, size, 3, start=i):
            assert sorted(result.ranks)[0] == 1
    with pytest.raises(InvalidInput, match="unknown strategy"):
        new_player("clairvoyant")


def test_conditional_deductions_stay_sound():
    size = grid_point(4, 3, 2)
    for names, result in play_many(["conditional", "group2", "weighted-uniform", "padded-core"], size, 8):
        hands = result.hands
        # replay with the same seed and inspect the conditional players' tables at the end
        players = [new_player(n) for n in names]
        play_game(players, size, result.seed)
        for seat, player in enumerate(players):
            if names[seat] in ("conditional", "group2"):
                status = player.table.status
                for o in range(size.players):
                    for c in range(1, size.cards + 1):
                        if status[o][c] == 1:
                            assert c in hands[o]
                        elif status[o][c] == -1:
                            assert c not in hands[o]


# --- tournament ------------------------------------------------------------------------

LINEUP = ["core", "weighted-geometric", "history-1/2"]


def test_batches_do_not_depend_on_sharding_and_merge_adds():
    root = np.random.SeedSequence(2024)
    a, b = root.spawn(2)
    one = simulate_batch(LINEUP, 3, 3, 2, 9, a)
    again = simulate_batch(LINEUP, 3, 3, 2, 9, np.random.SeedSequence(2024).spawn(2)[0])
    assert all(np.array_equal(one[k], again[k]) for k in one)
    two = simulate_batch(LINEUP, 3, 3, 2, 6, b)
    total = merge([one, two])
    assert total["games"].tolist() == [15, 15, 15]
    assert total["rank_counts"].sum(axis=1).tolist() == [15, 15, 15]
    assert np.array_equal(total["guesses"], total["correct_guesses"] + total["wrong_guesses"])
    assert (total["leads"] <= total["correct_guesses"]).all()
    assert total["wrong_guesses"][0] == 0
    with pytest.raises(InvalidInput):
        merge([one, simulate_batch(["core"] * 2, 2, 3, 1, 2, a)])


def test_seats_rotate_through_the_lineup():
    counts = simulate_batch(["core", "core", "random"], 3, 2, 1, 6, np.random.SeedSequence(1))
    assert counts["games"].tolist() == [6, 6, 6]
    assert counts["first_places"].sum() <= 6


@pytest.mark.parametrize("bad", [(["core"], 3, 3, 2), (["core", "nope", "core"], 3, 3, 2),
                                 (["core"] * 3, 3, 0, 2)])
def test_bad_grid_points_and_lineups(bad):
    lineup, p, k, h = bad
    with pytest.raises(InvalidInput):
        simulate_batch(lineup, p, k, h, 3, np.random.SeedSequence(0))


def test_the_exact_player_guesses_only_when_certain():
    from subgame.families.clue.game.exact_player import ExactPlayer
    size, guessed = grid_point(2, 3, 2), 0
    for seed in range(30):
        players = [ExactPlayer(), new_player("padded-core")][::1 if seed % 2 else -1]
        result = play_game(players, size, seed)
        for g in result.guesses:
            if isinstance(players[g.seat], ExactPlayer):
                guessed += 1
                assert g.correct, seed
    assert guessed >= 10


def test_the_exact_player_falls_back_to_sampling_and_stays_certain():
    from subgame.families.clue.game.exact_player import ExactPlayer
    size = grid_point(3, 3, 2)
    for seed in range(6):
        players = [ExactPlayer(budget=1, samples=16), new_player("core"), new_player("conditional")]
        result = play_game(players, size, seed)
        assert players[0].sampled_turns > 0
        assert all(g.correct for g in result.guesses if g.seat == 0)


def test_the_package_imports_no_pipeline_machinery():
    import subprocess
    import sys
    code = ("import sys, subgame.families.clue.game; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'prefect', 'dask', 'zarr', 'distributed'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
