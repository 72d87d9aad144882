"""What a new user meets in the first hour: help that says what each option takes, a run
that finds what a larger run stored, refusals that name the command to run, an export
to stdout, and inputs no store should hold (a seed beyond 64 bits, a control character in
a path, a Zarr group without a computation)."""

from __future__ import annotations

import io
import json
from io import StringIO

import pandas as pd
import pytest
import typer
import zarr
from rich.console import Console
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.commands.progress import ProgressDisplay
from subgame.errors import SEED_MAX
from subgame.plan import Step
from tests.store_compare import tree_snapshot

app = build_app()
runner = CliRunner()


def options(group, path=()):
    """(command words, command, click option) for every option of every command."""
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from options(command, (*path, name))
        else:
            for parameter in command.params:
                if parameter.param_type_name == "option":
                    yield (*path, name), command, parameter


def test_every_option_shows_what_it_takes_in_words():
    """No parser's function name (<parse>), Python's <str> or typer's <int range> as the
    help's placeholder; --executor's default says where it applies."""
    from typer._click import core

    shown = {}
    for words, command, option in options(typer.main.get_command(app)):
        if not option.is_flag and "toy" not in words:  # (the tests' own family)
            context = core.Context(command, info_name=" ".join(words))
            shown[(" ".join(words), option.opts[0])] = option.make_metavar(context)
    assert len(shown) > 100
    assert not {key: metavar for key, metavar in shown.items()
                if metavar in ("<parse>", "<str>", "<int range>")}
    assert shown[("run gops", "--cards")] == "<int>"
    assert shown[("status", "--store")] == "<path or URL>"
    help_text = " ".join(runner.invoke(app, ["run", "gops", "--help"]).output.split())
    assert "[default: (dask; threads where --orchestrate auto keeps the run in this " \
           "process)]" in help_text


@pytest.mark.parametrize("width", [60, 80])
def test_a_long_name_gives_way_to_the_counts_and_times(width):
    out = StringIO()
    display = ProgressDisplay(Console(file=out, width=width))
    display.run_started("guess-who/" + "a-very-long-group-name-" * 5, 12, 0)
    display.step_started("solve", Step(0, "L=1..512", 1024), 1024)
    display.shard_done(Step(0, "L=1..512", 1024), {"shards": 24})
    display.step_finished(Step(0, "L=1..512", 1024), {})
    display.run_finished()
    (line,) = out.getvalue().splitlines()  # the step's bar is gone once the step ends
    assert len(line.rstrip()) <= width
    assert line.startswith("guess-who/") and "…" in line
    assert " 1/12 0:00:00 " in line and line.rstrip().endswith("eta -:--:--")


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    """A `both` table of U = 16."""
    path = str(tmp_path_factory.mktemp("first-hour") / "store.zarr")
    result = runner.invoke(app, ["run", "guess-who", "--max-n", "16", "--band", "4",
                                 "--orchestrate", "none", "--executor", "serial", "--store",
                                 path, "--json"])
    assert result.exit_code == 0, result.output
    return path


@pytest.mark.parametrize("rules", ["official", "variant"])
def test_a_run_for_one_rule_set_finds_the_both_table_that_holds_it(store, rules):
    before = tree_snapshot(store)
    result = runner.invoke(app, ["run", "guess-who", "--max-n", "12", "--band", "4",
                                 "--rules", rules, "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.stdout)
    assert report["computation"] == "guess-who/both-B4" and report["steps_computed"] == []
    assert tree_snapshot(store) == before  # no second table
    # beyond what it holds, or with another band, the rule set's own table is computed
    dry = runner.invoke(app, ["run", "guess-who", "--max-n", "20", "--band", "4", "--rules",
                              rules, "--store", store, "--dry-run"])
    assert dry.exit_code == 0 and dry.stdout.startswith(f"guess-who/{rules}-B4 ")


def test_a_missing_computation_names_the_run_that_computes_it(store):
    result = runner.invoke(app, ["query", "gops", "--cards", "9", "--first-move",
                                 "--objective", "win", "--store", store])
    assert result.exit_code == 2
    assert f"`subgame run gops --cards 9 --objective win --store {store}` computes it" in \
        " ".join(result.output.split())


def test_export_to_stdout_is_the_table_itself(store, tmp_path):
    """--out - writes what --out FILE would write, to stdout, and no file named -."""
    for file_format, read, text in (("csv", pd.read_csv, True),
                                    ("parquet", pd.read_parquet, False)):
        export = ["export", "guess-who", "--store", store, "--format", file_format, "--out"]
        on_disk = runner.invoke(app, [*export, str(tmp_path / f"t.{file_format}")])
        assert on_disk.exit_code == 0, on_disk.output
        piped = runner.invoke(app, [*export, "-"])
        assert piped.exit_code == 0
        stdout = io.StringIO(piped.stdout) if text else io.BytesIO(piped.stdout_bytes)
        pd.testing.assert_frame_equal(read(stdout), read(tmp_path / f"t.{file_format}"))
    assert not (tmp_path / "-").exists()
    for refused in (["--format", "netcdf"], ["--json"]):
        result = runner.invoke(app, ["export", "guess-who", "--store", store, "--out", "-",
                                     *refused])
        assert result.exit_code == 2 and result.stdout == ""


@pytest.mark.parametrize("command", [["run", "higher-lower", "--ranks", "3", "--suits", "1",
                                      "--dry-run"],
                                     ["run", "clue", "--dry-run"]], ids=lambda c: c[1])
def test_seeds_are_64_bit(command, tmp_path):
    store = ["--store", str(tmp_path / "s.zarr")]
    beyond = runner.invoke(app, [*command, *store, "--seed", str(SEED_MAX + 1)])
    assert beyond.exit_code == 2 and f"between 0 and {SEED_MAX}" in beyond.output
    assert runner.invoke(app, [*command, *store, "--seed", str(SEED_MAX)]).exit_code == 0
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["a\nb.zarr", "tab\there.zarr", "bell\x07.zarr"])
def test_a_store_path_with_a_control_character_is_refused(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    for verb in (["run", "guess-who", "--max-n", "4"], ["status"], ["verify"]):
        result = runner.invoke(app, [*verb, "--store", name])
        assert result.exit_code == 2 and "holds a control character" in result.output
    assert list(tmp_path.iterdir()) == []


def test_verify_store_of_zarr_groups_without_a_computation_says_so(tmp_path):
    zarr.open_group(str(tmp_path / "bare.zarr"), mode="w").create_group("guess-who")
    result = runner.invoke(app, ["verify", "--store", str(tmp_path / "bare.zarr")])
    assert result.exit_code == 2
    assert "holds Zarr groups but no subgame computation" in result.output
