"""The Guess Who flow end to end: real Prefect, real Dask, real Zarr stores on disk."""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from functools import lru_cache

import pytest
import xarray as xr
import zarr
from typer.testing import CliRunner

from subgame.cli import app
from subgame.errors import ConfigurationClash
from subgame.flows.guess_who import guess_who_flow
from subgame.storage.guess_who import fair_states, query_state
from tests.store_compare import assert_stores_equal, tree_snapshot

U, BAND = 30, 8


@lru_cache(maxsize=None)
def plain(rule: str, n: int, m: int) -> tuple[int, frozenset[int]]:
    """a(n, m) and the set of optimal moves, by the paper's recursion with every s tried."""
    if n == 1:
        return m, frozenset({0 if rule == "official" else 1})
    values = {}
    if rule == "official":
        values[0] = m
        for s in range(1, n):
            values[s] = n * m - plain(rule, m, s)[0] - plain(rule, m, n - s)[0]
    else:
        values[1] = n * m - plain(rule, m, n - 1)[0]
        for s in range(2, n):
            values[s] = n * m - plain(rule, m, s)[0] - plain(rule, m, n - s)[0]
    best = max(values.values())
    return best, frozenset(s for s, v in values.items() if v == best)


@pytest.fixture(scope="module")
def store(tmp_path_factory, dask_scheduler):
    path = str(tmp_path_factory.mktemp("gw") / "store.zarr")
    report = guess_who_flow(max_n=U, rules="both", band=BAND, store=path,
                            scheduler=dask_scheduler)
    assert report["shards_computed"] == 2 * 4 and report["levels_skipped"] == 0
    return path


@pytest.mark.parametrize("rule", ["official", "variant"])
def test_stored_tables_equal_plain_recursion(store, rule):
    group = zarr.open_group(store, mode="r")[f"guess-who/U{U}/{rule}"]
    a, s_min, s_max = group["a"][:], group["s_min"][:], group["s_max"][:]
    count, final = group["s_count"][:], group["final_guess"][:]
    for n in range(1, U + 1):
        for m in range(1, U + 1):
            value, moves = plain(rule, n, m)
            cell = (n - 1, m - 1)
            assert a[cell] == value, (n, m)
            assert (s_min[cell], s_max[cell], count[cell]) == (min(moves), max(moves),
                                                               len(moves)), (n, m)
            assert final[cell] == (0 in moves), (n, m)


def test_published_win_probabilities(store):
    assert query_state(store, 23, 23, "official")["p"] == "296/529"
    assert query_state(store, 23, 23, "variant")["p"] == "349/529"


def test_fair_states_are_exactly_half(store):
    for rule in ("official", "variant"):
        fair = {tuple(s) for s in fair_states(store, rule)["fair_states"]}
        expected = {(n, m) for n in range(1, U + 1) for m in range(1, U + 1)
                    if 2 * plain(rule, n, m)[0] == n * m}
        assert fair == expected and fair


def test_xarray_reads_labelled_dataset(store):
    ds = xr.open_zarr(store, group=f"guess-who/U{U}/official", consolidated=False)
    assert ds["a"].dims == ("n", "m")
    assert int(ds["a"].sel(n=23, m=23)) == 296


def test_resume_computes_only_missing_levels(tmp_path, dask_scheduler):
    whole, resumed = str(tmp_path / "whole.zarr"), str(tmp_path / "resumed.zarr")
    guess_who_flow(max_n=U, band=BAND, store=whole, executor="serial")
    first = guess_who_flow(max_n=U, band=BAND, store=resumed, scheduler=dask_scheduler,
                           max_levels=2)
    assert first["levels_computed"] == ["L=1..8", "L=9..16"]
    second = guess_who_flow(max_n=U, band=BAND, store=resumed, scheduler=dask_scheduler)
    assert second["levels_skipped"] == 2
    assert second["levels_computed"] == ["L=17..24", "L=25..30"]
    assert second["shards_computed"] == 4
    third = guess_who_flow(max_n=U, band=BAND, store=resumed, executor="serial")
    assert third["levels_computed"] == [] and third["levels_skipped"] == 4
    assert_stores_equal(whole, resumed)


