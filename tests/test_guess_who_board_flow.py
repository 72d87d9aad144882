"""Guess Who on a real board, end to end: the pipeline's stored values on a 7-character board
against a plain frozenset recursion written here, serial against Dask, resume after a stop
and after SIGKILL, a repaired chunk, the query, and refusals that leave the store alone."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, product

import pytest
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.families.guess_who_board.game import PairIndex
from subgame.families.guess_who_board.plan import BoardConfig
from subgame.families.guess_who_board.tables import level_path, stored_family
from subgame.flows.run import run_flow
from subgame.options import RunOptions
from subgame.storage import ComputationStore
from tests.ops_helpers import (corrupt_chunk, finish, kill_after_steps, one_line_refusal,
                               subgame, subprocess_env)
from tests.store_compare import assert_results_equal, assert_stores_equal, tree_snapshot

BOARD = """name,hat,glasses,beard,hair
Anne,1,0,0,red
Bert,0,1,1,black
Clara,1,1,0,black
Dirk,0,0,1,blond
Eva,1,0,1,blond
Frank,0,1,0,red
Gina,0,0,0,black
"""
SHARD_PAIRS = 60  # several shards in the larger levels
app = build_app()


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("board") / "seven.csv"
    path.write_text(BOARD)
    return str(path)


def run_board(store: str, board: str, **options) -> dict:
    family = {key: options.pop(key) for key in ("rules", "max_literals", "shard_pairs")
              if key in options}
    (report,) = run_flow("guess-who-board", {"board": board, "shard_pairs": SHARD_PAIRS,
                                             **family}, RunOptions(store, **options))
    return report


@pytest.fixture(scope="module")
def reference(tmp_path_factory, board) -> str:
    path = str(tmp_path_factory.mktemp("reference") / "store.zarr")
    run_board(path, board, executor="serial")
    return path


# -- the plain recursion, independent of the package's bitmasks and numbering ---------------------
def traits_of() -> dict[str, frozenset[str]]:
    rows = [line.split(",") for line in BOARD.strip().splitlines()]
    header, found = rows[0], {}
    for row in rows[1:]:
        found[row[0]] = frozenset(
            [column for column, cell in zip(header[1:4], row[1:4]) if cell == "1"]
            + [f"hair={row[4]}"])
    return found


def plain_solver(max_literals: int, rules: str):
    traits = traits_of()
    every = sorted(set().union(*traits.values()))
    questions = {frozenset(name for name, has in traits.items()
                           if all((t in has) == sign for t, sign in zip(chosen, signs)))
                 for k in range(1, max_literals + 1) for chosen in combinations(every, k)
                 for signs in product((True, False), repeat=k)}

    @lru_cache(maxsize=None)
    def a(S: frozenset, T: frozenset) -> int:
        if len(S) == 1:
            return len(T)
        options = [len(S) * len(T) - a(T, S & q) - a(T, S - q)
                   for q in questions if S & q and S - q]
        if rules == "official":
            options.append(len(T))  # the final guess
        else:
            options += [len(S) * len(T) - a(T, S - {c}) for c in S]  # naming c
        return max(options)

    return a


def stored_values(store: str, board: str, **config) -> dict[tuple[frozenset, frozenset], int]:
    config = BoardConfig(board=board, shard_pairs=SHARD_PAIRS, **config)
    computation = ComputationStore.open(store, config.group_path())
    family = stored_family(computation, config)
    index = PairIndex(family)
    values = {}
    for level in index.levels:
        if index.level_size(level):
            s_ids, t_ids = index.pairs(level, 0, index.level_size(level))
            a = computation.array(level_path(level, "a"))[...]
            for s, t, value in zip(s_ids.tolist(), t_ids.tolist(), a.tolist()):
                values[frozenset(family.names(int(family.masks[s]))),
                       frozenset(family.names(int(family.masks[t])))] = value
    return values


def test_stored_values_equal_the_plain_recursion(reference, board):
    a = plain_solver(1, "official")
    values = stored_values(reference, board)
    assert len(values) == 37 ** 2  # 37 reachable sets on this board
    assert all(a(S, T) == value for (S, T), value in values.items())
    full = frozenset(traits_of())
    assert values[full, full] == 27  # p = 27/49


@pytest.mark.parametrize("max_literals, rules", [(2, "official"), (1, "variant")])
def test_other_question_limits_and_rules(tmp_path, board, max_literals, rules):
    store = str(tmp_path / "s.zarr")
    # Every subset is reachable here (127 sets): larger shards keep the run short.
    run_board(store, board, executor="serial", max_literals=max_literals, rules=rules,
              shard_pairs=4000)
    a = plain_solver(max_literals, rules)
    values = stored_values(store, board, max_literals=max_literals, rules=rules)
    assert values and all(a(S, T) == value for (S, T), value in values.items())


def test_dask_equals_serial(tmp_path, reference, board, dask_scheduler):
    store = str(tmp_path / "dask.zarr")
    report = run_board(store, board, scheduler=dask_scheduler)
    assert report["steps_computed"][0] == "reachable"
    assert_stores_equal(reference, store)


def test_stopped_run_resumes_then_a_damaged_chunk_is_repaired(tmp_path, reference, board):
    store = str(tmp_path / "s.zarr")
    first = run_board(store, board, executor="serial", max_steps=5)
    assert first["steps_computed"] == ["reachable", "L=2", "L=3", "L=4", "L=5"]
    second = run_board(store, board, executor="serial")
    assert second["steps_skipped"] == 5 and "L=6" in second["steps_computed"]
    assert_stores_equal(reference, store)
    assert run_board(store, board, executor="serial")["steps_computed"] == []
    # A flipped byte in level 8's second chunk: --repair recomputes exactly its shard.
    group = BoardConfig(board=board, shard_pairs=SHARD_PAIRS).group_path()
    corrupt_chunk(store, group, level_path(8, "a"), (1,))
    repaired = run_board(store, board, executor="serial", repair=True)
    assert repaired["shards_computed"] == 1 and repaired["steps_computed"] == ["L=8"]
    assert_stores_equal(reference, store)


def test_killed_run_resumes_to_the_same_store(tmp_path, reference, board):
    store, env = str(tmp_path / "s.zarr"), subprocess_env(tmp_path)
    group = BoardConfig(board=board, shard_pairs=SHARD_PAIRS).group_path()
    args = ("run", "guess-who-board", "--board", board, "--shard-pairs", str(SHARD_PAIRS),
            "--store", store, "--executor", "serial", "--json")
    seen = kill_after_steps(args, env, store, group, 8)
    code, (report,), err = finish(subgame(*args, env=env))
    assert code == 0, err
    assert report["steps_skipped"] == len(seen.finished)
    assert report["shards_computed"] >= seen.pending_shards  # later stages: built now
    assert_stores_equal(reference, store)


def test_query_json(reference, board):
    result = CliRunner().invoke(app, ["query", "guess-who-board", "--board", board,
                                      "--standing", "Anne,Clara,Eva", "--opponent-standing",
                                      "Bert,Gina", "--store", reference, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    a = plain_solver(1, "official")
    S, T = frozenset({"Anne", "Clara", "Eva"}), frozenset({"Bert", "Gina"})
    p = Fraction(a(S, T), len(S) * len(T))
    assert answer["p"] == f"{p.numerator}/{p.denominator}" and answer["a"] == a(S, T)
    assert answer["optimal_questions"] == [{"hair=red": True}, {"hair=black": True},
                                           {"hair=blond": True}]
    assert answer["closest_to_half"] == {"hair=red": True}
    first = json.loads(CliRunner().invoke(app, ["query", "guess-who-board", "--board", board,
                                                "--store", reference, "--json"]).output)
    assert first["p"] == "27/49" and set(first["policies"]) == {"closest_half",
                                                                "trait_search"}


def test_verify_passes(reference, board):
    result = CliRunner().invoke(app, ["verify", "guess-who-board", "--board", board,
                                      "--store", reference, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["mismatches"] == 0



@pytest.mark.parametrize("text, message", [
    ("name,hat\nA,1\nB,1\n", "identical traits"),
    ("name,hat\nA,1\nA,0\n", "A"),
    ("name,height\nA,180\nB,175\n", "height"),
    ("", "empty"),
])
def test_bad_board_files_are_refused_and_the_store_is_untouched(tmp_path, reference, text,
                                                                 message):
    bad = tmp_path / "bad.csv"
    bad.write_text(text)
    before = tree_snapshot(reference)
    one_line_refusal(CliRunner().invoke(app, ["run", "guess-who-board", "--board", str(bad),
                                              "--store", reference]), message)
    assert tree_snapshot(reference) == before


@pytest.mark.parametrize("extra, message", [
    (["--standing", "Anne,Zed"], "unknown character 'Zed'"),
    (["--standing", "Anne,Bert"], "not reachable"),
    (["--rules", "variant"], "run `subgame run guess-who-board"),
])
def test_bad_queries_are_refused(reference, board, extra, message):
    before = tree_snapshot(reference)
    one_line_refusal(CliRunner().invoke(app, ["query", "guess-who-board", "--board", board,
                                              "--store", reference, *extra]), message)
    assert tree_snapshot(reference) == before


def test_boards_that_do_not_fit_are_refused(tmp_path):
    store = tmp_path / "s.zarr"
    one_line_refusal(CliRunner().invoke(app, ["run", "guess-who-board", "--max-literals", "2",
                                              "--store", str(store)]), "reachable sets")
    assert not store.exists()


@pytest.mark.parametrize("damage", ["garbage", "deleted"])
def test_a_later_stage_array_lost_is_found_and_repaired(tmp_path, reference, board, damage):
    """A policy table (a later stage's array, recorded in the store, not in the plan up
    front) with garbage for its metadata, or gone: verify exit 3 naming it, --repair writes
    it back from the recorded spec (garbage: its chunks pass and are kept) or recomputes it."""
    import shutil
    from pathlib import Path

    store = tmp_path / "s.zarr"
    shutil.copytree(reference, store)
    group = BoardConfig(board=board, shard_pairs=SHARD_PAIRS).group_path()
    attrs = json.loads((store / group / "zarr.json").read_text())["attributes"]
    path = next(spec["path"] for spec in attrs["built_stages"]["trait-search"]["arrays"]
                if spec["path"].endswith("optimal_vs"))
    target = Path(store, group, path)
    if damage == "garbage":
        (target / "zarr.json").write_bytes(bytes(range(256)) * 3)
    else:
        shutil.rmtree(target)
    verified = CliRunner().invoke(app, ["verify", "--store", str(store), "--json"])
    assert verified.exit_code == 3
    assert [d["array"] for d in json.loads(verified.stdout)["damaged"]] == [path]
    repaired = run_board(str(store), board, executor="serial", repair=True)
    assert (repaired["shards_computed"] == 0) == (damage == "garbage")
    assert_results_equal(reference, str(store))
    assert CliRunner().invoke(app, ["verify", "--store", str(store)]).exit_code == 0
