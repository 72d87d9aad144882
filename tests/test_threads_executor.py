"""The threads executor: a thread per core in the run's own process, for stages whose shard
solver releases the GIL (GOPS). Its store must be the serial executor's, byte for byte in
every array, and a shard that fails must fail the step without losing the others' markers."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from subgame.engine import run_computation
from subgame.executors import ThreadExecutor, map_parts
from subgame.families.gops.game import level, solve_levels
from subgame.families.gops.game.level import GAP_LIMIT
from subgame.families.gops.plan import GopsConfig
from subgame.options import RunOptions
from subgame.plan import ShardTask
from subgame.storage import ComputationStore
from tests.store_compare import assert_stores_equal
from tests.toy_family.plan import WIDTH, ToyConfig, expected, solve_sums_shard


@pytest.mark.parametrize("objective", ["points", "win"])
def test_threads_store_is_the_serial_store(tmp_path, objective):
    config = GopsConfig(cards=5, shard_states=40, objective=objective)
    stores = {name: str(tmp_path / f"{name}.zarr") for name in ("serial", "threads")}
    reports = {name: run_computation(config, RunOptions(path, executor=name))
               for name, path in stores.items()}
    steps = config.plan().stages[0].steps
    assert max(step.shards for step in steps) > 2  # steps the threads really share
    assert reports["threads"].shards_computed == sum(step.shards for step in steps)
    assert_stores_equal(stores["serial"], stores["threads"])
    # and both are the kernel's own in-memory solve, level by level
    store = ComputationStore.open(stores["threads"], config.group_path())
    for layout, result in solve_levels(5, True, objective):
        if layout.j:
            np.testing.assert_allclose(store.array(f"j{layout.j}/values")[...],
                                       result.values, rtol=0, atol=1e-12)


def test_compiled_levels_on_the_threads_make_the_serial_store(tmp_path, monkeypatch):
    """A run above the numpy lanes' size solves every level with numba's warm starts,
    whose shards' threads release the GIL, each shard's patterns in ranges (here of about
    2 000 games) that the threads executor's helper threads solve (``executors.map_parts``):
    the store is the serial executor's byte for byte, its values those of the whole game
    solved in memory within the certified tolerance (the shards' first decks guess from no
    neighbour, the whole levels' do), the kernel CPU seconds each step reports count
    the helper threads (else the threads run would report about none), and so does the
    process's CPU over each step, which the step records."""
    monkeypatch.setattr(level, "PART_GAMES", 2000)
    config = GopsConfig(cards=9, strategies="none", shard_states=5000)
    assert {config.kernel(j) for j in range(1, 10)} == {"compiled"}
    stores = {name: str(tmp_path / f"{name}.zarr") for name in ("serial", "threads")}
    kernel_cpu = {}
    for name, path in stores.items():
        run_computation(config, RunOptions(path, executor=name))
        done = ComputationStore.open(path, config.group_path()).group.attrs["steps_done"]
        # (from j = 2: the process's first kernel call, at j = 1, loads numba's kernels)
        kernel_cpu[name] = sum(step["computed"]["kernel_cpu_seconds"]
                               for index, step in done.items() if index != "0")
        for step in done.values():  # (the metrics are rounded to 1e-4 s a shard)
            assert step["cpu_seconds"] >= step["computed"]["shard_cpu_seconds"] - 0.01
    assert_stores_equal(stores["serial"], stores["threads"])
    store = ComputationStore.open(stores["threads"], config.group_path())
    assert max(step.shards for step in config.plan().stages[0].steps) > 2  # shared out
    for layout, result in solve_levels(9):
        if layout.j:
            np.testing.assert_allclose(store.array(f"j{layout.j}/values")[...],
                                       result.values, rtol=0, atol=GAP_LIMIT)
    # CPU seconds, not wall: a busy machine stretches both runs' alike
    assert kernel_cpu["threads"] > 0.5 * kernel_cpu["serial"] > 0


def test_a_level_on_the_specialised_kernel_makes_the_generic_store(tmp_path, monkeypatch):
    """With SPECIALISE_WORK lowered to 19 million, level 6 of N = 9 (539 784 games, times
    36: 19.4 million, the largest) runs on the kernel compiled for j = 6: its step records
    every shard as specialised, the others none, and the store is the generic run's, byte
    for byte."""
    from subgame.families.gops import plan

    config = GopsConfig(cards=9, strategies="none", shard_states=5000)
    stores = {kernel: str(tmp_path / f"{kernel}.zarr") for kernel in ("generic", "specialised")}
    run_computation(config, RunOptions(stores["generic"], executor="threads"))
    monkeypatch.setattr(plan, "SPECIALISE_WORK", 19_000_000)
    assert [j for j in range(1, 10) if config.kernel(j) == "specialised"] == [6]
    run_computation(config, RunOptions(stores["specialised"], executor="threads"))
    assert_stores_equal(stores["generic"], stores["specialised"])
    done = ComputationStore.open(stores["specialised"], config.group_path()).group.attrs[
        "steps_done"]
    shards = {int(index) + 1: step["computed"]["specialised_shards"]
              for index, step in done.items()}
    steps = config.plan().stages[0].steps
    assert shards == {j: steps[j - 1].shards if j == 6 else 0 for j in range(1, 10)}
    assert steps[5].shards > 2


def test_map_parts_runs_on_the_helpers_of_an_open_thread_executor():
    """In order either way; on the helper threads while a threads executor is open, in the
    caller's thread otherwise (a serial run, a Dask worker)."""
    def where(part):
        return part, threading.current_thread().name

    alone = map_parts(where, range(5))
    assert alone == [(part, threading.current_thread().name) for part in range(5)]
    executor = ThreadExecutor(2)
    try:
        helped = map_parts(where, range(5))
    finally:
        executor.close()
    assert [part for part, _ in helped] == list(range(5))
    assert all(name.startswith("part") for _, name in helped)
    assert map_parts(where, range(3)) == [(part, threading.current_thread().name)
                                          for part in range(3)]


def failing_shard(task: ShardTask, store: ComputationStore) -> dict:
    if task.shard == 1:
        raise ArithmeticError("shard 1 fails")
    return solve_sums_shard(task, store)


def test_a_failing_shard_fails_the_step_and_keeps_the_others_markers(tmp_path):
    config = ToyConfig()
    path = str(tmp_path / "toy.zarr")
    run_computation(config, RunOptions(path, executor="serial", max_steps=1))
    store = ComputationStore.open(path, config.group_path(), writable=True)
    step = config.plan().stages[0].steps[1]
    done: list[int] = []
    executor = ThreadExecutor(2)
    with pytest.raises(ArithmeticError, match="shard 1 fails"):
        executor.run_shards(failing_shard,
                            [ShardTask(path, config.group_path(), config, step, shard)
                             for shard in range(step.shards)],
                            lambda metrics: done.append(metrics["shard"]))
    executor.close()  # waits for the shard still running, as the engine does
    assert 1 not in done
    assert 1 in store.pending_shards(step)
    # Every other shard either finished (its data written, then marked) or never started.
    finished = set(range(step.shards)) - set(store.pending_shards(step))
    assert set(done) <= finished and 1 not in finished
    values = store.array("values")[1]
    for shard in finished:
        region = slice(shard * WIDTH, (shard + 1) * WIDTH)
        np.testing.assert_array_equal(values[region], expected(2, step.shards)[1, region])
