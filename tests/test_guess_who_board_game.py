"""Guess Who on real boards: the board model against the seed exercise's transcript, board
files, and the exact solver and policies against plain recursions over frozensets written
here (independent of the package's bitmask code)."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import combinations

import numpy as np
import pytest

from subgame.errors import InvalidInput
from subgame.families.guess_who_board.game.board import (
    Board, Character, cartesian_power, description, product, satisfies)
from subgame.families.guess_who_board.game.boards import (
    DISPUTED_CELLS, classic_characters, load_board, parse_board)
from subgame.families.guess_who_board.game.policies import (
    OPPONENTS, closest_to_half_moves, evaluate_policy, most_balanced_trait_moves,
    policy_pairs)
from subgame.families.guess_who_board.game.reachable import (
    NAMED, count_reachable, identifiable_characters, reachable_sets)
from subgame.families.guess_who_board.game.solve import PairIndex, solve_all, solve_pairs


# --- the board model -----------------------------------------------------------------------


def test_seed_transcript():
    anne = Character("Anne", ["vrouw", "oorringen", "krulhaar"])
    assert repr(anne) == "Character('Anne', ['vrouw', 'oorringen', 'krulhaar'])"
    assert eval(repr(anne)) == anne
    assert anne.kenmerken() == "Anne heeft als kenmerken: vrouw, oorringen en krulhaar"
    assert anne.describe() == "Anne has the traits vrouw, oorringen and krulhaar"
    assert anne.voldoet({}) is True
    assert anne.satisfies({"vrouw": True}) is True
    assert anne.satisfies({"vrouw": False}) is False
    assert anne.satisfies({"man": True}) is False
    assert satisfies(anne, {"vrouw": True, "baard": False}) is True
    assert anne.satisfies({"krulhaar": True, "vrouw": True, "oorringen": True}) is True

    bernard = Character("Bernard", ["man"])
    assert repr(bernard) == "Character('Bernard', ['man'])"
    assert bernard.kenmerken() == "Bernard heeft als kenmerken: man"
    assert bernard.satisfies({"man": True}) is True
    assert bernard.satisfies({"vrouw": False, "hoed": False, "oorringen": False,
                              "baard": False}) is True

    assert product(["Anne", "Bernard", "Claire", "David"], 1) == [
        ("Anne",), ("Bernard",), ("Claire",), ("David",)]
    assert product([1, 2, 3], 2) == [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3),
                                     (3, 1), (3, 2), (3, 3)]
    assert cartesian_power([True, False], 3) == [
        (True, True, True), (True, True, False), (True, False, True), (True, False, False),
        (False, True, True), (False, True, False), (False, False, True),
        (False, False, False)]
    assert product([1, 2], 0) == [()]

    claire = Character("Claire", ["vrouw", "hoed"])
    david = Character("David", ["man", "baard"])
    board = Board("Claire", [anne, bernard, claire, david])
    assert repr(board) == (
        "Board('Claire', [Character('Anne', ['vrouw', 'oorringen', 'krulhaar']), "
        "Character('Bernard', ['man']), Character('Claire', ['vrouw', 'hoed']), "
        "Character('David', ['man', 'baard'])])")
    assert board.traits() == ["baard", "hoed", "krulhaar", "man", "oorringen", "vrouw"]
    assert board.is_unmasked() is False
    assert board.potential({"man": True}) == 2
    assert board.potentieel({"baard": False, "oorringen": False}) == 2
    assert board.best_description(["man", "oorringen"]) == {"man": True}
    assert board.beste_beschrijving(["baard", "oorringen"]) == {"baard": False,
                                                                 "oorringen": False}
    assert board.ask({"man": True}) is False
    assert board.vraag({"baard": False, "oorringen": False}) is True
    assert board.fold_down({"man": True}) is board
    assert repr(board) == (
        "Board('Claire', [Character('Anne', ['vrouw', 'oorringen', 'krulhaar']), "
        "Character('Claire', ['vrouw', 'hoed'])])")
    assert repr(eval(repr(board))) == repr(board)
    assert board.is_ontmaskerd() is False
    assert board.kenmerken() == ["hoed", "krulhaar", "oorringen", "vrouw"]
    assert board.potential({"oorringen": True}) == 1
    assert board.best_description(board.traits()) == {"oorringen": True}
    assert board.ask({"oorringen": True}) is False
    assert repr(board.neerklappen({"oorringen": True})) == (
        "Board('Claire', [Character('Claire', ['vrouw', 'hoed'])])")
    assert board.is_unmasked() is True


def test_best_description_tie_rule_and_literal_limit():
    # Four characters, one trait each: every single literal has potential 1 or 3, two
    # literals can reach 2.  Ties go to the first description of product([None, True,
    # False], n): the first position varies slowest, None < True < False.
    board = Board("a", [Character(name, [trait]) for name, trait in
                        [("a", "t"), ("b", "u"), ("c", "v"), ("d", "w")]])
    # Distance 1 for every literal: {"w": True} is (None, None, None, True), the first.
    assert board.best_description(["t", "u", "v", "w"], max_literals=1) == {"w": True}
    # Exactly half needs "not t and not u" (or similar); the first such in product order
    # is (None, None, False, False).
    assert board.best_description(["t", "u", "v", "w"], max_literals=2) == {
        "v": False, "w": False}
    assert board.best_description(["t", "u", "v", "w"]) == {"v": False, "w": False}
    # A single standing character: every description is equally far from half, so the
    # first one, the empty description, wins.
    board.fold_down({"t": True})
    assert board.best_description(["t", "u"]) == {}


@pytest.mark.parametrize("make, message", [
    (lambda: Character("Anne", []), "no traits"),
    (lambda: Character("Anne", "vrouw"), "list of strings"),
    (lambda: Character("Anne", ["vrouw", "vrouw"]), "twice"),
    (lambda: Character("", ["vrouw"]), "non-empty strings"),
    (lambda: Board("Zoe", [Character("Anne", ["vrouw"])]), "unknown identity"),
    (lambda: Board("Anne", [Character("Anne", ["vrouw"]), Character("Anne", ["man"])]),
     "two characters named"),
    (lambda: description([("vrouw", True), ("vrouw", False)]), "names trait 'vrouw' twice"),
    (lambda: Character("Anne", ["vrouw"]).satisfies({"vrouw": 1}), "True or False"),
    (lambda: product([1], -1), "natural number"),
])
def test_board_model_errors(make, message):
    with pytest.raises(InvalidInput, match=message):
        make()


# --- boards as data --------------------------------------------------------------------------


def test_classic_board():
    characters = classic_characters()
    assert len(characters) == 24
    alex = characters[0]
    assert alex == Character("Alex", ["sex=male", "hair=black", "moustache", "big_mouth"])
    richard = next(c for c in characters if c.name == "Richard")
    anne = next(c for c in characters if c.name == "Anne")
    assert richard.has("moustache") and not anne.has("big_nose")
    assert {(cell.name, cell.trait, cell.majority) for cell in DISPUTED_CELLS} == {
        ("Richard", "moustache", 1), ("Anne", "big_nose", 0)}


def test_user_board_file(tmp_path):
    path = tmp_path / "board.csv"
    path.write_text("name,hat,eyes\nAnn,1,blue\nBob,0,blue\nCid,0,brown\n")
    assert load_board(path) == (Character("Ann", ["hat", "eyes=blue"]),
                                Character("Bob", ["eyes=blue"]),
                                Character("Cid", ["eyes=brown"]))


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("name,hat\n", "no characters"),
    ("who,hat\nAnn,1\n", "no 'name' column"),
    ("name,hat\nAnn,1\nAnn,0\n", "duplicate name 'Ann'"),
    ("name,hat,eyes\nAnn,1,blue\nBob,1,blue\n", "'Ann' and 'Bob' have identical traits"),
    ("name,hat\nAnn,1\nBob,\n", "unknown column type for 'hat': it has an empty cell"),
    ("name,age\nAnn,31\nBob,45\n", "unknown column type for 'age': numbers"),
    ("name,hat\nAnn,1\nBob,0\n", "'Bob' has no traits"),
    ("name,hat\nAnn,1,2\n", "3 cells for 2 columns"),
])
def test_board_file_errors(text, message):
    with pytest.raises(InvalidInput, match=message):
        parse_board(text, "test")


def test_unreadable_board_file(tmp_path):
    with pytest.raises(InvalidInput, match="cannot read board file"):
        load_board(tmp_path / "missing.csv")
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"\xff\xfe\x00name")
    with pytest.raises(InvalidInput, match="cannot read board file"):
        load_board(binary)


# --- exact optimal play ----------------------------------------------------------------------

SMALL_BOARD = [Character(name, traits) for name, traits in [
    ("Ada", ["hat", "glasses"]), ("Bob", ["hat", "beard"]), ("Cy", ["glasses", "beard", "bald"]),
    ("Di", ["hat"]), ("Ed", ["beard", "earrings"]), ("Flo", ["glasses", "earrings"]),
    ("Gus", ["bald", "earrings", "hat"])]]


def _descriptions(traits, max_literals):
    """Every description of at most max_literals literals (None: any), as dicts."""
    limit = len(traits) if max_literals is None else max_literals
    found = [{}]
    for size in range(1, limit + 1):
        for chosen in combinations(traits, size):
            for signs in product([True, False], size):
                found.append(dict(zip(chosen, signs)))
    return found


def _described_sets(characters, max_literals):
    """The sets of names that the allowed descriptions describe on the full board."""
    traits = sorted({t for c in characters for t in c.traits})
    return {frozenset(c.name for c in characters if c.satisfies(q))
            for q in _descriptions(traits, max_literals)}


def _reference_solution(characters, max_literals, rules="official"):
    """a(S, T) over frozensets of names, straight from the recursion, and per state the set
    of optimal moves (splits as frozensets of the two sides; "final"; names)."""
    described = _described_sets(characters, max_literals)

    @lru_cache(maxsize=None)
    def solve(mover, other):
        if len(mover) == 1:
            return len(other), frozenset({"final"})
        options = {}
        if rules == "official":
            options["final"] = len(other)
        for question in described:
            inside = mover & question
            if 0 < len(inside) < len(mover):
                split = frozenset({inside, mover - inside})
                options[split] = len(mover) * len(other) - sum(
                    solve(other, side)[0] for side in split)
        if rules == "variant":
            for name in mover:
                options[name] = len(mover) * len(other) - solve(other, mover - {name})[0]
        best = max(options.values())
        return best, frozenset(move for move, value in options.items() if value == best)

    return solve


def _reachable_reference(characters, max_literals, rules="official"):
    described = _described_sets(characters, max_literals)
    full = frozenset(c.name for c in characters)
    seen, frontier = {full}, [full]
    while frontier:
        standing = frontier.pop()
        children = [standing & q for q in described] + [standing - q for q in described]
        if rules == "variant" and len(standing) > 1:
            children += [standing - {name} for name in standing]
        for child in children:
            if 0 < len(child) < len(standing) and child not in seen:
                seen.add(child)
                frontier.append(child)
    return seen


def _moves_as_sets(family, set_id, first_move_only=False):
    names = lambda child: frozenset(family.names(int(family.masks[child])))  # noqa: E731
    standing = names(set_id)
    moves = []
    for first, second in family.moves(set_id).tolist():
        if second == NAMED:
            (name,) = standing - names(first)
            moves.append(name)
        else:
            moves.append(frozenset({names(first), names(second)}))
    return moves


@pytest.mark.parametrize("max_literals, rules", [
    (1, "official"), (2, "official"), (None, "official"), (1, "variant")])
def test_solver_matches_frozenset_recursion(max_literals, rules):
    family = reachable_sets(SMALL_BOARD, max_literals, rules)
    names = [frozenset(family.names(int(m))) for m in family.masks]
    assert set(names) == _reachable_reference(SMALL_BOARD, max_literals, rules)
    solution = solve_all(family)
    reference = _reference_solution(SMALL_BOARD, max_literals, rules)
    for s_id, s_names in enumerate(names):
        moves, answers = _moves_as_sets(family, s_id), family.moves(s_id)
        named = answers[:, 1] == NAMED
        for t_id, t_names in enumerate(names):
            value, optimal = reference(s_names, t_names)
            position = solution.index.global_index(np.array([s_id]), np.array([t_id]))[0]
            assert solution.values[position] == value
            # a(T, S_yes) + a(T, S_no) of every move, S_no = {} when the move names one
            opponent = np.full(len(answers), t_id)
            yes = solution.lookup(solution.index.global_index(opponent, answers[:, 0]))
            no = solution.lookup(solution.index.global_index(
                opponent, np.where(named, answers[:, 0], answers[:, 1])))
            kept = len(s_names) * len(t_names) - yes - np.where(named, 0, no)
            found = {moves[i] for i in np.flatnonzero(kept == value)}
            assert found == optimal - {"final"} or len(s_names) == 1
            assert solution.optimal_moves[position] == len(found) * (len(s_names) > 1)
            assert solution.final_optimal[position] == ("final" in optimal or len(s_names) == 1)
            if solution.first_move[position] >= 0:
                assert moves[solution.first_move[position]] in optimal
    full = family.full
    assert solution.probability(full, full) == Fraction(
        reference(names[full], names[full])[0], len(SMALL_BOARD) ** 2)


# --- policies --------------------------------------------------------------------------------


def _policy_split_reference(characters, rule, max_literals):
    """The policy's split of a standing set of names, through the board model."""
    by_name = {c.name: c for c in characters}

    @lru_cache(maxsize=None)
    def split(standing):
        standing_characters = [c for c in characters if c.name in standing]
        if rule == "closest to half":
            board = Board(standing_characters[0].name, standing_characters)
            question = board.best_description(board.traits(), max_literals)
        else:
            traits = sorted({t for c in characters for t in c.traits})
            question = {min(traits, key=lambda t: abs(
                2 * sum(by_name[n].has(t) for n in standing) - len(standing))): True}
        inside = frozenset(n for n in standing if by_name[n].satisfies(question))
        return inside, standing - inside

    return split


