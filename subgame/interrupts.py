"""Ctrl-C and SIGTERM during a run: stop within seconds, say so in one line, lose nothing.

A terminal's Ctrl-C signals the whole foreground process group, and a batch scheduler's
SIGTERM may too: the run's process, Prefect's temporary server and a local cluster's
workers all receive it at once. So:

- before the run begins (while modules import, the app is built, options parsed) a signal
  ends the process at once with the one line: nothing is started or written yet;
- once it has begun, the first signal raises `RunInterrupted` in the run's main thread, which unwinds the run
  in order (pending shards cancelled, cluster closed, lock released) and exits 130 (SIGINT)
  or 143 (SIGTERM); because the temporary server died with the same signal, Prefect may
  then spend minutes retrying to report the crash, so the process exits anyway
  `GRACE_SECONDS` later;
- a second signal exits at once;
- a local cluster's workers ignore SIGINT (`dask_setup`): they stop when the run closes
  its cluster; they and Prefect's temporary server write nothing to the terminal
  (`silent_children`), so a Ctrl-C while they start prints no traceback or "Aborted!".

Exiting early loses nothing: a shard's marker is written after its data, so the store's
markers name exactly the finished work, whatever moment the process ends (the kill tests
in tests/test_nothing_lost.py), and whatever the run started ends with it
(`subgame.watchdog`).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from contextlib import contextmanager, suppress
from typing import Iterator

from subgame import watchdog
from subgame.exact import counted

GRACE_SECONDS = 4.0
SIGNALS = (signal.SIGINT, signal.SIGTERM)
RESUME_HINT = "run the same command again to resume"


class RunInterrupted(BaseException):
    """The run was asked to stop. A BaseException, as KeyboardInterrupt is, so that no
    `except Exception` on the way up mistakes it for a failure to handle."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.exit_status = 128 + signum


class _Interruptions:
    """What the handler needs to know: how far the run got, whether it was already asked."""

    def __init__(self) -> None:
        self.steps_finished = 0
        self.unwinds = False  # set as the run begins: from then on a signal unwinds it
        self.signalled: int | None = None
        self.exiting = threading.Lock()  # held by the thread that ends the process

    def message(self) -> str:
        return f"interrupted after {counted(self.steps_finished, 'step')}; {RESUME_HINT}"


_state = _Interruptions()


def step_finished() -> None:
    """Called by the engine as each step's markers are complete."""
    _state.steps_finished += 1


def exit_now(status: int) -> None:
    """Print the one line and end the process; the orderly part of the unwinding is done,
    or has had its time."""
    if not _state.exiting.acquire(blocking=False):
        return  # the other thread is already ending the process
    watchdog.terminate_children()  # before they notice the driver gone and say so
    if sys.stdout.isatty():
        sys.stdout.write("\x1b[?25h\n")  # a progress display hides the cursor; give it back
    sys.stdout.flush()
    _write_terminal(_state.message())
    os._exit(status)


def _handle(signum: int, _frame) -> None:
    if _state.signalled is not None or not _state.unwinds:
        # The second Ctrl-C: the user will not wait. Or the run has not begun (imports,
        # options, the app being built): nothing to unwind, nothing written.
        exit_now(128 + signum)
    _state.signalled = signum
    logging.disable(logging.CRITICAL)  # Prefect's "Crash detected!" and retries: noise now
    timer = threading.Timer(GRACE_SECONDS, exit_now, args=(128 + signum,))
    timer.daemon = True
    timer.start()
    raise RunInterrupted(signum)


