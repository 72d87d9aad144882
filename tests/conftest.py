"""Real components for every test: one Prefect test server, one Dask LocalCluster (a test
session's; each of pytest-xdist's worker processes is a session of its own)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The toy family lives in tests/ and is registered the way any outside family is; child
# processes inherit the registration and the path that finds it, from any working directory.
os.environ["SUBGAME_FAMILIES"] = "tests.toy_family.family"
os.environ["PYTHONPATH"] = os.pathsep.join(
    filter(None, [str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH")]))

from prefect.testing.utilities import prefect_test_harness  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def prefect_server():
    with prefect_test_harness(server_startup_timeout=180):
        yield


@pytest.fixture(scope="session")
def dask_scheduler():
    """Address of a real two-process LocalCluster shared by the session's flow runs."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=40) as cluster:
        yield cluster.scheduler_address