def _policy_reference(characters, split, max_literals, opponent, guess_facing_last):
    """(b, o) over frozensets: b with the policy to move, o with the opponent to move."""
    described = _described_sets(characters, max_literals)

    @lru_cache(maxsize=None)
    def policy(mover, other):
        if len(mover) == 1 or (guess_facing_last and len(other) == 1):
            return len(other)
        return len(mover) * len(other) - sum(respond(other, side) for side in split(mover))

    @lru_cache(maxsize=None)
    def optimal(mover, other):
        options = [len(other)]
        for question in described:
            inside = mover & question
            if 0 < len(inside) < len(mover):
                options.append(len(mover) * len(other) - policy(other, inside)
                               - policy(other, mover - inside))
        return max(options)

    respond = policy if opponent == "self" else optimal
    return policy, respond


@pytest.mark.parametrize("rule, max_literals", [
    ("closest to half", 1), ("closest to half", 2), ("closest to half", None),
    ("binary search", 1)])
@pytest.mark.parametrize("opponent", OPPONENTS)
@pytest.mark.parametrize("guess_facing_last", [False, True])
def test_policies_match_frozenset_recursion(rule, max_literals, opponent, guess_facing_last):
    family = reachable_sets(SMALL_BOARD, max_literals)
    moves = (closest_to_half_moves(family, max_literals) if rule == "closest to half"
             else most_balanced_trait_moves(family))
    values = evaluate_policy(family, moves, opponent, guess_facing_last)
    split = _policy_split_reference(SMALL_BOARD, rule, max_literals)
    policy, respond = _policy_reference(SMALL_BOARD, split, max_literals, opponent,
                                        guess_facing_last)
    names = [frozenset(family.names(int(m))) for m in family.masks]
    for s_id, s_names in enumerate(names):
        if len(s_names) > 1:
            assert set(_moves_as_sets(family, s_id)[moves[s_id]]) == set(split(s_names))
        for t_id, t_names in enumerate(names):
            size = len(s_names) * len(t_names)
            assert values.policy_wins(s_id, t_id) == Fraction(policy(s_names, t_names), size)
            assert values.opponent_wins(t_id, s_id) == Fraction(respond(t_names, s_names),
                                                                size)


