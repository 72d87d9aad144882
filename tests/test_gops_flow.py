"""The GOPS flow end to end: stored answers against the independent frozenset + HiGHS solver."""

from __future__ import annotations

import io
import json
from math import comb

import numpy as np
import pytest
import zarr
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.errors import NotComputed
from subgame.families.gops.game.level import GAP_LIMIT
from subgame.families.gops.game.patterns import stored_pattern_count
from subgame.families.gops.plan import GopsConfig, solve_gops_shard
from subgame.families.gops.play import play_session
from subgame.families.gops.read import first_move, query_state
from subgame.plan import PlanSize, ShardTask
from subgame.storage import ComputationStore
from tests import gops_reference as ref
from subgame.storage.integrity import scan
from tests.ops_helpers import corrupt_chunk, run_gops
from tests.store_compare import assert_stores_equal, tree_snapshot

N = 4
app = build_app()


@pytest.fixture(scope="module")
def store(tmp_path_factory, dask_scheduler):
    path = str(tmp_path_factory.mktemp("gops") / "store.zarr")
    report = run_gops(path, N, shard_states=20, scheduler=dask_scheduler)
    assert report["steps_computed"] == [f"j={j}" for j in range(1, N + 1)]
    return path




def test_every_stored_state_matches_reference(store):
    for v, y, p in ref.all_states(N):
        answer = query_state(store, N, v, y, p)
        assert answer["value"] == pytest.approx(ref.value(v, y, p), abs=1e-9)
        for k, expected in zip(p, ref.upcard_values(v, y, p)):
            assert answer["upcard_values"][str(k)] == pytest.approx(expected, abs=1e-9)
            payoff = ref.payoff(v, y, p, k)
            bids = answer["bids"][str(k)]
            assert ref.guarantees(bids["player_one"], payoff, expected, v, 1), (v, y, p, k)
            assert ref.guarantees(bids["player_two"], payoff, expected, y, 2), (v, y, p, k)


def test_root_value_zero_and_antisymmetry(store):
    full = list(range(1, N + 1))
    assert query_state(store, N, full, full, full)["value"] == pytest.approx(0, abs=1e-12)
    a = query_state(store, N, [1, 4], [2, 3], [3, 4])
    b = query_state(store, N, [2, 3], [1, 4], [4, 3])
    assert a["value"] == pytest.approx(-b["value"], abs=1e-12)
    assert a["bids"]["4"]["player_one"] == b["bids"]["4"]["player_two"]


def test_first_move_rows_are_distributions(store):
    table = np.array(first_move(store, N)["probability"])
    assert table.shape == (N, N)
    np.testing.assert_allclose(table.sum(axis=1), 1.0, atol=1e-6)


def test_resume_mid_level_recomputes_only_pending_shards(tmp_path):
    whole, resumed = str(tmp_path / "whole.zarr"), str(tmp_path / "resumed.zarr")
    run_gops(whole, 6, shard_states=40, executor="serial")
    run_gops(resumed, 6, shard_states=40, executor="serial", max_steps=2)
    config = GopsConfig(cards=6, strategies="all", shard_states=40)
    (stage,) = config.plan().stages
    level = stage.steps[2]
    assert level.shards > 2
    # A run killed inside level j=3 after one shard was written and marked.
    store = ComputationStore.open(resumed, config.group_path(), writable=True)
    solve_gops_shard(ShardTask(resumed, config.group_path(), config, level, 1), store)
    store.mark_done(level.index, 1)
    report = run_gops(resumed, 6, shard_states=40, executor="serial")
    later = sum(stage.steps[i].shards for i in range(3, 6))
    assert report["shards_computed"] == level.shards - 1 + later
    assert report["steps_computed"] == ["j=3", "j=4", "j=5", "j=6"]
    assert_stores_equal(whole, resumed)


