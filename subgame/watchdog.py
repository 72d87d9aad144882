"""Nothing left running: whatever a run started ends when the run's process ends.

`guard()` tags the environment that every child inherits (Prefect's temporary server, the
local Dask cluster's nanny and workers) with a run id, and starts this module as a
watchdog in its own session, reading a pipe whose only writer is the run's process. The
pipe closes when that process ends, however it ends (exit, Ctrl-C, SIGTERM, SIGKILL, the
OOM killer); the watchdog then sends SIGTERM to every process carrying the tag, and
SIGKILL to those still there after a few seconds. Linux: it reads /proc/<pid>/environ.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

RUN_ENV = "SUBGAME_RUN_ID"
GRACE_SECONDS = 5.0


def guard() -> None:
    """Tag this process's future children and start their watchdog."""
    if not os.path.isdir("/proc"):
        return  # no way to find the children afterwards; nothing to promise
    run_id = uuid.uuid4().hex
    os.environ[RUN_ENV] = run_id
    read, _ = os.pipe()  # both ends non-inheritable: no child keeps the pipe open
    try:
        subprocess.Popen([sys.executable, "-m", "subgame.watchdog", run_id], stdin=read,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True,  # a Ctrl-C to the run's group spares it
                         env={k: v for k, v in os.environ.items() if k != RUN_ENV})
    except OSError as exc:  # nothing started yet: the run refuses rather than risk orphans
        from subgame.errors import MachineRefused

        raise MachineRefused(
            f"cannot start the watchdog that ends this run's workers and servers with it: "
            f"{sys.executable!r}: {exc.strerror}; let this user execute the Python "
            "interpreter (or run subgame with one it can)") from None
    os.close(read)  # the write end stays open until this process ends, never closed


def tagged(run_id: str) -> list[int]:
    """The processes whose environment carries this run's tag."""
    tag, found = f"{RUN_ENV}={run_id}".encode(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as environ:
                if tag in environ.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:  # gone, or not ours to read
            continue
    return found


def terminate_children() -> None:
    """From the run's own process, as it ends: SIGTERM to what it started, at once."""
    run_id = os.environ.get(RUN_ENV)
    for pid in tagged(run_id) if run_id and os.path.isdir("/proc") else ():
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass


def end_all(run_id: str) -> None:
    for sig, wait in ((signal.SIGTERM, GRACE_SECONDS), (signal.SIGKILL, 0.0)):
        for pid in tagged(run_id):
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + wait
        while tagged(run_id) and time.monotonic() < deadline:
            time.sleep(0.1)


if __name__ == "__main__":
    sys.stdin.buffer.read()  # returns at end of file: the run's process has ended
    end_all(sys.argv[1])
