"""Closed pipes: every verb's output, text and --json, read by a reader that leaves early
(`| head -1`) or never reads (`| true`). The command ends as a process SIGPIPE ends (status
141) or, where its output fit the pipe, with 0; stderr stays empty and the store as it was."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from subgame.flows.run import run_flow
from subgame.options import RunOptions
from tests.ops_helpers import ROOT, subprocess_env
from tests.store_compare import tree_snapshot

SIGPIPE_STATUS = 141
N = 60  # its export is 3600 rows, about 90 kB: more than a pipe holds


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("piped") / "store.zarr")
    run_flow("guess-who", {"max_n": N, "band": 8}, RunOptions(path, executor="serial"))
    return path


def verbs(store: str) -> list[list[str]]:
    """Every verb that prints, with a store holding what it reads."""
    at = ["--store", store]
    return [["run", "guess-who", "--max-n", str(N), "--band", "8", *at],
            ["query", "guess-who", "--n", "5", "--m", "3", *at],
            ["status", *at], ["verify", "guess-who", *at], ["verify", *at],
            ["upgrade", *at]]


def piped(args: list[str], reader: str, env: dict) -> tuple[int, str]:
    """``subgame args`` with stdout into a pipe: ``true`` closes its end before the command
    writes; ``head`` reads one line, then closes it. Its exit status and stderr."""
    read, write = os.pipe()
    if reader == "true":
        os.close(read)
    process = subprocess.Popen([sys.executable, "-m", "subgame.cli", *args], env=env,
                               cwd=ROOT, stdout=write, stderr=subprocess.PIPE, text=True)
    os.close(write)
    if reader == "head":
        with os.fdopen(read, "rb") as output:
            output.readline()
    _, err = process.communicate(timeout=120)
    return process.returncode, err


def test_every_verb_into_a_closed_pipe_ends_silently(store, tmp_path):
    """Each verb, text and --json, and --help, --version and `export --out -` (the table
    itself on stdout) into `true`; into `head -1` those whose output is longer than a line
    (the export's, larger than a pipe's buffer, meets the closed pipe whatever the timing).
    About 20 processes, four at a time."""
    env = subprocess_env(tmp_path)
    before = tree_snapshot(store)
    export = ["export", "guess-who", "--out", "-", "--store", store]
    calls = [(args, "true") for base in verbs(store) for args in (base, [*base, "--json"])]
    calls += [(args, "true") for args in (["--help"], ["--version"], export)]
    calls += [(args, "head") for args in (export, ["--help"], ["status", "--store", store,
                                                                "--json"],
                                          ["query", "guess-who", "--fair", "--store", store])]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda call: piped(*call, env), calls))
    for (args, reader), (status, err) in zip(calls, results):
        assert status in (0, SIGPIPE_STATUS) and err == "", (args, reader, status, err)
    # a reader that never reads sees every verb end as SIGPIPE ends it
    assert all(status == SIGPIPE_STATUS for (args, reader), (status, _) in zip(calls, results)
               if reader == "true" and args != ["--version"])
    assert tree_snapshot(store) == before


def test_a_refusal_into_a_closed_pipe_keeps_its_status_and_line(store, tmp_path):
    """A refusal says so on stderr with its own status, whoever reads stdout."""
    status, err = piped(["query", "guess-who", "--n", "9999", "--m", "1", "--store", store],
                        "true", subprocess_env(tmp_path))
    assert status == 2 and err.startswith("error: ") and len(err.splitlines()) == 1
