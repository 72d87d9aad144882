"""The house alone, on the toy family: the engine without Prefect (executors, markers,
resume, stages sized by earlier ones, grown extents, the lock), and the registry: a family
registered from outside the package gets run, query and status."""

from __future__ import annotations

import json
import os
from dataclasses import replace
import subprocess
import sys

import numpy as np
import pytest
import zarr
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.engine import run_computation
from subgame.errors import StoreLocked
from subgame.options import RunOptions
from subgame.plan import ArraySpec, ShardTask
from subgame.storage import ComputationStore
from subgame.storage.lock import StoreLock
from tests.store_compare import assert_stores_equal
from tests.toy_family.plan import ToyConfig, expected, solve_sums_shard

TOY = ToyConfig()


def stored(path: str, name: str = "values") -> np.ndarray:
    return zarr.open_group(path, mode="r")[f"{TOY.group_path()}/{name}"][:]


def distinct_residues(levels: int = 4, shards: int = 3) -> np.ndarray:
    return np.unique(expected(levels, shards)[-1] % TOY.modulus)


def test_same_plan_same_store_in_every_executor(tmp_path, dask_scheduler):
    serial, dask = str(tmp_path / "serial.zarr"), str(tmp_path / "dask.zarr")
    run_computation(TOY, RunOptions(serial, executor="serial"))
    report = run_computation(TOY, RunOptions(dask, scheduler=dask_scheduler))
    assert report.steps_computed == ["k=0", "k=1", "k=2", "k=3", "distinct"]
    assert report.shards_computed == 12 + 1
    np.testing.assert_array_equal(stored(serial), expected())
    np.testing.assert_array_equal(stored(serial, "distinct"), distinct_residues())
    assert_stores_equal(serial, dask)


def test_partial_step_recomputes_only_pending_shards(tmp_path):
    path = str(tmp_path / "s.zarr")
    run_computation(TOY, RunOptions(path, executor="serial", max_steps=2))
    store = ComputationStore.open(path, TOY.group_path(), writable=True)
    step = TOY.plan().stages[0].steps[2]
    # A run killed inside step 2: one shard written and marked, the step not finished.
    solve_sums_shard(ShardTask(path, TOY.group_path(), TOY, step, 1), store)
    store.mark_done(2, 1)
    assert store.pending_shards(step) == [0, 2]
    report = run_computation(TOY, RunOptions(path, executor="serial"))
    assert report.steps_computed == ["k=2", "k=3", "distinct"]
    assert report.shards_computed == 2 + 3 + 1
    np.testing.assert_array_equal(stored(path), expected())


def test_later_stage_is_built_from_stored_results_and_kept_for_resume(tmp_path):
    path = str(tmp_path / "s.zarr")
    run_computation(TOY, RunOptions(path, executor="serial", max_steps=4))
    group = zarr.open_group(path, mode="r")[TOY.group_path()]
    assert "built_stages" not in group.attrs  # its inputs were only just finished
    run_computation(TOY, RunOptions(path, executor="serial", max_steps=1))
    built = ComputationStore.open(path, TOY.group_path()).built_stage("distinct")
    assert built[1][0].info == {"count": len(distinct_residues())}
    assert run_computation(TOY, RunOptions(path, executor="serial")).steps_computed == []
    np.testing.assert_array_equal(stored(path, "distinct"), distinct_residues())


def test_a_grown_extent_computes_only_what_is_new(tmp_path):
    path = str(tmp_path / "s.zarr")
    run_computation(TOY, RunOptions(path, executor="serial"))
    grown = run_computation(ToyConfig(levels=6), RunOptions(path, executor="serial"))
    # The new levels, and the later stage again: its input (the last level) changed.
    assert grown.steps_computed == ["k=4", "k=5", "distinct"]
    np.testing.assert_array_equal(stored(path), expected(6))
    np.testing.assert_array_equal(stored(path, "distinct"), distinct_residues(6))
    # A smaller request never shrinks the store: everything is already there.
    assert run_computation(TOY, RunOptions(path, executor="serial")).steps_computed == []


def test_live_lock_refuses_and_stale_lock_is_taken_over(tmp_path):
    path = str(tmp_path / "s.zarr")
    with StoreLock(path, TOY.group_path()):
        with pytest.raises(StoreLocked, match="another run"):
            run_computation(TOY, RunOptions(path, executor="serial"))
    # A lock left by a process that no longer exists (killed run) is stale.
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    lock = StoreLock(path, TOY.group_path())
    lock.fs.makedirs(os.path.dirname(lock.path), exist_ok=True)
    lock.fs.pipe_file(lock.path, ('{"host": "%s", "pid": %s, "heartbeat": 0}'
                                  % (os.uname().nodename, dead)).encode())
    run_computation(TOY, RunOptions(path, executor="serial"))
    np.testing.assert_array_equal(stored(path), expected())
    assert not os.path.exists(lock.path)


def test_a_family_registered_from_outside_gets_every_verb(tmp_path):
    """The toy lives in tests/toy_family alone; $SUBGAME_FAMILIES registers it."""
    assert "tests.toy_family.family" in os.environ["SUBGAME_FAMILIES"]
    app, runner, store = build_app(), CliRunner(), str(tmp_path / "s.zarr")
    for verb in ("run", "query"):
        assert "toy" in runner.invoke(app, [verb, "--help"]).output
    help_text = runner.invoke(app, ["run", "toy", "--help"]).output
    assert "--modulus" in help_text and "--executor" in help_text
    result = runner.invoke(app, ["run", "toy", "--levels", "3", "--store", store,
                                 "--executor", "serial", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["steps_computed"] == ["k=0", "k=1", "k=2", "distinct"]
    answer = runner.invoke(app, ["query", "toy", "--level", "2", "--state", "5",
                                 "--store", store, "--json"])
    assert json.loads(answer.stdout)["value"] == expected(3)[2, 5]
    status = json.loads(runner.invoke(app, ["status", "--store", store, "--json"]).stdout)
    (toy,) = status["computations"]
    assert toy["family"] == "toy" and toy["steps_finished"] == toy["steps_total"] == 4
    assert [step["stage"] for step in toy["steps"]] == ["sums"] * 3 + ["distinct"]


def _ramp() -> np.ndarray:
    return np.arange(6)


def test_a_constant_array_made_again_in_another_layout_gets_its_data_again(tmp_path):
    """A constant array whose chunks change is created afresh; its data is written again,
    although the computation records it as written (``constants_done``)."""
    url = str(tmp_path / "s.zarr")
    store = ComputationStore.create(url, "toy/c", "toy", {"n": 1}, {})
    spec = ArraySpec("c", (6,), (2,), "int64", ("i",), constant=_ramp)
    store.ensure_arrays([spec])
    store.ensure_arrays([replace(spec, chunks=(3,))])
    array = zarr.open_group(url, mode="r")["toy/c/c"]
    assert array.chunks == (3,)
    np.testing.assert_array_equal(array[:], np.arange(6))
