"""`--dry-run` on a batch queue: the jobs a profile's options make, the memory each worker
gets, and the compute time from the family's measured costs."""

from __future__ import annotations

import json
import math

import pytest
import yaml
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.clusters import load_profile, walltime_seconds
from subgame.families.gops.plan import GopsConfig, level_info
from subgame.families.gops.game.patterns import stored_pattern_count

app = build_app()


@pytest.mark.parametrize("walltime, seconds", [
    ("01:00:00", 3600), ("2-00:30:00", 2 * 86400 + 1800), ("30", 1800), ("05:30", 330),
    ("1-0", 86400), ("1-2", 93600), ("0-01:30", 5400)])
def test_walltimes_read_as_slurm_and_pbs_write_them(walltime, seconds):
    assert walltime_seconds(walltime) == seconds


@pytest.mark.parametrize("walltime", ["", "1:2:3:4", "-5", "one hour", "01:-1:00"])
def test_a_walltime_that_does_not_read_is_refused(walltime):
    with pytest.raises(ValueError):
        walltime_seconds(walltime)


def dry_run(*args: str) -> dict:
    result = CliRunner().invoke(app, ["run", "gops", *args, "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    (estimate,) = json.loads(result.stdout)
    return estimate


def test_the_bundled_slurm_profile_plans_jobs_memory_and_time(tmp_path):
    store = str(tmp_path / "s.zarr")
    estimate = dry_run("--cards", "16", "--cluster", "slurm", "--workers", "16",
                       "--store", store)
    options = load_profile("slurm").options  # 8 workers of 1 core in 32 GB a job
    assert estimate["jobs_at_once"] == 16 // options["processes"] == 2
    assert estimate["worker_memory_bytes"] == 32 * 10**9 // 8
    assert estimate["threads"] == 16
    # the shards' CPU, level by level, from the measured cost of a game at its j
    config = GopsConfig(cards=16)
    games = {j: level_info(config, j, stored_pattern_count(16, j))["matrix_games"]
             for j in range(1, 17)}
    assert estimate["core_seconds"] == pytest.approx(sum(
        games[j] * config.game_seconds(j) for j in games))
    assert estimate["wall_seconds"] == pytest.approx(estimate["core_seconds"] / 16)
    # each job's workers leave at 55 minutes (the profile's lifetime) and a new job follows
    rounds = math.ceil(estimate["wall_seconds"] / (55 * 60))
    assert estimate["jobs_in_all"] == 2 * rounds and rounds > 1
    assert not (tmp_path / "s.zarr").exists()


def test_the_plan_says_it_in_words_and_a_bad_walltime_is_one_line(tmp_path):
    profile = {"kind": "slurm", "workers": 4, "options": {
        "cores": 4, "processes": 2, "memory": "16GB", "walltime": "02:00:00"}}
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(profile))
    result = CliRunner().invoke(app, ["run", "gops", "--cards", "13", "--strategies",
                                      "top:4", "--cluster", str(path), "--dry-run",
                                      "--store", str(tmp_path / "s.zarr")])
    assert result.exit_code == 0, result.output
    assert "each with 7.45 GiB" in result.output  # 16 GB shared by 2 workers
    assert "on 8 threads at least" in result.output  # 4 workers of 2 cores
    assert "batch jobs: 2 at a time, about 2 in all; each 2 workers on 4 cores, 14.90 GiB, " \
           "walltime 02:00:00, its workers leave after 2 h 0 min" in result.output
    path.write_text(yaml.safe_dump({**profile, "options": {**profile["options"],
                                                           "walltime": "soon"}}))
    result = CliRunner().invoke(app, ["run", "gops", "--cards", "13", "--cluster", str(path),
                                      "--dry-run", "--store", str(tmp_path / "s.zarr")])
    assert result.exit_code == 2
    assert "walltime" in result.output and "Traceback" not in result.output
