"""Guess Who on real boards: the pair stage against the plain recursion, and the classic board
end to end. Every ratio compares two measurements of this run.

1. A small board (the first --small characters of the classic board, d = 1): the plain
   recursion over frozensets of names (subgame.families.guess_who_board.read, memoised)
   against the pair stage's kernel in memory (game.solve_all) and against the pipeline's
   "pairs" stage (the engine, serial, one process, store on disk); values checked equal.
2. The classic board at d = 1 end to end, `subgame run guess-who-board --board classic`
   (Dask LocalCluster, one worker per core): wall time, peak memory of the process tree
   (the driver and its workers, summed, sampled every 50 ms) and the store's size.
3. The classic board at d = --literals (1), solved on sets and on types side by side: each
   solve in memory in its own process (enumeration, types, pairs: time, peak memory, table
   sizes), every pair of sets then checked equal (a(S, T) on sets against a(type S,
   type T)); then end to end through `subgame run` with --types dominance (and, at d = 1,
   the run on sets of section 2 for its pairs stage).

    python bench/guess_who_board.py [--small 10] [--skip-classic] [--skip-types]
                                    [--literals 1]
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

import numpy as np
import psutil

from subgame.engine import run_computation
from subgame.families.guess_who_board.game import PairIndex, classic_characters, solve_all
from subgame.families.guess_who_board.game.reachable import reachable_sets
from subgame.families.guess_who_board.game.types import set_types
from subgame.families.guess_who_board.plan import BoardConfig
from subgame.families.guess_who_board.read import plain_splits, plain_value
from subgame.options import RunOptions

SOLVES = ("sets", "bisimulation", "dominance")


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


def measured(command: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak memory of the process tree (sampled every 50 ms) and stdout."""
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
    return time.perf_counter() - start, peak, process.stdout.read()


def run_end_to_end(store: Path, options: list[str]) -> dict:
    """`subgame run guess-who-board --board classic OPTIONS`: its report and measurements."""
    command = [sys.executable, "-m", "subgame.cli", "run", "guess-who-board", "--board",
               "classic", *options, "--store", str(store), "--json"]
    print(f"$ subgame {' '.join(command[3:])}")
    wall, peak, output = measured(command)
    (report,) = json.loads(output)
    stages: dict[str, float] = {}
    for step, seconds in report["seconds"].items():
        stage = step.split(" ")[0] if " " in step else ("pairs" if step.startswith("L=")
                                                        else step)
        stages[stage] = stages.get(stage, 0.0) + seconds
    size = sum(f.stat().st_size for f in store.rglob("*") if f.is_file())
    print(f"wall {wall:.1f} s (steps: " + ", ".join(f"{k} {v:.1f} s" for k, v in
                                                     stages.items()) + ")")
    print(f"peak memory (driver + workers) {peak / 2**30:.2f} GiB; store {size / 2**20:.1f} MiB")
    query = subprocess.run([sys.executable, "-m", "subgame.cli", "query", "guess-who-board",
                            "--board", "classic", *options, "--store", str(store), "--json"],
                           capture_output=True, text=True)
    return {"stages": stages, "wall": wall, "peak": peak, "answer": json.loads(query.stdout)}


def classic_end_to_end(folder: Path) -> dict:
    print("== classic board, d = 1, end to end ==")
    result = run_end_to_end(folder / "classic.zarr", [])
    answer = result["answer"]
    print(f"p(full, full) = {answer['p']}; optimal first questions "
          f"{answer['optimal_questions']}; policies: "
          + "; ".join(f"{name} vs optimal {v['vs_optimal']} (loss {v['loss_vs_optimal']}), "
                      f"self-play {v['vs_self']}" for name, v in answer["policies"].items()))
    return result


