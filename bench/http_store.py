"""Queries of a store over HTTP: the requests and seconds each takes, on this tree and, with
--baseline, on another (the tree before), alternating.

    python bench/http_store.py [--baseline FOLDER] [--rounds 5]

Writes a store holding a computation of every family (GOPS N = 4, Guess Who to 24,
higher/lower to 30, a Clue tournament of 20 games) in a temporary folder, serves it with
`python -m http.server` on a local port, and for each tree runs one Python process per
family that asks `subgame.query` once untimed (its imports and the first connection), then
``--rounds`` times: the median seconds a query and the requests the server logged for it.
The load average is printed before and after: read the ratios, not the absolute figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = [("gops", "--cards", "4"), ("guess-who", "--max-n", "24"),
         ("higher-lower", "--max-n", "30"),
         ("clue", "--players", "3", "--cards-per-player", "2", "--hidden", "1", "--games", "20")]
QUERIES = {"gops": {"cards": 4, "hand": "1,3", "opponent": "2,4", "prizes": "1,4"},
           "guess-who": {"n": 7, "m": 5, "rules": "official"},
           "higher-lower": {"n": 12},
           "clue": {"players": 3, "cards_per_player": 2, "hidden": 1}}
# One process a family: the log's length before and after each query counts its requests.
ASK = """
import json, statistics, sys, time, subgame
url, log, family, options, rounds = sys.argv[1:4] + [json.loads(sys.argv[4]), int(sys.argv[5])]
subgame.query(family, url, **options)
seconds, requests = [], []
for _ in range(rounds):
    before = sum(1 for _ in open(log))
    start = time.perf_counter()
    subgame.query(family, url, **options)
    seconds.append(time.perf_counter() - start)
    requests.append(sum(1 for _ in open(log)) - before)
print(json.dumps([statistics.median(seconds), statistics.median(requests)]))
"""


def ask(tree: Path, url: str, log: Path, family: str, rounds: int) -> tuple[float, int]:
    done = subprocess.run([sys.executable, "-c", ASK, url, str(log), family,
                           json.dumps(QUERIES[family]), str(rounds)], capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(tree)}, cwd=tree,
                          check=True)
    seconds, requests = json.loads(done.stdout)
    return seconds, int(requests)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another source tree (the tree before)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    trees = {"this tree": ROOT, **({"baseline": args.baseline} if args.baseline else {})}
    folder = Path(tempfile.mkdtemp(prefix="subgame-http-"))
    store, log = folder / "s.zarr", folder / "http.log"
    try:
        for build in BUILD:
            subprocess.run([sys.executable, "-m", "subgame.cli", "run", *build, "--store",
                            str(store)], check=True, capture_output=True, cwd=ROOT)
        with open(log, "w") as sink:
            server = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "0",
                                       "--bind", "127.0.0.1", "--directory", str(folder)],
                                      stdout=subprocess.PIPE, stderr=sink, text=True)
        measure(trees, server, log, args.rounds)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def measure(trees: dict[str, Path], server: subprocess.Popen, log: Path, rounds: int) -> None:
    try:
        port = re.search(r"port (\d+)", server.stdout.readline()).group(1)
        url = f"http://127.0.0.1:{port}/s.zarr"
        print(f"load average before: {os.getloadavg()[0]:.2f}")
        print(f"{'family':<14}" + "".join(f"{name:>24}" for name in trees))
        for family in QUERIES:
            cells = [ask(tree, url, log, family, rounds) for tree in trees.values()]
            print(f"{family:<14}" + "".join(f"{seconds * 1e3:>9.0f} ms {requests:>4} requests"
                                             for seconds, requests in cells))
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
