"""Real processes for the operations tests: CLI runs, a Dask scheduler and workers, and a
view of a store's progress read straight from its markers; and `run gops` in process."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import zarr

from subgame.flows.run import run_flow
from subgame.options import RunOptions
from tests.prefect_home import seed

ROOT = Path(__file__).resolve().parent.parent


def run_gops(store: str, cards: int, **options) -> dict:
    """One `run gops` in this process: options that RunOptions knows go to the run, the
    rest (strategies, shard_states, objective, ...) to the family; the flow gives one
    report per computation, here exactly one."""
    run_fields = {field.name for field in fields(RunOptions)}
    family = {key: value for key, value in options.items() if key not in run_fields}
    run = {key: value for key, value in options.items() if key in run_fields}
    (report,) = run_flow("gops", {"cards": cards, **family}, RunOptions(store, **run))
    return report


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def subprocess_env(tmp_path: Path, own_server: bool = False, **extra: str) -> dict[str, str]:
    """Environment for subgame processes: a private PREFECT_HOME, the repo on the path (the
    workers unpickle test functions), and this session's Prefect server, or with
    ``own_server`` none: a run starts its temporary server, in a home whose database is
    migrated already."""
    import prefect.settings

    home = tmp_path / "prefect-home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "PREFECT_API_URL": prefect.settings.PREFECT_API_URL.value(),
           "PREFECT_HOME": str(home), "PYTHONPATH": str(ROOT),
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    env.pop("SUBGAME_STORE", None)
    if own_server:
        seed(home)
        del env["PREFECT_API_URL"]
    return {**env, **extra}


def subgame(*args: str, env: dict[str, str], **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "subgame.cli", *args], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def finish(process: subprocess.Popen, timeout: float = 120
           ) -> tuple[int, list | dict | None, str]:
    """Exit status, the JSON it printed (if any; `run --json` prints a list of reports) and
    its stderr."""
    out, err = process.communicate(timeout=timeout)
    try:
        report = json.loads(out) if out.strip() else None
    except ValueError:
        report = None
    return process.returncode, report, err


# -- store progress, read the way a resumed run reads it -------------------------------------
@dataclass(frozen=True)
class Progress:
    finished: frozenset[int]  # steps in steps_done
    pending: dict[int, int]  # unfinished step -> shards whose marker is not set
    has_plan: bool  # the group records the plan's steps (it is created with none)

    @property
    def pending_shards(self) -> int:
        return sum(self.pending.values())


def progress(url: str, group_path: str) -> Progress:
    try:
        # Not the consolidated metadata: a snapshot the driver refreshes after each run.
        group = zarr.open_group(url, mode="r", use_consolidated=False)[group_path]
        steps = group.attrs["steps"]
    except (FileNotFoundError, KeyError):
        return Progress(frozenset(), {}, False)
    if not steps:  # killed between creating the group and recording the plan's steps
        return Progress(frozenset(), {}, False)
    done = frozenset(int(k) for k in group.attrs.get("steps_done", {}))
    pending = {}
    for step in steps:
        if step["index"] in done:
            continue
        try:
            markers = group[f"_markers/{step['index']:05d}"][:]
        except KeyError:  # killed while the driver created the arrays
            markers = np.zeros(step["shards"], dtype="uint8")
        pending[step["index"]] = int((markers == 0).sum())
    return Progress(done, pending, True)


def one_line_refusal(result, message: str) -> None:
    """A CLI refusal: exit 2 and one line, "error: ..." naming ``message``."""
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines


def kill_after_steps(args: tuple[str, ...], env: dict[str, str], store: str, group: str,
                     steps: int) -> Progress:
    """Start `subgame *args`, SIGKILL it once ``steps`` steps are recorded finished, and
    return the store's progress as the kill left it."""
    run = subgame(*args, env=env)
    wait_for(lambda: len(progress(store, group).finished) >= steps or run.poll() is not None,
             timeout=120, every=0.002)
    assert run.poll() is None, "the run ended before the kill point"
    run.send_signal(signal.SIGKILL)
    run.wait()
    return progress(store, group)


def wait_for(condition: Callable[[], bool], timeout: float = 60, every: float = 0.005) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        time.sleep(every)


# -- a real Dask cluster out of separate processes ---------------------------------------------
@dataclass
class DaskProcesses:
    address: str
    scheduler: subprocess.Popen
    workers: list[subprocess.Popen]

    def kill_worker(self, index: int) -> None:
        self.workers[index].send_signal(signal.SIGKILL)
        self.workers[index].wait()


@contextmanager
def dask_processes(tmp_path: Path, workers: int = 2) -> Iterator[DaskProcesses]:
    """`dask scheduler` and `dask worker` processes on loopback ports, no dashboards.  The
    scheduler binds a port of its own choosing and writes its address to a scheduler
    file (a port picked here could be taken by another process before it binds)."""
    from distributed import Client

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    logs = open(tmp_path / "dask.log", "w")
    common = {"env": env, "stdout": logs, "stderr": subprocess.STDOUT, "cwd": ROOT}
    scheduler_file = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                                  "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                  "--scheduler-file", str(scheduler_file)], **common)
    started = [scheduler]

    def written() -> str | None:  # the file may be read while the scheduler writes it
        try:
            return json.loads(scheduler_file.read_text())["address"]
        except (FileNotFoundError, ValueError, KeyError):
            return None

    try:
        wait_for(lambda: written() is not None or scheduler.poll() is not None, timeout=60,
                 every=0.1)
        address = written()
        assert address, f"dask scheduler exited: {(tmp_path / 'dask.log').read_text()[-300:]}"
        for index in range(workers):
            started.append(subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address,
                 "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny", "--no-dashboard",
                 "--name", f"w{index}"], **common))
        with Client(address, timeout="60s") as client:
            client.wait_for_workers(workers, timeout=60)
        yield DaskProcesses(address, scheduler, started[1:])
    finally:
        for process in reversed(started):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        logs.close()


def corrupt_chunk(store: str, group_path: str, array: str, chunk: tuple[int, ...]) -> Path:
    """Flip bytes in the middle of one stored chunk, as a failing disk would."""
    path = Path(store, group_path, array, "c", *map(str, chunk))
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 4] = bytes(b ^ 0xFF for b in data[middle:middle + 4])
    path.write_bytes(bytes(data))
    return path
