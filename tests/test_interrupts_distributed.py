"""Signals on the distributed path: `run --orchestrate prefect --workers 2` with its own
temporary Prefect server and a local Dask cluster (two workers, their nannies), stopped by
SIGINT and SIGTERM to its process group (a terminal's Ctrl-C, a batch scheduler) and by a
SIGKILL of the run's process alone (the OOM killer), each at a random moment: while the
server or the cluster starts, inside a level, between levels. Each exits 130 / 143 (or is
killed), leaves nothing running, and the same command then finishes a store equal to one
an uninterrupted run writes. The seed and the moments are in every failure's message."""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

from subgame import interrupts
from tests.ops_helpers import finish, progress, subgame, subprocess_env, wait_for
from tests.store_compare import assert_stores_equal
from tests.toy_family.plan import expected

GROUP, LEVELS, SHARDS = "toy/S4-M7", 8, 4
COMMAND = ("run", "toy", "--levels", str(LEVELS), "--shards", str(SHARDS), "--delay", "0.3",
           "--orchestrate", "prefect", "--workers", "2")
WAITING = "waiting for Prefect's temporary server to start"
# The watchdog's SIGTERM, its SIGKILL after 5 s, and slack for a loaded 2-core machine.
NOTHING_LEFT_WITHIN = 20


def started_by(home: str) -> list[str]:
    """Command lines of the live processes that inherited the run's environment (each run
    here has its own PREFECT_HOME): the run, its server, the cluster, the watchdog."""
    tag, found = f"PREFECT_HOME={home}".encode(), []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if tag in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0") and \
                    Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.append(Path(f"/proc/{entry}/cmdline").read_bytes().decode())
        except (OSError, IndexError):  # gone meanwhile, or not readable
            continue
    return found


def handles_signals(pid: int) -> bool:
    """Whether the process catches SIGTERM (SigCgt in /proc), which the run does once its
    handlers are installed: before that, during the interpreter's own start-up, a signal
    ends the process as the default action does, before any of its code has run."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    return False


def stop_at_a_random_moment(store: str, env: dict, sig: int, rng: random.Random) -> str:
    """One run, stopped by ``sig`` once a random number of levels (0-3) is finished (on a
    resumed store, at once) and a random fraction of a level later, never before the
    run's own code has started; a description of the moment."""
    run = subgame(*COMMAND, "--store", store, env=env, start_new_session=True)
    wait_for(lambda: run.poll() is not None or handles_signals(run.pid), timeout=120,
             every=0.01)
    levels, later = rng.randint(0, 3), rng.uniform(0, 0.6)
    started = time.monotonic()
    if levels == 0:  # while the server, then the cluster, start
        time.sleep(rng.uniform(0.5, 6))
    else:
        wait_for(lambda: run.poll() is not None or
                 len(progress(store, GROUP).finished) >= levels, timeout=300, every=0.01)
    time.sleep(later)
    moment = f"{signal.Signals(sig).name} after {levels} levels + {later:.2f} s " \
             f"({time.monotonic() - started:.1f} s in)"
    assert run.poll() is None, f"the run ended before {moment}"
    if sig == signal.SIGKILL:
        run.kill()  # the run's process alone: what it started is the watchdog's to end
    else:
        os.killpg(run.pid, sig)
    status, _, err = finish(run, timeout=120)
    if sig == signal.SIGKILL:
        assert status == -signal.SIGKILL, (moment, status, err)
    else:
        assert status == 128 + sig, (moment, status, err)
        # (a loaded machine's run first says it waits for its server)
        *before, last = [line for line in err.splitlines() if line.strip()]
        assert last.startswith("interrupted ") and last.endswith(interrupts.RESUME_HINT) \
            and all(line.startswith(WAITING) for line in before), (moment, err)
    return moment


def test_signals_at_random_moments_leave_nothing_and_a_clean_store(tmp_path):
    seed = int.from_bytes(os.urandom(4), "big")
    rng = random.Random(seed)
    store = str(tmp_path / "s.zarr")
    env = subprocess_env(tmp_path, own_server=True)  # each run starts its temporary server
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        moment = stop_at_a_random_moment(store, env, sig, rng)
        try:
            wait_for(lambda: not started_by(env["PREFECT_HOME"]), timeout=NOTHING_LEFT_WITHIN,
                     every=0.2)
        except TimeoutError:
            raise AssertionError(f"seed {seed}, {moment}: still running "
                                 f"{started_by(env['PREFECT_HOME'])}") from None
    # The same command resumes, reporting to the session's server (a temporary server's
    # start-up is what the stops above covered).
    status, _, err = finish(subgame(*COMMAND, "--store", store, env=subprocess_env(tmp_path)),
                            timeout=600)
    assert status == 0, (seed, err)
    clean = str(tmp_path / "clean.zarr")  # the same computation, never interrupted
    status, _, err = finish(subgame(*COMMAND[:-4], "--orchestrate", "none", "--executor",
                                    "threads", "--store", clean, env=env), timeout=600)
    assert status == 0, err
    assert_stores_equal(store, clean)
    import zarr

    group = zarr.open_group(store, mode="r")[GROUP]
    assert group.attrs["complete"], seed
    assert (group["values"][:] == expected(LEVELS, SHARDS)).all(), seed
