"""End-to-end runs through the CLI against the bare kernel, measured in the same run.

For each job: wall time and peak memory of `subgame run ...` (a fresh store, Prefect's
temporary server, a local Dask cluster of one worker per core), the sum of its step times
as the store records them, and the same computation done by the kernel alone in this
process. The ratio pipeline / kernel is the price of orchestration, storage and start-up.

    python bench/pipeline.py [--gops 8 9 10 11] [--guess-who 4096] [--higher-lower 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from subgame.families.gops import game as gops
from subgame.families.guess_who import game as guess_who
from subgame.families.higher_lower import game as higher_lower


# Runs the CLI in a fresh interpreter that reports the largest RSS among its descendants
# (the driver and the Dask workers), so each run's peak is its own.
PEAK_OF = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
           "capture_output=True); "
           "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def run_cli(args: list[str]) -> tuple[float, float, dict]:
    """Wall seconds, peak RSS (GiB) of the run's largest process, and the store's status."""
    store = tempfile.mkdtemp(prefix="bench-") + "/store.zarr"
    start = time.perf_counter()
    peak_kib = subprocess.run([sys.executable, "-c", PEAK_OF, sys.executable, "-m",
                               "subgame.cli", "run", *args, "--store", store, "--json"],
                              check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - start
    peak = int(peak_kib) / 2**20
    status = json.loads(subprocess.run(
        [sys.executable, "-m", "subgame.cli", "status", "--store", store, "--json"],
        check=True, capture_output=True, text=True).stdout)
    subprocess.run(["rm", "-rf", os.path.dirname(store)], check=True)
    return wall, peak, status["computations"][0]


def timed(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def report(name: str, args: list[str], kernel) -> None:
    kernel_seconds = timed(kernel)
    wall, peak, status = run_cli(args)
    steps = sum(step.get("seconds", 0) for step in status["steps"])
    print(f"{name:28s} pipeline {wall:7.1f} s (steps {steps:6.1f} s, peak process "
          f"{peak:5.2f} GiB, {status['bytes_on_disk'] / 1e6:8.1f} MB)   kernel alone "
          f"{kernel_seconds:7.1f} s   pipeline/kernel {wall / kernel_seconds:5.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gops", type=int, nargs="*", default=[8, 9, 10, 11])
    parser.add_argument("--guess-who", type=int, nargs="*", default=[4096])
    parser.add_argument("--higher-lower", type=int, nargs="*", default=[100_000])
    options = parser.parse_args()
    print(f"{os.cpu_count()} cores; kernels run in this process, single-threaded, strategies "
          "and move sets included")
    for n in options.gops:
        report(f"gops --cards {n}", ["gops", "--cards", str(n)],
               lambda: sum(1 for _ in gops.solve_levels(n, with_strategies=True)))
    for u in options.guess_who:
        def tables(u=u):
            for rule in guess_who.RULES:
                table = guess_who.new_table(u)
                for lo in range(1, u + 1, 512):
                    guess_who.solve_band(table, lo, min(lo + 511, u), rule)
        report(f"guess-who --max-n {u}", ["guess-who", "--max-n", str(u)], tables)
    for n in options.higher_lower:
        report(f"higher-lower --max-n {n}", ["higher-lower", "--max-n", str(n),
                                             "--exact-max", "0"],
               lambda n=n: higher_lower.float_sweep(n))


if __name__ == "__main__":
    main()