def test_policies_on_a_hand_checked_board():
    # Three characters with one trait each: every question splits 1 | 2, and the policies
    # differ from optimal play only in never guessing while two stand.  By hand, with
    # b = |S||T| p (policy to move) and o (opponent to move), sizes for sets:
    #   against the optimal player: o(1, m) = m; b(1, m) = m;
    #     b(2, 1) = 2 - o(1, 1) - o(1, 1) = 0 (the optimal player would guess: 1)
    #     o(2, 1) = max(1, 2 - b(1, 1) - b(1, 1)) = 1,  b(2, 2) = 4 - 2 o(2, 1) = 2
    #     o(2, 2) = max(2, 4 - 2 b(2, 1)) = 4,          o(3, 1) = max(1, 3 - 1 - 2) = 1
    #     o(3, 2) = max(2, 6 - b(2, 1) - b(2, 2)) = 4,  b(3, 3) = 9 - o(3, 1) - o(3, 2) = 4
    #     b(3, 1) = 3 - o(1, 1) - o(1, 2) = 0,          b(3, 2) = 6 - o(2, 1) - o(2, 2) = 1
    #     o(3, 3) = max(3, 9 - b(3, 1) - b(3, 2)) = 8
    #   against itself: b(2, 1) = 0, b(2, 2) = 4, b(3, 1) = 0, b(3, 2) = 6 - 0 - 4 = 2,
    #     b(3, 3) = 9 - 0 - 2 = 7
    # (optimal against optimal: O'Neill's a(3, 3) = 5).
    family = reachable_sets([Character(n, [t]) for n, t in [("a", "x"), ("b", "y"),
                                                            ("c", "z")]], 1)
    full = family.full
    assert solve_all(family).probability(full, full) == Fraction(5, 9)
    for moves in (closest_to_half_moves(family), most_balanced_trait_moves(family)):
        against_optimal = evaluate_policy(family, moves, "optimal")
        assert against_optimal.policy_wins(full, full) == Fraction(4, 9)
        assert against_optimal.opponent_wins(full, full) == Fraction(8, 9)
        against_itself = evaluate_policy(family, moves, "self")
        assert against_itself.policy_wins(full, full) == Fraction(7, 9)
        # Guessing when the opponent is down to one: b(2, 1) = 1 = a(2, 1), b(3, 1) = 1, and
        # the policies play optimally: 5/9 either way round.
        guessing = evaluate_policy(family, moves, "optimal", guess_facing_last=True)
        assert guessing.policy_wins(full, full) == guessing.opponent_wins(full, full) == (
            Fraction(5, 9))


