"""GOPS kernel benchmark; every ratio compares two measurements of this run.

1. Whole serial in-process solves (kernel called level by level, one shard per level, with
   strategies, everything in memory): per level the time, states/s and matrix games/s of
   this kernel, beside the previous release's kernel on the same level (imported from the
   git revision ``--previous``, default the last commit before the warm starts) and scipy's
   linprog(method="highs") on ``--highs-games`` of the level's games (per game, against
   this kernel on the same games); pivots per game of both kernels, and the ratio to the
   scalar and SIMD flop bounds of the cost model; the largest value difference to each;
   then CPU time
   and peak memory, and the same levels cut into shards on a pool of threads (the kernel
   releases the GIL).
2. What N = 13, 14, 16 need, from the per-game cost measured per level size j.

    python bench/gops.py [--sizes 8 9 10 11] [--threads 2] [--highs-games 300]
                         [--previous REV | --previous none]

``--cost-model N`` instead prints the cost model of N's levels (values only, as `--strategies
none`): per level the matrix games, their size, the share of LPs their guess solved,
pivots, the flops of the tableau, of the guesses and of the rest of a game, the bytes of
level j-1, and the measured time (the best of ``--tries`` solves, 3 by default) against a
lower bound from this CPU's scalar and SIMD flop rates (numba loops) and memory bandwidth
(numpy copy), all measured in the same run, then the totals, the median solves' beside the
best;
``--kernel specialised`` times the kernel compiled for each level's j.

``--warm-starts N`` instead solves each level of N with and without warm starts, back to
back (pivots, guessed share, time).  ``--lanes N`` instead solves each level of N, both
objectives, with numpy's lane kernel (game/lanes.py) and numba's (warm starts, the
pipeline's default) back to back, per level ns/game and pivots/game and their ratio, then
what a fresh process pays before its first game under each (imports, numba's cache load)
and the break-even run size.
``--specialised N [--store STORE] [--objective win] [--previous REV [--previous-kernel
specialised]]`` instead solves
``--shards`` shards spread over each level j >= 5 of N (of DEFAULT_SHARD_STATES states, with
strategies and f_k where `subgame run gops --cards N --strategies top:4` keeps them) with the
compiled kernel for every j, the same kernel specialised to the level's j and the previous
release's, interleaved, best CPU time of 3 each: per level pivots/game, ns/game of each, the
ratios, what the specialised kernel's first call paid to compile (0 when numba's cache had
it), that the two compiled kernels agree bit for bit, and whether the previous one (its
generic kernel, or with ``--previous-kernel specialised`` its specialised one) agrees bit
for bit with this tree's of the same kind.  Level j-1 comes from STORE (a
finished `subgame run gops --cards N` store), else from an in-process solve (N <= 12).
``--carried-bases N [--store STORE] [--calls G]`` instead solves, per level j >= 5 of N, two
runs of G consecutive shards (default 6) shard by shard, each in one call, which carries
the warm starts' bases across the shards' edges, as a run's batches of shards do, and
each in one call with one warm-start slot (guesses from the previous deck alone): guessed
share and ns/game of all three.
``--pipeline N [--run-options '...']`` instead runs
`subgame run gops --cards N --strategies none` on a temporary store and prints per level the
pipeline's cost (step wall time, the workers' CPU in the shards and in the kernel, the
step's CPU in the run's process where it ran there) beside the same level's kernel in
process, and the steps, the whole run and the CPU seconds of its processes against that
kernel (on every core for the wall times).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from io import BytesIO
from math import comb
from pathlib import Path

import numpy as np
from numba import njit
from scipy.optimize import linprog

from subgame.families.gops.game import (level_layout, level_zero, payoff_matrices,
                                       previous_rows, shard_ranges, solve_levels,
                                       solve_matrix_games, solve_shard)
from subgame.families.gops.game.level import WARM_SLOTS, new_bases
from subgame.families.gops.game.patterns import pattern_count
from subgame.families.gops.plan import DEFAULT_SHARD_STATES, GopsConfig, group_path

PREVIOUS_RELEASE = "8742bf9"  # the last commit with the 0.3 kernel (no warm starts)
KERNEL = "subgame/families/gops/game"
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


def previous_kernel(revision: str):
    """The GOPS kernel package as it was at a git revision of this repository, imported
    under its own name from a temporary copy (it imports nothing outside the package)."""
    root = Path(__file__).resolve().parent.parent
    archive = subprocess.run(["git", "-C", str(root), "archive", revision, KERNEL],
                             capture_output=True, check=True).stdout
    target = Path(tempfile.mkdtemp(prefix="gops-kernel-"))
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    name = f"gops_kernel_{revision}"
    spec = importlib.util.spec_from_file_location(name, target / KERNEL / "__init__.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    for _ in module.solve_levels(4, True):  # compile it before anything is timed
        pass
    return module


def sample_games(layout, prev: np.ndarray, count: int | None = None, picks: int = 64
                 ) -> np.ndarray:
    """The level's matrix games of ``picks`` (P, k) spread over the level; ``count`` of
    them, evenly spaced, if given."""
    spread = np.linspace(0, layout.n_p * layout.j - 1, min(picks, layout.n_p * layout.j))
    games = np.concatenate([np.delete(payoff_matrices(layout, prev, pick // layout.j,
                                                      pick % layout.j), layout.symmetric, 0)
                            for pick in spread.astype(int)])
    if count is None:
        return games
    return games[np.linspace(0, len(games) - 1, min(count, len(games))).astype(int)]


def print_header(header: list[str]) -> None:
    """A Markdown table's head."""
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))


