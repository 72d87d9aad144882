"""What a command line imports: help and version import none of the heavy libraries, a
small run in process none of Prefect's or Dask's; and the listings that the help shows
without importing the families say what the families' own commands declare."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.families import LISTED, PLUGINS_ENV

HEAVY = {"prefect", "numba", "dask", "distributed", "zarr"}
# Runs the console script's main() with the given arguments, then prints the modules it
# imported (as JSON, on the last line of stderr).
IMPORTS_OF_MAIN = """
import json, sys
sys.argv = ["subgame", *sys.argv[1:]]
from subgame import cli
try:
    cli.main()
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def imported_by(*args: str) -> tuple[set[str], str]:
    """(Without the tests' plugin family: a command line imports a plugin to list it.)"""
    env = {k: v for k, v in os.environ.items() if k != PLUGINS_ENV}
    done = subprocess.run([sys.executable, "-c", IMPORTS_OF_MAIN, *args], capture_output=True,
                          text=True, timeout=300, env=env)
    *_, last = done.stderr.strip().splitlines()
    return set(json.loads(last)), done.stdout


def packages(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


@pytest.mark.parametrize("args, shows", [
    (["--help"], "gops"), (["--version"], "subgame "), (["run", "--help"], "guess-who-board"),
    (["query", "--help"], "higher-lower"), (["status", "--help"], "--store")])
def test_help_and_version_import_no_heavy_library(args, shows):
    imported, output = imported_by(*args)
    assert shows in output
    assert not packages(imported) & HEAVY, packages(imported) & HEAVY


def test_a_family_s_own_help_builds_that_family_alone():
    """The detection above sees imports: a family's command builds that family's modules,
    and no other family's (every family's package is imported: it holds the help texts)."""
    imported, output = imported_by("query", "gops", "--help")
    assert "--diff" in output and "subgame.families.gops.commands" in imported
    assert {name.split(".")[2] for name in imported
            if name.startswith("subgame.families.") and name.count(".") >= 3} == {"gops"}


@pytest.mark.parametrize("group", [[], ["run"], ["query"], ["plot"], ["verify"], ["export"]])
def test_the_listings_say_what_the_families_declare(group):
    """The help of a group, with the families listed from their packages' help texts,
    reads as with every family built from its modules: the stand-ins name the same verbs
    and tools, and the texts reach both the same way."""
    runner = CliRunner()
    listed = runner.invoke(build_app(listed=True), [*group, "--help"])
    built = runner.invoke(build_app(), [*group, "--help"])
    assert listed.exit_code == built.exit_code == 0
    assert listed.output == built.output


@pytest.mark.parametrize("name", sorted(name for name, texts in LISTED.items()
                                         if texts.get("tools")))
def test_a_family_s_tools_stay_a_group_where_the_command_line_reaches_them(name):
    """Reached, a family's tools are the group the whole tree has, one tool too (typer turns
    a group of one command, alone, into that command)."""
    runner = CliRunner()
    listed = runner.invoke(build_app(listed=True), [name, "--help"])
    built = runner.invoke(build_app(), [name, "--help"])
    assert listed.exit_code == built.exit_code == 0
    assert listed.output == built.output and "COMMAND [ARGS]" in listed.output


def test_a_listed_family_builds_where_the_command_line_reaches_it(tmp_path):
    """The listed families are commands like the built ones: reached, a family's command
    runs (here it refuses a missing store in one line); mistyped, it is suggested."""
    runner, app = CliRunner(), build_app(listed=True)
    result = runner.invoke(app, ["query", "gops", "--store", str(tmp_path / "none.zarr"),
                                 "--cards", "3", "--first-move"])
    assert result.exit_code == 2 and "no subgame store" in result.output, result.output
    result = runner.invoke(app, ["run", "gosp"])
    assert result.exit_code == 2 and "Did you mean 'gops'?" in result.output, result.output


def test_a_small_run_imports_no_prefect_nor_dask_and_its_rerun_no_zarr(tmp_path):
    """The run ends with the store complete, having imported none of Prefect, Dask or
    distributed; run again, it answers from the store's documents, without Zarr."""
    store = str(tmp_path / "s.zarr")
    imported, output = imported_by("run", "gops", "--cards", "3", "--store", store)
    assert "computed 3 steps" in output and "in this process" in output, output
    assert not packages(imported) & {"prefect", "dask", "distributed"}
    assert "numpy.ma" not in imported  # (numba's calls import it; the numpy lanes do not)
    from subgame.storage import ComputationStore

    assert ComputationStore.stored_attrs(store, "gops/N3")["complete"] is True
    imported, output = imported_by("run", "gops", "--cards", "3", "--store", store)
    assert "computed 0 steps (0 shards), 3 already stored" in output, output
    assert not packages(imported) & {"prefect", "dask", "distributed", "zarr"}


def test_a_rerun_of_the_main_job_s_family_imports_no_numba(tmp_path):
    """Guess Who's kernels are numba's, deferred to their first call (`subgame.jit`): the
    run compiles them; its rerun finds the store finished and loads neither numba nor Zarr.
    Nor does a run parse its options through pydantic (typer < 0.29, pyproject.toml), nor
    load what only some stores or outputs need (botocore, rich's emoji table)."""
    store = str(tmp_path / "s.zarr")
    imported, output = imported_by("run", "guess-who", "--max-n", "16", "--store", store)
    assert "in this process" in output and "0 already stored" in output, output
    assert "numba" in packages(imported)
    assert not packages(imported) & {"pydantic", "botocore"}
    assert not imported & {"rich._emoji_codes", "urllib.request"}
    imported, output = imported_by("run", "guess-who", "--max-n", "16", "--store", store)
    assert "computed 0 steps" in output, output
    assert not packages(imported) & {"numba", "zarr", "prefect", "dask", "pydantic"}


def test_a_state_query_in_json_imports_neither_the_kernel_nor_rich(tmp_path):
    """A query reads stored entries: the answer is the stored one, and the process loads
    none of what solving (the kernel's modules, numba, the cluster profiles) or text
    output (rich) needs: a short command's start would pay for them."""
    store = str(tmp_path / "s.zarr")
    subprocess.run([sys.executable, "-m", "subgame.cli", "run", "gops", "--cards", "4",
                    "--store", store, "--quiet"], check=True, timeout=300)
    imported, output = imported_by("query", "gops", "--cards", "4", "--hand", "1,2",
                                   "--opponent", "1,3", "--prizes", "2,4", "--store", store,
                                   "--json")
    from subgame.families.gops.read import query_state

    answer = json.loads(output)
    assert answer["value"] == query_state(store, 4, [1, 2], [1, 3], [2, 4])["value"]
    assert answer["bids"]  # the strategies were read too
    assert not packages(imported) & {"numba", "rich", "prefect", "dask"}
    assert not imported & {"subgame.families.gops.game.level", "subgame.clusters"}
