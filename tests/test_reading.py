"""Reading results without the CLI: docs/store.md's xarray examples, the Python API and
`subgame export`, each checked against what `subgame query ... --json` answers on stores
made by real runs; and consolidated metadata that outside readers use and subgame never
trusts."""

from __future__ import annotations

import json
import os
import re
import shutil
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import xarray as xr
import zarr
from typer.testing import CliRunner

import subgame
from subgame.cli import build_app
from subgame.errors import InvalidInput
from tests.ops_helpers import one_line_refusal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOARD = os.path.join(ROOT, "tests", "data", "seven_board.csv")
# The runs docs/store.md runs before its "Reading results" examples.
README_RUNS = (("guess-who", "--max-n", "24"), ("gops", "--cards", "4"),
               ("higher-lower", "--max-n", "30", "--ranks", "3", "--suits", "2,4"))
OTHER_RUNS = (("clue", "--players", "2,3", "--cards-per-player", "2", "--hidden", "1",
               "--games", "200", "--seed", "3"),
              ("guess-who-board", "--board", BOARD))
STALE_WARNING = "Failed to open Zarr store with consolidated metadata"
app = build_app()


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def run(store: str, family_args: tuple[str, ...]) -> None:
    result = cli("run", *family_args, "--store", store, "--executor", "serial", "--json")
    assert result.exit_code == 0, result.output


def cli_json(store: str, *args: str) -> dict:
    result = cli("query", *args, "--store", store, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("reading") / "subgame.zarr")
    for family_args in (*README_RUNS, *OTHER_RUNS):
        run(path, family_args)
    return path


