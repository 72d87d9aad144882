"""Runs stopped the hard way: `subgame run` killed with SIGKILL at several points, then run
again; two runs started at once on the same computation."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import psutil
import pytest

from subgame.families.guess_who.plan import GuessWhoConfig
from subgame.flows.run import run_flow
from subgame.options import RunOptions
from tests.ops_helpers import finish, progress, subgame, subprocess_env, wait_for
from tests.store_compare import assert_stores_equal

U, BAND = 1200, 150
GROUP = GuessWhoConfig(max_n=U, band=BAND).group_path()
BANDS, RULES = U // BAND, 2
ARGS = ("run", "guess-who", "--max-n", str(U), "--band", str(BAND), "--json")

# Where to stop the run, as seen in the store: the run holds the lock and the driver is
# creating the computation; inside a level (one rule set's shard marked, the other not);
# between early levels; in the last level.
KILL_POINTS = {
    "preparing": lambda store: lock_recorded(Path(store, GROUP, ".lock")),
    "inside a level": lambda store: any(level >= 1 and left == 1 for level, left
                                        in progress(store, GROUP).pending.items()),
    "after three levels": lambda store: len(progress(store, GROUP).finished) >= 3,
    "in the last level": lambda store: progress(store, GROUP).pending.get(BANDS - 1, 2) < RULES,
}


def lock_recorded(lock: Path) -> bool:
    """The run holds the lock and has written who it is (the file is created empty first)."""
    try:
        return lock.stat().st_size > 0
    except FileNotFoundError:
        return False


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("reference") / "store.zarr")
    run_flow("guess-who", {"max_n": U, "band": BAND}, RunOptions(path, executor="serial"))
    return path


def kill_when(process, store: str, condition) -> list[psutil.Process]:
    """SIGKILL the run once the store shows ``condition``; return the processes it had
    started (a local cluster's workers)."""
    wait_for(lambda: condition(store) or process.poll() is not None, timeout=120, every=0.002)
    assert process.poll() is None, "the run ended before the kill point"
    children = psutil.Process(process.pid).children(recursive=True)
    process.send_signal(signal.SIGKILL)
    process.wait()
    return children


def resume_and_check(store: str, env, reference: str) -> dict:
    """Run again: it must skip exactly the finished levels and compute exactly the shards
    whose markers are unset, and end with the uninterrupted run's store."""
    seen = progress(store, GROUP)
    code, reports, err = finish(subgame(*ARGS, "--store", store, "--executor", "serial", env=env))
    assert code == 0, err
    (report,) = reports  # one computation
    if seen.has_plan:
        assert report["steps_skipped"] == len(seen.finished)
        assert report["shards_computed"] == seen.pending_shards
    else:  # killed before the driver recorded the plan's levels: everything is pending
        assert report["steps_skipped"] == 0 and report["shards_computed"] == BANDS * RULES
    assert_stores_equal(reference, store)
    assert progress(store, GROUP).finished == frozenset(range(BANDS))
    return report


@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_killed_run_resumes_to_the_same_store(tmp_path, reference, point):
    store, env = str(tmp_path / "s.zarr"), subprocess_env(tmp_path)
    run = subgame(*ARGS, "--store", store, "--executor", "serial", env=env)
    kill_when(run, store, KILL_POINTS[point])
    lock = tmp_path / "s.zarr" / GROUP / ".lock"
    assert json.loads(lock.read_text())["pid"] == run.pid  # left behind by the dead run
    resume_and_check(store, env, reference)
    assert not lock.exists()  # the stale lock was taken over and released


def test_killed_dask_run_leaves_no_workers_and_resumes(tmp_path, reference):
    store, env = str(tmp_path / "s.zarr"), subprocess_env(tmp_path)
    run = subgame(*ARGS, "--store", store, "--workers", "1", env=env)
    workers = kill_when(run, store, lambda store: len(progress(store, GROUP).finished) >= 2)
    assert workers, "the local cluster's worker processes were not found"
    _, alive = psutil.wait_procs(workers, timeout=30)
    assert not alive, f"worker processes outlived the killed run: {alive}"
    resume_and_check(store, env, reference)


def test_second_run_at_once_is_refused_by_the_lock(tmp_path, reference):
    """Two identical runs started together: never do both compute. One is refused with one
    clear line, unless the machine happened to run them one after the other; then the
    pair is tried again (the lock is held for seconds: the winner's local cluster starts
    while it holds it)."""
    for attempt in range(3):
        store, env = str(tmp_path / f"s{attempt}.zarr"), subprocess_env(tmp_path)
        runs = [subgame(*ARGS, "--store", store, "--workers", "1", env=env) for _ in range(2)]
        results = [finish(run) for run in runs]
        computed = [reports[0]["shards_computed"] for code, reports, _ in results if code == 0]
        assert sum(computed) == BANDS * RULES, results  # the work was done exactly once
        assert_stores_equal(reference, store)
        assert not Path(store, GROUP, ".lock").exists()
        refused = [err for code, _, err in results if code != 0]
        if refused:
            break
    (message,) = refused
    # Refused by the CLI's check (one line) or, if both passed it together, by the lock
    # itself inside the flow run (Prefect then also logs the failed run, without traceback).
    errors = [line for line in message.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].startswith("error: another run"), message
    assert "Traceback" not in message
    assert sorted(code for code, _, _ in results) == [0, 2]
