"""Workers as real Slurm batch jobs: a one-node Slurm on this machine (tests/slurm_local.py),
runs through dask-jobqueue's SLURMCluster as `--cluster` profiles name it, a job cancelled
mid-level, workers that retire at their lifetime before the walltime, and no job left
behind.  A Slurm that cannot start fails these tests: it is installed where `.ci/run` runs."""

from __future__ import annotations

import json
import os
import threading

import dask
import dask_jobqueue  # noqa: F401 - here: it sets a SIGINT handler, which only the main thread may
import numpy as np
import pytest
import zarr
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.engine import run_computation
from subgame.flows.run import run_flow
from subgame.options import RunOptions
from tests.ops_helpers import ROOT, progress, wait_for
from tests.slurm_local import LocalSlurm, local_slurm, profile_file
from tests.store_compare import assert_stores_equal
from tests.toy_family.plan import ToyConfig, expected

app = build_app()


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    """The local Slurm, its configuration in this process's environment (dask-jobqueue
    calls sbatch, squeue and scancel with it) and the repository on the jobs' path (they
    unpickle the toy family's functions)."""
    # A lost worker is given up after 2 s instead of 15, so that its job's replacement
    # joins while the test's short run still has shards to hand it.
    with local_slurm(tmp_path_factory.mktemp("slurm")) as running, \
            dask.config.set({"distributed.deploy.lost-worker-timeout": "2s"}), \
            pytest.MonkeyPatch.context() as environ:
        environ.setenv("SLURM_CONF", running.env["SLURM_CONF"])
        environ.setenv("PYTHONPATH", str(ROOT), prepend=os.pathsep)
        yield running


def no_jobs_left(slurm: LocalSlurm) -> None:
    wait_for(lambda: not slurm.jobs(), timeout=60, every=0.5)


def test_a_slurm_run_equals_a_local_run(tmp_path, slurm):
    local = str(tmp_path / "local.zarr")
    run_flow("gops", {"cards": 6, "shard_states": 20}, RunOptions(local, executor="serial"))
    on_slurm = str(tmp_path / "slurm.zarr")
    result = CliRunner().invoke(app, [
        "run", "gops", "--cards", "6", "--shard-states", "20", "--store", on_slurm,
        "--cluster", profile_file(tmp_path), "--json"])
    assert result.exit_code == 0, result.output + slurm.logs()
    (report,) = json.loads(result.stdout)
    assert report["orchestration"] != "in process" and report["steps_computed"]
    assert_stores_equal(local, on_slurm)
    # the workers were Slurm jobs: their logs are the batch jobs' output files
    assert len(list((tmp_path / "jobs").glob("*.err"))) >= 1
    no_jobs_left(slurm)


def run_toy_on_slurm(config: ToyConfig, store: str, profile: str) -> threading.Thread:
    outcome: dict = {}
    thread = threading.Thread(target=lambda: outcome.update(report=run_computation(
        config, RunOptions(store, cluster=profile))), daemon=True)
    thread.outcome = outcome
    thread.start()
    return thread


def assert_toy_complete(thread: threading.Thread, config: ToyConfig, store: str) -> None:
    thread.join(timeout=180)
    assert not thread.is_alive(), "the run is stuck: no worker left to compute"
    report = thread.outcome["report"]
    assert report.steps_computed == [f"k={k}" for k in range(config.levels)] + ["distinct"]
    assert report.shards_computed == config.levels * config.shards + 1
    np.testing.assert_array_equal(
        zarr.open_group(store, mode="r")[f"{config.group_path()}/values"][:],
        expected(config.levels, config.shards))


def test_a_job_cancelled_mid_level_is_replaced_and_nothing_is_lost(tmp_path, slurm):
    config = ToyConfig(levels=3, shards=6, delay=1.0)
    store = str(tmp_path / "s.zarr")
    run = run_toy_on_slurm(config, store, profile_file(tmp_path))

    def inside_level_one() -> bool:
        state = progress(store, config.group_path())
        return 0 in state.finished and state.pending.get(1, 6) < 6

    wait_for(inside_level_one, timeout=180, every=0.05)
    running = [job for job, state in slurm.jobs().items() if state == "RUNNING"]
    assert running
    slurm.command("scancel", running[0])
    assert_toy_complete(run, config, store)
    submitted = {path.stem.split("-")[-1] for path in (tmp_path / "jobs").glob("*.err")}
    assert running[0] in submitted and len(submitted) >= 3, submitted  # the replacement ran
    no_jobs_left(slurm)


def test_workers_retire_before_their_walltime_and_are_replaced(tmp_path, slurm):
    """Each job's worker leaves at its lifetime (as a profile's lifetime sets it a margin
    before the walltime), its shards handed back; replacement jobs finish the run."""
    config = ToyConfig(levels=3, shards=6, delay=1.5)
    store = str(tmp_path / "s.zarr")
    profile = profile_file(tmp_path, lifetime={"lifetime": "12s", "stagger": "2s"})
    run = run_toy_on_slurm(config, store, profile)
    assert_toy_complete(run, config, store)
    submitted = list((tmp_path / "jobs").glob("*.err"))
    assert len(submitted) >= 3, submitted  # at least one job was replaced
    assert any("lifetime" in path.read_text().lower() for path in submitted)
    no_jobs_left(slurm)
