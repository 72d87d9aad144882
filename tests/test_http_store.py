"""A store served by a plain static file server (a real `python -m http.server` on a local
port) answers every family's queries, `subgame query`, xarray and `subgame web` exactly as
the local copy does, and is only ever read (GET and HEAD); and `subgame web --workers 2`
answers as one process does, and stops with its parent."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import xarray as xr

import subgame
from tests.test_guess_who_board_flow import BOARD
from tests.test_web import (GOPS_CARDS, board_file, fetch, random_gops_state,  # noqa: F401
                            stop, store, text)


@pytest.fixture(scope="module")
def http_store(store):
    """(the URL of ``store`` served by `python -m http.server`, the server's log file)."""
    folder = Path(store).parent
    log = folder / "http.log"
    with open(log, "w") as sink:
        process = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "0", "--bind",
                                    "127.0.0.1", "--directory", str(folder)],
                                   stdout=subprocess.PIPE, stderr=sink, text=True)
    found = re.search(r"port (\d+)", process.stdout.readline())
    assert found
    yield f"http://127.0.0.1:{found.group(1)}/{Path(store).name}", log
    process.terminate()
    process.wait(60)


def every_family_asked(board: str) -> list[tuple[str, dict]]:
    rng = random.Random(49)
    asked = [("gops", {"cards": GOPS_CARDS, **{key: text(cards) for key, cards in
                                               random_gops_state(rng, GOPS_CARDS).items()}})
             for _ in range(8)]
    asked.append(("gops", {"cards": 4, "objective": "win", "diff": 1, "hand": "1,3",
                           "opponent": "2,4", "prizes": "1,2"}))
    asked += [("guess-who", {"n": rng.randint(1, 24), "m": rng.randint(1, 24),
                             "rules": rng.choice(["official", "variant"])}) for _ in range(4)]
    names = [line.split(",")[0] for line in BOARD.strip().splitlines()[1:]]
    asked += [("guess-who-board", {"board": board, "max_literals": 2,
                                   "standing": text(rng.sample(names, 3))}) for _ in range(3)]
    asked += [("higher-lower", {"n": n}) for n in rng.sample(range(1, 31), 3)]
    asked.append(("clue", {"players": 3, "cards_per_player": 2, "hidden": 1}))
    return asked


def answer(family: str, store: str, options: dict):
    try:
        return subgame.query(family, store, **options)
    except subgame.errors.SubgameError as exc:  # a board set that is not reachable
        return str(exc).replace(store, "STORE")


def test_every_family_answers_over_http_as_locally(store, http_store, board_file):
    url, log = http_store
    asked = every_family_asked(board_file)
    assert {family for family, _ in asked} == {"gops", "guess-who", "guess-who-board",
                                               "higher-lower", "clue"}  # every family
    for family, options in asked:
        assert answer(family, url, options) == answer(family, store, options), (family, options)
    requests = [line for line in log.read_text().splitlines() if '"' in line]
    assert requests and all(line.split('"')[1].split()[0] in ("GET", "HEAD")
                            for line in requests)


def test_a_query_reads_no_other_computations_arrays(http_store):
    """Finding Guess Who's table walks the store's groups down to each computation's own
    group, never into another computation's levels and arrays (over HTTP a request each)."""
    url, log = http_store
    before = len(log.read_text().splitlines())
    assert subgame.query("guess-who", url, n=7, m=5, rules="official")["a"] > 0
    paths = [line.split('"')[1].split()[1] for line in log.read_text().splitlines()[before:]
             if '"' in line]
    assert paths and any("/guess-who/" in path for path in paths)
    inside = [path for path in paths  # (a computation's own zarr.json says what it is)
              if re.search(r"/(gops/N4|higher-lower/distinct/B30)/(?!zarr\.json$).", path)]
    assert not inside, inside


def test_cli_query_status_and_xarray_over_http(store, http_store):
    url, _ = http_store
    query = ["gops", "--cards", str(GOPS_CARDS), "--hand", "1,3", "--opponent", "2,4",
             "--prizes", "1,4", "--json"]

    def cli(*args: str) -> dict:
        done = subprocess.run([sys.executable, "-m", "subgame.cli", *args], text=True,
                              capture_output=True, cwd=Path(__file__).parents[1])
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert cli("query", *query, "--store", url) == cli("query", *query, "--store", store)
    remote, local = cli("status", "--store", url, "--json"), cli("status", "--store", store,
                                                                "--json")
    assert sorted(c["computation"] for c in remote["computations"]) == \
        sorted(c["computation"] for c in local["computations"])
    group = f"gops/N{GOPS_CARDS}"
    with xr.open_zarr(url, group=group) as over_http, xr.open_zarr(store, group=group) as here:
        xr.testing.assert_identical(over_http.load(), here.load())


def serve_store(store: str) -> tuple[subprocess.Popen, str]:
    """`subgame web --store S --port 0`; its own address (the line names the store's too)."""
    process = subprocess.Popen([sys.executable, "-m", "subgame.cli", "web", "--store", store,
                                "--port", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, cwd=Path(__file__).parents[1])
    line = process.stdout.readline()
    found = re.search(r"at http://127\.0\.0\.1:(\d+)/", line)
    assert found, line + process.stdout.read()
    return process, f"http://127.0.0.1:{found.group(1)}"


def test_subgame_web_over_an_http_store_answers_as_locally(store, http_store):
    url, _ = http_store
    (remote, remote_url), (local, local_url) = serve_store(url), serve_store(store)
    try:
        state = "hand=1,2&opponent=3,4&prizes=2,3"
        for path in (f"/api/query/gops?cards={GOPS_CARDS}&{state}",
                     f"/api/gops/matrix-game?cards={GOPS_CARDS}&{state}",
                     "/api/query/guess-who?n=7&m=5&rules=official",
                     "/api/query/higher-lower?n=12"):
            status, body = fetch(remote_url, path)
            assert status == 200 and (status, body) == fetch(local_url, path), path
    finally:
        stop(remote)
        stop(local)


def test_web_workers_answer_alike_and_stop_with_their_parent(store):
    process = subprocess.Popen([sys.executable, "-m", "subgame.cli", "web", "--store", store,
                                "--port", "0", "--workers", "2"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               cwd=Path(__file__).parents[1])
    line = process.stdout.readline()
    found = re.search(r"at http://127\.0\.0\.1:(\d+)/", line)
    assert found, line
    served = f"http://127.0.0.1:{found.group(1)}"
    try:
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        assert len(children) == 1
        rng = random.Random(2)
        states = [{key: text(cards) for key, cards in random_gops_state(rng, GOPS_CARDS).items()}
                  for _ in range(16)]
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda state: fetch(
                served, "/api/query/gops?" + "&".join(
                    f"{k}={v}" for k, v in {"cards": GOPS_CARDS, **state}.items())), states))
        for state, (status, body) in zip(states, answers):
            assert status == 200 and body == subgame.query("gops", store, cards=GOPS_CARDS,
                                                           **state)
    finally:
        stop(process)
    assert stopped(int(children[0]))


def stopped(pid: int, seconds: float = 60) -> bool:
    """Whether the process ends (exits, or is a zombie) within ``seconds``: the parent's
    death signal reaches it as the parent exits, and it then shuts down."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False
