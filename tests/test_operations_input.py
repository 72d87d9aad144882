"""Hostile input: every verb and flow parameter given bad values. Each must end with a clear
error on one line and a non-zero exit, never a traceback, and never change a store."""

from __future__ import annotations

import re
import shutil
from dataclasses import fields

import pytest
import typer
import yaml
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.flows.run import run_flow
from subgame.options import RunOptions
from tests.ops_helpers import free_port
from tests.store_compare import tree_snapshot

app = build_app()
U, BAND = 20, 8
USAGE_ERRORS = ("Invalid value", "No such option", "Missing option", "No such command",
                "Got unexpected extra argument", "Missing argument")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A finished store that no bad command may touch."""
    path = str(tmp_path_factory.mktemp("kept") / "store.zarr")
    run_flow("guess-who", {"max_n": U, "band": BAND}, RunOptions(path, executor="serial"))
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Bad files to point options at: profiles, deployment files, store paths."""
    folder = tmp_path_factory.mktemp("bad")
    profiles = {"mars": {"kind": "mars"}, "negative": {"kind": "local", "workers": -1},
                "colour": {"kind": "local", "colour": "red"},
                "lifetime": {"kind": "slurm", "lifetime": 5},
                "noaddress": {"kind": "scheduler"},
                "locallifetime": {"kind": "local", "lifetime": {"lifetime": "1h"}},
                "options": {"kind": "local", "options": {"cores": 2}},
                "typed": {"kind": "scheduler", "address": 8786},
                "timeout": {"kind": "scheduler", "address": "tcp://127.0.0.1:8786",
                            "connect_timeout": "soon"}}
    for name, content in profiles.items():
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(content))
    (folder / "syntax.yaml").write_text("kind: [local\n")
    (folder / "list.yaml").write_text("- local\n")
    (folder / "binary.yaml").write_bytes(b"\xff\xfe\x00kind")
    (folder / "nodeploy.yaml").write_text("name: x\n")
    (folder / "afile").write_text("not a store")
    corrupt = folder / "corrupt.zarr"
    corrupt.mkdir()
    (corrupt / "zarr.json").write_text("{not json")
    return folder


def bad_run_options(files) -> list[tuple[list[str], str]]:
    closed = f"tcp://127.0.0.1:{free_port()}"
    return [
        (["--max-n", "0"], "--max-n must be between 1"),
        (["--max-n", "-7"], "--max-n must be between 1"),
        (["--max-n", "10000000000"], "--max-n must be between 1"),
        (["--max-n", "twelve"], "Invalid value"),
        (["--max-n", "1e3"], "Invalid value"),
        (["--band", "0"], "--band must be between 1"),
        (["--band", "-1"], "--band must be between 1"),
        (["--band", "99999999"], "--band must be between 1"),
        (["--rules", "official,variant"], "is not one of 'official', 'variant', 'both'"),
        (["--rules", ""], "is not one of 'official', 'variant', 'both'"),
        (["--rules", "house"], "'house' is not one of 'official', 'variant', 'both'"),
        (["--workers", "0"], "Invalid value"),
        (["--workers", "-3"], "Invalid value"),
        (["--workers", "many"], "Invalid value"),
        (["--workers", "100000000"], "at most"),
        (["--max-levels", "0"], "Invalid value"),
        (["--max-levels", "-1"], "Invalid value"),
        (["--max-levels", "all"], "Invalid value"),
        (["--executor", "gpu"], "'gpu' is not one of 'dask', 'threads', 'serial'"),
        (["--executor", ""], "is not one of 'dask', 'threads', 'serial'"),
        (["--scheduler", "nonsense"], "must read protocol://host:port"),
        (["--scheduler", "tcp://127.0.0.1:99999"], "must read protocol://host:port"),
        (["--scheduler", "http://127.0.0.1:8786"], "must read protocol://host:port"),
        (["--scheduler", "tcp://:8786"], "must read protocol://host:port"),
        (["--scheduler", closed], "no Dask scheduler answers"),
        (["--scheduler", closed, "--cluster", "local"], "not both"),
        (["--scheduler", closed, "--workers", "2"], "--workers sizes a cluster"),
        (["--executor", "serial", "--scheduler", closed], "the serial executor"),
        (["--executor", "serial", "--cluster", "slurm"], "the serial executor"),
        (["--executor", "threads", "--cluster", "slurm"], "the threads executor"),
        (["--cluster", "nope"], "no cluster profile 'nope'"),
        (["--cluster", str(files / "missing.yaml")], "no cluster profile"),
        (["--cluster", str(files / "syntax.yaml")], "cannot read cluster profile"),
        (["--cluster", str(files / "binary.yaml")], "cannot read cluster profile"),
        (["--cluster", str(files / "list.yaml")], "must be a mapping"),
        (["--cluster", str(files / "mars.yaml")], "unknown kind 'mars'"),
        (["--cluster", str(files / "negative.yaml")], "workers must be a positive integer"),
        (["--cluster", str(files / "colour.yaml")], "unknown settings ['colour']"),
        (["--cluster", str(files / "lifetime.yaml")], "lifetime takes"),
        (["--cluster", str(files / "noaddress.yaml")], "needs an address"),
        (["--cluster", str(files / "locallifetime.yaml")], "lifetime is for batch queues"),
        (["--cluster", str(files / "options.yaml")], "options are for slurm"),
        (["--cluster", str(files / "typed.yaml")], "address must be a string"),
        (["--cluster", str(files / "timeout.yaml")], "connect_timeout must be a duration"),
        (["--cluster", "pbs"], "pbs"),  # qsub missing, or dask-jobqueue not installed
        (["--cluster", "kubernetes"], "kubernetes"),
        (["--colour", "red"], "No such option"),
    ]


