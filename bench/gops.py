"""GOPS kernel benchmark; every ratio compares two measurements of this run.

1. The compiled matrix-game solver against scipy's linprog(method="highs") on real level-7
   GOPS matrices (7 x 7) of the 10-card game.
2. Whole serial in-process solves (kernel called level by level, one shard per level, with
   strategies, everything in memory): wall time, peak memory, per-level time, states/s and
   matrix games/s; then the same levels cut into shards on a pool of threads (the kernel
   releases the GIL).
3. What N = 13, 14, 16 need, from the per-game cost measured per level size j.

    python bench/gops.py [--sizes 8 9 10 11] [--threads 2] [--highs-games 300]
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from math import comb

import numpy as np
from scipy.optimize import linprog

from subgame.families.gops.game import (level_layout, payoff_matrices, shard_ranges, solve_levels,
                                solve_matrix_games, solve_shard)
from subgame.families.gops.game.patterns import pattern_count

SHARDS_PER_THREAD = 4  # per level in the threaded runs, for load balance
MIN_SHARD_STATES = 20_000  # about 100 ms of work: smaller levels stay whole


def highs_value(payoff: np.ndarray) -> float:
    m, n = payoff.shape
    cost = np.zeros(m + 1)
    cost[-1] = -1.0
    res = linprog(cost, A_ub=np.hstack([-payoff.T, np.ones((n, 1))]), b_ub=np.zeros(n),
                  A_eq=np.append(np.ones(m), 0.0)[None], b_eq=[1.0],
                  bounds=[(0, None)] * m + [(None, None)], method="highs")
    return -res.fun


def solver_against_highs(highs_games: int) -> None:
    print("== matrix games: compiled simplex vs scipy linprog(HiGHS), level 7 of N = 10 ==")
    for layout, result in solve_levels(10):
        if layout.j == 6:
            break
    prev, layout = result.values, level_layout(10, 7)
    games = np.concatenate([np.delete(payoff_matrices(layout, prev, p_rank, k), layout.symmetric, 0)
                            for p_rank in range(0, layout.n_p, 12) for k in range(7)])
    solve_matrix_games(games[:10])  # compiled already (cache); warm the caches
    start = time.perf_counter()
    _, _, _, gaps, pivots = solve_matrix_games(games)
    ours = (time.perf_counter() - start) / len(games)
    sample = games[::len(games) // highs_games][:highs_games]  # spread over decks, upcards
    ours_sample = min(timed(solve_matrix_games, sample) for _ in range(5)) / len(sample)
    start = time.perf_counter()
    reference = np.array([highs_value(g) for g in sample])
    highs = (time.perf_counter() - start) / len(sample)
    print(f"  all {len(games)} games: {ours * 1e6:.2f} us/game, mean {pivots.mean():.2f} "
          f"pivots, {(pivots == 0).mean():.1%} saddle points, max certified gap "
          f"{gaps.max():.1e}")
    print(f"  {len(sample)} of them, evenly spaced: HiGHS {highs * 1e6:.0f} us/game, compiled "
          f"{ours_sample * 1e6:.2f} us/game (best of 5); max |value difference| "
          f"{np.abs(solve_matrix_games(sample)[0] - reference).max():.1e}")
    print(f"  ratio HiGHS / compiled on the same games: {highs / ours_sample:.0f}x")


def timed(function, *args) -> float:
    start = time.perf_counter()
    function(*args)
    return time.perf_counter() - start


def level_bytes(states: int, j: int) -> int:
    """values, upcard values (float64) and both players' strategies (float32) of a level."""
    return states * (8 + 8 * j + 2 * 4 * j * j)


