"""Generalized Clue: exact inference and the table-side tool against brute-force
enumeration of every deal (N <= 10), the sampler's stated error, malformed views."""

from __future__ import annotations

import copy
import random
from collections import Counter
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from subgame.errors import InvalidInput
from subgame.families.clue.game.engine import play_game
from subgame.families.clue.game.inference import Facts, importance_sample, posterior, reduce, Counter as Programme
from subgame.families.clue.game.moves import Departure
from subgame.families.clue.game.registry import new_player
from subgame.families.clue.game.rules import grid_point
from subgame.families.clue.game.table import infer_view, parse_view


# --- brute force -----------------------------------------------------------------------

def all_deals(cards, hidden, players):
    """Every deal as an array (deals, N + 1): owner of each card, owner p = hidden."""
    k = (cards - hidden) // players
    sizes = [k] * players + [hidden]
    rows = []

    def place(owner, left, row):
        if owner == len(sizes):
            rows.append(list(row))
            return
        for chosen in combinations(left, sizes[owner]):
            for c in chosen:
                row[c] = owner
            place(owner + 1, [c for c in left if c not in chosen], row)

    place(0, list(range(1, cards + 1)), [-1] * (cards + 1))
    return np.array(rows)


def consistent_deals(view):
    """The deals that agree with the hand and every record, straight from their meaning."""
    deals = all_deals(view["cards"], view["hidden"], view["players"])
    me, ok = view["me"], np.ones(len(deals), dtype=bool)
    ok &= (deals[:, view["hand"]] == me).all(axis=1)
    for r in view["history"]:
        if "revealed" in r:
            ok &= (deals[:, r["hand"]] == r["revealed"]).all(axis=1)
            continue
        held = deals[:, r["cards"]] == r["target"]
        shown = r["shown"]
        if shown is True:
            ok &= held.any(axis=1)
        elif shown is False:
            ok &= ~held.any(axis=1)
        else:
            ok &= deals[:, shown] == r["target"]
    return deals[ok]


def brute_force(view):
    """(number of deals, P(card hidden) by card, best hidden sets, their probability)."""
    good = consistent_deals(view)
    hid = view["players"]
    p_hidden = {c: Fraction(int((good[:, c] == hid).sum()), len(good)) for c in range(1, view["cards"] + 1)}
    sets = Counter(tuple(np.flatnonzero(row == hid).tolist()) for row in good)
    top = max(sets.values())
    return len(good), p_hidden, sorted(list(s) for s, n in sets.items() if n == top), Fraction(top, len(good))


def view_of(result, seat, upto):
    """The table-side view of ``seat`` after the first ``upto`` records of a game."""
    history = []
    for e in result.record_of(seat)[:upto]:
        if isinstance(e, Departure):
            history.append({"revealed": e.seat, "hand": list(e.hand)})
        else:
            seen = seat in (e.asker, e.target)
            history.append({"asker": e.asker, "target": e.target, "cards": list(e.cards),
                            "shown": e.card if seen and e.card is not None else e.shown})
    size = result.size
    return {"cards": size.cards, "hidden": size.hidden, "players": size.players, "me": seat,
            "hand": list(result.hands[seat]), "history": history}


def check_against_brute_force(view):
    deals, p_hidden, best, p_best = brute_force(view)
    got = infer_view(view)
    assert got["deals"] == str(deals)
    assert got["p_hidden"] == {str(c): f"{p.numerator}/{p.denominator}" for c, p in p_hidden.items()}
    assert got["best"] == best
    assert got["p_best"] == f"{p_best.numerator}/{p_best.denominator}"


POINTS = [(2, 3, 2), (3, 2, 2), (3, 3, 1), (2, 4, 2), (3, 2, 3)]     # N = 8, 8, 10, 10, 9
LINEUPS = [["random", "padded-core", "core"], ["weighted-uniform", "random", "conditional"]]


@pytest.mark.parametrize("point", POINTS)
def test_table_tool_matches_brute_force_from_every_seat(point):
    size = grid_point(*point)
    rng = random.Random(sum(point))
    views = 0
    for seed in range(3):
        names = [LINEUPS[seed % 2][s] for s in range(size.players)]
        result = play_game([new_player(n) for n in names], size, seed)
        for seat in range(size.players):
            for upto in sorted({len(result.record), rng.randrange(len(result.record) + 1)}):
                check_against_brute_force(view_of(result, seat, upto))
                views += 1
    assert views >= 6 * size.players // 2


