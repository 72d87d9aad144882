"""End-to-end runs through the CLI beside the bare kernel and the public C++ GOPS solver.

For each job, in one run: the wall time of `subgame run ...` as a new process on a fresh
store (all start-up included: imports, Prefect where the run uses it, workers, Zarr), the
sum of its step times as the store records them, the same computation done by the kernel
alone in this process (after one untimed call that compiles it), and, for GOPS with
``--anchor-gops PATH``, the public C++/GLPK solver (matttang27/GOPSsolver, built outside
the project; `PATH --n N --objective points|win`, run in a temporary folder). Then the
smallest GOPS job and the README's main job run again on their finished stores. The machine is shared: the load
average is printed with the figures, and for GOPS the CPU seconds (the run with what it
started and the C++ solver: medians of the ``--repeat`` runs; the kernel: its one timed
run), which the others' load changes least.

    python bench/pipeline.py [--gops 6 7 8 9 10] [--gops-win 6 7 8] [--guess-who 4096]
                             [--anchor-gops /work/cpp/solver/build/cpp_solver]
                             [--anchor-max-cards 9] [--subgame SOURCE_FOLDER] [--repeat 1]

``--subgame`` runs the CLI of another source tree (e.g. a previous commit's `git archive`)
for a before/after table; ``--repeat`` takes the median of that many runs.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def cpu_of(work: Callable[[], object]) -> float:
    """CPU seconds (user + system) of this process and of the processes it waited for
    (a subprocess and what that one waited for) while ``work`` ran: on a shared machine
    the figure that the others' load changes least."""
    def now() -> float:
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.process_time() + children.ru_utime + children.ru_stime

    start = now()
    work()
    return now() - start


class Failed(Exception):
    """A run that exited non-zero; its last line of stderr is the bench's figure."""


class Cli:
    """`subgame ...` as a new process, from this tree or another (``source``)."""

    def __init__(self, source: str | None):
        self.env = {**os.environ, **({"PYTHONPATH": source} if source else {})}
        self.cwd = source or os.getcwd()
        # As a user's copy runs: pip compiles an installed package's bytecode, and a source
        # tree writes it at its first import, unless PYTHONDONTWRITEBYTECODE is set (this
        # project's machine sets it), so no figure depends on what an earlier run left.
        compileall.compile_dir(os.path.join(self.cwd, "subgame"), quiet=1)

    def __call__(self, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "subgame.cli", *args],
                              capture_output=True, text=True, env=self.env, cwd=self.cwd)
        if done.returncode:  # reported as the job's figure (a loaded machine fails some)
            raise Failed(f"exit {done.returncode}: "
                         f"{(done.stderr.strip().splitlines() or [''])[-1][:160]}")
        return done.stdout

    def run(self, args: list[str], store: str) -> float:
        return timed(lambda: self("run", *args, "--store", store, "--json"))

    def step_seconds(self, store: str) -> float:
        (computation, *_) = json.loads(self("status", "--store", store, "--json")
                                       )["computations"]
        return sum(step.get("seconds", 0) for step in computation["steps"])


def fresh_store() -> str:
    return tempfile.mkdtemp(prefix="bench-") + "/store.zarr"


def anchor(binary: str, n: int, objective: str) -> float:
    with tempfile.TemporaryDirectory(prefix="bench-cpp-") as folder:
        return timed(lambda: subprocess.run([binary, "--n", str(n), "--objective", objective],
                                            check=True, capture_output=True, cwd=folder))


def median(work: Callable[[], float], repeat: int) -> float:
    return statistics.median(work() for _ in range(repeat))


