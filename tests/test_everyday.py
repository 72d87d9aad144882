"""Start-up paid only when there is work: a finished store answers without Prefect or Dask,
and steps of one shard run in-process instead of waiting for a cluster."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.engine import run_computation
from subgame.exact import counted
from subgame.families.guess_who.plan import GuessWhoConfig
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
                  "distributed": "distributed" in sys.modules,
                  "families": sorted({m.split(".")[2] for m in sys.modules
                                      if m.startswith("subgame.families.") and m.count(".") >= 3})}))
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
    assert (probe["code"], probe["prefect"], probe["distributed"]) == (0, False, False)
    assert report["steps_computed"] == [] and report["steps_skipped"] == 5


def test_a_run_of_a_built_in_family_loads_that_family_alone(tmp_path):
    store = str(tmp_path / "s.zarr")
    run_computation(GuessWhoConfig(max_n=8), RunOptions(store, executor="serial"))
    (report,), probe = run_probe(tmp_path, "guess-who", "--max-n", "8", "--store", store)
    assert probe == {"code": 0, "prefect": False, "distributed": False,
                     "families": ["guess_who"]}
    assert report["steps_computed"] == []


def test_steps_of_one_shard_run_in_process_without_a_cluster(tmp_path):
    store = str(tmp_path / "s.zarr")  # a flow run (forced) skips the cluster all the same
    (report,), probe = run_probe(tmp_path, "toy", "--shards", "1", "--orchestrate", "prefect",
                                 "--store", store)
    assert (probe["code"], probe["prefect"], probe["distributed"]) == (0, True, False)
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


# (command with its required options, option, every value it takes)
CHOICES = [
    (["query", "guess-who"], "--rules", ("official", "variant")),  # not "both": one table
    (["run", "guess-who", "--max-n", "4"], "--rules", ("official", "variant", "both")),
    (["query", "higher-lower"], "--ties", ("loss", "pass")),
    (["query", "higher-lower"], "--policy", ("optimal", "majority", "always-higher")),
    (["query", "gops", "--cards", "3"], "--objective", ("points", "win")),
    (["run", "gops", "--cards", "3"], "--executor", ("dask", "threads", "serial")),
]


@pytest.mark.parametrize("command, option, choices", CHOICES,
                         ids=lambda value: value if isinstance(value, str) else None)
def test_help_lists_exactly_the_choices_an_option_takes(command, option, choices):
    runner, app = CliRunner(), build_app()
    text = runner.invoke(app, [*command, "--help"]).output
    start = text.index(f"  {option} ")
    shown = text[start:text.find("\n  --", start + 1)]  # the option's lines of the help
    assert all(choice in shown for choice in choices), shown
    assert ("both" in shown) == ("both" in choices), shown
    refused = runner.invoke(app, [*command, option, "nonsense"])
    assert refused.exit_code == 2
    assert "is not one of " + ", ".join(f"'{c}'" for c in choices) in refused.stderr


@pytest.mark.parametrize("verb", [[], ["run"], ["verify"], ["query"]], ids=str)
def test_a_verb_without_its_command_shows_help_and_succeeds(tmp_path, verb):
    result = subprocess.run([sys.executable, "-m", "subgame.cli", *verb], cwd=ROOT,
                            env=subprocess_env(tmp_path), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and result.stderr == ""
    usage = result.stdout.splitlines()[0]
    assert usage.startswith("Usage: ") and usage.endswith(
        " ".join([*verb, "[OPTIONS] COMMAND [ARGS]..."])), usage


def test_counts_are_grammatical(tmp_path):
    store = str(tmp_path / "s.zarr")
    run_computation(GuessWhoConfig(max_n=2, band=2), RunOptions(store, executor="serial"))
    result = CliRunner().invoke(build_app(), ["query", "guess-who", "--n", "1", "--m", "1",
                                              "--store", store])
    assert result.exit_code == 0 and "(1 move)" in result.output, result.output
    assert counted(1, "mismatch", "mismatches") == "1 mismatch"
    assert counted(2, "mismatch", "mismatches") == "2 mismatches"
    assert counted(0, "state") == "0 states"
