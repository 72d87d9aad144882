"""Prefect's temporary server, as Prefect starts it, but writing nothing to the terminal."""

from __future__ import annotations

from prefect.server.api.server import SubprocessASGIServer

from subgame import interrupts


class QuietServer(SubprocessASGIServer):
    """A Ctrl-C while the server starts would make it print "Aborted!"; its stderr goes to
    /dev/null (its failures reach the run as a timeout)."""

    def _run_uvicorn_command(self):
        with interrupts.silent_children():
            return super()._run_uvicorn_command()
