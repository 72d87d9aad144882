"""`subgame server start|stop|status`: a long-lived Prefect server on this machine.

It is Prefect's own (`prefect server start`), bound to 127.0.0.1 on port 4200
(`$SUBGAME_SERVER_PORT`), its database and log under the user's Prefect home
(`$PREFECT_HOME`, ~/.prefect by default). Every later run that uses Prefect finds it
(`subgame.flows.server`) instead of starting a temporary server of its own: worth it for
many flow runs in a row, on a loaded machine, or to keep the runs' history in its UI.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import typer

from subgame.commands.common import console, user_errors
from subgame.errors import InvalidInput
from subgame.flows.server import DEFAULT_PORT, PORT_SETTING, running_local_server, startup_timeout

app = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                  help="A long-lived local Prefect server that later runs use.")


def _home() -> Path:
    from prefect.settings import PREFECT_HOME

    home = Path(PREFECT_HOME.value()).expanduser()
    home.mkdir(parents=True, exist_ok=True)
    return home


def _pid_file() -> Path:
    return _home() / "subgame-server.pid"


def _recorded_pid() -> int | None:
    try:
        pid = int(_pid_file().read_text())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


@app.command("start")
@user_errors
def start() -> None:
    """Start the server (in the background) and wait until it answers."""
    url = running_local_server()
    if url:
        console.print(f"a Prefect server already answers at {url}")
        return
    port = os.environ.get(PORT_SETTING) or str(DEFAULT_PORT)
    log = open(_home() / "subgame-server.log", "ab")
    server = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host",
                               "127.0.0.1", "--port", port], stdin=subprocess.DEVNULL,
                              stdout=log, stderr=log, start_new_session=True)
    _pid_file().write_text(str(server.pid))
    deadline = time.monotonic() + startup_timeout()
    while not running_local_server():
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            raise InvalidInput(f"the Prefect server did not start (see "
                               f"{_home() / 'subgame-server.log'})")
        time.sleep(0.5)
    console.print(f"Prefect server at {running_local_server()} (pid {server.pid}); later "
                  f"runs use it; `subgame server stop` ends it")


@app.command("status")
@user_errors
def status() -> None:
    """Say whether the server answers, and where."""
    url, pid = running_local_server(), _recorded_pid()
    if url is None:
        console.print("no Prefect server answers here; `subgame server start` starts one")
        raise typer.Exit(1)
    console.print(f"Prefect server at {url}" + (f" (pid {pid})" if pid else
                                                " (not started by subgame)"))


@app.command("stop")
@user_errors
def stop() -> None:
    """Stop the server `subgame server start` started."""
    pid = _recorded_pid()
    if pid is None:
        raise InvalidInput("no server started by `subgame server start` is running")
    os.killpg(pid, signal.SIGTERM)  # its session: the server and whatever it started
    deadline = time.monotonic() + 60
    while _recorded_pid() is not None and time.monotonic() < deadline:
        time.sleep(0.2)
    if _recorded_pid() is not None:
        os.killpg(pid, signal.SIGKILL)
    _pid_file().unlink(missing_ok=True)
    console.print("Prefect server stopped")