def readme_section_code() -> str:
    """The python blocks of docs/store.md's "Reading results" section, in order."""
    with open(os.path.join(ROOT, "docs", "store.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("\n## Reading results\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) >= 4  # Guess Who, GOPS, higher/lower, the Python API
    return "\n".join(blocks)


def test_readme_examples_read_what_the_queries_answer(store, monkeypatch):
    monkeypatch.chdir(os.path.dirname(store))  # the examples name ./subgame.zarr
    found: dict = {}
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=STALE_WARNING)  # consolidated metadata
        exec(compile(readme_section_code(), "docs/store.md", "exec"), found)

    state = cli_json(store, "guess-who", "--n", "23", "--m", "23")
    assert found["a"] == state["a"]
    at = {"n": 23, "m": 23}
    assert (f"{int(found['p_numerator'].sel(**at))}/{int(found['p_denominator'].sel(**at))}"
            == state["p"] == "296/529")
    # every state's fraction, against Python's own reduction of a / (n m)
    a = found["table"]["a"].values
    numerators, denominators = found["p_numerator"].values, found["p_denominator"].values
    for n in range(1, 25):
        for m in range(1, 25):
            exact = Fraction(int(a[n - 1, m - 1]), n * m)
            assert (numerators[n - 1, m - 1], denominators[n - 1, m - 1]) == \
                (exact.numerator, exact.denominator), (n, m)

    value = cli_json(store, "gops", "--cards", "4", "--hand", "2,4", "--opponent", "1,3",
                     "--prizes", "1,2")["value"]
    assert found["f"] == pytest.approx(value, abs=1e-12)
    opening = cli_json(store, "gops", "--cards", "4", "--first-move")
    np.testing.assert_allclose(found["opening"].values, opening["probability"], atol=1e-6)

    sweep = cli_json(store, "higher-lower", "--n", "25")
    assert found["p_all"] == sweep["p_all"]
    assert str(found["count"]) == sweep["count"]
    deck = cli_json(store, "higher-lower", "--ranks", "3", "--suits", "4")
    assert found["p_deck"] == pytest.approx(deck["exact"]["p_float"], rel=1e-15)

    assert found["answer"] == state | {"rules": "official"}
    assert found["first_move"] == opening
    row = found["values"].set_index(["deck", "pattern"]).loc[("1,2", "yvyv"), "value"]
    assert row == pytest.approx(value, abs=1e-12)


API_CASES = [
    ("guess-who", {"n": 5, "m": 3, "rules": "variant"}, ["--n", "5", "--m", "3", "--rules",
                                                         "variant"]),
    ("guess-who", {"fair": True}, ["--fair"]),
    ("gops", {"cards": 4, "hand": "1,4", "opponent": "2,3", "prizes": "1,3", "upcard": 3},
     ["--cards", "4", "--hand", "1,4", "--opponent", "2,3", "--prizes", "1,3", "--upcard",
      "3"]),
    ("higher-lower", {"asymptotics": True}, ["--asymptotics"]),
    ("higher-lower", {"ranks": 3, "suits": 2}, ["--ranks", "3", "--suits", "2"]),
    ("clue", {"players": 3, "cards_per_player": 2, "hidden": 1},
     ["--players", "3", "--cards-per-player", "2", "--hidden", "1"]),
    ("guess-who-board", {"board": BOARD}, ["--board", BOARD]),
]


@pytest.mark.parametrize("family, options, args", API_CASES)
def test_api_answers_what_the_cli_prints(store, family, options, args):
    assert subgame.query(family, store=store, **options) == cli_json(store, family, *args)


def test_api_refuses_an_unknown_family(store):
    with pytest.raises(InvalidInput, match="no family 'chess'"):
        subgame.query("chess", store=store)


EXPORTS = [("guess-who", {"rules": "variant", "max_n": 20}),
           ("gops", {"cards": 4, "cards_left": 3}),
           ("higher-lower", {}),
           ("higher-lower", {"decks": True}),
           ("clue", {})]


def option_args(options: dict) -> list[str]:
    args = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        args += [flag] if value is True else [flag, str(value)]
    return args


@pytest.mark.parametrize("family, options", EXPORTS)
def test_csv_export_round_trips(store, tmp_path, family, options):
    out = str(tmp_path / "table.csv")
    result = cli("export", family, *option_args(options), "--store", store, "--out", out,
                 "--json")
    assert result.exit_code == 0, result.output
    # exact counts are decimal text of any length: read them back as text
    read = pd.read_csv(out, dtype={name: str for name in (
        "count", "streak_count", "exact_wins", "exact_orders")}, keep_default_na=False,
        na_values={name: [""] for name in (
            "ratio", "exact_p", "mc_p", "mc_low", "mc_high",
            *(f"{rate}{end}" for rate in ("first_share", "wrong_rate", "mean_rank",
                                          "mean_guess_round", "mean_lead")
              for end in ("", "_low", "_high")))})
    expected = subgame.table(family, store=store, **options)
    assert json.loads(result.stdout)["rows"] == len(expected) > 0
    pd.testing.assert_frame_equal(read, expected, check_dtype=False)


def test_exports_agree_with_the_queries(store, tmp_path):
    def exported(family: str, *args: str) -> pd.DataFrame:
        out = str(tmp_path / f"{family}.csv")
        assert cli("export", family, *args, "--store", store, "--out", out).exit_code == 0
        return pd.read_csv(out, dtype=str, keep_default_na=False)

    states = exported("guess-who", "--rules", "official").set_index(["n", "m"])
    for n, m in ((23, 23), (7, 12), (1, 24)):
        row = states.loc[(str(n), str(m))]
        query = cli_json(store, "guess-who", "--n", str(n), "--m", str(m))
        assert f"{row['p_numerator']}/{row['p_denominator']}" == query["p"]
        assert int(row["a"]) == query["a"] and int(row["s_count"]) == \
            query["optimal_moves"]["count"]

    level = exported("gops", "--cards", "4").set_index(["deck", "pattern"])
    full = cli_json(store, "gops", "--cards", "4", "--first-move")
    assert float(level.loc[("1,2,3,4", "===="), "value"]) == pytest.approx(full["value"])

    sweep = exported("higher-lower").set_index("n")
    for n in (1, 13, 30):
        assert sweep.loc[str(n), "count"] == cli_json(store, "higher-lower", "--n",
                                                      str(n))["count"]

    leaders = exported("clue").set_index(["players", "strategy"])
    board = cli_json(store, "clue", "--players", "2", "--cards-per-player", "2",
                     "--hidden", "1")
    for strategy, row in board["strategies"].items():
        assert int(leaders.loc[("2", strategy), "first_places"]) == row["first"]


def test_netcdf_export_holds_the_same_table(store, tmp_path):
    out = str(tmp_path / "level.nc")
    assert cli("export", "gops", "--cards", "4", "--cards-left", "2", "--format", "netcdf",
               "--store", store, "--out", out).exit_code == 0
    expected = subgame.table("gops", store=store, cards=4, cards_left=2)
    with xr.open_dataset(out) as dataset:
        read = dataset.to_dataframe().reset_index(drop=True)[list(expected.columns)]
    pd.testing.assert_frame_equal(read, expected, check_dtype=False)


def test_parquet_export_holds_the_same_table(store, tmp_path):
    out = str(tmp_path / "table.parquet")
    assert cli("export", "guess-who", "--max-n", "12", "--format", "parquet",
               "--store", store, "--out", out).exit_code == 0
    expected = subgame.table("guess-who", store=store, max_n=12)
    pd.testing.assert_frame_equal(pd.read_parquet(out), expected, check_dtype=False)


@pytest.mark.parametrize("args, message", [
    (["--format", "xls"], "--format must be one of csv, parquet, netcdf"),
    (["--out", "/no/such/folder/t.csv"], "does not exist"),
    (["--out", "."], "--out needs a file name"),
])
def test_bad_export_targets_are_one_line_refusals(store, tmp_path, args, message):
    options = {"--out": str(tmp_path / "t.csv"), **dict(zip(args[::2], args[1::2]))}
    one_line_refusal(cli("export", "gops", "--cards", "4", "--store", store,
                         *[part for item in options.items() for part in item]), message)
    assert os.listdir(tmp_path) == []


def test_outside_readers_see_a_grown_store_and_subgame_never_trusts_a_stale_snapshot(
        tmp_path):
    store = str(tmp_path / "grown.zarr")
    group = "guess-who/both-B8/official"
    run(store, ("guess-who", "--max-n", "12", "--band", "8"))
    first_snapshot = tmp_path / "root-zarr.json"
    shutil.copy(os.path.join(store, "zarr.json"), first_snapshot)
    run(store, ("guess-who", "--max-n", "20", "--band", "8"))

    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=STALE_WARNING)
        grown = xr.open_zarr(store, group=group)
    assert dict(grown.sizes) == {"n": 20, "m": 20}
    answer = cli_json(store, "guess-who", "--n", "20", "--m", "17")
    assert int(grown["a"].sel(n=20, m=17)) == answer["a"]

    # A run killed before its last consolidation leaves an old snapshot at the root: it
    # describes 12 x 12 tables, and subgame reads the arrays as they are.
    shutil.copy(first_snapshot, os.path.join(store, "zarr.json"))
    assert zarr.open_group(store, mode="r")[f"{group}/a"].shape == (12, 12)  # the snapshot
    assert cli_json(store, "guess-who", "--n", "20", "--m", "17") == answer
    status = json.loads(cli("status", "--store", store, "--json").stdout)
    assert [c["extent"] for c in status["computations"]] == [{"max_n": 20}]