def timed(function, *args, clock=time.perf_counter) -> float:
    start = clock()
    function(*args)
    return clock() - start


def level_bytes(states: int, j: int) -> int:
    """values, upcard values (float64) and both players' strategies (float32) of a level."""
    return states * (8 + 8 * j + 2 * 4 * j * j)


def game_flops(j: int, games: int, lps: int, pivots: int, guessed: int = 0) -> int:
    """The cost model's flops (``cost_model``) but the guesses' own (``guess_flops``):
    payoffs, and for the ``lps`` games that are no saddle point the certificate, and the
    scaled slack tableau and ``pivots`` tableau pivots for those their guess did not solve
    (all of them on the slack basis)."""
    return (pivots * 2 * (j + 1) ** 2 + games * 2 * j * j + lps * 4 * j * j
            + (lps - guessed) * 2 * j * j)


# Flops of matrix_game._cramer_solution on a guess of k = 2, 3, 4 rows beyond B[R, S]: the
# cofactors (k = 4: through the 2 x 2 minors of rows 0, 1 and of rows 2, 3), det(B) and
# the cofactors' row and column sums
CRAMER_FLOPS = {2: 3 + 4, 3: 27 + 5 + 12, 4: 36 + 11 + 80 + 24}


def guess_flops(guesses: np.ndarray) -> int:
    """Flops of the guesses counted in ``guesses`` (``ShardResult.guesses``: [0, k] tried
    of size k, [1, k] taken; ``matrix_game._guess``): each builds B[R, S] (3 k^2:
    subtract, scale, add one) and eliminates it (k reciprocals; column c: k-1-c
    multipliers and 2 (k-1-c)^2 of the update); one taken also made the four triangular
    solves (2 (2 k (k-1) + k)) and normalised x and y (4 k + 2).  A guess of 2, 3 or 4
    rows is solved by Cramer's rule instead: its cofactors, det(B) and their sums
    (CRAMER_FLOPS) and 1 / det(B); one taken also scaled the sums by it and normalised x
    and y (6 k + 2)."""
    flops = 0
    for k, (tried, taken) in enumerate(guesses.T.tolist()):
        if k in CRAMER_FLOPS:
            flops += tried * (3 * k * k + CRAMER_FLOPS[k] + 1) + taken * (6 * k + 2)
            continue
        elimination = 3 * k * k + k + sum(t + 2 * t * t for t in range(k))
        solves = 2 * (2 * k * (k - 1) + k) + 4 * k + 2
        flops += tried * elimination + taken * solves
    return flops


def serial_solve(n_cards: int, rates: dict[int, list[float]], previous, highs_games: int,
                 machine: dict[str, float]) -> float:
    """One in-process solve with strategies, level by level; per level this kernel's CPU
    time beside the previous release's on the same input, and the bound: the cost model's
    flops of a slack-basis simplex (the previous kernel's pivots, else this one's) at the
    scalar and the SIMD rate of ``machine``."""
    print(f"== N = {n_cards}: serial in-process solve with strategies; previous release's "
          f"kernel and HiGHS on the same level (CPU seconds) ==")
    header = ["j", "games", "saddle %", "guessed %", "pivots/game", "previous pivots/game",
              "ns/game", "previous ns/game", "previous/this", "x scalar bound",
              "x SIMD bound", "gap", "max |value - previous|", "HiGHS us/game",
              "HiGHS/this (same games)", "max |value - HiGHS|"]
    print_header(header)
    tracemalloc.start()
    prev = np.zeros((1, 1))
    total = peak = 0.0
    states = games = 0
    for j in range(n_cards + 1):
        layout = level_layout(n_cards, j)
        tracemalloc.reset_peak()  # this kernel's memory only, not the comparisons'
        start = time.process_time()
        result = solve_shard(layout, prev, 0, layout.n_p, with_strategies=True)
        seconds = time.process_time() - start
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        total += seconds
        states += layout.n_states
        games += result.games
        if not result.games:
            prev = result.values
            continue
        if result.games >= 100_000:
            rates.setdefault(j, []).append(seconds / result.games)
        per_game = seconds / result.games
        lps = result.games - result.saddles
        cold_pivots = result.pivots
        row = [f"{j}", f"{result.games:,}", f"{100 * result.saddles / result.games:.0f}",
               f"{100 * result.guessed / result.games:.0f}",
               f"{result.pivots / result.games:.2f}"]
        if previous is not None:
            old_layout = previous.level_layout(n_cards, j)
            start = time.process_time()
            old = previous.solve_shard(old_layout, prev, 0, layout.n_p, with_strategies=True)
            old_seconds = time.process_time() - start
            cold_pivots = old.pivots
            row += [f"{old.pivots / old.games:.2f}", f"{1e9 * per_game:.0f}",
                    f"{1e9 * old_seconds / old.games:.0f}", f"{old_seconds / seconds:.2f}"]
            difference = f"{np.abs(old.values - result.values).max():.1e}"
            del old
        else:
            row += ["", f"{1e9 * per_game:.0f}", "", ""]
            difference = ""
        flops = game_flops(j, result.games, lps, cold_pivots)
        row += [f"{seconds * machine['scalar'] / flops:.1f}",
                f"{seconds * machine['simd'] / flops:.1f}", f"{result.max_gap:.0e}",
                difference]
        sample = sample_games(layout, prev, highs_games) if highs_games else []
        if len(sample):
            start = time.perf_counter()
            reference = np.array([highs_value(g) for g in sample])
            highs = (time.perf_counter() - start) / len(sample)
            ours = min(timed(solve_matrix_games, sample) for _ in range(5)) / len(sample)
            row += [f"{highs * 1e6:.0f}", f"{highs / ours:.0f}",
                    f"{np.abs(solve_matrix_games(sample)[0] - reference).max():.1e}"]
        print("| " + " | ".join(row) + " |", flush=True)
        prev = result.values
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"  this kernel: {total:.2f} CPU s, {states} states ({states / total:.3g}/s), "
          f"{games} games ({games / total:.3g}/s); peak traced memory "
          f"{peak / 2**20:.0f} MiB, process max RSS so far {rss:.2f} GiB")
    return total


