"""A Prefect home whose database is migrated, made once per test run: a test that starts a
Prefect server of its own (a run's temporary server, `subgame server start`, `prefect
server start`) starts it in a copy, which finds its tables made instead of running every
migration on an empty database, much of a server's start-up. A real temporary server
makes it."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

START_AND_STOP = ("from prefect.server.api.server import SubprocessASGIServer\n"
                  "server = SubprocessASGIServer()\n"
                  "server.start(timeout=600)\n"
                  "server.stop()\n")


def migrated_home(test_folder: Path) -> Path:
    """The run's migrated home, beside the test folders (above pytest-xdist's worker
    folders, which share it); the first test to ask makes it, the others wait for it."""
    root = test_folder.parent
    if "PYTEST_XDIST_WORKER" in os.environ:
        root = root.parent
    home = root / "prefect-home-migrated"
    with open(root / "prefect-home-migrated.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not home.exists():
            making = root / "prefect-home-making"
            shutil.rmtree(making, ignore_errors=True)
            making.mkdir()
            env = {**os.environ, "PREFECT_HOME": str(making),
                   "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
            env.pop("PREFECT_API_URL", None)
            made = subprocess.run([sys.executable, "-c", START_AND_STOP], env=env,
                                  capture_output=True, text=True, timeout=900)
            assert made.returncode == 0, f"a Prefect server did not start:\n{made.stderr}"
            making.rename(home)  # whole, or not there
    return home


def seed(home: Path) -> None:
    """Copy the run's migrated home into ``home``, a folder in a test's folder (tmp_path, or
    a folder from tmp_path_factory), unless a database is there already."""
    if not (home / "prefect.db").exists():
        shutil.copytree(migrated_home(home.parent), home, dirs_exist_ok=True)