def assert_clear_failure(result, message: str) -> None:
    output = result.output
    assert result.exit_code not in (0, 1), output  # 1 would be an internal error
    assert "Traceback" not in output, output
    assert message in output, output
    if not any(usage in output for usage in USAGE_ERRORS):
        lines = [line for line in output.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), output


def test_bad_run_options_are_refused_and_the_store_is_untouched(store, files):
    runner, before = CliRunner(), tree_snapshot(store)
    defaults = {"--max-n": str(U), "--band": str(BAND), "--store": store}
    for args, message in bad_run_options(files):
        kept = [part for flag, value in defaults.items() if flag not in args
                for part in (flag, value)]
        assert_clear_failure(runner.invoke(app, ["run", "guess-who", *kept, *args]), message)
    assert tree_snapshot(store) == before


@pytest.mark.parametrize("path, run_says, readers_say", [
    ("afile", "is not a directory", "no subgame store"),
    ("afile/below.zarr", "is not a directory", "no subgame store"),
    ("corrupt.zarr", "unreadable metadata", "unreadable metadata"),
    ("", "the store path is empty", "the store path is empty"),
    ("  ", "the store path is empty", "the store path is empty"),
    ("nosuchprotocol://bucket/s.zarr", "Protocol not known", "Protocol not known"),
])
def test_bad_store_paths_for_every_store_verb(files, path, run_says, readers_say):
    store = str(files / path) if path.strip() and "://" not in path else path
    before = tree_snapshot(str(files))
    runner = CliRunner()
    result = runner.invoke(app, ["run", "guess-who", "--max-n", "5", "--band", "5",
                                 "--executor", "serial", "--store", store])
    assert_clear_failure(result, run_says)
    for verb in (["status"], ["query", "guess-who", "--n", "2", "--m", "2"],
                 ["plot", "guess-who", "--out", str(files / "figures")], ["verify"]):
        result = runner.invoke(app, [*verb, "--store", store])
        if verb == ["verify"] and path == "corrupt.zarr":  # verify reports the damage
            assert result.exit_code == 3 and "unreadable metadata" in result.output
            continue
        assert_clear_failure(result, readers_say)
    assert tree_snapshot(str(files)) == before


def test_bad_query_status_and_serve_arguments(store, files):
    runner, before = CliRunner(), tree_snapshot(store)
    query = ["query", "guess-who", "--store", store]
    cases = [
        (query + ["--n", "0", "--m", "2"], "Invalid value"),
        (query + ["--n", "-1", "--m", "2"], "Invalid value"),
        (query + ["--n", "x", "--m", "2"], "Invalid value"),
        (query + ["--n", "99999", "--m", "2"], "outside the stored range"),
        (query + ["--n", "2"], "give both --n and --m"),
        (query + ["--n", "2", "--m", "2", "--rules", "both"],
         "'both' is not one of 'official', 'variant'"),
        (query + ["--n", "2", "--m", "2", "--rules", "house"], "is not one of"),
        (["query", "guess-who", "--n", "2", "--m", "2", "--store",
          str(files / "missing.zarr")], "no subgame store"),
        (["status", "--store", str(files / "missing.zarr")], "no subgame store"),
        (["verify", "--store", str(files / "missing.zarr")], "no subgame store"),
        (["serve", "--file", str(files / "missing.yaml")], "cannot read"),
        (["serve", "--file", str(files / "syntax.yaml")], "cannot read"),
        (["serve", "--file", str(files / "nodeploy.yaml")], "has no list of deployments"),
        (["serve", "no-such-deployment"], "no deployment ['no-such-deployment']"),
        (["serve", "--limit", "0"], "Invalid value"),
        (["frobnicate"], "No such command"),
    ]
    for args, message in cases:
        assert_clear_failure(runner.invoke(app, args), message)
    assert tree_snapshot(store) == before


