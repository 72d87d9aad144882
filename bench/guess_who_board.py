"""Guess Who on real boards: the pair stage against the plain recursion, and the classic board
end to end. Every ratio compares two measurements of this run.

1. A small board (the first --small characters of the classic board, d = 1): the plain
   recursion over frozensets of names (subgame.families.guess_who_board.read, memoised)
   against the pair stage's kernel in memory (game.solve_all) and against the pipeline's
   "pairs" stage (the engine, serial, one process, store on disk); values checked equal.
2. The classic board at d = 1 end to end, `subgame run guess-who-board --board classic`
   (Dask LocalCluster, one worker per core): wall time, peak memory of the process tree
   (the driver and its workers, summed, sampled every 50 ms) and the store's size.

    python bench/guess_who_board.py [--small 10] [--skip-classic]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from importlib import resources
from pathlib import Path

import psutil

from subgame.engine import run_computation
from subgame.families.guess_who_board.game import solve_all
from subgame.families.guess_who_board.plan import BoardConfig
from subgame.families.guess_who_board.read import plain_splits, plain_value
from subgame.options import RunOptions


def small_board(folder: Path, characters: int) -> str:
    text = resources.files("subgame.families.guess_who_board.game").joinpath(
        "classic.csv").read_text(encoding="utf-8")
    path = folder / f"classic{characters}.csv"
    path.write_text("\n".join(text.strip().splitlines()[:characters + 1]) + "\n")
    return str(path)


def pair_stage_against_recursion(folder: Path, characters: int) -> None:
    config = BoardConfig(board=small_board(folder, characters))
    family = config.set_family()
    print(f"== pair stage vs plain recursion: the first {characters} classic characters, "
          f"d = 1: {len(family)} sets, {len(family) ** 2:,} pairs ==")
    splits = plain_splits(config)

    @lru_cache(maxsize=None)
    def a(standing: frozenset, opponent: frozenset) -> int:
        return plain_value(standing, opponent, splits, config.rules, a)

    names = [frozenset(family.names(int(mask))) for mask in family.masks.tolist()]
    start = time.perf_counter()
    plain = {(s, t): a(names[s], names[t]) for s in range(len(family))
             for t in range(len(family))}
    recursion = time.perf_counter() - start
    start = time.perf_counter()
    solution = solve_all(family)
    kernel = time.perf_counter() - start
    assert all(solution.a(s, t) == value for (s, t), value in plain.items())
    report = run_computation(config, RunOptions(str(folder / "small.zarr"), executor="serial"))
    pipeline = sum(seconds for step, seconds in report.seconds.items() if step.startswith("L="))
    print(f"plain recursion      {recursion:8.3f} s")
    print(f"kernel (solve_all)   {kernel:8.3f} s   {recursion / kernel:6.1f}x faster")
    print(f"pipeline 'pairs'     {pipeline:8.3f} s   {recursion / pipeline:6.1f}x faster "
          f"({sum(1 for s in report.seconds if s.startswith('L='))} steps, serial, on disk)")


def classic_end_to_end(folder: Path) -> None:
    store = folder / "classic.zarr"
    command = [sys.executable, "-m", "subgame.cli", "run", "guess-who-board", "--board",
               "classic", "--store", str(store), "--json"]
    print(f"== classic board, d = 1, end to end ==\n$ subgame {' '.join(command[3:])}")
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True)
    root, peak = psutil.Process(process.pid), 0
    while process.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.NoSuchProcess:
            pass
        time.sleep(0.05)
    wall = time.perf_counter() - start
    (report,) = json.loads(process.stdout.read())
    stages: dict[str, float] = {}
    for step, seconds in report["seconds"].items():
        stage = step.split(" ")[0] if " " in step else ("pairs" if step.startswith("L=")
                                                        else step)
        stages[stage] = stages.get(stage, 0.0) + seconds
    size = sum(f.stat().st_size for f in store.rglob("*") if f.is_file())
    print(f"wall {wall:.1f} s (steps: " + ", ".join(f"{k} {v:.1f} s" for k, v in
                                                     stages.items()) + ")")
    print(f"peak memory (driver + workers) {peak / 2**30:.2f} GiB; store {size / 2**20:.0f} MiB")
    query = subprocess.run([sys.executable, "-m", "subgame.cli", "query", "guess-who-board",
                            "--store", str(store), "--json"], capture_output=True, text=True)
    answer = json.loads(query.stdout)
    print(f"p(full, full) = {answer['p']}; optimal first questions "
          f"{answer['optimal_questions']}; policies: "
          + "; ".join(f"{name} vs optimal {v['vs_optimal']} (loss {v['loss_vs_optimal']}), "
                      f"self-play {v['vs_self']}" for name, v in answer["policies"].items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=10)
    parser.add_argument("--skip-classic", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        pair_stage_against_recursion(Path(folder), args.small)
        if not args.skip_classic:
            classic_end_to_end(Path(folder))


if __name__ == "__main__":
    main()
