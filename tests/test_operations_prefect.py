"""deploy/prefect.yaml for real: `prefect server start` on loopback, a process work pool, a
worker, `prefect deploy` and `prefect deployment run`; then `subgame serve` on the same server.
Slow (a real server), so it runs one small deployment."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import yaml

from subgame.families.guess_who.read import query_state
from tests.ops_helpers import ROOT, free_port, wait_for

FLOW = "subgame-run"  # the one flow, subgame/flows/run.py:run_flow, of every deployment
DEPLOYMENT = "guess-who-paper"  # run by a worker of the process pool
SERVED = "guess-who-nightly"  # run by `subgame serve`


def prefect(*args: str, env: dict, timeout: float = 120) -> str:
    result = subprocess.run([sys.executable, "-m", "prefect", *args], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"prefect {' '.join(args)}:\n{result.stdout}{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    home = tmp_path_factory.mktemp("prefect-home")
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_API_URL": api,
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_WORKER_QUERY_SECONDS": "1",
           "PREFECT_RUNNER_POLL_FREQUENCY": "1", "PYTHONPATH": str(ROOT)}
    env.pop("SUBGAME_STORE", None)
    log = open(home / "server.log", "w")
    process = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start",
                                "--host", "127.0.0.1", "--port", str(port)], env=env,
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def healthy() -> bool:
        if process.poll() is not None:
            return True
        try:
            return httpx.get(f"{api}/health", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_for(healthy, timeout=120, every=0.5)
        if process.poll() is not None:
            raise TimeoutError
    except TimeoutError:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.skip("prefect server could not start here: "
                    + Path(home / "server.log").read_text()[-300:])
    yield env, api
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)
    log.close()


def flow_run_state(api: str, flow_run_id: str) -> str:
    return httpx.get(f"{api}/flow_runs/{flow_run_id}", timeout=10).json()["state_type"]


def run_deployment(env: dict, name: str, **parameters) -> str:
    """`prefect deployment run` with parameter overrides (a mapping, such as ``config`` or
    ``options``, replaces the deployment's whole mapping); the new flow run's id."""
    overrides = [arg for key, value in parameters.items()
                 for arg in ("--param", f"{key}={json.dumps(value)}")]
    out = prefect("deployment", "run", f"{FLOW}/{name}", *overrides, env=env)
    return re.search(r"UUID: ([0-9a-f-]{36})", out).group(1)


def test_deployment_runs_on_a_process_worker(server, tmp_path):
    env, api = server
    spec = yaml.safe_load((ROOT / "deploy" / "prefect.yaml").read_text())
    pool = next(d for d in spec["deployments"] if d["name"] == DEPLOYMENT)["work_pool"]["name"]
    prefect("work-pool", "create", pool, "--type", "process", env=env)
    prefect("--no-prompt", "deploy", "--prefect-file", "deploy/prefect.yaml", "--name",
            DEPLOYMENT, env=env)
    deployment = httpx.get(f"{api}/deployments/name/{FLOW}/{DEPLOYMENT}", timeout=10).json()
    assert [s["schedule"]["cron"] for s in deployment["schedules"]] == ["0 6 * * 1"]
    assert deployment["work_pool_name"] == pool

    store = str(tmp_path / "deployed.zarr")
    flow_run = run_deployment(env, DEPLOYMENT, options={"store": store, "executor": "serial"})
    worker = subprocess.run([sys.executable, "-m", "prefect", "worker", "start", "--pool", pool,
                             "--run-once"], env=env, cwd=tmp_path, capture_output=True,
                            text=True, timeout=180)
    assert worker.returncode == 0, worker.stdout + worker.stderr
    assert flow_run_state(api, flow_run) == "COMPLETED"
    assert query_state(store, 23, 23, "official")["p"] == "296/529"


def test_subgame_serve_runs_a_deployment_of_the_file(server, tmp_path):
    """`subgame serve` registers the nightly deployment (its schedule included) and runs a
    flow run of it, here with small parameters, without any work pool or worker."""
    env, api = server
    served = subprocess.Popen([sys.executable, "-m", "subgame.cli", "serve", SERVED],
                              env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    url = f"{api}/deployments/name/{FLOW}/{SERVED}"
    try:
        wait_for(lambda: served.poll() is not None or httpx.get(url, timeout=5).status_code
                 == 200, timeout=120, every=0.5)
        assert served.poll() is None, served.stderr.read()
        deployment = httpx.get(url, timeout=5).json()
        assert [s["schedule"]["cron"] for s in deployment["schedules"]] == ["30 1 * * *"]
        assert deployment["work_pool_name"] is None
        store = str(tmp_path / "served.zarr")
        flow_run = run_deployment(env, SERVED,
                                  config={"max_n": 23, "rules": "both", "band": 23},
                                  options={"max_steps": 2, "store": store,
                                           "executor": "serial"})
        wait_for(lambda: flow_run_state(api, flow_run) in ("COMPLETED", "FAILED", "CRASHED"),
                 timeout=120, every=0.5)
        assert flow_run_state(api, flow_run) == "COMPLETED"
        assert query_state(store, 23, 23, "variant")["p"] == "349/529"
    finally:
        os.killpg(served.pid, signal.SIGTERM)
        served.wait(timeout=30)


def test_every_deployment_names_a_flow_and_its_parameters():
    """Cheap and server-free: deploy/prefect.yaml stays in step with the flow's signature,
    the families' options (``config``) and the run options (``options``)."""
    import importlib
    import inspect
    from dataclasses import fields

    from prefect.schedules import Cron

    from subgame.flows.run import family_options
    from subgame.options import RunOptions

    spec = yaml.safe_load((ROOT / "deploy" / "prefect.yaml").read_text())
    families = set()
    for deployment in spec["deployments"]:
        path, _, name = deployment["entrypoint"].partition(":")
        flow = getattr(importlib.import_module(path.removesuffix(".py").replace("/", ".")), name)
        assert flow.name == FLOW, deployment["name"]
        parameters = deployment["parameters"]
        families.add(parameters["family"])
        accepted = inspect.signature(flow.fn).parameters
        assert set(parameters) <= set(accepted), deployment["name"]
        family_options(parameters["family"], parameters.get("config") or {})  # raises if bad
        assert set(parameters.get("options") or {}) <= {f.name for f in fields(RunOptions)}, \
            deployment["name"]
        for schedule in deployment["schedules"]:
            Cron(schedule["cron"], timezone=schedule["timezone"])  # raises on a bad one
        assert deployment["work_pool"]["name"] == "subgame-process"
    assert families == {"guess-who", "gops", "higher-lower"}



def test_the_deployments_file_is_installed_with_the_package(tmp_path):
    """`subgame serve` without --file: the source tree's deploy/prefect.yaml, else the copy
    a wheel installs (pyproject's data-files put it under <prefix>/share/subgame/)."""
    import tomllib

    from subgame.commands.serve import (INSTALLED_DEPLOYMENTS, SOURCE_DEPLOYMENTS,
                                        default_deployments)

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert data["data-files"]["share/subgame"] == ["deploy/prefect.yaml"]
    assert INSTALLED_DEPLOYMENTS.parts[-3:] == ("share", "subgame", "prefect.yaml")
    assert default_deployments() == SOURCE_DEPLOYMENTS == ROOT / "deploy" / "prefect.yaml"
    installed = tmp_path / "share" / "subgame" / "prefect.yaml"  # a wheel install's layout
    installed.parent.mkdir(parents=True)
    installed.write_text(SOURCE_DEPLOYMENTS.read_text())
    assert default_deployments((tmp_path / "no" / "deploy.yaml", installed)) == installed