# --- structure: O'Neill's recursion, sharding, the classic board, errors -----------------------


def _oneill(size, rules):
    """O'Neill's a_I / a_II(n, m) for 1 <= n, m <= size, from the paper's recursions."""
    a = {}
    for total in range(2, 2 * size + 1):
        for n in range(max(1, total - size), min(size, total - 1) + 1):
            m = total - n
            if n == 1:
                a[n, m] = m
            elif rules == "official":
                a[n, m] = max([m] + [n * m - a[m, s] - a[m, n - s] for s in range(1, n)])
            else:
                a[n, m] = max([n * m - a[m, n - 1]]
                              + [n * m - a[m, s] - a[m, n - s] for s in range(2, n)])
    return a


@pytest.mark.parametrize("rules", ["official", "variant"])
def test_every_split_available_gives_oneill(rules):
    # One unique trait per character and unlimited questions: "none of the traits outside
    # A" describes any subset A, so every split is available and a depends on sizes only.
    size = 7
    family = reachable_sets([Character(f"c{i}", [f"t{i}"]) for i in range(size)], None, rules)
    assert len(family) == 2**size - 1
    solution = solve_all(family)
    reference = _oneill(size, rules)
    s_ids, t_ids = np.meshgrid(np.arange(len(family)), np.arange(len(family)), indexing="ij")
    expected = np.vectorize(lambda s, t: reference[s, t])(family.sizes[s_ids],
                                                          family.sizes[t_ids])
    assert (solution.lookup(solution.index.global_index(s_ids, t_ids)) == expected).all()
    assert reference[7, 7] == solution.a(family.full, family.full)


