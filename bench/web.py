"""The oracle under load: GOPS state queries over HTTP against `subgame query`, same run.

    python bench/web.py --store S [--cards 10] [--seconds 10] [--clients 1 8 32]

Starts `subgame web --store S --port 0` (a process of its own), then for each number of
concurrent clients (threads, one keep-alive connection each) sends `GET /api/query/gops`
for random states (V, Y, P) of every level for ``--seconds``, and reports requests per
second and the p50 / p99 latency; then the whole matrix game at random states
(`/api/gops/matrix-game`, 1 client); then `subgame query gops ... --json`, one process per
query, as a person or a script without the server would ask. The load average is printed
before and after: the machine is shared, so read the ratios, not the absolute figures.
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


def serve(store: str) -> tuple[subprocess.Popen, int]:
    process = subprocess.Popen([sys.executable, "-m", "subgame.cli", "web", "--store", store,
                                "--port", "0"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    found = re.search(r":(\d+)/", process.stdout.readline())
    if not found:
        raise SystemExit("the server did not start")
    return process, int(found.group(1))


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


def one_process_per_query(store: str, cards: int, states: list[dict[str, str]]) -> list[float]:
    times = []
    for state in states:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "subgame.cli", "query", "gops", "--store", store,
                        "--cards", str(cards), *(part for key, value in state.items()
                                                 for part in (f"--{key}", value)), "--json"],
                       check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", required=True)
    parser.add_argument("--cards", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--processes", type=int, default=5, help="`subgame query` runs")
    args = parser.parse_args()
    rng = random.Random(0)
    states = [random_state(rng, args.cards) for _ in range(2000)]
    query = [f"/api/query/gops?{urlencode({'cards': args.cards, **s})}" for s in states]
    games = [f"/api/gops/matrix-game?{urlencode({'cards': args.cards, **s})}" for s in states]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"({os.cpu_count()} cores)")
    process, port = serve(args.store)
    try:
        warm(port, query[:20] + games[:5])  # first opens; the numba kernel compiled
        print("| what | clients | requests | requests/s | p50 | p99 |")
        print("|---|---|---|---|---|---|")
        for clients in args.clients:
            r = hammer(port, query, clients, args.seconds)
            print(f"| `GET /api/query/gops` | {clients} | {r['requests']} | "
                  f"{r['per_second']:.0f} | {r['p50_ms']:.1f} ms | {r['p99_ms']:.1f} ms |")
        r = hammer(port, games, 1, args.seconds)
        print(f"| `GET /api/gops/matrix-game` | 1 | {r['requests']} | {r['per_second']:.1f} | "
              f"{r['p50_ms']:.1f} ms | {r['p99_ms']:.1f} ms |")
    finally:
        process.terminate()
        process.wait(60)
    times = one_process_per_query(args.store, args.cards, states[:args.processes])
    median = statistics.median(times)
    print(f"| `subgame query gops ... --json` (one process each) | 1 | {len(times)} | "
          f"{1 / median:.2f} | {1000 * median:.0f} ms | {1000 * max(times):.0f} ms (max) |")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