class _SignalCrashes(logging.Filter):
    """Inside a flow run Prefect turns SIGTERM into a crash it logs before re-sending the
    signal to this module's handler: for a run told to stop, that line is noise."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "aborted by a termination signal" not in record.getMessage()


def install() -> None:
    """Handle SIGINT and SIGTERM as above, for the rest of this process (the CLI's run)."""
    if signal.getsignal(signal.SIGINT) is _handle:
        return  # installed already
    for sig in SIGNALS:
        signal.signal(sig, _handle)
    sys.unraisablehook = _unraisable
    logging.getLogger("prefect.flow_runs").addFilter(_SignalCrashes())
    # multiprocessing's resource tracker (a child) frees the semaphores of a local cluster
    # that an interrupt stopped halfway through its start, and warns that it did.
    os.environ["PYTHONWARNINGS"] = ",".join(filter(None, (
        os.environ.get("PYTHONWARNINGS"),
        "ignore::UserWarning:multiprocessing.resource_tracker")))


def _unraisable(unraisable, default=sys.unraisablehook) -> None:
    """The handler's `RunInterrupted`, raised where Python cannot raise (a garbage
    collector's callback, such as the one a local cluster's scheduler installs in this
    process), is dropped without a traceback: the run stops at its next `stop_if_signalled`
    or when the grace period ends. Anything else is printed as Python prints it."""
    if not isinstance(unraisable.exc_value, RunInterrupted):
        default(unraisable)


def stop_if_signalled() -> None:
    """Raise the interruption under way in a thread that waits, in case the handler's own
    raise was dropped (`_unraisable`)."""
    if _state.signalled is not None:
        raise RunInterrupted(_state.signalled)


def run_begins() -> None:
    """From now on the first signal unwinds the run in order (`RunInterrupted`)."""
    _state.unwinds = True


def reclaim_sigterm() -> None:
    """Inside the CLI's flow run: SIGTERM stops the run as Ctrl-C does, not as Prefect's
    flow engine would (it takes the signal for a crash, reports the flow's and each running
    task's to a server that the same signal may have stopped, and prints what fails).
    Prefect's engine puts this handler back as the flow run ends."""
    if signal.getsignal(signal.SIGINT) is _handle and \
            threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _handle)


def signalled(error: BaseException | None = None) -> RunInterrupted | None:
    """The interruption under way, if any: whatever a library raises while the run unwinds
    (a server that died with the same Ctrl-C) is that interruption, not a failure. So is
    an ``error`` raised while Prefect handled a SIGTERM itself (one that came as its flow
    run started, before `reclaim_sigterm`): it reports the crash to its server before
    passing the signal on, and where that server died of the same signal, the report's
    error hides it."""
    if _state.signalled is not None:
        return RunInterrupted(_state.signalled)
    prefect = sys.modules.get("prefect.exceptions")  # (only a flow run has imported it)
    seen: set[int] = set()
    while prefect is not None and error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, prefect.TerminationSignal):
            return RunInterrupted(error.signal)
        error = error.__cause__ or error.__context__
    return None


def dask_setup(worker) -> None:
    """Dask's preload hook (`preload=["subgame.interrupts"]`): a local worker ignores the
    Ctrl-C sent to the whole process group, and stops when the run closes its cluster."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


_silence_lock = threading.Lock()
_silenced = 0  # blocks inside silent_children, in every thread
_saved_stderr = -1  # this process's stderr while fd 2 is /dev/null


@contextmanager
def silent_children() -> Iterator[None]:
    """Processes started inside this block (a local cluster's workers, Prefect's temporary
    server) write their stderr to /dev/null: a Ctrl-C that reaches a worker still importing
    (before `dask_setup`) would print a KeyboardInterrupt traceback, and the server's
    command line "Aborted!". Nothing is lost: a shard's error reaches the run through its
    future, the workers' log lines are silenced anyway, and a server that fails to start
    fails the run. Once a signal stops the run, stderr stays silent until the process
    ends (`exit_now` writes its line to the saved one): the cluster's event loop may still
    spawn a worker, which would report its parent gone."""
    global _silenced, _saved_stderr
    with _silence_lock:  # threads may start children at once: the first in redirects,
        if _saved_stderr < 0:  # the last out restores
            sys.stderr.flush()
            _saved_stderr, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)
            os.close(devnull)
        _silenced += 1
    try:
        yield
    finally:
        with _silence_lock:
            _silenced -= 1
            if not _silenced and _state.signalled is None:
                os.dup2(_saved_stderr, 2)
                os.close(_saved_stderr)
                _saved_stderr = -1


def _write_terminal(line: str) -> None:
    """A line on this process's stderr, also while `silent_children` holds it."""
    sys.stderr.flush()
    data = (line + "\n").encode()
    try:
        os.write(_saved_stderr if _saved_stderr >= 0 else 2, data)
    except OSError:  # restored and closed meanwhile by another thread, or the reader left
        with suppress(OSError):
            os.write(2, data)
