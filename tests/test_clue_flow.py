"""Clue tournaments end to end: the store under both executors, after a stop and after a
SIGKILL, grown with more games; queries against the kernel run directly; the table tool
`clue infer` against brute force; bad input refused in one line with the store untouched."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.families.clue.game import merge, simulate_batch
from subgame.families.clue.plan import BATCH_GAMES, ClueConfig
from subgame.flows.run import run_flow
from subgame.options import RunOptions
from tests.ops_helpers import (finish, kill_after_steps, one_line_refusal, subgame,
                               subprocess_env)
from tests.store_compare import assert_results_equal, assert_stores_equal, tree_snapshot
from tests.test_clue_inference import brute_force

# Four points, five batches (the last one partial); "core" sits twice at p = 3.
GRID = dict(players="2,3", cards_per_player="2", hidden="1,2", lineup="core,history-1/2",
            seed=7)
GAMES = 450
GROUP = ClueConfig(**GRID).group_path()
BATCHES, POINTS = -(-GAMES // BATCH_GAMES), 4
RUN_ARGS = ("run", "clue", "--players", "2,3", "--cards-per-player", "2", "--hidden", "1,2",
            "--lineup", "core,history-1/2", "--seed", "7", "--games", str(GAMES))
app = build_app()


def clue(store: str, games: int = GAMES, **options) -> dict:
    (report,) = run_flow("clue", {**GRID, "games": games}, RunOptions(store, **options))
    return report


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("clue") / "store.zarr")
    report = clue(path, executor="serial")
    assert report["steps_computed"] == [*(f"batch {b}" for b in range(BATCHES)), "aggregate"]
    assert report["shards_computed"] == (BATCHES + 1) * POINTS
    return path


def test_dask_and_serial_stores_are_equal(tmp_path, reference, dask_scheduler):
    store = str(tmp_path / "s.zarr")
    clue(store, scheduler=dask_scheduler)
    assert_stores_equal(reference, store)


def test_stopped_run_resumes_to_the_same_store(tmp_path, reference):
    store = str(tmp_path / "s.zarr")
    assert clue(store, executor="serial", max_steps=2)["steps_computed"] == ["batch 0", "batch 1"]
    resumed = clue(store, executor="serial")
    assert resumed["steps_skipped"] == 2
    assert resumed["steps_computed"] == [*(f"batch {b}" for b in range(2, BATCHES)), "aggregate"]
    assert_stores_equal(reference, store)


def test_killed_cli_run_resumes_to_the_same_store(tmp_path, reference):
    store, env = str(tmp_path / "s.zarr"), subprocess_env(tmp_path)
    seen = kill_after_steps((*RUN_ARGS, "--store", store, "--executor", "serial", "--json"),
                            env, store, GROUP, 1)
    assert 1 <= len(seen.finished) < BATCHES
    code, reports, err = finish(subgame(*RUN_ARGS, "--store", store, "--executor", "serial",
                                        "--json", env=env))
    assert code == 0, err
    assert reports[0]["steps_skipped"] == len(seen.finished)
    assert_stores_equal(reference, store)


def test_more_games_compute_only_the_new_batches(tmp_path, reference):
    store = str(tmp_path / "s.zarr")
    clue(store, games=250, executor="serial")             # batches 0, 1 and a half batch 2
    grown = clue(store, games=GAMES, executor="serial")
    # batch 2 held 50 games and now holds 100: recomputed with the new ones
    assert grown["steps_computed"] == ["batch 2", "batch 3", "batch 4", "aggregate"]
    assert grown["steps_skipped"] == 2
    assert_stores_equal(reference, store)
    assert clue(store, games=250, executor="serial")["steps_computed"] == []  # covered


def kernel_totals(players: int, per_player: int, hidden: int) -> dict[str, dict]:
    """The point's batches played by the kernel directly, counted per strategy."""
    seats = ["core", "history-1/2", "core"][:players]
    total = merge(simulate_batch(seats, players, per_player, hidden,
                                 min(BATCH_GAMES, GAMES - b * BATCH_GAMES),
                                 np.random.SeedSequence(GRID["seed"],
                                                        spawn_key=(players, per_player,
                                                                   hidden, b)))
                  for b in range(BATCHES))
    by_name = {}
    for name in dict.fromkeys(seats):
        entries = [e for e, seat in enumerate(seats) if seat == name]
        by_name[name] = {key: total[key][entries].sum(axis=0) for key in total}
    return by_name


