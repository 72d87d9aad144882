"""The spine alone, on a toy family: executors, markers, resume and the store lock."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import zarr

from subgame.errors import StoreLocked
from subgame.flows.runner import RunOptions, run_plan
from subgame.storage import LevelStore
from subgame.storage.lock import StoreLock
from tests.store_compare import assert_stores_equal
from tests.toy_family import expected, toy_plan


def values(path: str) -> np.ndarray:
    return zarr.open_group(path, mode="r")["toy/L4/values"][:]


def test_same_plan_same_store_in_every_executor(tmp_path, dask_scheduler):
    serial, dask = str(tmp_path / "serial.zarr"), str(tmp_path / "dask.zarr")
    run_plan(toy_plan(), RunOptions(serial, executor="serial"))
    report = run_plan(toy_plan(), RunOptions(dask, scheduler=dask_scheduler))
    assert report.shards_computed == 12
    np.testing.assert_array_equal(values(serial), expected())
    assert_stores_equal(serial, dask)


def test_partial_level_recomputes_only_pending_shards(tmp_path):
    path = str(tmp_path / "s.zarr")
    plan = toy_plan()
    run_plan(plan, RunOptions(path, executor="serial", max_levels=2))
    store = LevelStore.open(path, plan.group_path, writable=True)
    # A run killed inside level 2: one shard written and marked, the level not finished.
    plan.solve_shard(path, plan, 2, 1)
    store.mark_done(2, 1)
    assert store.pending_shards(plan.level(2)) == [0, 2]
    report = run_plan(plan, RunOptions(path, executor="serial"))
    assert report.levels_computed == ["k=2", "k=3"] and report.shards_computed == 2 + 3
    np.testing.assert_array_equal(values(path), expected())


def test_live_lock_refuses_and_stale_lock_is_taken_over(tmp_path):
    path = str(tmp_path / "s.zarr")
    plan = toy_plan()
    with StoreLock(path, plan.group_path):
        with pytest.raises(StoreLocked, match="another run"):
            run_plan(plan, RunOptions(path, executor="serial"))
    # A lock left by a process that no longer exists (killed run) is stale.
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    lock = StoreLock(path, plan.group_path)
    lock.fs.makedirs(os.path.dirname(lock.path), exist_ok=True)
    lock.fs.pipe_file(lock.path, ('{"host": "%s", "pid": %s, "heartbeat": 0}'
                                  % (os.uname().nodename, dead)).encode())
    run_plan(plan, RunOptions(path, executor="serial"))
    np.testing.assert_array_equal(values(path), expected())
    assert not os.path.exists(lock.path)