def warm_start_ab(n_cards: int, tries: int = 3) -> None:
    """Per level of N (values only, one shard a level): the kernel from the slack basis
    (``warm_start=False``) and with warm starts, back to back, best CPU time of ``tries``
    each, the pivots per LP of both and the share of LPs guessed."""
    print(f"== warm starts, N = {n_cards}, values only, best of {tries} (CPU seconds) ==")
    header = ["j", "games", "pivots/LP, slack basis", "pivots/LP, warm", "guessed %",
              "ns/game, slack basis", "ns/game, warm", "speed-up",
              "max |value difference|"]
    print_header(header)
    prev = np.zeros((1, 1))
    for j in range(1, n_cards + 1):
        layout = level_layout(n_cards, j)
        best, results = {}, {}
        for _ in range(tries):
            for warm in (False, True):
                start = time.process_time()
                results[warm] = solve_shard(layout, prev, 0, layout.n_p, False,
                                            warm_start=warm)
                seconds = time.process_time() - start
                best[warm] = min(best.get(warm, np.inf), seconds)
        cold, warm = results[False], results[True]
        prev = cold.values
        lps = cold.games - cold.saddles
        if not lps:
            continue
        print(f"| {j} | {cold.games:,} | {cold.pivots / lps:.2f} | {warm.pivots / lps:.2f} | "
              f"{100 * warm.guessed / lps:.0f} | {1e9 * best[False] / cold.games:.0f} | "
              f"{1e9 * best[True] / cold.games:.0f} | {best[False] / best[True]:.2f} | "
              f"{np.abs(cold.values - warm.values).max():.1e} |")


def kernel_option(kernel: str) -> dict[str, str]:
    """``solve_shard``'s keyword for a previous revision's kernel: none for the compiled
    one, which every revision solves with by default (the oldest take no ``kernel``)."""
    return {} if kernel == "compiled" else {"kernel": kernel}


def identical(a, b) -> bool:
    """Two results' arrays (or counts, or None) equal bit for bit."""
    if a is None or b is None or np.isscalar(a):
        return repr(a) == repr(b)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def same_results(one: list, other: list) -> bool:
    """Two lists of shard results equal bit for bit: arrays, counts and gaps."""
    return all(identical(getattr(a, field), getattr(b, field)) for a, b in zip(one, other)
               for field in ("values", "upcard_values", "strategies", "strategies_two",
                             "pivots", "guessed", "max_gap"))


def store_levels(store: str | None, n_cards: int, objective: str = "points"):
    """The level group of a finished `subgame run gops --cards N` store (None: no store)."""
    if store is None:
        return None
    import zarr
    return zarr.open_group(store, mode="r", use_consolidated=False)[group_path(n_cards,
                                                                              objective)]


def previous_values(group, prev: np.ndarray, j: int, ranks: np.ndarray) -> np.ndarray:
    """Rows ``ranks`` of level j-1's values: from the store's group, else from ``prev``."""
    return group[f"j{j - 1}/values"].oindex[ranks] if group is not None else prev[ranks]


