"""GOPS under the win objective, end to end: the pipeline's store against the explicit-set
recursion with HiGHS (tests/gops_reference.py, diff=d), the reductions that hold and the
ones that do not, resume after a kill, and the points stores left exactly as they were.

    f(V, Y, P, d) = (1/j) sum_k val(X^k),  X^k[i, l] = f(V - V_i, Y - Y_l, P - P_k,
                                                        d + sign(V_i - Y_l) P_k),
    f = sign(d) at j = 0.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import zarr
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.families.gops.game import (answer, level_layout, locate, saturated_answer,
                                        solve_levels)
from subgame.families.gops.plan import GopsConfig, solve_gops_shard
from subgame.families.gops.read import query_state
from subgame.plan import ShardTask
from subgame.storage import ComputationStore
from subgame.storage.integrity import scan
from tests import gops_reference as ref
from tests.ops_helpers import corrupt_chunk, run_gops
from tests.store_compare import assert_stores_equal

N = 4
app = build_app()


@pytest.fixture(scope="module")
def store(tmp_path_factory, dask_scheduler):
    path = str(tmp_path_factory.mktemp("gops_win") / "store.zarr")
    report = run_gops(path, N, objective="win", shard_states=60, scheduler=dask_scheduler)
    assert report["steps_computed"] == [f"j={j}" for j in range(1, N + 1)]
    return path




def stored_answers(store: str):
    """(V, Y, P, d) -> the stored answer, arrays read once: the pure functions the reader
    uses (locate, answer, saturated_answer) on the pipeline's arrays."""
    group = zarr.open_group(store, mode="r")[f"gops/N{N}-win"]
    levels = {j: {name: group[f"j{j}/{name}"][...] for name in
                  ("values", "upcard_values", "strategies", "strategies_two")}
              for j in range(1, N + 1)}

    def read(v, y, p, d):
        where = locate(N, v, y, p, d)
        if where.saturated:
            return saturated_answer(where, True)
        arrays = levels[where.level]
        at = (where.p_rank, where.diff + (arrays["values"].shape[1] - 1) // 2, where.pattern)
        return answer(where, *(arrays[name][at] for name in
                               ("values", "upcard_values", "strategies", "strategies_two")))

    return read


def test_every_state_matches_the_reference_and_both_strategies_are_optimal(store):
    read = stored_answers(store)
    checked = 0
    for v, y, p in ref.all_states(N):
        for d in ref.reachable_diffs(N, p):
            found = read(v, y, p, d)
            assert found.value == pytest.approx(ref.value(v, y, p, d), abs=1e-9)
            for k, expected in zip(p, ref.upcard_values(v, y, p, d)):
                assert found.upcard_values[k] == pytest.approx(expected, abs=1e-9)
                payoff = ref.payoff(v, y, p, k, d)
                one = {str(c): q for c, q in found.bids_one[k].items()}
                two = {str(c): q for c, q in found.bids_two[k].items()}
                assert ref.guarantees(one, payoff, expected, v, 1), (v, y, p, d, k)
                assert ref.guarantees(two, payoff, expected, y, 2), (v, y, p, d, k)
            if checked % 25 == 0:  # and through the reader itself
                via_query = query_state(store, N, v, y, p, objective="win", diff=d)
                assert via_query["value"] == found.value
                assert via_query["bids"][str(p[0])]["player_one"] == {
                    str(c): q for c, q in found.bids_one[p[0]].items()}
            checked += 1
    assert checked == 3785


def test_reductions_that_hold_and_those_that_do_not():
    """In the reference (no reductions used): antisymmetry f(Y, V, P, -d) = -f(V, Y, P, d);
    saturation f = sign(d) when |d| > sum(P).  f(V, V, P, d) = 0 holds only at d = 0."""
    for v, y, p in ref.all_states(N):
        for d in ref.reachable_diffs(N, p):
            f = ref.value(v, y, p, d)
            assert f == pytest.approx(-ref.value(y, v, p, -d), abs=1e-9)
            if abs(d) > sum(p):
                assert f == np.sign(d)
    assert ref.value((1, 2), (1, 2), (1, 2), 0) == pytest.approx(0, abs=1e-12)
    assert ref.value((1, 2), (1, 2), (1, 2), 1) != pytest.approx(0, abs=1e-3)


def test_pattern_reduction_holds_in_the_reference():
    """f(V, Y, P, d) depends on (V, Y) only through their interleaving (N = 4, level 2)."""
    by_pattern: dict = {}
    for v, y, p in ref.all_states(N):
        if len(p) != 2:
            continue
        for d in (-2, 0, 3):
            key = (locate(N, v, y, p).pattern, locate(N, v, y, p).sign, p, d)
            by_pattern.setdefault(key, []).append(ref.value(v, y, p, d))
    assert all(max(vs) - min(vs) < 1e-9 for vs in by_pattern.values())
    assert any(len(vs) > 1 for vs in by_pattern.values())


def test_root_zero_and_stored_antisymmetry(store):
    full = list(range(1, N + 1))
    root = query_state(store, N, full, full, full, objective="win")
    assert root["value"] == pytest.approx(0, abs=1e-12)
    assert all(v == pytest.approx(0, abs=1e-12) for v in root["upcard_values"].values())
    a = query_state(store, N, [1, 4], [2, 3], [3, 4], objective="win", diff=1)
    b = query_state(store, N, [2, 3], [1, 4], [4, 3], objective="win", diff=-1)
    assert a["value"] == pytest.approx(-b["value"], abs=1e-12)
    assert a["bids"]["4"]["player_one"] == b["bids"]["4"]["player_two"]
    # V = Y is stored for every d: antisymmetric in d, not 0.
    values = zarr.open_group(store, mode="r")[f"gops/N{N}-win/j2/values"][...]
    layout = level_layout(N, 2, "win")
    sym = values[:, :, layout.symmetric]
    for r in range(layout.n_p):
        reach = layout.reach[r]
        middle = layout.diff_max
        row = sym[r, middle - reach: middle + reach + 1]
        np.testing.assert_allclose(row, -row[::-1], atol=1e-12)
    assert np.abs(sym[~np.isnan(sym)]).max() > 0.1


def test_saturated_and_unreachable_cells(store):
    """Stored cells with |d| > sum(P) hold sign(d) (values, f_k, uniform bids); cells with
    |d| beyond the points played are NaN; queries answer the first, refuse the second."""
    group = zarr.open_group(store, mode="r")[f"gops/N{N}-win"]
    for j in range(1, N + 1):
        layout = level_layout(N, j, "win")
        values = group[f"j{j}/values"][...]
        upcards = group[f"j{j}/upcard_values"][...]
        strategies = group[f"j{j}/strategies"][...]
        total = N * (N + 1) // 2
        for r, deck in enumerate(layout.decks.tolist()):
            for d in range(-layout.diff_max, layout.diff_max + 1):
                cell = values[r, d + layout.diff_max]
                if abs(d) > sum(deck):
                    assert np.all(cell == np.sign(d)), (j, deck, d)
                    assert np.all(upcards[r, d + layout.diff_max] == np.sign(d))
                    np.testing.assert_allclose(strategies[r, d + layout.diff_max], 1 / j)
                elif abs(d) > total - sum(deck):
                    assert np.all(np.isnan(cell))
                else:
                    assert not np.any(np.isnan(cell))
    answer = query_state(store, N, [1], [2], [1], objective="win", diff=-5)
    assert answer["value"] == -1 and answer["upcard_values"] == {"1": -1.0}
    assert answer["bids"]["1"]["player_one"] == {"1": 1.0}
    with pytest.raises(Exception, match="unreachable"):
        query_state(store, N, [1], [2], [1], objective="win", diff=10)


def test_kernel_level_n5_against_reference_on_a_sample():
    """N = 5 in memory: 150 random reachable (V, Y, P, d) of levels j <= 3 against HiGHS."""
    levels = {layout.j: (layout, result) for layout, result in solve_levels(5, False, "win")}
    states = [state for state in ref.all_states(5) if len(state[2]) <= 3]
    rng = np.random.default_rng(5)
    for index in rng.choice(len(states), 150, replace=False):
        v, y, p = states[index]
        diffs = ref.reachable_diffs(5, p)
        d = int(rng.integers(diffs.start, diffs.stop))
        where = locate(5, v, y, p, d)
        layout, result = levels[where.level]
        if where.saturated:
            got = np.sign(d)
        else:
            got = where.sign * result.values[where.p_rank, where.diff + layout.diff_max,
                                             where.pattern]
        assert got == pytest.approx(ref.value(v, y, p, d), abs=1e-9), (v, y, p, d)


def test_resume_after_a_kill_under_win(tmp_path):
    whole, resumed = str(tmp_path / "whole.zarr"), str(tmp_path / "resumed.zarr")
    run_gops(whole, 5, objective="win", shard_states=300, executor="serial")
    run_gops(resumed, 5, objective="win", shard_states=300, executor="serial", max_steps=2)
    config = GopsConfig(cards=5, strategies="all", shard_states=300, objective="win")
    (stage,) = config.plan().stages
    level = stage.steps[2]
    assert level.shards > 2
    # A run killed inside level j=3 after one shard was written and marked.
    store = ComputationStore.open(resumed, config.group_path(), writable=True)
    solve_gops_shard(ShardTask(resumed, config.group_path(), config, level, 1), store)
    store.mark_done(level.index, 1)
    report = run_gops(resumed, 5, objective="win", shard_states=300, executor="serial")
    later = sum(stage.steps[i].shards for i in range(3, 5))
    assert report["shards_computed"] == level.shards - 1 + later
    assert report["steps_computed"] == ["j=3", "j=4", "j=5"]
    assert_stores_equal(whole, resumed)


def test_points_identity_and_path_unchanged_win_differs():
    points = GopsConfig(cards=7, strategies="top:2", shard_states=10)
    assert points.group_path() == "gops/N7"
    assert points.identity() == {"cards": 7, "strategies": "top:2", "shard_states": 10,
                                 "game": "gops", "objective": "expected point difference",
                                 "ties": "win nothing", "kernel_version": 1}
    win = GopsConfig(cards=7, strategies="top:2", shard_states=10, objective="win")
    assert win.group_path() == "gops/N7-win"
    assert win.identity()["objective"] != points.identity()["objective"]
    points_arrays = {a.path: a for a in points.plan().stages[0].arrays}
    assert points_arrays["j3/values"].dims == ("deck", "pattern")
    win_arrays = {a.path: a for a in win.plan().stages[0].arrays}
    assert win_arrays["j3/values"].dims == ("deck", "diff", "pattern")
    # shards write every array but the axis labels, which the driver writes once
    labels = {path for path, spec in win_arrays.items() if spec.writer is None}
    assert labels == {f"j{j}/{axis}" for j in range(1, 8)
                      for axis in ("deck", "diff", "pattern", "upcard")} | {"j6/bid", "j7/bid"}
    assert all(win_arrays[path].constant is not None for path in labels)


@pytest.mark.parametrize("args, message", [
    (["--diff", "2"], "--diff needs --objective win"),
    (["--objective", "win", "--diff", "9"], "unreachable"),
])
def test_bad_win_queries_exit_nonzero_with_one_line(store, args, message):
    result = CliRunner().invoke(app, ["query", "gops", "--cards", str(N), "--store", store,
                                      "--hand", "1,3", "--opponent", "2,4", "--prizes", "3,4",
                                      *args])
    assert result.exit_code == 2 and message in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1


def test_query_cli_json_under_win(store):
    result = CliRunner().invoke(app, ["query", "gops", "--cards", str(N), "--objective", "win",
                                      "--diff", "-1", "--hand", "1,3", "--opponent", "2,4",
                                      "--prizes", "3,4", "--upcard", "4", "--store", store,
                                      "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    expected = ref.upcard_values((1, 3), (2, 4), (3, 4), -1)[1]
    assert answer["upcard_values"] == {"4": pytest.approx(expected, abs=1e-9)}
    assert set(answer["bids"]["4"]) == {"player_one", "player_two"}
    assert (answer["objective"], answer["diff"]) == ("win", -1)
    first = CliRunner().invoke(app, ["query", "gops", "--cards", str(N), "--objective", "win",
                                     "--first-move", "--store", store, "--json"])
    table = np.array(json.loads(first.stdout)["probability"])
    np.testing.assert_allclose(table.sum(axis=1), 1.0, atol=1e-6)


def test_a_corrupted_win_chunk_is_found_and_only_its_shard_recomputed(tmp_path):
    whole, damaged = str(tmp_path / "whole.zarr"), str(tmp_path / "damaged.zarr")
    for path in (whole, damaged):
        run_gops(path, 5, objective="win", shard_states=300, executor="serial")
    corrupt_chunk(damaged, "gops/N5-win", "j3/strategies_two", (1, 0, 0, 0, 0))
    (found,) = scan(damaged, "gops/N5-win")
    assert (found.array, found.step, found.shard) == ("j3/strategies_two", 2, 1)
    report = run_gops(damaged, 5, objective="win", shard_states=300, executor="serial", repair=True)
    assert report["shards_computed"] == 1 and report["steps_computed"] == ["j=3"]
    assert_stores_equal(whole, damaged)