def test_views_cover_askers_targets_and_bystanders():
    """Among the views above, records are seen as asker (card and none), as target and as
    bystander (shown and none): check a hand-made view with each kind explicitly."""
    view = {"cards": 9, "hidden": 3, "players": 3, "me": 0, "hand": [1, 2],
            "history": [{"asker": 0, "target": 1, "cards": [3, 4, 5], "shown": 4},
                        {"asker": 0, "target": 2, "cards": [6, 7], "shown": False},
                        {"asker": 1, "target": 0, "cards": [1, 8], "shown": 1},
                        {"asker": 2, "target": 0, "cards": [3, 9], "shown": False},
                        {"asker": 2, "target": 1, "cards": [3, 6, 9], "shown": True},
                        {"asker": 1, "target": 2, "cards": [5, 7, 8], "shown": True},
                        {"asker": 1, "target": 2, "cards": [3, 4], "shown": False}]}
    check_against_brute_force(view)
    view["history"].append({"revealed": 1, "hand": [4, 6]})
    check_against_brute_force(view)


def test_the_example_of_the_issue_with_sizes_that_divide():
    view = {"cards": 14, "hidden": 2, "players": 3, "me": 0, "hand": [1, 5, 9, 11],
            "history": [{"asker": 0, "target": 1, "cards": [2, 3, 4], "shown": 3},
                        {"asker": 1, "target": 2, "cards": [1, 2], "shown": True},
                        {"asker": 2, "target": 1, "cards": [7, 8], "shown": False},
                        {"revealed": 2, "hand": [2, 6, 7, 10]}]}
    got = infer_view(view)
    assert got["deals"] == "4" and got["p_hidden"]["8"] == "1/1" and got["p_best"] == "1/4"
    assert got["best"] == [[4, 8], [8, 12], [8, 13], [8, 14]]
    view["cards"] = 12       # the issue's own example: 12 - 2 cards do not make 3 hands
    with pytest.raises(InvalidInput, match="do not split evenly"):
        infer_view(view)


# --- impossible histories ----------------------------------------------------------------

BASE = {"cards": 8, "hidden": 2, "players": 3, "me": 0, "hand": [1, 2]}
IMPOSSIBLE = [
    # a card of my hand shown by another player
    [{"asker": 0, "target": 1, "cards": [3, 4], "shown": 3},
     {"asker": 1, "target": 2, "cards": [5], "shown": True},
     {"asker": 2, "target": 1, "cards": [2, 6], "shown": True},
     {"asker": 1, "target": 2, "cards": [1], "shown": True}],
    # seat 1 must hold one of three disjoint pairs but holds only 2 cards
    [{"asker": 2, "target": 1, "cards": [3, 4], "shown": True},
     {"asker": 0, "target": 2, "cards": [7], "shown": False},
     {"asker": 2, "target": 1, "cards": [5, 6], "shown": True},
     {"asker": 2, "target": 1, "cards": [7, 8], "shown": True}],
    # "none" for a card shown to me before
    [{"asker": 0, "target": 1, "cards": [3, 4], "shown": 4},
     {"asker": 2, "target": 1, "cards": [4, 5], "shown": False}],
    # a revealed hand clashing with a card shown to me
    [{"asker": 0, "target": 2, "cards": [5, 6], "shown": 5},
     {"revealed": 1, "hand": [5, 7]}],
    # four cards that nobody but the hidden pile can hold, and only two hidden
    [{"asker": 0, "target": 1, "cards": [3, 4, 5, 6], "shown": False},
     {"asker": 1, "target": 2, "cards": [3, 4], "shown": False},
     {"asker": 0, "target": 2, "cards": [5, 6], "shown": False}],
]


@pytest.mark.parametrize("case", range(len(IMPOSSIBLE)))
def test_an_impossible_history_names_its_first_impossible_record(case):
    view = {**BASE, "history": IMPOSSIBLE[case]}
    expected = next(i for i in range(len(view["history"]))
                    if not len(consistent_deals({**view, "history": view["history"][:i + 1]})))
    with pytest.raises(InvalidInput, match=rf"^history\[{expected}\] is impossible"):
        infer_view(view)


# --- malformed views -------------------------------------------------------------------

GOOD = {"cards": 9, "hidden": 3, "players": 3, "me": 0, "hand": [1, 2],
        "history": [{"asker": 0, "target": 1, "cards": [3, 4], "shown": 4},
                    {"asker": 1, "target": 2, "cards": [5, 6], "shown": True},
                    {"revealed": 2, "hand": [5, 7]}]}