def solve_in_memory(solve: str, literals: int, out: str) -> None:
    """One solve of the classic board (this process is measured from outside): the values
    of every pair of sets or types, written to ``out`` with the set -> type map."""
    times = {}
    start = time.perf_counter()
    if solve == "sets":
        family = reachable_sets(classic_characters(), literals, max_sets=10**6)
        set_type = np.arange(len(family))
    else:
        family = set_types(classic_characters(), literals, "official", solve)
        set_type = family.set_type
    times["sets" if solve == "sets" else "types"] = time.perf_counter() - start
    start = time.perf_counter()
    solution = solve_all(family)
    times["pairs"] = time.perf_counter() - start
    np.savez(out, values=solution.values, sizes=family.sizes, set_type=set_type)
    print(json.dumps({"times": times, "solved": len(family), "pairs": len(solution.values),
                      "sets": len(set_type)}))


def types_against_sets(folder: Path, literals: int, sets_run: dict | None) -> None:
    print(f"== classic board, d = {literals}: on sets and on types, side by side ==")
    results = {}
    for solve in SOLVES if literals == 1 else SOLVES[1:]:
        out = str(folder / f"{solve}.npz")
        wall, peak, output = measured([sys.executable, __file__, "--solve", solve,
                                       "--literals", str(literals), "--out", out])
        results[solve] = {**json.loads(output), "wall": wall, "peak": peak, "out": out}
    base = next(iter(results))
    print(f"{'solve':13} {'sets or types':>13} {'pairs':>13} {'process wall':>12} "
          f"{'of which pairs':>14} {'peak':>9} {'vs ' + base:>10}")
    for solve, r in results.items():
        print(f"{solve:13} {r['solved']:13,} {r['pairs']:13,} {r['wall']:10.1f} s "
              f"{r['times']['pairs']:12.2f} s {r['peak'] / 2**30:7.2f} GiB "
              f"{results[base]['wall'] / r['wall']:9.2f}x")
    if literals == 1:
        sets = np.load(results["sets"]["out"])
        index = PairIndex(sets["sizes"])
        for solve in SOLVES[1:]:
            typed = np.load(results[solve]["out"])
            type_index, set_type = PairIndex(typed["sizes"]), typed["set_type"]
            for level in index.levels:
                size = index.level_size(level)
                if size:
                    s, t = index.pairs(level, 0, size)
                    start = int(index.level_start[level])
                    assert np.array_equal(
                        sets["values"][start:start + size],
                        typed["values"][type_index.global_index(set_type[s], set_type[t])])
            print(f"every one of the {index.total:,} pairs of sets: a on sets == a on "
                  f"{solve} types")
    print("-- end to end, on types --")
    typed = run_end_to_end(folder / "types.zarr", ["--max-literals", str(literals),
                                                   "--types", "dominance"])
    print(f"p(full, full) = {typed['answer']['p']}; optimal first questions: "
          f"{len(typed['answer']['optimal_questions'])}, e.g. "
          f"{typed['answer']['optimal_questions'][:3]}")
    if sets_run is not None:
        print(f"pairs stage: on sets {sets_run['stages'].get('pairs', 0):.1f} s, on types "
              f"{typed['stages'].get('pairs', 0):.2f} s (types stage "
              f"{typed['stages'].get('types', 0):.1f} s); both p(full, full) = "
              f"{sets_run['answer']['p']} / {typed['answer']['p']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=10)
    parser.add_argument("--skip-classic", action="store_true")
    parser.add_argument("--skip-types", action="store_true")
    parser.add_argument("--literals", type=int, default=1)
    parser.add_argument("--solve", choices=SOLVES, help=argparse.SUPPRESS)  # one measured
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.solve:
        return solve_in_memory(args.solve, args.literals, args.out)
    print(f"load average at the start: {', '.join(f'{x:.1f}' for x in psutil.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder:
        pair_stage_against_recursion(Path(folder), args.small)
        sets_run = None if args.skip_classic else classic_end_to_end(Path(folder))
        if not args.skip_types:
            types_against_sets(Path(folder), args.literals, sets_run)
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in psutil.getloadavg())}")


if __name__ == "__main__":
    main()
