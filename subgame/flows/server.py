"""Where a flow run reports: a Prefect server the user runs, or a temporary one.

A run that uses Prefect asks, in order: `PREFECT_API_URL` (set, or in Prefect's profile),
a server answering on this machine's port 4200 (`$SUBGAME_SERVER_PORT`: `subgame server
start`, `prefect server start`, `subgame serve`'s), else Prefect's temporary server, started
in a thread as soon as the run knows it needs one, so that its start-up (seconds on a busy
machine) overlaps the rest: the checks, plan and estimate where the flow is forced
(`--orchestrate prefect`, a named cluster), the flow's imports where the estimate chose it.
Only a run that starts the temporary server imports Prefect's server modules. The
temporary server gets `PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS` to answer,
`STARTUP_SECONDS` unless the user sets it (Prefect's own 20 s is missed on a loaded 2-core
machine); after `WAIT_NOTICE_SECONDS` of waiting the terminal says what it waits for. A
server that does not come up is not a failure of the run: `wait()` returns None and the
caller runs without Prefect, into the same store, with the one line `fallback_warning()`.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from subgame import interrupts

PORT_SETTING = "SUBGAME_SERVER_PORT"  # where `subgame server start` listens and runs look
DEFAULT_PORT = 4200  # Prefect's own default (`prefect server start`)
TIMEOUT_SETTING = "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"
STARTUP_SECONDS = 120
WAIT_NOTICE_SECONDS = 2.0


def local_api_url() -> str:
    return f"http://127.0.0.1:{os.environ.get(PORT_SETTING) or DEFAULT_PORT}/api"


def running_local_server(url: str | None = None) -> str | None:
    """The API URL of a Prefect server answering on this machine's port, if any."""
    import urllib.request  # (a run that uses no server does not pay its 10 ms import)

    url = url or local_api_url()
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=0.3) as answer:
            return url if answer.status == 200 else None
    except OSError:
        return None


def startup_timeout() -> float:
    return float(os.environ.get(TIMEOUT_SETTING) or STARTUP_SECONDS)


def flow_settings(url: str, temporary: bool) -> dict:
    """Prefect's settings for a flow run reporting to the server at ``url``. A temporary
    server's flow run sends no heartbeats: they let a server that outlives the run's process
    mark the run crashed once the process dies, a temporary server ends with that process,
    and the flow's end waits up to a second for the thread that sends them."""
    from prefect.settings import PREFECT_API_URL, PREFECT_FLOWS_HEARTBEAT_FREQUENCY

    return {PREFECT_API_URL: url} | ({PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None} if temporary
                                     else {})


class FlowServer:
    """The server a run's flow reports to, found or started in a thread (`begin`)."""

    def __init__(self) -> None:
        self.url: str | None = None
        self.failure: str | None = None
        self.temporary = None  # Prefect's SubprocessASGIServer, when this run started one
        self.imported = threading.Event()  # Prefect imported: the caller may import it too
        self.thread = threading.Thread(target=self._find_or_start, daemon=True,
                                       name="prefect-server")

    @classmethod
    def begin(cls) -> "FlowServer":
        server = cls()
        server.thread.start()
        return server

    def _find_or_start(self) -> None:
        try:
            try:
                # Prefect imported in this thread only: importing it from two threads at
                # once can meet a half-initialised module; the caller waits for `imported`.
                # The server's own modules (three times Prefect's client in import time)
                # only when no server answers.
                from prefect.settings import PREFECT_API_URL

                self.url = PREFECT_API_URL.value() or running_local_server()
                if self.url is None:
                    from subgame.flows.quiet_server import QuietServer
            finally:
                self.imported.set()
            if self.url is None:
                self.temporary = QuietServer()
                self.temporary.start(timeout=startup_timeout())
                self.url = self.temporary.api_url
        except Exception as exc:  # noqa: BLE001 - any failure to start means: no Prefect
            self.failure = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"

    def wait_imported(self) -> None:
        while not self.imported.wait(0.2):  # short waits: a Ctrl-C is handled meanwhile
            interrupts.stop_if_signalled()

    def wait(self, notice: bool = True) -> str | None:
        """The server's API URL once it answers; None if it could not be started."""
        start = time.monotonic()
        said = not notice
        while self.thread.is_alive():
            self.thread.join(0.2)
            interrupts.stop_if_signalled()
            if not said and time.monotonic() - start > WAIT_NOTICE_SECONDS and \
                    self.thread.is_alive():
                print(f"waiting for Prefect's temporary server to start (up to "
                      f"{startup_timeout():.0f} s, {TIMEOUT_SETTING}; a running server "
                      f"spares it: `subgame server start`)", file=sys.stderr, flush=True)
                said = True
        if self.url is None:
            self.stop()
        return self.url

    def fallback_warning(self) -> str:
        return (f"warning: Prefect's temporary server did not start ({self.failure}); "
                f"running without Prefect into the same store. For Prefect, start a server "
                f"first (`subgame server start` or `prefect server start`) or set "
                f"PREFECT_API_URL; {TIMEOUT_SETTING} gives the temporary one longer")

    def flow_settings(self) -> dict:
        """Prefect's settings for the flow run, once `wait` has returned the URL."""
        return flow_settings(self.url, temporary=self.temporary is not None)

    def stop(self) -> None:
        if self.temporary is not None:
            self.temporary.stop()
            self.temporary = None
