"""A GOPS run end to end on this tree and on a baseline tree, alternating, same machine.

    python bench/gops_layout.py --baseline FOLDER [--rounds 3] [--job "--cards 11 --strategies all"]

FOLDER is another source tree (e.g. `git archive main | tar -x -C FOLDER`). Each round runs
every job once on each tree, in turn, as `subgame run gops ... --store FRESH` (a new process,
all start-up included; one untimed run of each job on each tree first, so that numba's cache
holds both trees' kernels), and prints per run the wall time, the CPU seconds of the run's
processes, the store's size on disk and the load average; then per job the medians and the
ratio this tree / baseline. The machine may be shared: the runs alternate so that both trees
see the same hours, and the load average is printed beside each.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def size_on_disk(folder: Path) -> int:
    return sum(entry.stat().st_blocks * 512 for entry in folder.rglob("*") if entry.is_file())


def run(tree: Path, job: list[str], scratch: Path) -> dict[str, float]:
    store = scratch / "store.zarr"
    shutil.rmtree(store, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "subgame.cli", "run", "gops", *job, "--store",
                    str(store)], env=env, cwd=scratch, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    found = {"wall_s": wall, "cpu_s": cpu, "store_bytes": size_on_disk(store),
             "load": os.getloadavg()[0]}
    shutil.rmtree(store)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, type=Path)
    parser.add_argument("--job", action="append",
                        help='options of `subgame run gops` (default: "--cards 11 '
                             '--strategies all" and "--cards 12 --strategies top:2")')
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    jobs = [shlex.split(job) for job in args.job or ["--cards 11 --strategies all",
                                                     "--cards 12 --strategies top:2"]]
    trees = {"this": ROOT, "baseline": args.baseline.resolve()}
    results = {(name, i): [] for name in trees for i in range(len(jobs))}
    with tempfile.TemporaryDirectory(prefix="gops-layout-") as scratch:
        for round_ in range(args.rounds + 1):  # round 0: untimed, fills numba's cache
            for i, job in enumerate(jobs):
                for name, tree in (trees.items() if round_ % 2 else
                                   reversed(list(trees.items()))):
                    found = run(tree, job, Path(scratch))
                    print(f"round {round_} {name:8s} {' '.join(job):34s} "
                          f"wall {found['wall_s']:7.1f} s  cpu {found['cpu_s']:7.1f} s  "
                          f"store {found['store_bytes'] / 1e6:8.1f} MB  "
                          f"load {found['load']:.1f}" + ("  (untimed)" if round_ == 0 else ""),
                          flush=True)
                    if round_:
                        results[name, i].append(found)
    for i, job in enumerate(jobs):
        medians = {name: {key: statistics.median(r[key] for r in results[name, i])
                          for key in ("wall_s", "cpu_s", "store_bytes")} for name in trees}
        print(f"{' '.join(job)}: median wall {medians['this']['wall_s']:.1f} s against "
              f"{medians['baseline']['wall_s']:.1f} s "
              f"({medians['this']['wall_s'] / medians['baseline']['wall_s']:.3f}x), "
              f"cpu {medians['this']['cpu_s']:.1f} s against "
              f"{medians['baseline']['cpu_s']:.1f} s "
              f"({medians['this']['cpu_s'] / medians['baseline']['cpu_s']:.3f}x), "
              f"store {medians['this']['store_bytes'] / 1e6:.1f} MB against "
              f"{medians['baseline']['store_bytes'] / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