@pytest.mark.parametrize("point", [(3, 2, 1), (2, 2, 2)])
def test_query_matches_the_kernel_run_directly(reference, point):
    p, k, h = point
    result = CliRunner().invoke(app, ["query", "clue", "--players", str(p),
                                      "--cards-per-player", str(k), "--hidden", str(h),
                                      "--store", reference, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["games"] == GAMES
    for name, counts in kernel_totals(p, k, h).items():
        row = answer["strategies"][name]
        assert row["ranks"] == counts["rank_counts"].tolist()
        assert row["first"] == counts["first_places"]
        assert row["wrong"] == counts["wrong_guesses"]
        if counts["guesses"]:
            assert row["mean_guess_round"] == pytest.approx(
                counts["guess_round_sum"] / counts["guesses"], rel=1e-12)
        else:  # a two-player game ends when the other player guesses
            assert row["mean_guess_round"] is None
        assert sum(row["ranks"]) == counts["games"] == GAMES * (2 if name == "core" and p == 3
                                                                else 1)


def test_plot_writes_the_heatmaps_and_the_accuracy_figure(tmp_path, reference):
    result = CliRunner().invoke(app, ["plot", "clue", "--store", reference, "--out",
                                      str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    files = json.loads(result.output)["files"]
    # two strategies x two hidden counts, then the accuracy figure
    assert len(files) == 5 and all((tmp_path / f.split("/")[-1]).stat().st_size for f in files)


# -- the table tool ------------------------------------------------------------------------
VIEW = {"cards": 9, "hidden": 1, "players": 4, "me": 0, "hand": [1, 5],
        "history": [{"asker": 0, "target": 1, "cards": [2, 3, 4], "shown": 3},
                    {"asker": 1, "target": 2, "cards": [1, 2], "shown": True},
                    {"asker": 2, "target": 1, "cards": [7, 8], "shown": False},
                    {"revealed": 3, "hand": [6, 7]}]}


def infer(tmp_path, view, *extra: str):
    path = tmp_path / "view.json"
    path.write_text(view if isinstance(view, str) else json.dumps(view))
    return CliRunner().invoke(app, ["clue", "infer", "--game", str(path), *extra])


def test_infer_matches_brute_force(tmp_path):
    result = infer(tmp_path, VIEW, "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    deals, p_hidden, best, p_best = brute_force(VIEW)
    assert answer["deals"] == str(deals)
    assert answer["p_hidden"] == {str(c): f"{p.numerator}/{p.denominator}"
                                  for c, p in p_hidden.items()}
    assert answer["best"] == best and answer["p_best"] == f"{p_best.numerator}/{p_best.denominator}"
    table = infer(tmp_path, VIEW)
    assert table.exit_code == 0 and f"{deals} consistent deals" in table.output



@pytest.mark.parametrize("view, message", [
    ("{not json", "is not valid JSON"),
    ([1, 2], "a view must be a JSON object"),
    ({**VIEW, "hand": [1]}, "hand must hold 2 cards"),
    ({**VIEW, "cards": 10}, "do not split evenly"),
    ({**VIEW, "history": [{"asker": 0, "target": 0, "cards": [2], "shown": False}]},
     "cannot interrogate itself"),
    ({**VIEW, "history": [*VIEW["history"], {"asker": 1, "target": 2, "cards": [2, 4],
                                             "shown": False}]}, "history[4] is impossible"),
])
def test_infer_refuses_bad_views_in_one_line(tmp_path, view, message):
    one_line_refusal(infer(tmp_path, view), message)


def test_infer_refuses_an_unreadable_file(tmp_path):
    one_line_refusal(CliRunner().invoke(app, ["clue", "infer", "--game",
                                              str(tmp_path / "missing.json")]), "cannot read")


# -- bad grids -----------------------------------------------------------------------------
@pytest.mark.parametrize("change, message", [
    ({"--players": "1,3"}, "--players takes"),
    ({"--players": "3,x"}, "--players takes"),
    ({"--hidden": "0"}, "--hidden takes"),
    ({"--cards-per-player": ""}, "--cards-per-player takes"),
    ({"--lineup": "core,history-1/2,random"}, "does not fit a table of 2 players"),
    ({"--lineup": "core,psychic"}, "--lineup takes"),
    ({"--games": "0"}, "--games must be"),
])
def test_bad_grids_are_refused_and_the_store_is_untouched(reference, change, message):
    before = tree_snapshot(reference)
    options = dict(zip(RUN_ARGS[2::2], RUN_ARGS[3::2]))
    args = [part for flag, value in {**options, **change}.items() for part in (flag, value)]
    one_line_refusal(CliRunner().invoke(app, ["run", "clue", *args, "--store", reference,
                                              "--executor", "serial"]), message)
    assert tree_snapshot(reference) == before


def test_query_of_a_point_outside_the_grid_is_refused(reference):
    one_line_refusal(CliRunner().invoke(app, ["query", "clue", "--players", "5",
                                              "--cards-per-player", "2", "--hidden", "1",
                                              "--store", reference]), "no finished clue")


@pytest.mark.parametrize("damage", [b"garbage", b"edited"])
def test_damaged_marker_metadata_is_found_and_repaired(tmp_path, reference, damage):
    """A marker array's document edited (an unknown field) or garbage: verify exit 3
    naming it; --repair writes it back (one uint8 chunk per shard) and keeps its chunks."""
    import shutil
    from pathlib import Path

    store = tmp_path / "s.zarr"
    shutil.copytree(reference, store)
    document = Path(store, GROUP, "_markers", "00003", "zarr.json")
    document.write_bytes(bytes(range(256)) * 3 if damage == b"garbage" else
                         document.read_bytes().replace(b'"chunk_grid"', b'"chunk\x7fgrid"'))
    verified = CliRunner().invoke(app, ["verify", "--store", str(store), "--json"])
    assert verified.exit_code == 3
    assert [d["array"] for d in json.loads(verified.stdout)["damaged"]] == ["_markers/00003"]
    assert clue(str(store), executor="serial", repair=True)["shards_computed"] == 0
    assert_results_equal(reference, str(store))
    assert CliRunner().invoke(app, ["verify", "--store", str(store)]).exit_code == 0
