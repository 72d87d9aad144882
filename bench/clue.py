"""Clue benchmark: every figure below is measured in this run (one process, one core, except
the end-to-end run, which uses --workers Dask workers).

    python bench/clue.py [--games 200] [--grid-games 100] [--workers 2] [--skip-grid]
                         [--claims-games 300] [--skip-claims]

1. Games per second per line-up at a few grid points, by the tournament kernel
   (``simulate_batch``); ratios against the baseline, a table of core players at (3, 3, 2).
2. One exact inference (the table tool ``infer_view``) against brute-force enumeration of
   every deal (the tests' reference), on mid-game views at N = 9 and N = 10: ratio
   brute force / exact.
3. The course grid (p in 2,3,5,7,9; k in 1,2,3,5,8,16; h in 1,2,3: 90 points) end to end
   with `subgame run clue` at --grid-games games a point, then extrapolated to 1,000 games
   a point from the measured batch-step seconds (said so in the output): the fixed cost
   (Prefect, the cluster, aggregation) is measured once, the simulation cost scales with
   games.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the brute-force reference lives with the tests

from subgame.engine import run_computation  # noqa: E402
from subgame.families.clue.game import grid_point, infer_view, new_player, play_game, simulate_batch  # noqa: E402
from subgame.families.clue.plan import ClueConfig  # noqa: E402
from subgame.families.clue.read import leaderboard  # noqa: E402
from subgame.options import RunOptions  # noqa: E402
from tests.test_clue_inference import brute_force, view_of  # noqa: E402

SEED_MIX = ["core", "padded-core", "weighted-inverse", "conditional", "history-1/2",
            "group2", "weighted-uniform", "history-2/3", "random"]
LINEUPS = {"core only": lambda p: ["core"] * p,
           "seed players mixed": lambda p: [SEED_MIX[s % len(SEED_MIX)] for s in range(p)],
           "one exact player": lambda p: ["exact"] + [SEED_MIX[s % len(SEED_MIX)]
                                                      for s in range(p - 1)]}
POINTS = [(3, 3, 2), (5, 5, 3), (7, 3, 2)]
# (strategy under test, its opponents): one of the first, p - 1 of the second at each table
CLAIM_PAIRS = [("weighted-inverse", "core"), ("weighted-uniform", "core"),
               ("weighted-geometric", "core"), ("conditional", "weighted-inverse"),
               ("history-1/2", "core"), ("history-1/2", "padded-core"),
               ("history-2/3", "padded-core"), ("group2", "padded-core")]
# the same five strategies in two seating orders (the kernel rotates seats, not the order)
SEATINGS = ["history-1/2,core,core,padded-core,padded-core",
            "history-1/2,padded-core,core,padded-core,core"]
CLAIM_PLAYERS, CLAIM_K, CLAIM_H = (3, 5, 7, 9), 3, 2
COURSE = dict(players="2,3,5,7,9", cards_per_player="1,2,3,5,8,16", hidden="1,2,3")


def timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def games_per_second(games: int) -> None:
    print(f"== 1. games per second (one core, {games} games per measurement)")
    baseline = None
    for point in POINTS:
        for name, lineup in LINEUPS.items():
            # the exact player is costly beyond p = 5: fewer games keep the run short
            n = games if name != "one exact player" or point[0] <= 3 else max(4, games // 10)
            _, seconds = timed(simulate_batch, lineup(point[0]), *point, n,
                               np.random.SeedSequence(1))
            rate = n / seconds
            baseline = baseline or rate
            print(f"  p,k,h={point}  {name:20s} {rate:8.1f} games/s  "
                  f"({rate / baseline:.3f} x core only at {POINTS[0]}; {n} games)")


def inference_against_brute_force() -> None:
    print("== 2. one exact inference against brute-force enumeration of every deal")
    for point in [(3, 2, 3), (3, 3, 1)]:
        size = grid_point(*point)
        result = play_game([new_player(n) for n in ("random", "padded-core", "core")], size, 5)
        view = view_of(result, 1, len(result.record) // 2)
        exact, t_exact = timed(infer_view, view)
        brute, t_brute = timed(brute_force, view)
        assert exact["deals"] == str(brute[0])
        print(f"  p,k,h={point} (N={size.cards}, {len(view['history'])} records, "
              f"{exact['deals']} consistent deals): exact {t_exact * 1e3:.2f} ms, brute force "
              f"{t_brute * 1e3:.1f} ms, ratio {t_brute / t_exact:.0f}x")


def course_grid(games: int, workers: int) -> None:
    print(f"== 3. the course grid end to end, {games} games a point, {workers} workers")
    with tempfile.TemporaryDirectory() as folder:
        store = os.path.join(folder, "clue.zarr")
        args = [sys.executable, "-m", "subgame.cli", "run", "clue",
                *(part for key, value in COURSE.items()
                  for part in (f"--{key.replace('_', '-')}", value)),
                "--games", str(games), "--workers", str(workers), "--store", store, "--json"]
        print("  " + " ".join(["subgame", *args[3:]]))
        start = time.perf_counter()
        done = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
        wall = time.perf_counter() - start
        if done.returncode:
            print(done.stderr)
            return
        (report,) = json.loads(done.stdout)
        simulate = sum(s for name, s in report["seconds"].items() if name.startswith("batch"))
        fixed = wall - simulate
        per_1000 = simulate * 1000 / games
        print(f"  measured: wall {wall:.1f} s = simulation steps {simulate:.1f} s + fixed "
              f"(start, Prefect, cluster, aggregation) {fixed:.1f} s")
        print(f"  extrapolated (not measured) to 1,000 games a point: {fixed:.0f} s + "
              f"{simulate:.1f} s x {1000 / games:.0f} = {(fixed + per_1000) / 60:.1f} min "
              f"({'within' if fixed + per_1000 < 3600 else 'over'} the one-hour goal)")


def share_right(row: dict) -> str:
    guesses = row["correct"] + row["wrong"]
    return f"{row['correct'] / guesses:.2f}" if guesses else "-"


def tournament(store: str, players: int, lineup: str, games: int) -> dict:
    """One tournament at (players, CLAIM_K, CLAIM_H) through the engine; its leaderboard."""
    config = ClueConfig(players=str(players), cards_per_player=str(CLAIM_K),
                        hidden=str(CLAIM_H), games=games, lineup=lineup)
    run_computation(config, RunOptions(store, executor="serial"))
    return leaderboard(store, players, CLAIM_K, CLAIM_H, lineup=lineup)


def claims(games: int) -> None:
    print(f"== 4. the seed's claims: {games} games a point, k = {CLAIM_K}, h = {CLAIM_H}, "
          "one core; tables won / share of guesses right")
    with tempfile.TemporaryDirectory() as folder:
        store = os.path.join(folder, "claims.zarr")
        for focus, opponent in CLAIM_PAIRS:
            cells = []
            for p in CLAIM_PLAYERS:
                board = tournament(store, p, ",".join([focus] + [opponent] * (p - 1)), games)
                mine, theirs = board["strategies"][focus], board["strategies"][opponent]
                cells.append(f"p={p}: {mine['first'] / board['games']:.3f}/"
                             f"{share_right(mine)} vs {theirs['first'] / board['games']:.3f}/"
                             f"{share_right(theirs)}")
            print(f"  {focus} vs {opponent} x (p-1):  " + "  ".join(cells))
        for lineup in SEATINGS:
            board = tournament(store, 5, lineup, games)
            print(f"  --players 5 --lineup {lineup}:  " + "  ".join(
                f"{name} {row['first'] / board['games']:.3f}/{share_right(row)}"
                for name, row in board["strategies"].items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--grid-games", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--skip-grid", action="store_true")
    parser.add_argument("--claims-games", type=int, default=300)
    parser.add_argument("--skip-claims", action="store_true")
    options = parser.parse_args()
    games_per_second(options.games)
    inference_against_brute_force()
    if not options.skip_grid:
        course_grid(options.grid_games, options.workers)
    if not options.skip_claims:
        claims(options.claims_games)


if __name__ == "__main__":
    main()