def test_configuration_clash_is_refused_and_store_untouched(tmp_path):
    path = str(tmp_path / "s.zarr")
    guess_who_flow(max_n=12, rules="official", band=4, store=path, executor="serial")
    before = tree_snapshot(path)
    with pytest.raises(ConfigurationClash, match="rules"):
        guess_who_flow(max_n=12, rules="both", band=4, store=path, executor="serial")
    result = CliRunner().invoke(app, ["run", "guess-who", "--max-n", "12", "--band", "6",
                                      "--rules", "official", "--store", path])
    assert result.exit_code == 2 and "band: stored 4, requested 6" in result.output
    assert tree_snapshot(path) == before


@pytest.mark.parametrize("args, message", [
    (["--max-n", "0"], "--max-n must be between 1"),
    (["--max-n", "-3"], "--max-n must be between 1"),
    (["--max-n", "5", "--rules", "house"], "unknown rules 'house'"),
    (["--max-n", "abc"], "Invalid value"),
    (["--max-n", "2.5"], "Invalid value"),
    (["--max-n", "5", "--band", "0"], "--band must be between 1"),
    (["--max-n", "999999999"], "--max-n must be between 1"),
])
def test_bad_input_exits_nonzero_and_leaves_store_untouched(tmp_path, args, message):
    path = str(tmp_path / "s.zarr")
    guess_who_flow(max_n=6, band=3, store=path, executor="serial")
    before = tree_snapshot(path)
    result = CliRunner().invoke(app, ["run", "guess-who", *args, "--store", path])
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output
    assert tree_snapshot(path) == before


def test_query_cli_json_and_out_of_range(store):
    runner = CliRunner()
    result = runner.invoke(app, ["query", "guess-who", "--n", "23", "--m", "16",
                                 "--rules", "official", "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert set(answer) >= {"n", "m", "rules", "a", "p", "p_float", "F", "G", "optimal_moves"}
    value, moves = plain("official", 23, 16)
    p_nm = Fraction(value, 23 * 16)
    p_mn = Fraction(plain("official", 16, 23)[0], 23 * 16)
    assert answer["a"] == value and Fraction(answer["p"]) == p_nm
    assert Fraction(answer["F"]) == (p_nm + p_mn - 1) / 2
    assert Fraction(answer["G"]) == (p_nm - p_mn) / 2
    assert answer["optimal_moves"] == {"min": min(moves), "max": max(moves),
                                       "count": len(moves), "final_guess_optimal": 0 in moves}
    fair = json.loads(runner.invoke(app, ["query", "guess-who", "--fair", "--rules", "variant",
                                          "--store", store, "--json"]).stdout)
    assert [3, 2] in fair["fair_states"]
    outside = runner.invoke(app, ["query", "guess-who", "--n", str(U + 1), "--m", "2",
                                  "--store", store])
    assert outside.exit_code == 2 and "outside the stored range" in outside.output


def test_status_reports_levels(store):
    result = CliRunner().invoke(app, ["status", "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    (computation,) = json.loads(result.stdout)["computations"]
    assert computation["computation"] == f"guess-who/U{U}"
    assert computation["levels_finished"] == computation["levels_total"] == 4
    assert all(level["shards_done"] == 2 for level in computation["levels"])
    # Each rule set's shard solved every cell of its band, and the bands tile the table.
    assert all(level["computed"]["cells"] == 2 * level["cells"] for level in computation["levels"])
    assert sum(level["cells"] for level in computation["levels"]) == U * U


@pytest.mark.parametrize("args", [["--max-n", "abc"], ["--max-n", "3", "--bogus"],
                                  ["--max-n", "0"]])
def test_console_script_refuses_in_one_line(tmp_path, args):
    result = subprocess.run(["subgame", "run", "guess-who", *args, "--store",
                             str(tmp_path / "s.zarr")], capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and not (tmp_path / "s.zarr").exists()
