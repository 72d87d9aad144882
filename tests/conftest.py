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
    """Prefect's test server, a temporary one: the session's flow runs report to it as a
    run's flow reports to the temporary server it starts (`flow_settings`)."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from subgame.flows.server import flow_settings

    with prefect_test_harness(server_startup_timeout=180), \
            temporary_settings(flow_settings(PREFECT_API_URL.value(), temporary=True)):
        yield


@pytest.fixture(scope="session")
def dask_scheduler():
    """Address of a real two-process LocalCluster shared by the session's flow runs: the
    one a run with `--workers 2` starts (Dask's checks slowed as there: idle, the default
    ones cost its processes a fifth of a core for the rest of the session)."""
    from subgame.clusters import ClusterProfile

    running = ClusterProfile("tests", workers=2).start()
    try:
        yield running.cluster.scheduler_address
    finally:
        running.close()