def test_a_batch_of_shards_is_one_kernel_call_and_resumes_whole(tmp_path, monkeypatch):
    """Level 6 of N = 9 in shards of 500 states runs in batches of consecutive shards
    (``GopsConfig.level_batch``), the warm starts carried from shard to shard: a batch's
    values are those of one `solve_shard` call over all its decks, bit for bit.  A run
    killed inside a batch (here: its second shard solved alone, from no guesses, and
    marked) resumes by solving the whole batch again, to the uninterrupted run's store, bit
    for bit; the levels that a run without batches (as before them) finished stay
    finished."""
    from subgame.families.gops import game as gops
    from subgame.families.gops import plan

    options = {"strategies": "none", "shard_states": 500, "executor": "threads"}
    whole, resumed = str(tmp_path / "whole.zarr"), str(tmp_path / "resumed.zarr")
    run_gops(whole, 9, **options)
    config = GopsConfig(cards=9, strategies="none", shard_states=500)
    (stage,) = config.plan().stages
    level = stage.steps[5]
    assert level.batch > 1 and level.shards > 2 * level.batch
    assert config.kernel(6) == "compiled"  # the warm starts' kernel
    rows = config.shard_rows(6, stored_pattern_count(9, 6))
    p_lo, p_hi = level.batch * rows, 2 * level.batch * rows  # the second batch
    stored = ComputationStore.open(whole, config.group_path())
    layout = gops.level_layout(9, 6)
    ranks = gops.previous_rows(layout, p_lo, p_hi)
    one_call = gops.solve_shard(layout, stored.array("j5/values").oindex[ranks], p_lo, p_hi,
                                False, False, ranks)
    np.testing.assert_array_equal(stored.array("j6/values")[p_lo:p_hi], one_call.values)

    run_gops(resumed, 9, **options, max_steps=5)
    store = ComputationStore.open(resumed, config.group_path(), writable=True)
    second = level.batch + 1
    solve_gops_shard(ShardTask(resumed, config.group_path(), config, level, second), store)
    store.mark_done(level.index, second)
    alone = store.array("j6/values")[second * rows:(second + 1) * rows]
    assert not np.array_equal(alone, one_call.values[rows:2 * rows])  # its last bits
    report = run_gops(resumed, 9, **options)
    later = sum(step.shards for step in stage.steps[5:])
    assert report["shards_computed"] == later  # the marked shard's batch again
    assert_stores_equal(whole, resumed)

    older = str(tmp_path / "older.zarr")
    with monkeypatch.context() as before_batches:
        before_batches.setattr(plan, "MIN_BATCHES", 10**6)  # every batch one shard
        run_gops(older, 9, **options, max_steps=5)
    report = run_gops(older, 9, **options)
    assert report["shards_computed"] == later
    for j in range(1, 10):
        np.testing.assert_allclose(ComputationStore.open(older, config.group_path()).array(
            f"j{j}/values")[...], stored.array(f"j{j}/values")[...], rtol=0, atol=GAP_LIMIT)


def test_strategies_top_k_bounds_the_disk(tmp_path):
    path = str(tmp_path / "s.zarr")
    run_gops(path, 5, strategies="top:2", executor="serial")
    group = zarr.open_group(path, mode="r")["gops/N5"]
    assert [f"j{j}/strategies" in group for j in range(1, 6)] == [False] * 3 + [True] * 2
    assert query_state(path, 5, [1, 2], [3, 4], [1, 5])["bids"] is None
    assert query_state(path, 5, [1, 2, 3, 4], [2, 3, 4, 5], [1, 2, 3, 5])["bids"] is not None
    status = ComputationStore.open(path, "gops/N5").status()
    sizes = [step["bytes_on_disk"] for step in status["steps"]]
    assert all(size > 0 for size in sizes)


