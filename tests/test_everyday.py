"""Start-up paid only when there is work: a finished store answers without Prefect or Dask,
and steps of one shard run in-process instead of waiting for a cluster."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from subgame.engine import run_computation
from subgame.options import RunOptions
from tests.ops_helpers import ROOT, subprocess_env

PROBE = """
import json, sys
from subgame import cli
sys.argv = ["subgame", *sys.argv[1:]]
try:
    cli.main()
except SystemExit as exit:
    code = exit.code
print(json.dumps({"code": code, "prefect": "prefect" in sys.modules,
                  "distributed": "distributed" in sys.modules}))
"""


def run_probe(tmp_path, *args: str, **env: str) -> tuple[list, dict]:
    out = subprocess.run([sys.executable, "-c", PROBE, "run", *args, "--json"], cwd=ROOT,
                         env=subprocess_env(tmp_path, **env), capture_output=True, text=True,
                         timeout=300).stdout
    *report, probe = out.strip().splitlines()
    return json.loads("\n".join(report)), json.loads(probe)


def test_a_finished_store_answers_without_prefect_or_dask(tmp_path):
    from tests.toy_family.plan import ToyConfig

    store = str(tmp_path / "s.zarr")
    run_computation(ToyConfig(), RunOptions(store, executor="serial"))
    # No Prefect server answers at this address: a run that needed one would fail.
    (report,), probe = run_probe(tmp_path, "toy", "--store", store,
                                 PREFECT_API_URL="http://127.0.0.1:9/api")
    assert probe == {"code": 0, "prefect": False, "distributed": False}
    assert report["steps_computed"] == [] and report["steps_skipped"] == 5


def test_steps_of_one_shard_run_in_process_without_a_cluster(tmp_path):
    store = str(tmp_path / "s.zarr")
    (report,), probe = run_probe(tmp_path, "toy", "--shards", "1", "--store", store)
    assert probe == {"code": 0, "prefect": True, "distributed": False}
    assert report["shards_computed"] == 4 + 1


@pytest.mark.parametrize("args, message", [
    (["run", "guess-who", "--max-n", "4", "--scheduler", "tcp://[::1"], "protocol://host:port"),
    (["run", "higher-lower", "--ranks", "3", "--suits", "2", "--policy", "optimal,,"],
     "--policy takes"),
    (["run", "higher-lower", "--ranks", "3,,4", "--suits", "2"], "--ranks takes"),
    (["plot", "guess-who", "--out", ""], "give a folder name"),
    (["plot", "guess-who", "--out", __file__], "is a file, not a folder"),
])
def test_more_user_mistakes_are_one_line_and_exit_2(tmp_path, args, message):
    result = subprocess.run([sys.executable, "-m", "subgame.cli", *args, "--store",
                             str(tmp_path / "s.zarr")], cwd=ROOT, env=subprocess_env(tmp_path),
                            capture_output=True, text=True, timeout=120)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert message in lines[0] and not (tmp_path / "s.zarr").exists()