def specialised_ab(n_cards: int, objective: str, store: str | None, previous,
                   shards: int = 4, tries: int = 3, previous_kernel: str = "compiled") -> None:
    """Per level j >= 5 of N: ``shards`` shards spread over the level, each solved by the
    compiled kernel for every j, by the same specialised to j and by the previous release's
    (its ``previous_kernel``: generic, or specialised where it has one; interleaved, best
    CPU time of ``tries``), as the default run stores them (strategies and f_k where
    `--strategies top:4` keeps them); level j-1's rows from ``store`` or from an in-process
    solve.  Checks bit for bit the generic kernel against the specialised one, and the
    previous one against this tree's of the same kind."""
    config = GopsConfig(cards=n_cards, strategies="top:4", objective=objective)
    group = store_levels(store, n_cards, objective)
    print(f"== the kernel specialised to j, N = {n_cards} ({objective}), {shards} shards of "
          f"{DEFAULT_SHARD_STATES:,} states a level, best CPU time of {tries} ==")
    header = ["j", "games timed", "pivots/game", "ns/game, generic", "ns/game, specialised",
              f"ns/game, previous ({previous_kernel})", "generic / specialised",
              "previous / specialised", "first call's compile s", "bit for bit",
              "previous bit for bit"]
    print_header(header)
    totals = {"generic": 0.0, "specialised": 0.0, "previous": 0.0}
    prev = level_zero(objective)
    for j in range(1, n_cards + 1):
        layout = level_layout(n_cards, j, objective)
        stores = (config.with_strategies(j), config.with_upcard_values(j))
        if j >= 5 and layout.n_patterns > 1:
            ranges = shard_ranges(layout, DEFAULT_SHARD_STATES)
            picks = [ranges[i] for i in np.unique(
                np.linspace(0, len(ranges) - 1, shards).astype(int))]
            inputs = []
            for lo, hi in picks:
                ranks = previous_rows(layout, lo, hi)
                inputs.append((lo, hi, ranks, previous_values(group, prev, j, ranks)))
            old_layout = previous.level_layout(n_cards, j, objective) if previous else None

            def run(kernel: str) -> list:
                if kernel == "previous":
                    return [previous.solve_shard(old_layout, rows, lo, hi, *stores, ranks,
                                                 **kernel_option(previous_kernel))
                            for lo, hi, ranks, rows in inputs]
                return [solve_shard(layout, rows, lo, hi, *stores, ranks,
                                    kernel="compiled" if kernel == "generic" else kernel)
                        for lo, hi, ranks, rows in inputs]

            kernels = [k for k in totals if k != "previous" or previous is not None]
            best, results, first = {}, {}, {}
            for attempt in range(tries + 1):  # the first pass compiles, and is not timed
                for kernel in kernels:
                    start = time.process_time()
                    results[kernel] = run(kernel)
                    seconds = time.process_time() - start
                    if attempt:
                        best[kernel] = min(best.get(kernel, np.inf), seconds)
                    else:
                        first[kernel] = seconds
            games = sum(r.games for r in results["generic"])
            pivots = sum(r.pivots for r in results["generic"])
            for kernel in best:
                totals[kernel] += best[kernel]
            ns = {kernel: 1e9 * seconds / games for kernel, seconds in best.items()}
            old = previous is not None
            row = [f"{j}", f"{games:,}", f"{pivots / games:.2f}", f"{ns['generic']:.0f}",
                   f"{ns['specialised']:.0f}", f"{ns['previous']:.0f}" if old else "",
                   f"{ns['generic'] / ns['specialised']:.2f}",
                   f"{ns['previous'] / ns['specialised']:.2f}" if old else "",
                   f"{first['specialised'] - best['specialised']:.1f}",
                   "yes" if same_results(results["generic"], results["specialised"])
                   else "NO",
                   ("yes" if same_results(results["previous"], results[
                       "generic" if previous_kernel == "compiled" else "specialised"])
                    else "no") if old else ""]
            print("| " + " | ".join(row) + " |", flush=True)
        if group is None and j < n_cards:
            prev = solve_shard(layout, prev, 0, layout.n_p, False, False).values
    row = ["all", "", ""] + [f"{totals[k]:.2f} s" if totals[k] else "" for k in totals] + [
        f"{totals['generic'] / totals['specialised']:.2f}",
        f"{totals['previous'] / totals['specialised']:.2f}" if totals["previous"] else "",
        "", "", ""]
    print("| " + " | ".join(row) + " |")


def carried_bases_ab(n_cards: int, store: str | None, calls: int, windows: int = 2,
                     tries: int = 3) -> None:
    """Per level j >= 5 of N with at least ``calls`` shards: ``windows`` runs of ``calls``
    consecutive shards (DEFAULT_SHARD_STATES states each, strategies and f_k where
    `--strategies top:4` keeps them, the kernel a run picks for the level), solved shard by
    shard, and each run in one `solve_shard` call, which carries the warm starts' bases
    from deck row to deck row across the shards' edges (a shard's first row has no
    previous row to guess from), as a run's batches do; and each run in one call with one
    warm-start slot (``new_bases(layout, 1)``: every deck guesses from the previous one, as
    before the slots; bit for bit c06ec41's kernel).  Alternating, ``tries`` timed passes
    each: best CPU time, the median of the passes' ratios to one call and the games
    solved on a guess.  Level j-1 comes from STORE or an in-process solve, as with
    --specialised."""
    config = GopsConfig(cards=n_cards, strategies="top:4")
    group = store_levels(store, n_cards)
    print(f"== warm-start bases carried across {calls} consecutive shards, N = {n_cards}, "
          f"{windows} runs a level, best CPU time of {tries} ==")
    print_header(["j", "decks a shard", "games timed", "kernel", "guessed %, by shard",
                  "guessed %, one call, one slot", "guessed %, one call",
                  "ns/game, by shard", "ns/game, one call, one slot", "ns/game, one call",
                  "by shard / one call (median pass)",
                  "one slot / one call (median pass)"])
    prev = level_zero()
    for j in range(1, n_cards + 1):
        layout = level_layout(n_cards, j)
        ranges = shard_ranges(layout, DEFAULT_SHARD_STATES)
        if j >= 5 and len(ranges) >= calls:
            stores = (config.with_strategies(j), config.with_upcard_values(j))
            kernel = config.kernel(j)
            firsts = np.unique(np.linspace(0, len(ranges) - calls, windows).astype(int))
            runs = [ranges[first:first + calls] for first in firsts]

            inputs = {}
            for run in runs:
                for lo, hi in run + [(run[0][0], run[-1][1])]:
                    ranks = previous_rows(layout, lo, hi)
                    inputs[lo, hi] = (previous_values(group, prev, j, ranks), ranks)

            def solve(lo: int, hi: int, slots: int = WARM_SLOTS):
                rows, ranks = inputs[lo, hi]
                return solve_shard(layout, rows, lo, hi, *stores, ranks, kernel=kernel,
                                   bases=new_bases(layout, slots))

            ways = {"shard": lambda: [solve(lo, hi) for run in runs for lo, hi in run],
                    "slot": lambda: [solve(run[0][0], run[-1][1], 1) for run in runs],
                    "call": lambda: [solve(run[0][0], run[-1][1]) for run in runs]}
            seconds, results = {way: [] for way in ways}, {}
            for attempt in range(tries + 1):  # the first pass compiles, and is not timed
                for way in (list(ways) if attempt % 2 else list(ways)[::-1]):
                    start = time.process_time()
                    results[way] = ways[way]()
                    if attempt:
                        seconds[way].append(time.process_time() - start)
            games = sum(r.games for r in results["shard"])
            guessed = {way: 100 * sum(r.guessed for r in results[way]) / games for way in ways}
            ns = {way: 1e9 * min(seconds[way]) / games for way in ways}
            ratio = {way: np.median(np.array(seconds[way]) / np.array(seconds["call"]))
                     for way in ("shard", "slot")}
            print(f"| {j} | {ranges[0][1] - ranges[0][0]} | {games:,} | {kernel} | "
                  f"{guessed['shard']:.1f} | {guessed['slot']:.1f} | {guessed['call']:.1f} | "
                  f"{ns['shard']:.0f} | {ns['slot']:.0f} | {ns['call']:.0f} | "
                  f"{ratio['shard']:.3f} | {ratio['slot']:.3f} |", flush=True)
        if group is None and j < n_cards:
            prev = solve_shard(layout, prev, 0, layout.n_p, False, False).values