def test_shards_of_a_level_agree_with_the_whole_level():
    family = reachable_sets(SMALL_BOARD, 2)
    solution = solve_all(family)
    index = solution.index
    for level in index.levels:
        size = index.level_size(level)
        s_ids, t_ids = index.pairs(level, 0, size)
        levels, positions = index.locate(s_ids, t_ids)
        assert (levels == level).all() and (positions == np.arange(size)).all()
        cuts = sorted({0, size, size // 3, size // 2 + 1})
        start = int(index.level_start[level])
        for lo, hi in zip(cuts, cuts[1:]):
            part = solve_pairs(family, index, level, lo, hi, solution.lookup)
            assert (part.values == solution.values[start + lo:start + hi]).all()
            assert (part.first_move == solution.first_move[start + lo:start + hi]).all()
    assert index.total == len(family) ** 2

    moves = closest_to_half_moves(family, 2)
    values = evaluate_policy(family, moves, "optimal")
    opponent = values.opponent_to_move.__getitem__
    for level in index.levels:
        size, start = index.level_size(level), int(index.level_start[level])
        for lo, hi in [(0, size // 2), (size // 2, size)]:
            part = policy_pairs(family, index, level, lo, hi, moves, opponent)
            assert (part == values.policy_to_move[start + lo:start + hi]).all()


def test_classic_board_reachable_sets_and_identifiable_characters():
    characters = classic_characters()
    family = reachable_sets(characters, 1)
    # At one literal per question the reachable sets are the non-empty sets that a
    # conjunction of literals describes.
    assert len(family) == 7064 and len(family.move_children) == 62325
    assert len(identifiable_characters(characters, 1)) == 0
    assert len(identifiable_characters(characters, 2)) == 21
    assert len(identifiable_characters(characters, 3)) == 23
    assert len(identifiable_characters(characters, None)) == 24
    with pytest.raises(InvalidInput, match="every one of the 16777215 non-empty subsets"):
        reachable_sets(characters, None)
    # The first question at the full board: every move comes with a description.
    moves = family.moves(family.full)
    assert len(moves) == 17  # 18 traits; sex=female and sex=male split alike
    assert family.describe_move(family.full, 0) == {"hair=ginger": True}


def test_optimal_questions_are_reported_as_descriptions():
    family = reachable_sets(SMALL_BOARD, 1)
    solution = solve_all(family)
    questions = solution.optimal_questions(family.full, family.full)
    position = solution.index.global_index(np.array([family.full]), np.array([family.full]))
    assert len(questions) == solution.optimal_moves[position[0]] > 0
    standing = {c.name for c in SMALL_BOARD}
    for question in questions:
        assert len(question) == 1
        inside = {c.name for c in SMALL_BOARD if c.satisfies(question)}
        assert 0 < len(inside & standing) < len(standing)
    variant = reachable_sets(SMALL_BOARD[:3], 1, "variant")
    named = [variant.describe_move(variant.full, i) for i in range(len(variant.moves(
        variant.full)))]
    assert [move for move in named if isinstance(move, str)] == ["Ada", "Bob", "Cy"]


@pytest.mark.parametrize("call, message", [
    (lambda: reachable_sets(SMALL_BOARD, 0), "at least one literal"),
    (lambda: reachable_sets(SMALL_BOARD, 1, "house"), "rules must be one of"),
    (lambda: reachable_sets(SMALL_BOARD, None, max_sets=10), "more than max_sets = 10"),
    (lambda: reachable_sets(SMALL_BOARD, 1, "variant", max_sets=100), "every one of the 127"),
    (lambda: reachable_sets([], 1), "no characters"),
    (lambda: reachable_sets([Character("a", ["x"]), Character("b", ["x"])], 1),
     "identical traits"),
    (lambda: reachable_sets(SMALL_BOARD, 1).id_of(0b11), "not reachable"),
    (lambda: PairIndex(reachable_sets(SMALL_BOARD, 1)).pairs(2, 0, 10**6), "out of range"),
    (lambda: closest_to_half_moves(reachable_sets(SMALL_BOARD, 1), 2), "at least that many"),
    (lambda: closest_to_half_moves(reachable_sets(SMALL_BOARD, 2), None), "at least that"),
    (lambda: evaluate_policy(reachable_sets(SMALL_BOARD, 1), None, "house"), "opponent must"),
    (lambda: evaluate_policy(reachable_sets(SMALL_BOARD[:3], 1, "variant"), None),
     "official rules only"),
])
def test_solver_errors(call, message):
    with pytest.raises(InvalidInput, match=message):
        call()


@pytest.mark.parametrize("max_literals", [1, 2, None])
def test_the_bitmap_count_agrees_with_the_enumeration(max_literals):
    assert count_reachable(SMALL_BOARD, max_literals) == \
        len(reachable_sets(SMALL_BOARD, max_literals).masks)
    if max_literals == 1:
        assert count_reachable(classic_characters(), 1) == 7064
