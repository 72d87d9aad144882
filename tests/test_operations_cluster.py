"""An existing Dask cluster of separate `dask scheduler` / `dask worker` processes, a worker
killed mid-level, and the cluster profiles."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import replace

import numpy as np
import pytest
import yaml
import zarr
from distributed import Client
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.clusters import (BUNDLED_DIR, SLOWED_CHECKS, WORKER_MALLOC, load_profile,
                              resolve_profile)
from subgame.engine import run_computation
from subgame.flows.run import run_flow
from subgame.options import RunOptions
from tests.ops_helpers import dask_processes, progress, wait_for
from tests.store_compare import assert_stores_equal
from tests.toy_family.plan import ToyConfig, expected

app = build_app()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with dask_processes(tmp_path_factory.mktemp("dask")) as processes:
        yield processes


def test_scheduler_and_profile_runs_equal_a_local_run(tmp_path, cluster):
    local = str(tmp_path / "local.zarr")
    run_flow("guess-who", {"max_n": 70, "band": 16}, RunOptions(local, executor="serial"))
    runner = CliRunner()
    by_address = str(tmp_path / "scheduler.zarr")
    result = runner.invoke(app, ["run", "guess-who", "--max-n", "70", "--band", "16",
                                 "--store", by_address, "--scheduler", cluster.address, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["shards_computed"] == 5 * 2
    assert_stores_equal(local, by_address)
    # The same cluster named by a profile file.
    profile = tmp_path / "here.yaml"
    profile.write_text(yaml.safe_dump({"kind": "scheduler", "address": cluster.address}))
    by_profile = str(tmp_path / "profile.zarr")
    result = runner.invoke(app, ["run", "guess-who", "--max-n", "70", "--band", "16",
                                 "--store", by_profile, "--cluster", str(profile), "--json"])
    assert result.exit_code == 0, result.output
    assert_stores_equal(local, by_profile)
    with Client(cluster.address) as client:  # the shards really ran on the external workers
        assert len(client.scheduler_info()["workers"]) == 2


def test_worker_killed_mid_level_run_completes(tmp_path):
    """SIGKILL one of two workers while a level's shards are running on both: the scheduler
    hands the lost shards to the survivor and the results are still exact."""
    config = ToyConfig(levels=3, shards=6, delay=0.4)  # slow shards: the kill lands inside
    store = str(tmp_path / "s.zarr")
    with dask_processes(tmp_path) as processes:
        outcome: dict = {}
        run = threading.Thread(target=lambda: outcome.update(report=run_computation(
            config, RunOptions(store, scheduler=processes.address))))
        run.start()
        with Client(processes.address) as client:
            victim = next(address for address, info in client.scheduler_info()["workers"].items()
                          if info["name"] == "w0")

            def inside_level_one_and_busy() -> bool:
                state = progress(store, config.group_path())
                return (state.pending.get(1, 6) < 6 and bool(client.processing(victim)[victim]))

            wait_for(inside_level_one_and_busy, timeout=60, every=0.01)
            assert 1 not in progress(store, config.group_path()).finished
            processes.kill_worker(0)
        run.join(timeout=120)
    report = outcome["report"]
    # The toy's later stage "distinct" (one step of one shard) follows the three levels.
    assert report.steps_computed == ["k=0", "k=1", "k=2", "distinct"]
    assert report.shards_computed == 18 + 1
    np.testing.assert_array_equal(
        zarr.open_group(store, mode="r")[f"{config.group_path()}/values"][:], expected(3, 6))


def test_bundled_profiles_load_and_batch_jobs_retire_before_walltime():
    names = {path.stem for path in BUNDLED_DIR.glob("*.yaml")}
    assert names == {"local", "scheduler", "slurm", "pbs", "kubernetes"}
    kinds = {name: load_profile(name).kind for name in names}
    assert kinds == {"local": "local", "scheduler": "scheduler", "slurm": "slurm",
                     "pbs": "pbs", "kubernetes": "kubernetes"}
    assert resolve_profile(None, None, 3).workers == 3  # --workers on the default profile
    assert resolve_profile("slurm", None, 32).workers == 32
    jobqueue = pytest.importorskip("dask_jobqueue")
    for name, job in (("slurm", jobqueue.slurm.SLURMJob), ("pbs", jobqueue.pbs.PBSJob)):
        profile = load_profile(name)
        script = job(scheduler="tcp://127.0.0.1:8786", name="probe",
                     **profile.batch_options()).job_script()
        assert f"--lifetime {profile.lifetime.lifetime}" in script
        assert f"--lifetime-stagger {profile.lifetime.stagger}" in script
        assert profile.options["walltime"] in script


@pytest.mark.parametrize("where", ["profile", "profile env_extra", "site configuration",
                                   "site configuration env-extra"])
def test_batch_workers_read_their_malloc_and_checks_from_their_job_script(monkeypatch,
                                                                         where):
    """The job script exports, before the job's own prologue (whose exports then win), the
    malloc settings its nanny hands the worker (Dask's MALLOC_TRIM_THRESHOLD_ replaced)
    and SLOWED_CHECKS as variables Dask reads back as those settings. The job's own lines
    stay wherever dask-jobqueue would take them from: the profile's `job_script_prologue`
    or `env_extra`, or a site's jobqueue configuration."""
    import dask
    from distributed.nanny import _get_env_variables

    jobqueue = pytest.importorskip("dask_jobqueue")
    own = "export NUMBA_NUM_THREADS=4"  # the job's own value wins over subgame's
    profile = load_profile("slurm")
    option, setting = {"profile": ("job_script_prologue", None),
                       "profile env_extra": ("env_extra", None),
                       "site configuration": (None, "job-script-prologue"),
                       "site configuration env-extra": (None, "env-extra")}[where]
    if option:
        profile = replace(profile, options={**profile.options, option: [own]})
    with dask.config.set({f"jobqueue.slurm.{setting}": [own]} if setting else {}):
        options = profile.batch_options()
    script = jobqueue.slurm.SLURMJob(scheduler="tcp://127.0.0.1:8786", name="probe",
                                     **options).job_script()
    exports = dict(line.split(" ", 1)[1].split("=", 1) for line in script.splitlines()
                   if line.startswith("export ") and line != own)
    assert max(script.index(f"{name}={value}") for name, value in exports.items()) < \
        script.index(own)
    assert exports["NUMBA_NUM_THREADS"] == "1"  # subgame's: 8 cores, 8 worker processes
    settings = dask.config.collect_env(exports)
    assert {name: dask.config.get(name, config=settings) for name in SLOWED_CHECKS} == \
        SLOWED_CHECKS
    for name in WORKER_MALLOC:
        monkeypatch.setenv(name, exports[name])  # the nanny's environment in the job
    spawn = _get_env_variables("distributed.nanny.pre-spawn-environ")
    assert spawn["MALLOC_TRIM_THRESHOLD_"] == WORKER_MALLOC["MALLOC_TRIM_THRESHOLD_"]
    assert exports["MALLOC_MMAP_THRESHOLD_"] == WORKER_MALLOC["MALLOC_MMAP_THRESHOLD_"]


@pytest.mark.parametrize("cores, processes, threads", [(8, 8, 1), (16, 4, 4), (3, 2, 1)])
def test_a_batch_jobs_kernels_keep_to_their_workers_share_of_its_cores(cores, processes,
                                                                       threads):
    """A compiled kernel's own threads (numba's prange) number the job's cores per worker
    process: the job script exports NUMBA_NUM_THREADS, as a local cluster's nannies set
    it."""
    jobqueue = pytest.importorskip("dask_jobqueue")
    profile = load_profile("slurm")
    profile = replace(profile, options={**profile.options, "cores": cores,
                                        "processes": processes})
    script = jobqueue.slurm.SLURMJob(scheduler="tcp://127.0.0.1:8786", name="probe",
                                     **profile.batch_options()).job_script()
    assert [line for line in script.splitlines() if "NUMBA_NUM_THREADS" in line] == \
        [f"export NUMBA_NUM_THREADS={threads}"]


def test_a_local_clusters_workers_keep_freed_memory_and_slow_their_checks(monkeypatch):
    """Dask's default MALLOC_TRIM_THRESHOLD_ turns glibc's dynamic mmap threshold off (every
    allocation over 128 KiB a fresh mapping, its pages faulted in again); the local
    profile's workers start with heap allocations up to 32 MiB and 256 MiB of freed heap
    kept, even where this process's environment holds Dask's value, and with the checks
    that feed only a dashboard slowed (SLOWED_CHECKS); the driver's own settings are left
    as they were."""
    import dask

    before = dict(dask.config.get("distributed.nanny.pre-spawn-environ"))
    checks_before = {name: dask.config.get(name) for name in SLOWED_CHECKS}
    # as a cluster started earlier in this process leaves it (Dask's own LocalCluster does)
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    running = resolve_profile(None, None, 1).start()
    try:
        environ = running.client.run(lambda: {name: os.environ.get(name) for name in (
            "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")})
        checks = running.client.run(lambda: {name: dask.config.get(name)
                                             for name in SLOWED_CHECKS})
        profiling = running.client.run(lambda dask_worker: dask_worker.periodic_callbacks.get(
            "profile") is not None)
    finally:
        running.close()
    assert list(environ.values()) == [{"MALLOC_MMAP_THRESHOLD_": str(1 << 25),
                                       "MALLOC_TRIM_THRESHOLD_": str(1 << 28)}]
    assert list(checks.values()) == [SLOWED_CHECKS]
    assert list(profiling.values()) == [False]
    assert dict(dask.config.get("distributed.nanny.pre-spawn-environ")) == before
    assert {name: dask.config.get(name) for name in SLOWED_CHECKS} == checks_before
    assert os.environ["MALLOC_TRIM_THRESHOLD_"] == "65536"
