"""The Guess Who flow end to end: real Prefect, real Dask, real Zarr stores on disk."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from fractions import Fraction
from functools import lru_cache

import pytest
import xarray as xr
import zarr
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.errors import ConfigurationClash
from subgame.families.guess_who import plan as guess_who_plan
from subgame.families.guess_who.plan import GuessWhoConfig
from subgame.families.guess_who.read import fair_states, query_state
from subgame.flows.run import run_flow
from subgame.options import RunOptions
from tests.store_compare import assert_stores_equal, tree_snapshot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U, BAND = 30, 8
GROUP = GuessWhoConfig(max_n=U, rules="both", band=BAND).group_path()  # guess-who/both-B8
app = build_app()


def guess_who(store: str, max_n: int, rules: str = "both", band: int = BAND,
              **options) -> dict:
    """One `run guess-who`: the flow gives one report per computation, here exactly one."""
    (report,) = run_flow("guess-who", {"max_n": max_n, "rules": rules, "band": band},
                         RunOptions(store, **options))
    return report


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
    report = guess_who(path, U, rules="both", band=BAND, scheduler=dask_scheduler)
    assert report["shards_computed"] == 2 * 4 and report["steps_skipped"] == 0
    return path


@pytest.mark.parametrize("rule", ["official", "variant"])
def test_stored_tables_equal_plain_recursion(store, rule):
    group = zarr.open_group(store, mode="r")[f"{GROUP}/{rule}"]
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
    ds = xr.open_zarr(store, group=f"{GROUP}/official", consolidated=False)
    assert ds["a"].dims == ("n", "m")
    assert int(ds["a"].sel(n=23, m=23)) == 296


def test_resume_computes_only_missing_levels(tmp_path, dask_scheduler):
    whole, resumed = str(tmp_path / "whole.zarr"), str(tmp_path / "resumed.zarr")
    guess_who(whole, U, executor="serial")
    first = guess_who(resumed, U, scheduler=dask_scheduler, max_steps=2)
    assert first["steps_computed"] == ["L=1..8", "L=9..16"]
    second = guess_who(resumed, U, scheduler=dask_scheduler)
    assert second["steps_skipped"] == 2
    assert second["steps_computed"] == ["L=17..24", "L=25..30"]
    assert second["shards_computed"] == 4
    third = guess_who(resumed, U, executor="serial")
    assert third["steps_computed"] == [] and third["steps_skipped"] == 4
    assert_stores_equal(whole, resumed)


def test_growing_the_extent_computes_only_the_new_bands(tmp_path):
    grown, fresh = str(tmp_path / "grown.zarr"), str(tmp_path / "fresh.zarr")
    small = guess_who(grown, 24, executor="serial")
    assert small["steps_computed"] == ["L=1..8", "L=9..16", "L=17..24"]
    # 24 is a whole number of bands: no partial last band to redo, only the two new ones.
    larger = guess_who(grown, 40, executor="serial")
    assert larger["steps_computed"] == ["L=25..32", "L=33..40"]
    assert larger["steps_skipped"] == 3 and larger["shards_computed"] == 2 * 2
    whole = guess_who(fresh, 40, executor="serial")
    assert whole["steps_computed"] == ["L=1..8", "L=9..16", "L=17..24", "L=25..32",
                                       "L=33..40"]
    assert_stores_equal(fresh, grown)  # every array, markers included: same values
    # A smaller U never shrinks the store: everything asked for is already there.
    smaller = guess_who(grown, 16, executor="serial")
    assert smaller["steps_computed"] == [] and smaller["shards_computed"] == 0
    assert smaller["steps_skipped"] == 5
    assert_stores_equal(fresh, grown)


def test_configuration_clash_is_refused_and_store_untouched(tmp_path, monkeypatch):
    # API change: rules and band are now part of the group path (guess-who/{rules}-B{band}),
    # so other rules or another band are a separate computation beside the stored one, not a
    # clash (checked second, below). What can still clash at one group path is the rest of
    # the identity: a store written by another kernel version.
    path = str(tmp_path / "s.zarr")
    stored = GuessWhoConfig(max_n=12, rules="official", band=4).group_path()
    guess_who(path, 12, rules="official", band=4, executor="serial")
    before = tree_snapshot(path)
    kernel = guess_who_plan.KERNEL_VERSION
    monkeypatch.setattr(guess_who_plan, "KERNEL_VERSION", kernel + 1)
    with pytest.raises(ConfigurationClash, match="kernel_version"):
        guess_who(path, 12, rules="official", band=4, executor="serial")
    result = CliRunner().invoke(app, ["run", "guess-who", "--max-n", "12", "--band", "4",
                                      "--rules", "official", "--store", path])
    assert result.exit_code == 2
    assert f"kernel_version: stored {kernel}, requested {kernel + 1}" in result.output
    assert tree_snapshot(path) == before
    monkeypatch.undo()
    # The old clashes (other rules, another band) now compute their own groups and leave the
    # stored computation's files untouched.
    both = guess_who(path, 12, rules="both", band=4, executor="serial")
    assert both["computation"] == "guess-who/both-B4"
    result = CliRunner().invoke(app, ["run", "guess-who", "--max-n", "12", "--band", "6",
                                      "--rules", "official", "--store", path, "--executor",
                                      "serial", "--json"])
    assert result.exit_code == 0, result.output
    assert [r["computation"] for r in json.loads(result.stdout)] == ["guess-who/official-B6"]

    def own(snapshot: dict[str, str]) -> dict[str, str]:
        return {name: digest for name, digest in snapshot.items()
                if name.startswith(stored + "/")}

    assert own(tree_snapshot(path)) == own(before) and own(before)


@pytest.mark.parametrize("args, message", [
    (["--max-n", "0"], "--max-n must be between 1"),
    (["--max-n", "-3"], "--max-n must be between 1"),
    (["--max-n", "5", "--rules", "house"], "'house' is not one of"),
    (["--max-n", "abc"], "Invalid value"),
    (["--max-n", "2.5"], "Invalid value"),
    (["--max-n", "5", "--band", "0"], "--band must be between 1"),
    (["--max-n", "999999999"], "--max-n must be between 1"),
])
def test_bad_input_exits_nonzero_and_leaves_store_untouched(tmp_path, args, message):
    path = str(tmp_path / "s.zarr")
    guess_who(path, 6, band=3, executor="serial")
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
    assert computation["computation"] == GROUP
    assert computation["steps_finished"] == computation["steps_total"] == 4
    assert all(step["shards_done"] == 2 for step in computation["steps"])
    # Each rule set's shard solved every cell of its band, and the bands tile the table.
    assert all(step["computed"]["cells"] == 2 * step["cells"] for step in computation["steps"])
    assert sum(step["cells"] for step in computation["steps"]) == U * U


@pytest.mark.parametrize("args", [["--max-n", "abc"], ["--max-n", "3", "--bogus"],
                                  ["--max-n", "0"]])
def test_console_script_refuses_in_one_line(tmp_path, args):
    # conftest registers the toy family through $SUBGAME_FAMILIES, which the child inherits:
    # it must be able to import tests.toy_family (the console script's path lacks the repo).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [ROOT, os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(["subgame", "run", "guess-who", *args, "--store",
                             str(tmp_path / "s.zarr")], capture_output=True, text=True, env=env)
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and not (tmp_path / "s.zarr").exists()


def test_verify_holds_and_reports_the_papers_erratum_as_a_note(store):
    """Theorem 3 as printed is wrong in column m = 3 (it leaves out s = 1); the verify checks
    the corrected statement, passes (exit 0) and names the printed one's states."""
    result = CliRunner().invoke(app, ["verify", "guess-who", "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert all(report[name]["mismatches"] == 0 for name in ("theorem1", "theorem2", "theorem3"))
    erratum = report["erratum"]
    assert erratum["states"] == U - 3 and "m = 3" in erratum["note"]
    assert erratum["examples"] == [[n, 3] for n in range(4, 9)]
    # The erratum is the paper's: the plain recursion has s = 1 optimal there.
    assert all(min(plain("variant", n, 3)[1]) == 1 for n in range(4, U + 1))
    text = CliRunner().invoke(app, ["verify", "guess-who", "--store", store]).output
    assert "theorem3 over 900 states (n, m <= 30): holds" in text
    assert "erratum" in text and "(4, 3)" in text


def test_verify_exits_4_naming_a_state_that_disagrees(store, tmp_path):
    copy = str(tmp_path / "copy.zarr")
    shutil.copytree(store, copy)
    zarr.open_group(copy, mode="r+")[f"{GROUP}/variant/s_max"][9, 19] += 1  # state (10, 20)
    result = CliRunner().invoke(app, ["verify", "guess-who", "--store", copy])
    assert result.exit_code == 4, result.output
    assert "theorem3 over 900 states (n, m <= 30): 1 mismatch, e.g. (n, m) = (10, 20)" in \
        result.output
