"""The oracle under load: GOPS state queries over HTTP against `subgame query`, same run,
on this tree and, with --baseline, on another tree (the tree before), one after the other.

    python bench/web.py --store S [--baseline FOLDER --baseline-store S0] [--cards 10]
                        [--seconds 10] [--clients 1 8] [--workers 2] [--processes 5]

For each tree: starts `subgame web --store S --port 0` (a process of its own; this tree's
with ``--workers``), then for each number of concurrent clients (threads, one keep-alive
connection each) sends `GET /api/query/gops` for random states (V, Y, P) of every level for
``--seconds``, and reports requests per second, the p50 / p99 latency and the bytes the
server's processes read per request (their ``rchar`` in /proc: every byte read from a file,
the page cache's included); then the whole matrix game at random states
(`/api/gops/matrix-game`, 1 client). Last, alternating, `subgame query gops ... --json` as
one process per query (each tree) and `python -c "import numpy, zarr"`, the floor of any
Python process that reads a Zarr store; each tree's modules are compiled to bytecode first,
as pip compiles an installed package's, and each state is queried once untimed first, so
that neither tree pays for reading the store's files from disk (a store larger than the
page cache would make the first tree to read a state the slower). The load average is
printed before and after: the machine may be shared, so read the ratios, not the absolute
figures.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]


def random_state(rng: random.Random, cards: int) -> dict[str, str]:
    j = rng.randint(1, cards)
    return {name: ",".join(map(str, sorted(rng.sample(range(1, cards + 1), j))))
            for name in ("hand", "opponent", "prizes")}


def serve(tree: Path, store: str, workers: int) -> tuple[subprocess.Popen, int]:
    command = [sys.executable, "-m", "subgame.cli", "web", "--store", store, "--port", "0"]
    process = subprocess.Popen(command + (["--workers", str(workers)] if workers > 1 else []),
                               stdout=subprocess.PIPE, text=True, cwd=tree,
                               env={**os.environ, "PYTHONPATH": str(tree)})
    found = re.search(r"at http://[^:]+:(\d+)/", process.stdout.readline())
    if not found:
        raise SystemExit("the server did not start")
    return process, int(found.group(1))


def bytes_read(pid: int) -> int:
    """Bytes the process and its children have read (rchar): files, page cache included."""
    def rchar(one: int) -> int:
        for line in Path(f"/proc/{one}/io").read_text().splitlines():
            if line.startswith("rchar:"):
                return int(line.split()[1])
        return 0

    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return rchar(pid) + sum(rchar(int(child)) for child in children)


def hammer(port: int, paths: list[str], clients: int, seconds: float) -> dict[str, float]:
    """Requests per second and latency percentiles of ``clients`` threads for ``seconds``."""
    latencies: list[float] = []
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds

    def client(seed: int) -> None:
        rng = random.Random(seed)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        mine = []
        while time.perf_counter() < stop_at:
            start = time.perf_counter()
            connection.request("GET", rng.choice(paths))
            answer = connection.getresponse()
            answer.read()
            if answer.status != 200:
                raise SystemExit(f"status {answer.status}")
            mine.append(time.perf_counter() - start)
        connection.close()
        with lock:
            latencies.extend(mine)

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    cuts = statistics.quantiles(latencies, n=100)
    return {"requests": len(latencies), "per_second": len(latencies) / elapsed,
            "p50_ms": 1000 * cuts[49], "p99_ms": 1000 * cuts[98]}


def warm(port: int, paths: list[str]) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    for path in paths:
        connection.request("GET", path)
        connection.getresponse().read()
    connection.close()


def timed_process(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def query_command(store: str, cards: int, state: dict[str, str]) -> list[str]:
    return [sys.executable, "-m", "subgame.cli", "query", "gops", "--store", store, "--cards",
            str(cards), *(part for key, value in state.items() for part in (f"--{key}", value)),
            "--json"]


def measure_server(name: str, tree: Path, store: str, workers: int, args, query: list[str],
                   games: list[str]) -> None:
    process, port = serve(tree, store, workers)
    try:
        warm(port, query[:20] + games[:5])  # first opens; the numba kernel compiled
        for clients in args.clients:
            before = bytes_read(process.pid)
            r = hammer(port, query, clients, args.seconds)
            per_query = (bytes_read(process.pid) - before) / r["requests"]
            print(f"| {name} | `GET /api/query/gops` | {clients} | {r['requests']} | "
                  f"{r['per_second']:.0f} | {r['p50_ms']:.1f} ms | {r['p99_ms']:.1f} ms | "
                  f"{per_query / 1e3:,.0f} kB |", flush=True)
        before = bytes_read(process.pid)
        r = hammer(port, games, 1, args.seconds)
        per_query = (bytes_read(process.pid) - before) / r["requests"]
        print(f"| {name} | `GET /api/gops/matrix-game` | 1 | {r['requests']} | "
              f"{r['per_second']:.1f} | {r['p50_ms']:.1f} ms | {r['p99_ms']:.1f} ms | "
              f"{per_query / 1e3:,.0f} kB |", flush=True)
    finally:
        process.terminate()
        process.wait(60)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", required=True)
    parser.add_argument("--baseline", type=Path, help="another source tree (the tree before)")
    parser.add_argument("--baseline-store", help="its store (default: --store)")
    parser.add_argument("--cards", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--workers", type=int, default=1, help="this tree's server processes")
    parser.add_argument("--processes", type=int, default=5, help="`subgame query` runs")
    args = parser.parse_args()
    rng = random.Random(0)
    states = [random_state(rng, args.cards) for _ in range(2000)]
    query = [f"/api/query/gops?{urlencode({'cards': args.cards, **s})}" for s in states]
    games = [f"/api/gops/matrix-game?{urlencode({'cards': args.cards, **s})}" for s in states]
    trees = {"this": (ROOT, args.store, args.workers)}
    if args.baseline:
        trees["before"] = (args.baseline.resolve(), args.baseline_store or args.store, 1)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"({os.cpu_count()} cores)")
    print("| tree | what | clients | requests | requests/s | p50 | p99 | read per request |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (tree, store, workers) in trees.items():
        measure_server(f"{name} ({workers} process{'es' if workers > 1 else ''})", tree,
                       store, workers, args, query, games)
    bytecode = {key: value for key, value in os.environ.items()
                if key != "PYTHONDONTWRITEBYTECODE"}
    for tree, _, _ in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "subgame")],
                       check=True, stdout=subprocess.DEVNULL, env=bytecode)
    times: dict[str, list[float]] = {name: [] for name in [*trees, "import numpy, zarr"]}
    for state in states[:args.processes]:  # alternating, so that all see the same load
        tree, store, _ = next(iter(trees.values()))  # untimed: the state's files read
        subprocess.run(query_command(store, args.cards, state), check=True,
                       stdout=subprocess.DEVNULL, env={**bytecode, "PYTHONPATH": str(tree)})
        for name, (tree, store, _) in trees.items():
            times[name].append(timed_process(query_command(store, args.cards, state),
                                             {**bytecode, "PYTHONPATH": str(tree)}))
        times["import numpy, zarr"].append(timed_process(
            [sys.executable, "-c", "import numpy, zarr"], bytecode))
    floor = statistics.median(times["import numpy, zarr"])
    for name, found in times.items():
        median = statistics.median(found)
        print(f"process `{'subgame query gops ... --json' if name in trees else name}` "
              f"({name}): median {1000 * median:.0f} ms of {len(found)}, max "
              f"{1000 * max(found):.0f} ms, {median / floor:.2f}x the import floor")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
