"""The run path as light as the work: a small plan runs in process (no Prefect, no Dask) into
the same store a flow run writes; a temporary Prefect server that cannot start leaves the
run to finish without Prefect, with one warning line; a Ctrl-C while modules still import
is one line and exit 130."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import httpx
import numpy as np
import zarr

from tests.ops_helpers import ROOT, finish, subgame, subprocess_env, wait_for
from tests.test_everyday import run_probe
from tests.toy_family.plan import ToyConfig, expected

TOY = ToyConfig(levels=4, shards=2)
TOY_ARGS = ("toy", "--levels", "4", "--shards", "2")


def stored_values(store: str) -> np.ndarray:
    group = zarr.open_group(store, mode="r")[TOY.group_path()]
    assert group.attrs["complete"]
    return group["values"][:]


def test_a_small_plan_runs_in_process_and_resumes_there(tmp_path):
    store = str(tmp_path / "s.zarr")
    # No Prefect server answers at this address: a run that used Prefect would fail.
    dead = {"PREFECT_API_URL": "http://127.0.0.1:9/api"}
    (first,), probe = run_probe(tmp_path, *TOY_ARGS, "--max-steps", "2", "--store", store,
                                **dead)
    assert (probe["code"], probe["prefect"], probe["distributed"]) == (0, False, False)
    assert first["orchestration"] == "in process" and first["steps_computed"] == ["k=0", "k=1"]
    (second,), probe = run_probe(tmp_path, *TOY_ARGS, "--store", store, **dead)
    assert (probe["code"], probe["prefect"]) == (0, False)
    assert second["steps_computed"] == ["k=2", "k=3", "distinct"]
    np.testing.assert_array_equal(stored_values(store), expected(4, 2))


def test_a_large_plan_on_threads_runs_in_process_any_other_as_a_flow(tmp_path):
    """--orchestrate auto: a plan over SMALL_RUN_BYTES whose every stage runs on threads
    (GOPS N = 13, 16 GB) stays in this process; one of the same size that holds the GIL
    (Guess Who U = 8192) and any run that names its workers go to a flow run."""
    from subgame.engine import SMALL_RUN_BYTES, check_run, in_process
    from subgame.families.gops.plan import GopsConfig
    from subgame.families.guess_who.plan import GuessWhoConfig
    from subgame.options import RunOptions

    options = RunOptions(store=str(tmp_path / "s.zarr"), dry_run=True)
    gops = check_run(GopsConfig(cards=13, strategies="top:4"), options)
    guess_who = check_run(GuessWhoConfig(max_n=8192), options)
    assert min(gops.estimate.new_bytes, guess_who.estimate.new_bytes) > SMALL_RUN_BYTES
    assert in_process([gops], options)
    assert not in_process([guess_who], options)
    assert not in_process([gops, guess_who], options)
    assert not in_process([gops], RunOptions(store=options.store, workers=2))
    assert not list(tmp_path.iterdir())  # checked, nothing written


def test_a_forced_flow_run_writes_the_same_store(tmp_path):
    store = str(tmp_path / "s.zarr")
    (report,), probe = run_probe(tmp_path, *TOY_ARGS, "--orchestrate", "prefect",
                                 "--store", store)
    assert (probe["code"], probe["prefect"]) == (0, True)
    assert report["orchestration"] == "Prefect flow" and report["shards_computed"] == 4 * 2 + 1
    np.testing.assert_array_equal(stored_values(store), expected(4, 2))
    # A step's CPU seconds are the driver's where its shards ran there (a step of one
    # shard), and not recorded where the cluster's workers ran them.
    attrs = zarr.open_group(store, mode="r")[TOY.group_path()].attrs
    assert {step["shards"] for step in attrs["steps"]} == {1, 2}
    for step in attrs["steps"]:
        assert ("cpu_seconds" in attrs["steps_done"][str(step["index"])]) == \
            (step["shards"] == 1)


def heartbeats(api_url: str, flow_run_id: str) -> int:
    """How many heartbeat events of the flow run the server at ``api_url`` has recorded."""
    return httpx.post(f"{api_url}/events/filter", timeout=60, json={"filter": {
        "event": {"name": ["prefect.flow-run.heartbeat"]},
        "resource": {"id": [f"prefect.flow-run.{flow_run_id}"]}}}).json()["total"]


def test_a_flow_run_sends_heartbeats_to_a_running_server_only():
    """Heartbeats let a server that outlives the run's process mark the run crashed once
    the process dies: a flow run reporting to a temporary server, which ends with that
    process, sends none. Both flows here report to the session's server through one events
    client, in order: once the second run's heartbeat is recorded, the first's would be."""
    from prefect import flow
    from prefect.runtime import flow_run
    from prefect.settings import PREFECT_API_URL, PREFECT_FLOWS_HEARTBEAT_FREQUENCY, \
        temporary_settings

    from subgame.flows.server import flow_settings

    @flow
    def its_id() -> str:
        return flow_run.id

    url, ids = PREFECT_API_URL.value(), {}
    for temporary in (True, False):  # (the session's settings are a temporary server's)
        with temporary_settings(flow_settings(url, temporary),
                                restore_defaults={PREFECT_FLOWS_HEARTBEAT_FREQUENCY}):
            ids[temporary] = its_id()
    wait_for(lambda: heartbeats(url, ids[False]) > 0, timeout=120, every=0.2)
    assert heartbeats(url, ids[True]) == 0


def test_a_temporary_server_that_cannot_start_leaves_the_run_to_finish(tmp_path):
    env = subprocess_env(tmp_path, own_server=True,
                         PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="1",
                         SUBGAME_SERVER_PORT="9")  # and no server on "this machine's port"
    store = str(tmp_path / "s.zarr")
    status, reports, err = finish(subgame("run", *TOY_ARGS, "--orchestrate", "prefect",
                                          "--store", store, "--json", env=env), timeout=300)
    assert status == 0, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(
        "warning: Prefect's temporary server did not start") and \
        "subgame server start" in lines[0] and "PREFECT_API_URL" in lines[0], err
    assert reports[0]["orchestration"] == "in process"
    np.testing.assert_array_equal(stored_values(store), expected(4, 2))


def test_ctrl_c_while_modules_import_is_one_line_and_exit_130(tmp_path):
    """The signal is sent as soon as the run's process reports its first import after the
    handler's (`-X importtime` writes each import to stderr as it finishes)."""
    run = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "subgame.cli", "run",
                            *TOY_ARGS, "--store", str(tmp_path / "s.zarr")], cwd=ROOT,
                           env=subprocess_env(tmp_path), stderr=subprocess.PIPE, text=True)
    for line in run.stderr:
        if line.rstrip().endswith("| typer"):  # imported after subgame.interrupts
            run.send_signal(signal.SIGINT)
            break
    err = [line for line in run.stderr if not line.startswith("import time:")]
    assert run.wait(timeout=120) == 130, err
    assert len(err) == 1 and err[0].startswith("interrupted after 0 steps"), err
    assert not (tmp_path / "s.zarr").exists()


