"""The machine refusing, not the input: an interpreter the watchdog cannot start, folders and
stores this user may not write or read. One line on stderr, exit status 5 (the table in
subgame/commands/common.py and the README), no traceback, nothing written."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import shutil
import stat
import subprocess
import sys

import pytest

from subgame import cli
from subgame.errors import MACHINE
from subgame.flows.run import run_flow
from subgame.options import RunOptions
from tests.ops_helpers import ROOT, subprocess_env
from tests.store_compare import tree_snapshot

# root ignores file permissions; without the capabilities that let it, it meets them as any
# user does (util-linux's setpriv, on Debian's base system)
AS_A_USER = (["setpriv", "--bounding-set=-dac_override,-dac_read_search",
              "--inh-caps=-dac_override,-dac_read_search", "--"] if os.geteuid() == 0 else [])


def refused(command: list[str], env: dict) -> str:
    """The one line of a command the machine refuses."""
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == MACHINE and done.stdout == "", (command, done)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


@pytest.mark.parametrize("interpreter", ["missing", "not-executable"])
@pytest.mark.parametrize("verb", [["run", "guess-who", "--max-n", "5", "--store", "s.zarr"],
                                  ["serve", "--list"]], ids=lambda verb: verb[0])
def test_a_watchdog_that_cannot_start_is_one_line(tmp_path, interpreter, verb):
    """The watchdog runs as ``sys.executable -m subgame.watchdog``: an interpreter this user
    cannot execute (a file without the x bit, as for a user outside a venv's group) or that
    is gone stops the verb before it starts anything."""
    python = tmp_path / "python"
    if interpreter == "not-executable":
        python.write_text("")
    program = (f"import sys; sys.executable = {str(python)!r}; sys.argv = ['subgame', "
               f"*{verb!r}]; from subgame.cli import main; main()")
    line = refused([sys.executable, "-c", program], {**subprocess_env(tmp_path)})
    assert "cannot start the watchdog" in line and str(python) in line
    assert not (ROOT / "s.zarr").exists()


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("machine") / "store.zarr")
    run_flow("guess-who", {"max_n": 12, "band": 4}, RunOptions(path, executor="serial"))
    return path


@pytest.mark.skipif(os.geteuid() == 0 and shutil.which("setpriv") is None,
                    reason="root without setpriv cannot meet a permission")
def test_permissions_are_the_machines_refusal(store, tmp_path):
    """A folder this user cannot write in, a store it cannot read, a store it cannot write:
    status 5, and the store as it was."""
    env = subprocess_env(tmp_path)
    cli = [*AS_A_USER, sys.executable, "-m", "subgame.cli"]
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    line = refused([*cli, "run", "guess-who", "--max-n", "5", "--store",
                    str(folder / "s.zarr")], env)
    assert "cannot write in" in line
    assert list(folder.iterdir()) == []

    locked = tmp_path / "locked.zarr"
    shutil.copytree(store, locked)
    before = tree_snapshot(str(locked))
    for path in [locked, *locked.rglob("*")]:  # read-only, as a store on a read-only disk
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    refused([*cli, "run", "guess-who", "--max-n", "16", "--band", "4", "--store",
             str(locked)], env)
    locked.chmod(0)  # and now unreadable
    try:
        for verb in (["status"], ["query", "guess-who", "--n", "3", "--m", "4"]):
            assert "Permission denied" in refused([*cli, *verb, "--store", str(locked)], env)
    finally:  # writable again, for the test's own cleanup
        locked.chmod(stat.S_IRWXU)
        for path in locked.rglob("*"):
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    assert tree_snapshot(str(locked)) == before


def test_reads_dropped_unread_after_a_refusal_are_not_reported(caplog):
    """Of the exceptions asyncio finds unread (a task's or a future's), a refused read's go
    unreported (the user has the refusal's one line); any other is still reported. Only
    this test's own exceptions count: collecting garbage may report other tests' leftovers."""
    refusal, bug, future_refusal = (PermissionError(13, "Permission denied"),
                                    ValueError("a bug"), PermissionError(13, "x"))

    async def raising(exc: BaseException) -> None:
        raise exc

    async def drop_unread() -> None:
        for exc in (refusal, bug):
            asyncio.ensure_future(raising(exc))
        asyncio.get_running_loop().create_future().set_exception(future_refusal)
        await asyncio.sleep(0.01)

    asyncio_log = logging.getLogger("asyncio")
    asyncio_log.addFilter(cli._read_elsewhere)
    try:
        asyncio.run(drop_unread())
        gc.collect()
    finally:
        asyncio_log.removeFilter(cli._read_elsewhere)
    ours = (refusal, bug, future_refusal)
    reported = [record.exc_info[1] for record in caplog.records if record.exc_info
                and any(record.exc_info[1] is exc for exc in ours)]
    assert reported == [bug]