def median_wall_and_cpu(work: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Medians of the wall and the CPU seconds (`cpu_of`) of ``repeat`` runs of ``work``."""
    walls, cpus = [], []
    for _ in range(repeat):
        cpus.append(cpu_of(lambda: walls.append(timed(work))))
    return statistics.median(walls), statistics.median(cpus)


def row(name: str, end_to_end: float, steps: float, kernel: float,
        cpp: float | None = None, cpu: tuple[float, float, float | None] | None = None
        ) -> None:
    """``cpu``: CPU seconds of the run, the kernel and the C++ solver, when measured."""
    line = (f"{name:34s} end to end {end_to_end:7.2f} s   steps {steps:7.2f} s "
            f"({end_to_end / max(steps, 1e-3):5.2f}x)   kernel alone {kernel:7.2f} s")
    if cpp is not None:
        verdict = "faster" if end_to_end < cpp else "slower"
        ratio = max(cpp, end_to_end) / min(cpp, end_to_end)
        line += f"   C++ {cpp:7.2f} s   subgame {ratio:5.2f}x {verdict}"
    if cpu is not None:
        line += f"   CPU s: run {cpu[0]:.2f}, kernel {cpu[1]:.2f}" + (
            f", C++ {cpu[2]:.2f} (C++ / run {cpu[2] / cpu[0]:.1f}x, C++ / kernel "
            f"{cpu[2] / cpu[1]:.0f}x)" if cpu[2] is not None else "")
    print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gops", type=int, nargs="*", default=[6, 7, 8, 9, 10])
    parser.add_argument("--gops-win", type=int, nargs="*", default=[6, 7, 8])
    parser.add_argument("--guess-who", type=int, nargs="*", default=[4096])
    parser.add_argument("--anchor-gops", help="The C++ solver's binary.")
    parser.add_argument("--anchor-max-cards", type=int, default=9,
                        help="Largest N given to the C++ solver (N = 10 takes it ~14 min).")
    parser.add_argument("--subgame", help="Source folder of the subgame to measure.")
    parser.add_argument("--repeat", type=int, default=1)
    options = parser.parse_args()
    cli = Cli(options.subgame)
    # The kernels of this tree (the bench compares pipelines; kernels differ little).
    from subgame.families.gops import game as gops
    from subgame.families.guess_who import game as guess_who

    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; "
          f"subgame from {cli.cwd}; medians of {options.repeat}", flush=True)
    def measured(name: str, work: Callable[[], None]) -> None:
        try:
            work()
        except Failed as exc:
            print(f"{name:34s} failed: {exc}", flush=True)

    def rerun(args: list[str], store: str) -> None:
        seconds = median(lambda: cli.run(args, store), options.repeat)
        print(f"{'  rerun on the finished store':34s} end to end {seconds:7.2f} s", flush=True)

    def gops_job(n: int, objective: str) -> None:
        def kernel():
            sum(1 for _ in gops.solve_levels(n, with_strategies=True, objective=objective))

        kernel()  # compiles (or loads from numba's cache) outside the timing
        args, stores = ["gops", "--cards", str(n), "--objective", objective], []

        def end_to_end():
            stores.append(fresh_store())
            return cli.run(args, stores[-1])

        wall, run_cpu = median_wall_and_cpu(end_to_end, options.repeat)
        cpp, cpp_cpu = (median_wall_and_cpu(lambda: anchor(options.anchor_gops, n, objective),
                                            options.repeat)
                        if options.anchor_gops and n <= options.anchor_max_cards
                        else (None, None))
        kernel_wall, kernel_cpu = median_wall_and_cpu(kernel, 1)
        row(f"gops --cards {n} --objective {objective}", wall, cli.step_seconds(stores[-1]),
            kernel_wall, cpp, (run_cpu, kernel_cpu, cpp_cpu))
        if (n, objective) == (min(options.gops, default=None), "points"):
            rerun(args, stores[-1])

    def guess_who_job(u: int) -> None:
        def tables():
            for rule in guess_who.RULES:
                table = guess_who.new_table(u)
                for lo in range(1, u + 1, 512):
                    guess_who.solve_band(table, lo, min(lo + 511, u), rule)

        tables()
        args, stores = ["guess-who", "--max-n", str(u)], []

        def end_to_end():
            stores.append(fresh_store())
            return cli.run(args, stores[-1])

        wall = median(end_to_end, options.repeat)
        row(f"guess-who --max-n {u}", wall, cli.step_seconds(stores[-1]), timed(tables))
        rerun(args, stores[-1])

    for objective, cards in (("points", options.gops), ("win", options.gops_win)):
        for n in cards:
            measured(f"gops --cards {n} --objective {objective}",
                     lambda: gops_job(n, objective))
    for u in options.guess_who:
        measured(f"guess-who --max-n {u}", lambda: guess_who_job(u))
    print(f"load average {os.getloadavg()[0]:.1f} at the end", flush=True)


if __name__ == "__main__":
    main()