def serial_solve(n_cards: int, rates: dict[int, list[float]]) -> float:
    print(f"== N = {n_cards}: serial in-process solve with strategies ==")
    tracemalloc.start()
    prev = np.zeros((1, 1))
    total = time.perf_counter()
    states = games = 0
    for j in range(n_cards + 1):
        start = time.perf_counter()
        layout = level_layout(n_cards, j)
        built = time.perf_counter()
        result = solve_shard(layout, prev, 0, layout.n_p, with_strategies=True)
        done = time.perf_counter()
        prev = result.values
        states += layout.n_states
        games += result.games
        seconds = done - built
        if result.games >= 100_000:
            rates.setdefault(j, []).append(seconds / result.games)
        print(f"  j={j:2d} {layout.n_states:9d} states {result.games:9d} games "
              f"layout {built - start:6.3f} s solve {seconds:7.3f} s  "
              f"{layout.n_states / max(seconds, 1e-9):9.3g} states/s "
              f"{result.games / max(seconds, 1e-9):9.3g} games/s  "
              f"{result.pivots / max(result.games - result.saddles, 1):5.2f} pivots/LP  "
              f"gap {result.max_gap:.0e}")
    wall = time.perf_counter() - total
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"  total {wall:.2f} s, {states} states ({states / wall:.3g}/s), {games} games "
          f"({games / wall:.3g}/s); peak traced memory {peak / 2**20:.0f} MiB, "
          f"process max RSS so far {rss:.2f} GiB")
    return wall


def threaded_solve(n_cards: int, threads: int) -> tuple[float, float]:
    """Wall seconds and process CPU seconds (CPU / wall shows the parallelism obtained on a
    shared machine)."""
    prev = np.zeros((1, 1))
    start, cpu = time.perf_counter(), time.process_time()
    with ThreadPoolExecutor(threads) as pool:
        for j in range(n_cards + 1):
            layout = level_layout(n_cards, j)
            target = max(MIN_SHARD_STATES, layout.n_states // (SHARDS_PER_THREAD * threads))
            parts = list(pool.map(lambda r: solve_shard(layout, prev, *r, True),
                                  shard_ranges(layout, target)))
            prev = np.concatenate([p.values for p in parts])
    return time.perf_counter() - start, time.process_time() - cpu


def projection(rates: dict[int, list[float]], sizes=(13, 14, 16)) -> None:
    """Per-game cost c(j) from the measured levels, fitted as a * j^b for the j beyond."""
    js = np.array(sorted(rates))
    cost = np.array([np.median(rates[j]) for j in js])
    fit = js >= 5
    slope, intercept = np.polyfit(np.log(js[fit]), np.log(cost[fit]), 1)
    print("== projection from the measured per-game cost by level size j ==")
    print("  " + ", ".join(f"j={j}: {np.median(rates[j]) * 1e6:.2f} us" for j in js))
    print(f"  beyond j = {js.max()}: c(j) = {np.exp(intercept) * 1e6:.4f} us * j^{slope:.2f} "
          f"(fitted on j >= 5)")
    for n_cards in sizes:
        seconds = states = disk = largest = 0.0
        widest = 0
        for j in range(1, n_cards + 1):
            level_states = comb(n_cards, j) * ((pattern_count(n_cards, j) - 1) // 2 + 1)
            c = np.median(rates[j]) if j in rates else np.exp(intercept) * j ** slope
            seconds += level_states * j * c
            states += level_states
            size = level_bytes(level_states, j)
            disk += size
            if size > largest:
                largest, widest = size, j
        print(f"  N={n_cards}: {states:.3g} states, {seconds / 3600:.3g} core-hours; largest "
              f"level j={widest}: {largest / 2**30:.3g} GiB with strategies; all levels "
              f"{disk / 2**40:.3g} TiB uncompressed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 9, 10, 11])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--highs-games", type=int, default=300)
    args = parser.parse_args()
    for _ in solve_levels(4, True):  # load the compiled kernels before timing anything
        pass
    solver_against_highs(args.highs_games)
    rates: dict[int, list[float]] = {}
    for n_cards in args.sizes:
        serial = serial_solve(n_cards, rates)
        threaded, cpu = threaded_solve(n_cards, args.threads)
        print(f"  same solve on {args.threads} threads, {SHARDS_PER_THREAD} shards per thread "
              f"and level: {threaded:.2f} s, speed-up {serial / threaded:.2f}x "
              f"(CPU / wall {cpu / threaded:.2f})")
    projection(rates)


if __name__ == "__main__":
    main()