def mutate(path_value):
    view = copy.deepcopy(GOOD)
    *path, last, value = path_value
    node = view
    for key in path:
        node = node[key]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return view


MALFORMED = [
    (("hand", KeyError), "lacks hand"),
    (("extra", 1), "unknown keys extra"),
    (("cards", "9"), "cards must be an integer"),
    (("players", True), "players must be an integer"),
    (("hidden", 2), "do not split evenly"),
    (("me", 3), "me must be between 0 and 2"),
    (("hand", [1, 2, 3]), "hand must hold 2 cards"),
    (("hand", [1, 10]), "hand card must be between 1 and 9"),
    (("hand", [1, 1]), "lists a card twice"),
    (("history", {}), "history must be a list"),
    (("history", 0, "asker", 5), r"history\[0\] asker must be between 0 and 2"),
    (("history", 0, "target", 0), "cannot interrogate itself"),
    (("history", 0, "cards", []), "non-empty list"),
    (("history", 0, "shown", 5), "not in the list"),
    (("history", 0, "shown", True), "you asked"),
    (("history", 1, "shown", 5), "only the asker and the target"),
    (("history", 1, "shown", KeyError), r"history\[1\] lacks shown"),
    (("history", 2, "hand", [5]), "must hold 2 cards"),
    (("history", 2, "revealed", 9), "revealed must be between"),
    (("history", 1, "x"), r"history\[1\] must be an object"),
]


@pytest.mark.parametrize("case", range(len(MALFORMED)))
def test_malformed_views_are_refused_in_one_line(case):
    change, message = MALFORMED[case]
    with pytest.raises(InvalidInput, match=message) as err:
        infer_view(mutate(change))
    assert "\n" not in str(err.value)


def test_a_player_who_left_may_not_play_on():
    view = copy.deepcopy(GOOD)
    view["history"].append({"asker": 1, "target": 2, "cards": [3], "shown": False})
    with pytest.raises(InvalidInput, match=r"history\[3\]: seat 2 has left"):
        infer_view(view)
    view["history"][3] = {"revealed": 2, "hand": [5, 7]}
    with pytest.raises(InvalidInput, match="already revealed"):
        infer_view(view)
    with pytest.raises(InvalidInput, match="JSON object"):
        infer_view([GOOD])


# --- sampling --------------------------------------------------------------------------

def facts_of(view):
    return parse_view(view)[0]


def test_exact_sampling_is_uniform_over_consistent_deals():
    view = {**GOOD, "history": GOOD["history"][:2]}
    deals, p_hidden, _, _ = brute_force(view)
    post = posterior(facts_of(view))
    rng, n = random.Random(5), 4000
    freq = Counter()
    for _ in range(n):
        owner = post.counter.sample(rng)
        freq.update(c for c in range(1, 10) if owner[c] == 3)
    for c, p in p_hidden.items():
        sd = float(p * (1 - p) / n) ** 0.5
        assert abs(freq[c] / n - float(p)) <= 5 * sd + 1e-9


def test_importance_sampling_is_within_its_stated_error():
    size = grid_point(3, 3, 1)
    result = play_game([new_player(n) for n in ["random", "core", "weighted-uniform"]], size, 4)
    view = view_of(result, 0, len(result.record) // 2)
    deals, p_hidden, _, _ = brute_force(view)
    est = importance_sample(facts_of(view), 3000, np.random.default_rng(1))
    assert est.effective_samples > 100
    for c, p in p_hidden.items():
        assert abs(est.p_hidden[c] - float(p)) <= 5 * est.std_error[c] + 1e-9
    assert abs(est.deals / deals - 1) < 0.2


def test_reduce_and_counting_agree_on_unit_facts():
    facts = Facts(8, 2, 3)
    facts.hand(0, [1, 2])
    facts.lacks(1, [3, 4, 5, 6])
    facts.lacks(2, [3, 4])
    red = reduce(facts)
    assert [red.owner_of(c) for c in (3, 4)] == [3, 3]       # only the hidden pile is left
    assert red.free_cards() == [] and Programme(red).total == 1   # 7, 8 to seat 1; 5, 6 to 2


def test_best_sets_below_a_threshold_are_not_looked_for():
    view = {**GOOD, "history": GOOD["history"][:2]}
    _, _, best, p_best = brute_force(view)
    post = posterior(facts_of(view))
    from subgame.families.clue.game.inference import best_hidden_sets
    assert best_hidden_sets(post, at_least=p_best) == ([tuple(s) for s in best], p_best)
    assert best_hidden_sets(post, at_least=p_best + Fraction(1, 10 ** 6)) == ([], 0)
