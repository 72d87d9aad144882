"""The fixed costs of a command line, whole processes, interleaved across source trees.

Each round runs every job once in every tree, one after another, so that all trees meet
the same load (the machine is shared); the medians over the rounds are printed with each
tree's ratio to the first. Jobs: `subgame --help`, `subgame --version`, `run gops --cards
6` and `--cards 7` on fresh stores (in process: small plans), and `run gops --cards 6`
again on its finished store.

    python bench/cli_startup.py [--rounds 5] NAME=SOURCE_FOLDER [NAME=SOURCE_FOLDER ...]

e.g. ``before=/tmp/old after=.`` with the previous commit as `git archive` in /tmp/old.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

JOBS = {"--help": ["--help"], "--version": ["--version"],
        "run gops --cards 6, fresh store": ["run", "gops", "--cards", "6"],
        "run gops --cards 7, fresh store": ["run", "gops", "--cards", "7"],
        "run gops --cards 6, finished store": ["run", "gops", "--cards", "6"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("trees", nargs="+", help="NAME=SOURCE_FOLDER, the first the baseline")
    options = parser.parse_args()
    trees = dict(tree.split("=", 1) for tree in options.trees)
    seconds: dict[tuple[str, str], list[float]] = {(t, j): [] for t in trees for j in JOBS}
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start",
          flush=True)
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(options.rounds):
            for job, args in JOBS.items():
                for tree, source in trees.items():
                    # The finished-store job reruns the store the --cards 6 job just made.
                    store = os.path.join(folder, f"{tree}-{round_}-{args[-1]}.zarr")
                    if "fresh" in job:
                        shutil.rmtree(store, ignore_errors=True)
                    start = time.perf_counter()
                    done = subprocess.run(
                        [sys.executable, "-m", "subgame.cli", *args,
                         *(["--store", store] if args[0] == "run" else [])],
                        capture_output=True, text=True, cwd=source,
                        env={**os.environ, "PYTHONPATH": os.path.abspath(source)})
                    seconds[(tree, job)].append(time.perf_counter() - start)
                    if done.returncode:
                        sys.exit(f"{tree}: {job} exited {done.returncode}: "
                                 f"{done.stderr.strip()[-300:]}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end; medians of {options.rounds} "
          "rounds", flush=True)
    names = list(trees)
    for job in JOBS:
        medians = [statistics.median(seconds[(tree, job)]) for tree in names]
        print(f"{job:36s}" + "".join(f"  {tree} {m:5.2f} s" for tree, m in zip(names, medians))
              + "".join(f"  {tree}/{names[0]} {m / medians[0]:.2f}"
                        for tree, m in zip(names[1:], medians[1:])), flush=True)


if __name__ == "__main__":
    main()
