"""`subgame web --store S [--host 127.0.0.1] [--port 8000] [--workers K]`: serve the store
until stopped."""

from __future__ import annotations

import ctypes
import os
import signal
import socket
from typing import Annotated, Optional

import typer

from subgame.commands.common import StoreOption, console, user_errors
from subgame.errors import InvalidInput
from subgame.storage import resolve_store
from subgame.storage.location import open_root

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def parse_allowed(entries: list[str]) -> dict[str, tuple[str, ...]]:
    """--allow OPTION=VALUE entries as {option: values}."""
    allowed: dict[str, tuple[str, ...]] = {}
    for entry in entries:
        option, equals, value = entry.partition("=")
        if not equals or not option.strip() or not value:
            raise InvalidInput(f"--allow takes OPTION=VALUE, e.g. board=boards/mine.csv; got "
                               f"{entry!r}")
        key = option.strip().removeprefix("--").replace("-", "_")
        allowed[key] = (*allowed.get(key, ()), value)
    return allowed


@user_errors
def web(store: StoreOption = None,
        host: Annotated[str, typer.Option(
            "--host", metavar="<address>", help="Address to listen on; anything but this machine's own is "
                           "reachable from others.")] = "127.0.0.1",
        port: Annotated[int, typer.Option("--port", min=0, max=65535, metavar="<int>",
                                          help="Port (0: any free one).")] = 8000,
        allow: Annotated[Optional[list[str]], typer.Option(
            "--allow", metavar="<option=value>",
            help="OPTION=VALUE a request may give to an option the web otherwise "
                 "fixes, e.g. board=FILE for a board CSV (repeat).")] = None,
        workers: Annotated[int, typer.Option(
            "--workers", min=1, max=64, metavar="<int>",
            help="Processes answering on the same socket (the kernel shares the "
                 "connections among them): up to one per core.")] = 1) -> None:
    """Serve the store read-only: a JSON API (/docs) and a page to explore it and to play."""
    import uvicorn

    from subgame.storage import reading
    from subgame.web.app import build_app

    url = resolve_store(store)
    open_root(url, writable=False)  # a missing store is refused now, in one line
    reading.keep_opened()  # this process only reads: keep what it opens while unchanged
    app = build_app(url, parse_allowed(allow or []))
    if host not in LOCAL_HOSTS:
        console.print(f"listening on {host}: reachable from other machines (read-only)",
                      soft_wrap=True)
    listening = listen(host, port)
    bound = listening.getsockname()[1]
    children = _fork_workers(workers)
    if children is not None:  # the parent, once every process serves
        console.print(f"serving {url} read-only at http://{host}:{bound}/ ; stop with Ctrl-C",
                      soft_wrap=True, highlight=False)
    try:
        uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False)).run(
            sockets=[listening])
    finally:
        for pid in children or ():
            os.kill(pid, signal.SIGTERM)
        for pid in children or ():
            os.waitpid(pid, 0)


def listen(host: str, port: int) -> socket.socket:
    """The server's listening socket, Nagle's algorithm off for every connection it accepts
    (Linux copies the option to them). asyncio turns it off only on sockets made with
    proto=IPPROTO_TCP, which create_server's are not; left on, an answer's body waits for
    the client's delayed ACK of its headers, 40 ms an answer."""
    try:
        listening = socket.create_server(
            (host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError as exc:
        raise InvalidInput(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    listening.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return listening


def _fork_workers(workers: int) -> list[int] | None:
    """Fork ``workers`` - 1 copies of this process, which serve the socket it listens on;
    the parent gets their pids, a child None. A request is answered in one process's event
    loop and GIL: processes, not threads, answer several at once. A child stops with its
    parent, however the parent ends (Linux's parent-death signal)."""
    children = []
    for _ in range(workers - 1):
        pid = os.fork()
        if pid == 0:
            ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
            return None
        children.append(pid)
    return children