def test_upcard_values_top_k_stores_the_same_values_and_only_the_top_f_k(tmp_path):
    lean, full = str(tmp_path / "lean.zarr"), str(tmp_path / "full.zarr")
    run_gops(lean, 5, upcard_values="top:2", shard_states=30, executor="serial")
    run_gops(full, 5, strategies="none", shard_states=30, executor="serial")
    lean_group, full_group = (zarr.open_group(path, mode="r")["gops/N5"]
                              for path in (lean, full))
    assert [f"j{j}/upcard_values" in lean_group for j in range(1, 6)] == [False] * 3 + [True] * 2
    for j in range(1, 6):
        names = ("values", "upcard_values") if j > 3 else ("values",)
        for name in names:
            np.testing.assert_array_equal(lean_group[f"j{j}/{name}"][...],
                                          full_group[f"j{j}/{name}"][...])
    # The plan's new data (what --dry-run and the fit check count) lacks exactly the f_k of
    # levels 1..3 (C(5, j) decks x stored patterns x j upcards x 8 bytes) and their upcard
    # labels (j x 8 bytes).
    sizes = {path: PlanSize.of(GopsConfig(5, "none", 30, upcard_values=setting).plan()).bytes
             for path, setting in ((lean, "top:2"), (full, "all"))}
    assert sizes[full] - sizes[lean] == sum(
        (comb(5, j) * stored_pattern_count(5, j) + 1) * j * 8 for j in (1, 2, 3))

    # A level without f_k answers its value; asking for an upcard's f_k is refused in one
    # line that names the option and still gives the value.
    v, y, p = (1, 4), (2, 5), (3, 5)
    answer = query_state(lean, 5, v, y, p)
    assert answer["upcard_values"] is None and set(answer["bids"]) == {"3", "5"}
    assert answer["value"] == pytest.approx(ref.value(v, y, p), abs=1e-9)
    shown = CliRunner().invoke(app, ["query", "gops", "--cards", "5", "--hand", "1,4",
                                     "--opponent", "2,5", "--prizes", "3,5", "--store", lean])
    assert shown.exit_code == 0 and "not stored at this level" in shown.output
    refused = CliRunner().invoke(app, ["query", "gops", "--cards", "5", "--hand", "1,4",
                                       "--opponent", "2,5", "--prizes", "3,5", "--upcard",
                                       "5", "--store", lean])
    assert refused.exit_code == 2 and len(refused.output.strip().splitlines()) == 1
    assert "--upcard-values" in refused.output
    assert f"f = {answer['value']:.12g}" in refused.output
    top = query_state(lean, 5, (1, 2, 3, 4), (2, 3, 4, 5), (1, 2, 3, 5), upcard=5)
    assert top["upcard_values"]["5"] == pytest.approx(
        ref.upcard_values((1, 2, 3, 4), (2, 3, 4, 5), (1, 2, 3, 5))[3], abs=1e-9)

    # play shows f_k every round: it refuses before the first round.
    with pytest.raises(NotComputed, match="--upcard-values all"):
        play_session(lean, 5, "points", 0, io.StringIO("1\n"), print)

    # The setting is part of the identity: the other setting is refused, "all" is the
    # identity stores had before the option (no key).
    clash = CliRunner().invoke(app, ["run", "gops", "--cards", "5", "--shard-states", "30",
                                     "--store", lean])
    assert clash.exit_code == 2 and len(clash.output.strip().splitlines()) == 1
    assert "upcard_values: stored 'top:2', requested the default" in clash.output
    assert "upcard_values" not in GopsConfig(5).identity()


@pytest.mark.parametrize("args, message", [
    (["--hand", "1,2", "--opponent", "3", "--prizes", "1,2"], "equal sizes"),
    (["--hand", "1,1", "--opponent", "3,4", "--prizes", "1,2"], "duplicate"),
    (["--hand", "1,9", "--opponent", "3,4", "--prizes", "1,2"], "outside 1..4"),
    (["--hand", "1,x", "--opponent", "3,4", "--prizes", "1,2"], "comma-separated"),
    (["--hand", "1,2", "--opponent", "3,4", "--prizes", "1,2", "--upcard", "3"], "not in the prizes"),
    (["--hand", "1,2"], "give --hand, --opponent and --prizes"),
])
def test_bad_queries_exit_nonzero_with_one_line(store, args, message):
    before = tree_snapshot(store)
    result = CliRunner().invoke(app, ["query", "gops", "--cards", str(N), "--store", store,
                                      *args])
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert tree_snapshot(store) == before


def test_query_cli_json(store):
    result = CliRunner().invoke(app, ["query", "gops", "--cards", str(N), "--hand", "1,3",
                                      "--opponent", "2,4", "--prizes", "3,4", "--upcard", "4",
                                      "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    expected = ref.upcard_values((1, 3), (2, 4), (3, 4))[1]
    assert answer["upcard_values"] == {"4": pytest.approx(expected, abs=1e-9)}
    assert set(answer["bids"]["4"]) == {"player_one", "player_two"}


def test_corrupted_chunk_is_found_and_only_its_shard_recomputed(tmp_path):
    whole, damaged = str(tmp_path / "whole.zarr"), str(tmp_path / "damaged.zarr")
    for path in (whole, damaged):
        run_gops(path, 6, shard_states=40, executor="serial")
    corrupt_chunk(damaged, "gops/N6", "j3/upcard_values", (2, 0, 0))
    (found,) = scan(damaged, "gops/N6")
    assert (found.array, found.step, found.shard) == ("j3/upcard_values", 2, 2)
    report = run_gops(damaged, 6, shard_states=40, executor="serial", repair=True)
    assert report["shards_computed"] == 1 and report["steps_computed"] == ["j=3"]
    assert_stores_equal(whole, damaged)