def _leaf_commands(group, path: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        if hasattr(command, "commands"):  # a group of sub-commands
            yield from _leaf_commands(command, (*path, name))
        else:
            yield (*path, name)


def test_every_verb_survives_a_corrupt_store_and_unknown_options(files):
    """Also verbs added later: each, pointed at a store with unreadable metadata or given an
    unknown option, fails cleanly without writing."""
    runner = CliRunner()
    corrupt = str(files / "corrupt.zarr")
    before = tree_snapshot(corrupt)
    verbs = list(_leaf_commands(typer.main.get_command(app)))
    assert {("run", "guess-who"), ("query", "guess-who"), ("status",), ("serve",)} <= set(verbs)
    for verb in verbs:
        if verb != ("serve",):  # serve has no store; with valid input it serves forever
            result = runner.invoke(app, [*verb, "--store", corrupt])
            assert result.exit_code != 0 and "Traceback" not in result.output, (verb, result.output)
        result = runner.invoke(app, [*verb, "--no-such-option"])
        assert result.exit_code == 2 and "No such option" in result.output, verb
    assert tree_snapshot(corrupt) == before


@pytest.mark.parametrize("parameters, message", [
    ({"max_n": -1}, "--max-n must be between 1"),
    ({"max_n": 0}, "--max-n must be between 1"),
    # ``config`` is the family's options as a mapping, checked by the family (which names
    # the option as the CLI does), not typed by Prefect.
    ({"max_n": "abc"}, "--max-n must be an integer"),
    ({"max_n": 2.5}, "--max-n must be an integer"),
    ({"max_n": None}, "--max-n must be an integer"),
    ({"band": 0}, "--band must be between 1"),
    ({"rules": "house"}, "unknown rules"),
    ({"rules": ["official"]}, "rules"),
    ({"workers": 0}, "--workers must be at least 1"),
    ({"workers": "two"}, "workers"),
    ({"executor": "gpu"}, "'dask', 'threads' or 'serial'"),  # Prefect checks RunOptions' choices
    ({"cluster": "nope", "executor": "dask"}, "no cluster profile"),
    ({"scheduler": "nonsense", "executor": "dask"}, "must read protocol://host:port"),
    ({"max_steps": 0}, "--max-steps must be at least 1"),
    ({"store": "nosuchprotocol://x.zarr"}, "Protocol not known"),
])
def test_bad_flow_parameters_fail_the_flow_and_leave_the_store(store, parameters, message):
    """Deployments and Python callers pass parameters without the CLI: the flow itself
    refuses them (Prefect checks the types, the plan and options the values)."""
    before = tree_snapshot(store)
    # The flow's parameters: the family's options (``config``) and the run options
    # (``options``, a mapping of RunOptions fields, as a deployment passes them).
    run_fields = {f.name for f in fields(RunOptions)}
    config = {"max_n": U, "band": BAND,
              **{k: v for k, v in parameters.items() if k not in run_fields}}
    options = {"store": store, "executor": "serial",
               **{k: v for k, v in parameters.items() if k in run_fields}}
    with pytest.raises(Exception, match=re.escape(message)):
        run_flow("guess-who", config, options)
    assert tree_snapshot(store) == before


def test_foreign_files_in_a_store_are_not_taken_for_results(tmp_path, store):
    """A store directory with stray files and folders still reports only computations."""
    copy = tmp_path / "copy.zarr"
    shutil.copytree(store, copy)
    (copy / "notes.txt").write_text("hello")
    (copy / "stray").mkdir()
    result = CliRunner().invoke(app, ["verify", "--store", str(copy)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("family", [["guess-who", "--max-n", "20"], ["gops", "--cards", "3"],
                                    ["higher-lower", "--max-n", "50"]],
                         ids=lambda family: family[0])
def test_every_family_refuses_bad_cluster_and_store_options(tmp_path, files, family):
    """The options all `run` verbs share fail the same way whatever the family."""
    runner, store = CliRunner(), str(tmp_path / "s.zarr")
    closed = f"tcp://127.0.0.1:{free_port()}"
    for args, message in [(["--scheduler", "nonsense"], "must read protocol://host:port"),
                          (["--scheduler", closed], "no Dask scheduler answers"),
                          (["--cluster", "nope"], "no cluster profile 'nope'"),
                          (["--cluster", str(files / "mars.yaml")], "unknown kind 'mars'"),
                          (["--workers", "100000000"], "at most"),
                          (["--executor", "gpu"], "is not one of 'dask', 'threads', 'serial'"),
                          (["--store", str(files / "afile")], "is not a directory")]:
        argv = ["run", *family, *(["--store", store] if "--store" not in args else []), *args]
        assert_clear_failure(runner.invoke(app, argv), message)
    assert not (tmp_path / "s.zarr").exists()