def test_the_summary_says_which_way_the_run_went(tmp_path):
    store = str(tmp_path / "s.zarr")
    out = subprocess.run([sys.executable, "-m", "subgame.cli", "run", *TOY_ARGS, "--store",
                          store], cwd=ROOT, env=subprocess_env(tmp_path), capture_output=True,
                         text=True, timeout=300).stdout
    assert out.strip().splitlines()[-1].endswith("in this process (no Prefect)"), out
    assert json.loads(subprocess.run(
        [sys.executable, "-m", "subgame.cli", "status", "--store", store, "--json"], cwd=ROOT,
        env=subprocess_env(tmp_path), capture_output=True, text=True, timeout=300).stdout
    )["computations"][0]["steps_finished"] == 5


def test_a_local_server_starts_is_found_by_runs_and_stops(tmp_path):
    port = "4371"
    env = subprocess_env(tmp_path, own_server=True, SUBGAME_SERVER_PORT=port)

    def cli(*args: str, python: tuple[str, ...] = ("-m", "subgame.cli")
            ) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, *python, *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=600)

    started = cli("server", "start")
    assert started.returncode == 0 and f"127.0.0.1:{port}" in started.stdout, started.stderr
    try:
        assert cli("server", "status").returncode == 0
        store = str(tmp_path / "s.zarr")
        # The run says, last, whether it imported Prefect's server (it needs none here).
        run = cli("run", *TOY_ARGS, "--orchestrate", "prefect", "--store", store, "--json",
                  python=("-c", "import atexit, sys\natexit.register(lambda: print("
                          "'prefect.server.api.server' in sys.modules, file=sys.stderr))\n"
                          "from subgame.cli import program\nprogram()"))
        assert run.returncode == 0 and run.stderr == "False\n", run.stderr
        assert json.loads(run.stdout)[0]["orchestration"] == "Prefect flow"
        flow_runs = httpx.post(f"http://127.0.0.1:{port}/api/flow_runs/filter", json={},
                               timeout=60).json()  # the run reported to this server
        assert [flow_run["state_type"] for flow_run in flow_runs] == ["COMPLETED"]
        # A server that outlives the run hears its heartbeat (a temporary one does not).
        wait_for(lambda: heartbeats(f"http://127.0.0.1:{port}/api", flow_runs[0]["id"]) > 0,
                 timeout=120, every=0.2)
        np.testing.assert_array_equal(stored_values(store), expected(4, 2))
    finally:
        stopped = cli("server", "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert cli("server", "status").returncode == 1


def test_a_cluster_started_before_the_run_computes_it_and_closes_with_it(tmp_path):
    """The CLI starts a flow run's cluster while Prefect imports, when `needs_cluster` says
    a run will use one, and hands it over in `Checked`: the first run with work computes on
    it and closes it before the store's lock goes; a run of one-shard steps, a finished one
    and one on threads are given none."""
    from subgame.engine import Checked, check_run, needs_cluster
    from subgame.executors import DaskExecutor
    from subgame.options import RunOptions

    options = RunOptions(store=str(tmp_path / "s.zarr"), workers=2)
    run = check_run(TOY, options)
    assert needs_cluster([run], options)
    assert not needs_cluster([check_run(ToyConfig(levels=4, shards=1), options)], options)
    assert not needs_cluster([run], RunOptions(store=options.store, executor="threads"))
    assert needs_cluster([run], RunOptions(store=options.store, scheduler="tcp://127.0.0.1:9"))

    class Counted(DaskExecutor):  # counts the steps it was given
        steps = 0

        def run_shards(self, solve_shard, tasks, on_done):
            self.steps += 1
            return super().run_shards(solve_shard, tasks, on_done)

    executor = Counted(options.cluster_profile())
    try:
        (report,) = Checked([run], None, executor).run_all(options)
        assert executor.running is None  # closed by the run
    finally:
        executor.close()  # as the CLI does, whether or not a run took it
    assert executor.steps == 4  # every two-shard level, on the cluster handed over
    assert report["shards_computed"] == 4 * 2 + 1
    np.testing.assert_array_equal(stored_values(options.store), expected(4, 2))
    assert not needs_cluster([check_run(TOY, options)], options)  # finished


def test_children_started_in_two_threads_at_once_leave_stderr_as_it_was():
    """A flow run starts its cluster in the main thread while Prefect's temporary server
    starts in another: each silences stderr for its children, and the last out restores
    it."""
    import os
    import threading

    from subgame.interrupts import silent_children

    before = os.fstat(2)
    inside, release = threading.Barrier(2), threading.Event()

    def child_start() -> None:
        with silent_children():
            inside.wait(timeout=60)
            release.wait(timeout=60)

    other = threading.Thread(target=child_start)
    other.start()
    with silent_children():
        inside.wait(timeout=60)
        assert os.fstat(2).st_ino == os.stat(os.devnull).st_ino
    assert os.fstat(2).st_ino == os.stat(os.devnull).st_ino  # the other still starts
    release.set()
    other.join(timeout=60)
    after = os.fstat(2)
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)