def child_cpu(code: str) -> float:
    """CPU seconds (user + system) of ``python -c code`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def lanes_ab(n_cards: int, tries: int = 3) -> None:
    """Per level of N, both objectives, with strategies (as `subgame run` by default): the
    lane kernel and the compiled one, back to back, best CPU time of ``tries`` each (CPU,
    not wall: the machine is shared); then the CPU a fresh process spends up to its first
    game under each, and the break-even games."""
    print(f"== lanes (numpy) against numba, N = {n_cards}, with strategies, best CPU time of "
          f"{tries} ==")
    header = ["objective", "j", "games", "pivots/game, lanes", "pivots/game, numba",
              "ns/game, lanes", "ns/game, numba", "lanes / numba", "max value difference"]
    print_header(header)
    extra = {}
    for objective in ("points", "win"):
        prev = level_zero(objective)
        totals = {"lanes": 0.0, "compiled": 0.0}
        games = 0
        for j in range(1, n_cards + 1):
            layout = level_layout(n_cards, j, objective)
            best, results = {}, {}
            for _ in range(tries):
                for kernel in ("lanes", "compiled"):
                    start = time.process_time()
                    results[kernel] = solve_shard(layout, prev, 0, layout.n_p, True,
                                                  kernel=kernel)
                    best[kernel] = min(best.get(kernel, np.inf), time.process_time() - start)
            ours, theirs = results["lanes"], results["compiled"]
            prev = theirs.values
            games += ours.games
            for kernel in totals:
                totals[kernel] += best[kernel]
            difference = np.nan_to_num(np.abs(ours.values - theirs.values)).max()
            print(f"| {objective} | {j} | {ours.games:,} | {ours.pivots / ours.games:.2f} | "
                  f"{theirs.pivots / theirs.games:.2f} | "
                  f"{1e9 * best['lanes'] / ours.games:.0f} | "
                  f"{1e9 * best['compiled'] / ours.games:.0f} | "
                  f"{best['lanes'] / best['compiled']:.2f} | {difference:.1e} |")
        extra[objective] = (totals["lanes"] - totals["compiled"]) / games
        print(f"| {objective} | all | {games:,} | | | {1e9 * totals['lanes'] / games:.0f} | "
              f"{1e9 * totals['compiled'] / games:.0f} | "
              f"{totals['lanes'] / totals['compiled']:.2f} | |")
    first = ("from subgame.families.gops.game import level_layout, level_zero, solve_shard; "
             "layout = level_layout(3, 1); solve_shard(layout, level_zero(), 0, layout.n_p, "
             "True, kernel='{}')")
    fresh = {"lanes": np.inf, "compiled": np.inf}
    for _ in range(3):  # best of 3 fresh processes each, interleaved
        for kernel in fresh:
            fresh[kernel] = min(fresh[kernel], child_cpu(first.format(kernel)))
    load = fresh["compiled"] - fresh["lanes"]
    print(f"fresh process to its first game (CPU): lanes {fresh['lanes']:.2f} s, numba "
          f"{fresh['compiled']:.2f} s (numba's import and cache load: {load:.2f} s); "
          "break-even run: " + ", ".join(
              f"{objective} {load / per_game:,.0f} games" if per_game > 0 else
              f"{objective} lanes always ahead" for objective, per_game in extra.items()))


def pipeline_cost(n_cards: int, run_options: list[str]) -> None:
    """``subgame run gops --cards N --strategies none`` (plus ``run_options``) on a fresh
    temporary store, then per level: the step's wall time, the CPU seconds its shards took
    (whole shard, and the kernel inside it, from the shards' metrics; and, where the run
    solved the step in its own process, that process's CPU over the step, Zarr's codec
    threads included) and the same level's kernel solved here in process (one shard,
    values and f_k as the run keeps them; after the run, so both meet about the same
    load).  Shard CPU / in-process kernel CPU is what
    the pipeline adds where the work is done; step wall x workers / shard CPU is what is
    lost between shards (scheduling, start-up, the tail of a level, waiting for a core the
    machine's other work holds).  Workers: the cores (a default in-process run gives a
    GOPS step a thread per core; a flow run a local cluster's process per core)."""
    from subgame.storage.computation import ComputationStore

    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="gops-pipeline-") as folder:
        store = f"{folder}/s.zarr"
        command = [sys.executable, "-m", "subgame.cli", "run", "gops", "--cards",
                   str(n_cards), "--strategies", "none", *run_options, "--store", store,
                   "--quiet"]
        load = os.getloadavg()[0]
        start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(command, check=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the run and what it waited for
        run_cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        attrs = ComputationStore.stored_attrs(store, f"gops/N{n_cards}")
    done = attrs["steps_done"]
    shards = {step["index"]: step["shards"] for step in attrs["steps"]}
    print(f"== pipeline cost, N = {n_cards}: {' '.join(command[3:-3])} took {wall:.1f} s "
          f"end to end (load average {load:.1f} before) ==")
    header = ["j", "shards", "games", "step wall s", "shard CPU s (workers)",
              "kernel CPU s (workers)", "step CPU s (the run's process)",
              "kernel CPU s (in process)", "shard CPU / in-process kernel",
              "step CPU / in-process kernel", f"step wall / (shard CPU / {cores} workers)",
              f"kernel wall s, the run's shards on {cores} threads in process",
              "step wall / that"]
    print_header(header)
    prev = np.zeros((1, 1))
    steps = kernel = threaded = 0.0
    config = GopsConfig(n_cards, strategies="none")  # the run's kernel per level
    with ThreadPoolExecutor(cores) as pool:
        for j in range(1, n_cards + 1):
            layout, run_kernel = level_layout(n_cards, j), config.kernel(j)
            solve_shard(layout, prev, 0, 1, False, kernel=run_kernel)  # caches warm
            start = time.process_time()
            result = solve_shard(layout, prev, 0, layout.n_p, False, kernel=run_kernel)
            here = time.process_time() - start
            # The wall baseline: the same shards, the kernel alone, on a thread per core
            # (no store), under the load of this moment.
            start = time.perf_counter()
            list(pool.map(lambda r: solve_shard(layout, prev, *r, False, kernel=run_kernel),
                          shard_ranges(layout, DEFAULT_SHARD_STATES)))
            level_wall = time.perf_counter() - start
            prev = result.values
            entry = done[str(j - 1)]
            computed = entry["computed"]
            shard_cpu = computed["shard_cpu_seconds"]
            parallel = min(cores, shards[j - 1])
            steps += entry["seconds"]
            kernel += here
            threaded += level_wall
            # (recorded where the step's shards ran in the run's process, Zarr's codec
            # threads included; a flow run's workers record none)
            step_cpu = entry.get("cpu_seconds")
            print(f"| {j} | {shards[j - 1]} | {computed['games']:,} | {entry['seconds']:.2f} | "
                  f"{shard_cpu:.2f} | {computed['kernel_cpu_seconds']:.2f} | "
                  f"{'' if step_cpu is None else f'{step_cpu:.2f}'} | {here:.2f} | "
                  f"{shard_cpu / max(here, 1e-9):.2f} | "
                  f"{'' if step_cpu is None else f'{step_cpu / max(here, 1e-9):.2f}'} | "
                  f"{entry['seconds'] / max(shard_cpu / parallel, 1e-9):.2f} | "
                  f"{level_wall:.2f} | {entry['seconds'] / max(level_wall, 1e-9):.2f} |")
    print(f"  steps {steps:.1f} s, end to end {wall:.1f} s; the kernel on the run's shards "
          f"and {cores} threads in process {threaded:.1f} s: steps {steps / threaded:.2f}x, "
          f"end to end {wall / threaded:.2f}x that; the kernel in process "
          f"{kernel:.1f} CPU s, {kernel / cores:.1f} s on {cores} cores: steps "
          f"{steps / (kernel / cores):.2f}x, end to end {wall / (kernel / cores):.2f}x that; "
          f"the run's processes used {run_cpu:.1f} CPU s ({run_cpu / kernel:.2f}x the kernel's; "
          f"{run_cpu / wall:.2f} cores on average); load average {os.getloadavg()[0]:.1f} "
          f"after")


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


@njit(cache=True)
def _scalar_chains(repeats: int) -> float:
    """8 independent multiply-add chains of scalars: 16 flops per iteration, no arrays."""
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 1.0
    for _ in range(repeats):
        a0 = a0 * 0.999999 + 1e-7
        a1 = a1 * 0.999998 + 1e-7
        a2 = a2 * 0.999997 + 1e-7
        a3 = a3 * 0.999996 + 1e-7
        a4 = a4 * 0.999995 + 1e-7
        a5 = a5 * 0.999994 + 1e-7
        a6 = a6 * 0.999993 + 1e-7
        a7 = a7 * 0.999992 + 1e-7
    return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7


@njit(cache=True)
def _simd_lanes(lanes: np.ndarray, repeats: int) -> float:
    """The same multiply-add on 64 independent lanes (the compiler vectorises the inner
    loop; 512 B stay in registers or L1): 128 flops per iteration."""
    for _ in range(repeats):
        for i in range(lanes.size):
            lanes[i] = lanes[i] * 0.999999 + 1e-7
    return lanes.sum()


def machine_rates(tries: int = 5) -> dict[str, float]:
    """Scalar and SIMD flops per CPU second of one core, and memory bandwidth (copy: read
    and write bytes), each the best of ``tries``."""
    _scalar_chains(10), _simd_lanes(np.ones(64), 2)  # compile
    repeats = 20_000_000
    source = np.ones(2**25)  # 256 MiB, far beyond the caches
    target = np.empty_like(source)

    def best(function, *args) -> float:  # CPU time: not the time spent waiting for a core
        return min(timed(function, *args, clock=time.process_time) for _ in range(tries))

    return {"scalar": 16 * repeats / best(_scalar_chains, repeats),
            "simd": 128 * (repeats // 4) / best(_simd_lanes, np.ones(64), repeats // 4),
            "bandwidth": 2 * source.nbytes / best(np.copyto, target, source)}


def solver_alone(layout, prev: np.ndarray, samples: int = 64) -> float:
    """CPU seconds per game of the compiled solver alone (batched ``solve_matrix_games``,
    saddle check included) on the level's own games, those of ``samples`` (P, k) spread
    over the level; the kernel's time per game minus this is the payoff assembly and the
    loop around the solver."""
    games = sample_games(layout, prev, picks=samples)
    solve_matrix_games(games[:1])
    return timed(solve_matrix_games, games, clock=time.process_time) / len(games)


def cost_model(n_cards: int, kernel: str = "compiled", tries: int = 3) -> None:
    """Per level: the work of its matrix games against this CPU's bound (one core), solved
    by the compiled ``kernel`` ("specialised": compiled for each level's j, before the
    timing), the best CPU time of ``tries`` solves of the level (the median's total is
    printed too).

    A game of level j is j x j.  Its payoff costs 2 j^2 flops (duel * prize + sign * child)
    and gathers j^2 entries of level j-1 (8 B each, from one cached row per (P, k)); the
    saddle check reads it once.  A game that is not a saddle point also pays the
    certificate (x^T X and X y, 4 j^2) and its guess, if it has one (``guess_flops``: the
    elimination or Cramer's rule on a guess of size k, and its solves where it is taken); one
    that its guess does not solve also pays the scaled slack tableau (2 j^2) and the
    tableau (2 (j+1)^2 flops per pivot: one multiply-add per cell).  Not counted: the solves and
    certificate of a guess refused after them, the basis re-solve (3e-5 of the games).
    Bytes: level j-1 read once and the level's values and f_k written once.  Bound =
    max(flops / rate, bytes / bandwidth): with the scalar rate (rows of 5-12 entries leave
    little to vectorise) and the SIMD rate.
    Times are CPU seconds of this process; the rates are the best measured before and after
    the levels, and the levels' times the best of their solves (the cores are shared: the
    best is the nearest to what the CPU can do, as in this script's other comparisons).
    """
    before = machine_rates()
    rows = []
    medians = 0.0
    prev = np.zeros((1, 1))
    for j in range(1, n_cards + 1):
        layout = level_layout(n_cards, j)
        # layout and caches warm, the kernel compiled
        solve_shard(layout, prev, 0, min(layout.n_p, 1), False, kernel=kernel)
        times = []
        for _ in range(tries):
            start = time.process_time()
            result = solve_shard(layout, prev, 0, layout.n_p, False, kernel=kernel)
            times.append(time.process_time() - start)
        if result.games:
            medians += float(np.median(times))
        rows.append((layout, result, min(times), prev.nbytes,
                     solver_alone(layout, prev) if result.games else 0.0))
        prev = result.values
    after = machine_rates()
    rates = {name: max(before[name], after[name]) for name in before}
    print(f"== cost model, N = {n_cards}, values only, kernel {kernel}, one core (CPU "
          f"seconds, best of {tries} solves a level) ==")
    print(f"  this CPU: scalar {rates['scalar'] / 1e9:.2f} Gflop/s, SIMD (64 lanes) "
          f"{rates['simd'] / 1e9:.2f} Gflop/s, memory copy {rates['bandwidth'] / 1e9:.2f} GB/s")
    header = ("j", "decks", "patterns", "games", "saddle %", "LPs guessed %", "pivots/LP",
              "tableau Gflop", "guesses Gflop", "other Gflop (guesses included)",
              "gathered MB", "level j-1 MB", "measured s", "ns/game",
              "solver alone ns/game", "bound s (scalar)", "x bound", "bound s (SIMD)",
              "x bound")
    print_header(header)
    totals = np.zeros(3)  # measured, scalar bound, SIMD bound
    for layout, result, seconds, prev_bytes, solver in rows:
        if not result.games:  # j = N: the one state V = Y, f = 0 without a game
            continue
        j = layout.j
        lps = result.games - result.saddles
        tableau = result.pivots * 2 * (j + 1) ** 2
        guesses = guess_flops(result.guesses)
        flops = game_flops(j, result.games, lps, result.pivots, result.guessed) + guesses
        other = flops - tableau
        gathered = result.games * j * j * 8
        streamed = prev_bytes + result.values.nbytes + result.upcard_values.nbytes
        bounds = [max(flops / rates[rate], streamed / rates["bandwidth"])
                  for rate in ("scalar", "simd")]
        print(f"| {j} | {layout.n_p} | {layout.n_patterns} | {result.games:,} | "
              f"{100 * result.saddles / max(result.games, 1):.0f} | "
              f"{100 * result.guessed / max(lps, 1):.0f} | "
              f"{result.pivots / max(lps, 1):.2f} | {tableau / 1e9:.3g} | "
              f"{guesses / 1e9:.3g} | {other / 1e9:.3g} | "
              f"{gathered / 1e6:.3g} | {prev_bytes / 1e6:.3g} | {seconds:.3g} | "
              f"{1e9 * seconds / max(result.games, 1):.0f} | {1e9 * solver:.0f} | "
              f"{bounds[0]:.3g} | "
              f"{seconds / bounds[0]:.1f} | {bounds[1]:.3g} | {seconds / bounds[1]:.1f} |")
        totals += (seconds, *bounds)
    print(f"  in all {totals[0]:.3g} CPU s against {totals[1]:.3g} s at the scalar bound "
          f"({totals[0] / totals[1]:.2f}x) and {totals[2]:.3g} s at the SIMD bound "
          f"({totals[0] / totals[2]:.2f}x); the median solves' {medians:.3g} CPU s, "
          f"{medians / totals[1]:.2f}x the scalar bound")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 9, 10, 11])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--highs-games", type=int, default=300,
                        help="HiGHS games per level (0: none)")
    parser.add_argument("--previous", default=PREVIOUS_RELEASE, metavar="REV",
                        help="git revision of the kernel to compare with ('none': skip)")
    parser.add_argument("--cost-model", type=int, metavar="N",
                        help="Only the cost model of N's levels (see the module text).")
    parser.add_argument("--kernel", default="compiled", choices=("compiled", "specialised"),
                        help="With --cost-model: the compiled kernel for every j, or "
                             "specialised to each level's j.")
    parser.add_argument("--tries", type=int, default=3,
                        help="With --cost-model: solves a level, the best timed.")
    parser.add_argument("--warm-starts", type=int, metavar="N",
                        help="Only the kernel with and without warm starts, per level of N.")
    parser.add_argument("--lanes", type=int, metavar="N",
                        help="Only numpy's lane kernel against numba's, per level of N.")
    parser.add_argument("--previous-kernel", default="compiled",
                        choices=("compiled", "specialised"),
                        help="With --specialised: which kernel of --previous to time "
                             "('specialised': --previous's kernel specialised to j, "
                             "revisions from 56cdde4 on).")
    parser.add_argument("--specialised", type=int, metavar="N",
                        help="Only the kernel specialised to j against the generic one and "
                             "the previous release's, per level j >= 5 of N.")
    parser.add_argument("--store", metavar="STORE",
                        help="With --specialised or --carried-bases: a finished `subgame run "
                             "gops --cards N` store to read the levels' inputs from.")
    parser.add_argument("--objective", default="points", choices=("points", "win"),
                        help="With --specialised: the objective.")
    parser.add_argument("--shards", type=int, default=4,
                        help="With --specialised: shards timed a level.")
    parser.add_argument("--carried-bases", type=int, metavar="N",
                        help="Only the warm starts' bases carried across consecutive shards "
                             "against shard by shard, per level j >= 5 of N.")
    parser.add_argument("--calls", type=int, default=6,
                        help="With --carried-bases: consecutive shards solved in one call.")
    parser.add_argument("--pipeline", type=int, metavar="N",
                        help="Only the pipeline's cost per level of a `subgame run gops "
                             "--cards N --strategies none` against the in-process kernel.")
    parser.add_argument("--run-options", default="", metavar="'OPTIONS'",
                        help="With --pipeline: more `subgame run` options, e.g. "
                             "'--orchestrate prefect' (a flow run on a local cluster) or "
                             "'--orchestrate none --executor serial'.")
    args = parser.parse_args()
    if args.tries < 1:
        parser.error(f"--tries must be at least 1, not {args.tries}")
    for _ in solve_levels(4, True):  # load the compiled kernels before timing anything
        pass
    if args.cost_model:
        cost_model(args.cost_model, args.kernel, args.tries)
        return
    if args.pipeline:
        pipeline_cost(args.pipeline, args.run_options.split())
        return
    if args.warm_starts:
        warm_start_ab(args.warm_starts)
        return
    if args.lanes:
        lanes_ab(args.lanes)
        return
    if args.specialised:
        specialised_ab(args.specialised, args.objective, args.store,
                       None if args.previous == "none" else previous_kernel(args.previous),
                       args.shards, previous_kernel=args.previous_kernel)
        return
    if args.carried_bases:
        carried_bases_ab(args.carried_bases, args.store, args.calls)
        return
    previous = None if args.previous == "none" else previous_kernel(args.previous)
    machine = machine_rates()
    print(f"this CPU: scalar {machine['scalar'] / 1e9:.2f} Gflop/s, SIMD "
          f"{machine['simd'] / 1e9:.2f} Gflop/s (best of 5, one core)")
    rates: dict[int, list[float]] = {}
    for n_cards in args.sizes:
        serial = serial_solve(n_cards, rates, previous, args.highs_games, machine)
        threaded, cpu = threaded_solve(n_cards, args.threads)
        print(f"  same solve on {args.threads} threads, {SHARDS_PER_THREAD} shards per thread "
              f"and level: {threaded:.2f} s, speed-up {serial / threaded:.2f}x "
              f"(CPU / wall {cpu / threaded:.2f})")
    projection(rates)


if __name__ == "__main__":
    main()
