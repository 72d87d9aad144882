"""End-to-end runs through the CLI against the bare kernel, measured in the same run.

For each job: wall time and peak memory of `subgame run ...` (a fresh store, Prefect's
temporary server, a local Dask cluster of one worker per core), the sum of its step times
as the store records them, and the same computation done by the kernel alone in this
process. The ratio pipeline / kernel is the price of orchestration, storage and start-up.
Then the same command again on the finished store (it should answer in under a second),
and the run on a fresh store with a Prefect server already running (`prefect server
start`, as `subgame serve` leaves one), which spares the temporary server's start-up.

The public C++/GLPK GOPS solver is not installed here; its times are quoted (issue 12's
side-by-side measurement on this machine, derived from the ratios it reports).

    python bench/pipeline.py [--gops 7 8 9] [--guess-who 4096] [--higher-lower 100000]
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Callable

from subgame.families.gops import game as gops
from subgame.families.guess_who import game as guess_who
from subgame.families.higher_lower import game as higher_lower


# Runs the CLI in a fresh interpreter that reports the largest RSS among its descendants
# (the driver and the Dask workers), so each run's peak is its own.
PEAK_OF = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
           "capture_output=True); "
           "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


# The public C++/GLPK solver (points objective) as issue 12 measured it beside ours on this
# machine: N = 7 about 1 s (our end to end, 24 s, was 25x slower); at N = 8 and 9 our
# kernel was 4.5x and 28x faster, so its time is quoted as our kernel's times that ratio.
CPP_SECONDS = {7: 1.0}
CPP_OVER_KERNEL = {8: 4.5, 9: 28.0}


def quoted_cpp(n: int, kernel_seconds: float) -> float | None:
    if n in CPP_OVER_KERNEL:
        return kernel_seconds * CPP_OVER_KERNEL[n]
    return CPP_SECONDS.get(n)


def run_cli(args: list[str], store: str, env: dict[str, str] | None = None
            ) -> tuple[float, float]:
    """Wall seconds and peak RSS (GiB) of the run's largest process."""
    start = time.perf_counter()
    peak_kib = subprocess.run([sys.executable, "-c", PEAK_OF, sys.executable, "-m",
                               "subgame.cli", "run", *args, "--store", store, "--json"],
                              check=True, capture_output=True, text=True, env=env).stdout
    return time.perf_counter() - start, int(peak_kib) / 2**20


def fresh_store() -> str:
    return tempfile.mkdtemp(prefix="bench-") + "/store.zarr"


def status_of(store: str) -> dict:
    return json.loads(subprocess.run(
        [sys.executable, "-m", "subgame.cli", "status", "--store", store, "--json"],
        check=True, capture_output=True, text=True).stdout)["computations"][0]


def running_server_env() -> dict[str, str]:
    """A Prefect server started once for the bench, as `prefect server start` would."""
    port = 4300
    env = {**os.environ, "PREFECT_API_URL": f"http://127.0.0.1:{port}/api"}
    server = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host",
                               "127.0.0.1", "--port", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=os.environ.copy())
    atexit.register(server.terminate)
    for _ in range(600):
        try:
            with urllib.request.urlopen(f"{env['PREFECT_API_URL']}/health", timeout=1):
                return env
        except OSError:
            time.sleep(0.5)
    raise RuntimeError("the bench's Prefect server did not start")


def timed(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def report(name: str, args: list[str], kernel, server_env: dict[str, str] | None,
           quoted: Callable[[float], float | None] = lambda _: None) -> None:
    kernel()  # compiles the numba kernels; the pipeline's workers load them from numba's cache
    kernel_seconds = timed(kernel)
    store = fresh_store()
    wall, peak = run_cli(args, store)
    status = status_of(store)
    rerun, _ = run_cli(args, store)
    steps = sum(step.get("seconds", 0) for step in status["steps"])
    line = (f"{name:28s} pipeline {wall:7.1f} s (steps {steps:6.1f} s, peak process "
            f"{peak:5.2f} GiB, {status['bytes_on_disk'] / 1e6:8.1f} MB)   kernel alone "
            f"{kernel_seconds:7.1f} s   pipeline/kernel {wall / kernel_seconds:5.2f}   "
            f"rerun {rerun:4.2f} s")
    if server_env is not None:
        warm, _ = run_cli(args, fresh_store(), server_env)
        line += f"   with a running server {warm:6.1f} s ({warm / kernel_seconds:5.2f}x kernel)"
    if quoted(kernel_seconds) is not None:
        line += f"   quoted C++/GLPK ~{quoted(kernel_seconds):.1f} s"
    print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gops", type=int, nargs="*", default=[7, 8, 9])
    parser.add_argument("--guess-who", type=int, nargs="*", default=[4096])
    parser.add_argument("--higher-lower", type=int, nargs="*", default=[100_000])
    parser.add_argument("--no-server", action="store_true",
                        help="Skip the runs against an already running Prefect server.")
    options = parser.parse_args()
    server_env = None if options.no_server else running_server_env()
    print(f"{os.cpu_count()} cores; kernels run in this process, single-threaded, strategies "
          "and move sets included")
    for n in options.gops:
        report(f"gops --cards {n}", ["gops", "--cards", str(n)],
               lambda: sum(1 for _ in gops.solve_levels(n, with_strategies=True)),
               server_env, lambda kernel_seconds, n=n: quoted_cpp(n, kernel_seconds))
    for u in options.guess_who:
        def tables(u=u):
            for rule in guess_who.RULES:
                table = guess_who.new_table(u)
                for lo in range(1, u + 1, 512):
                    guess_who.solve_band(table, lo, min(lo + 511, u), rule)
        report(f"guess-who --max-n {u}", ["guess-who", "--max-n", str(u)], tables, server_env)
    for n in options.higher_lower:
        report(f"higher-lower --max-n {n}", ["higher-lower", "--max-n", str(n),
                                             "--exact-max", "0"],
               lambda n=n: higher_lower.float_sweep(n), server_env)


if __name__ == "__main__":
    main()
