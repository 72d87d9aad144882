"""Estimates before a run starts: --dry-run's sizes against the arrays a real run creates,
refusals of runs that do not fit (one line, exit 2, nothing written), --force, and the
bounds on steps and shards that are checked before any plan is built."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import time

import pytest
import typer
import zarr
from typer.testing import CliRunner

from subgame import families
from subgame.cli import _parameters, build_app
from subgame.engine import check_run, run_computation
from subgame.estimate import DoesNotFit, RunEstimate
from subgame.families.gops.plan import GopsConfig
from subgame.families.guess_who.plan import GuessWhoConfig
from subgame.options import RunOptions
from tests.ops_helpers import ROOT, subprocess_env

SMALL_RUNS = [("guess-who", ["--max-n", "20", "--band", "8"]),
              ("gops", ["--cards", "5", "--shard-states", "40"]),
              ("higher-lower", ["--max-n", "30", "--exact-max", "20", "--block", "7"])]


def invoke(*args: str):
    return CliRunner().invoke(build_app(), list(args))


def dry_run_json(family: str, options: list[str], store: str) -> list[dict]:
    result = invoke("run", family, *options, "--store", store, "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.parametrize("family, options", SMALL_RUNS, ids=[f for f, _ in SMALL_RUNS])
def test_dry_run_sizes_are_those_of_the_arrays_a_run_creates(tmp_path, family, options):
    store = str(tmp_path / "s.zarr")
    estimate, = dry_run_json(family, options, store)
    assert not (tmp_path / "s.zarr").exists()  # a dry run writes nothing
    assert estimate["fits"] and estimate["worker_memory_bytes"] > 0

    run = families.all_families()[family]
    config, = run.computations(_options(run, options))
    run_computation(config, RunOptions(store=store, executor="serial"))
    group = zarr.open_group(store, mode="r")[config.group_path()]
    members = dict(group.members(max_depth=None))
    assert estimate["new_bytes"] == sum(member.nbytes for member in members.values()
                                        if isinstance(member, zarr.Array))
    assert estimate["steps"] == len(group.attrs["steps"])
    # Chunks, markers and one metadata file per array: every group has one more.
    files = sum(1 for path in (tmp_path / "s.zarr" / config.group_path()).rglob("*")
                if path.is_file() and path.name != ".lock")
    groups = 1 + sum(isinstance(member, zarr.Group) for member in members.values())
    assert files == estimate["new_files"] + groups


def _options(run, argv: list[str]):
    """The family's options from command-line words, as `subgame run` parses them."""
    chosen = []

    def collect(**values):
        chosen.append(run.options(**values))

    collect.__signature__ = inspect.Signature(_parameters(run.options))
    app = typer.Typer()
    app.command()(collect)
    assert CliRunner().invoke(app, argv).exit_code == 0
    return chosen[0]


@pytest.mark.parametrize("args", [["guess-who", "--max-n", "65536"],
                                  ["gops", "--cards", "16"]], ids=["guess-who", "gops"])
def test_a_run_that_cannot_fit_is_refused_in_one_line_and_writes_nothing(tmp_path, args):
    store = tmp_path / "s.zarr"
    result = subprocess.run([sys.executable, "-m", "subgame.cli", "run", *args, "--store",
                             str(store)], cwd=ROOT, env=subprocess_env(tmp_path),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    line, = result.stderr.strip().splitlines()
    assert "will not fit" in line and "--force" in line and "GiB" in line
    assert not store.exists()


def test_the_decision_names_each_limit_and_force_skips_it(tmp_path):
    estimate = RunEstimate("toy/x", "s.zarr", steps=3, shards=6, max_shards_per_step=2,
                           new_bytes=5 * 2**30, new_files=10, not_estimated=(),
                           worker_peak_bytes=3 * 2**30, workers=2,
                           worker_memory_bytes=2 * 2**30, free_disk_bytes=2**30,
                           free_files=5)
    reasons = estimate.unfit()
    assert len(reasons) == 3
    assert "5.00 GiB" in reasons[0] and "1.00 GiB" in reasons[0]
    assert "10 new files" in reasons[1] and "3.00 GiB" in reasons[2]
    with pytest.raises(DoesNotFit, match="--force"):
        estimate.refuse_unfit()
    fits = RunEstimate(**{**estimate.__dict__, "new_bytes": 1, "new_files": 1,
                          "worker_peak_bytes": None})  # an unknown peak is not checked
    assert fits.unfit() == [] and fits.as_dict()["fits"]
    # The engine's check: 20 TiB of GOPS N = 16 is refused, and --force lets it through
    # (check_run writes nothing either way).
    config, store = GopsConfig(cards=16), str(tmp_path / "s.zarr")
    with pytest.raises(DoesNotFit):
        check_run(config, RunOptions(store=store, executor="serial"))
    checked = check_run(config, RunOptions(store=store, executor="serial", force=True))
    assert checked.config == config and checked.stored is None
    assert checked.estimate.unfit() and not (tmp_path / "s.zarr").exists()


@pytest.mark.parametrize("args, remedy", [
    (["higher-lower", "--max-n", "10000000", "--block", "1"], "use --block 1000 or more"),
    (["higher-lower", "--ranks", "52", "--suits", "8", "--games", "1000000000000"],
     "use --games 12,500,000,000 or fewer"),
    (["clue", "--games", "1000000000"], "use --games 1,000,000 or fewer"),
    (["guess-who", "--max-n", "65536", "--band", "1"], "use --band 7 or more"),
], ids=["higher-lower-block", "higher-lower-games", "clue-games", "guess-who-band"])
def test_too_many_steps_or_shards_are_refused_before_any_plan(tmp_path, args, remedy):
    store = tmp_path / "s.zarr"
    start = time.perf_counter()
    result = invoke("run", *args, "--store", str(store), "--dry-run")
    assert time.perf_counter() - start < 10  # counted, not built: millions of steps would not be
    assert result.exit_code == 2
    assert remedy in result.output and "at most 10,000 steps" in result.output
    assert not store.exists()


def test_a_grown_extent_counts_only_what_it_adds(tmp_path):
    store = str(tmp_path / "s.zarr")
    options = RunOptions(store=store, executor="serial")

    def stored_bytes() -> int:
        group = zarr.open_group(store, mode="r")["guess-who/official-B8"]
        return sum(member.nbytes for _, member in group.members(max_depth=None)
                   if isinstance(member, zarr.Array))

    run_computation(GuessWhoConfig(max_n=20, rules="official", band=8), options)
    before = stored_bytes()
    grown, = dry_run_json("guess-who", ["--max-n", "28", "--rules", "official", "--band", "8"],
                          store)
    run_computation(GuessWhoConfig(max_n=28, rules="official", band=8), options)
    assert grown["new_bytes"] == stored_bytes() - before > 0
