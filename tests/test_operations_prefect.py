"""deploy/prefect.yaml for real: `prefect server start` on loopback, a process work pool, a
worker, `prefect deploy` and `prefect deployment run`; then `subgame serve` on the same server,
after `prefect deploy --all` and outside the source tree; and `subgame serve` from a wheel
installed in a fresh virtual environment. Slow (a real server), so it runs one small
deployment."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import httpx
import psutil
import pytest
import yaml

from subgame.families.guess_who.read import query_state
from tests.ops_helpers import ROOT, free_port, wait_for
from tests.prefect_home import seed

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
    """A `prefect server start` on a free port.  The port is free when picked, but another
    process (the other test worker's servers and clusters) may bind it before the server
    does: the server then exits, and is started again on another port (another server on
    it may answer first: the server is up when its own process listens there)."""
    for _ in range(3):
        home = tmp_path_factory.mktemp("prefect") / "home"
        seed(home)
        port = free_port()
        api = f"http://127.0.0.1:{port}/api"
        env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_API_URL": api,
               "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
               "PREFECT_WORKER_QUERY_SECONDS": "1", "PREFECT_RUNNER_POLL_FREQUENCY": "1",
               "PYTHONPATH": str(ROOT)}
        env.pop("SUBGAME_STORE", None)
        with open(home / "server.log", "w") as log:
            process = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start",
                                        "--host", "127.0.0.1", "--port", str(port)], env=env,
                                       stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True)

        def ours() -> bool:  # the port is this server's, not a server that took it
            try:
                children = psutil.Process(process.pid).children(recursive=True)
            except psutil.NoSuchProcess:  # it exited: healthy() sees that next
                return False
            group = {process.pid, *(child.pid for child in children)}
            return any(c.pid in group and c.status == psutil.CONN_LISTEN
                       and c.laddr.port == port for c in psutil.net_connections("tcp"))

        def healthy() -> bool:
            if process.poll() is not None:
                return True
            try:
                answered = httpx.get(f"{api}/health", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False
            return answered and ours()

        try:
            wait_for(healthy, timeout=120, every=0.5)
        except TimeoutError:
            pass
        if process.poll() is None and healthy():
            break
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        output = Path(home / "server.log").read_text()
        if "already in use" not in output:  # prefect's own check, or uvicorn's bind
            pytest.skip(f"prefect server could not start here: {output[-300:]}")
    else:
        pytest.skip(f"prefect server lost its port three times: {output[-300:]}")
    yield env, api
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)


@pytest.fixture(scope="module")
def pool(server) -> str:
    """The process work pool that every deployment of the file names."""
    env, _ = server
    spec = yaml.safe_load((ROOT / "deploy" / "prefect.yaml").read_text())
    (name,) = {d["work_pool"]["name"] for d in spec["deployments"]}
    prefect("work-pool", "create", name, "--type", "process", env=env)
    return name


def flow_run_state(api: str, flow_run_id: str) -> str:
    return httpx.get(f"{api}/flow_runs/{flow_run_id}", timeout=10).json()["state_type"]


def run_deployment(env: dict, name: str, **parameters) -> str:
    """`prefect deployment run` with parameter overrides (a mapping, such as ``config`` or
    ``options``, replaces the deployment's whole mapping); the new flow run's id."""
    overrides = [arg for key, value in parameters.items()
                 for arg in ("--param", f"{key}={json.dumps(value)}")]
    out = prefect("deployment", "run", f"{FLOW}/{name}", *overrides, env=env)
    return re.search(r"UUID: ([0-9a-f-]{36})", out).group(1)


def test_deployment_runs_on_a_process_worker(server, pool, tmp_path):
    env, api = server
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


def polled_since(now: dict, before: dict) -> bool:
    """The deployment is READY and was polled after the ``before`` snapshot of it."""
    def when(snapshot: dict) -> datetime | None:
        stamp = snapshot.get("last_polled")
        return datetime.fromisoformat(stamp) if stamp else None

    return now["status"] == "READY" and when(now) is not None and (
        when(before) is None or when(now) > when(before))


def test_subgame_serve_runs_what_prefect_deploy_registered(server, pool, tmp_path):
    """`prefect deploy --all`, then `subgame serve` (every deployment of the file) from a
    folder outside the source tree: serve takes the registered deployments over (their
    schedules kept) and a flow run of one, here with small parameters, completes without
    any work pool or worker. (Until serve named the flow by module, every such flow run
    crashed with FileNotFoundError '.../None': the deployment `prefect deploy` registered
    has no `path`, and serve's update left it so.)"""
    env, api = server
    prefect("--no-prompt", "deploy", "--all", "--prefect-file", "deploy/prefect.yaml", env=env)
    spec = yaml.safe_load((ROOT / "deploy" / "prefect.yaml").read_text())
    names = [d["name"] for d in spec["deployments"]]
    registered = {name: httpx.get(f"{api}/deployments/name/{FLOW}/{name}", timeout=60).json()
                  for name in names}
    served = subprocess.Popen([sys.executable, "-m", "subgame.cli", "serve"], env=env,
                              cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, start_new_session=True)

    def now_served(name: str) -> dict:
        return httpx.get(f"{api}/deployments/name/{FLOW}/{name}", timeout=60).json()

    try:
        # Serving: serve's runner polls every deployment (READY, polled since they were
        # registered; a worker of the pool may have polled one before).
        wait_for(lambda: served.poll() is not None or all(
            polled_since(now_served(name), registered[name]) for name in names),
            timeout=300, every=0.5)  # a busy machine: what it waits for is the outcome
        assert served.poll() is None, served.stderr.read()
        for name, before in registered.items():  # taken over in place, schedules kept
            after = now_served(name)
            assert after["id"] == before["id"]
            assert [s["schedule"]["cron"] for s in after["schedules"]] == \
                [s["cron"] for s in next(d for d in spec["deployments"]
                                         if d["name"] == name)["schedules"]]
        store = str(tmp_path / "served.zarr")
        flow_run = run_deployment(env, SERVED,
                                  config={"max_n": 23, "rules": "both", "band": 23},
                                  options={"max_steps": 2, "store": store,
                                           "executor": "serial"})
        wait_for(lambda: flow_run_state(api, flow_run) in ("COMPLETED", "FAILED", "CRASHED"),
                 timeout=300, every=0.5)
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



def _checked(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout}{done.stderr}"
    return done


# No source tree: not on the path, not its test family.
OUTSIDE_ENV = {key: value for key, value in os.environ.items()
               if key not in ("PYTHONPATH", "SUBGAME_FAMILIES")}
PIP = (sys.executable, "-m", "pip", "--disable-pip-version-check", "-q")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from the project (about 10 s)."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    source = tmp_path / "source"  # a copy: building writes build/ and *.egg-info beside it
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    shutil.copytree(ROOT / "subgame", source / "subgame",
                    ignore=shutil.ignore_patterns("__pycache__"))
    # The build backend pyproject asks for (setuptools >= 68) is this environment's.
    _checked(*PIP, "wheel", "--no-deps", "--no-build-isolation", str(source), "-w",
             str(tmp_path / "dist"), cwd=tmp_path)
    (built,) = (tmp_path / "dist").glob("subgame-*.whl")
    return built


def venv_seeing(python: Path | str, venv: Path) -> Path:
    """A fresh virtual environment (no pip: seconds less) that sees exactly the directories
    ``python`` imports from, outside any source tree, through a .pth file: the packages
    ``python`` has, whether it is a base interpreter or itself a virtual environment.
    (--system-site-packages would see the base interpreter's packages, not a virtual
    environment's.) Its interpreter."""
    listing = "import os, sys; print('\\n'.join(p for p in sys.path[1:] if os.path.isdir(p)))"
    paths = _checked(str(python), "-c", listing, cwd=venv.parent, env=OUTSIDE_ENV).stdout
    _checked(sys.executable, "-m", "venv", "--without-pip", str(venv), cwd=venv.parent)
    (site_packages,) = (venv / "lib").glob("python*/site-packages")
    (site_packages / "parent-environment.pth").write_text(paths)
    return venv / "bin" / "python"


def served_from_wheel(wheel: Path, python: Path | str, tmp_path: Path) -> None:
    """The wheel installed in a fresh virtual environment seeing ``python``'s packages, run
    outside the source tree with nothing on PYTHONPATH: `subgame serve --list` reads the
    deployments file the wheel ships (package data, found by importlib.resources), the same
    deployments as deploy/prefect.yaml."""
    venv = tmp_path / "venv"
    venv_seeing(python, venv)
    # This environment's pip installs into it (a venv's own pip would take seconds to set up).
    _checked(*PIP, "--python", str(venv / "bin" / "python"), "install", "--no-deps",
             "--no-index", str(wheel), cwd=tmp_path, env=OUTSIDE_ENV)
    listed = subprocess.run([str(venv / "bin" / "subgame"), "serve", "--list"],
                            env=OUTSIDE_ENV, cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert listed.returncode == 0, listed.stderr
    path, *lines = listed.stdout.splitlines()
    (site_packages,) = (venv / "lib").glob("python*/site-packages")
    assert Path(path) == site_packages / "subgame" / "flows" / "prefect.yaml"
    assert Path(path).read_text() == (ROOT / "deploy" / "prefect.yaml").read_text()
    spec = yaml.safe_load((ROOT / "deploy" / "prefect.yaml").read_text())
    assert [line.split()[0] for line in lines] == [d["name"] for d in spec["deployments"]]


def test_serve_from_a_wheel_finds_the_deployments_it_ships(wheel, tmp_path):
    """The wheel in a virtual environment made from the interpreter running the tests."""
    served_from_wheel(wheel, sys.executable, tmp_path)


def test_serve_from_a_wheel_works_from_inside_a_users_venv(wheel, tmp_path):
    """The tests run from a user's virtual environment, whose packages (the dependencies)
    are its own, not its base interpreter's: the wheel's environment sees them."""
    users = tmp_path / "users-venv"
    python = venv_seeing(sys.executable, users)
    inside = _checked(str(python), "-c", "import sys, typer; print(sys.prefix != "
                      "sys.base_prefix, typer.__file__)", cwd=tmp_path, env=OUTSIDE_ENV)
    assert inside.stdout.startswith("True ")  # a virtual environment, with the dependencies
    served_from_wheel(wheel, python, tmp_path)
