"""Guess Who kernel benchmark; every ratio compares two measurements of this run.

1. Both rules to U = --max-n with move sets, band by band (solve_band), timed.
2. A plain vectorised-numpy solver (per level: every cell against every move s at once)
   run to the largest level it reaches in --baseline-seconds per rule; the kernel timed to
   the same level for a measured ratio, the baseline extrapolated as U^3 to --max-n
   (labelled as such) for the ratio there.  The two solutions are compared cell by cell.
3. Each rule alone on a table of --cap (default 16384), until done or until its share of
   --minutes runs out: the largest U reached and its time.
Peak memory is the process's maximum resident set (resource.getrusage).

    python bench/guess_who.py [--max-n 4096] [--minutes 10] [--band 512]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from subgame.families.guess_who import game as gw

NEG = np.iinfo(np.int64).min // 4
BASELINE_CAP = 2048  # its tables and move arrays stay small


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- baseline: the recursion with numpy over s ---------------------------------------------


def _tally(values: np.ndarray, first_move: int):
    """Per row: max, smallest and largest optimal move, count (moves numbered from first_move)."""
    best = values.max(axis=1)
    hit = values == best[:, None]
    width = values.shape[1]
    smin = hit.argmax(axis=1) + first_move
    smax = width - 1 - hit[:, ::-1].argmax(axis=1) + first_move
    return best, smin, smax, hit.sum(axis=1)


def baseline_level(a: np.ndarray, level: int, variant: bool) -> list:
    """Solve level L = ``level`` in place; return [(n, m, smin, smax, count)] arrays."""
    out = []
    big = level
    if level > 1:  # cells (L, k), k < L: row k, moves s against L - s, all k at once
        k = np.arange(1, big, dtype=np.int64)
        rows = a[1:big, 1:big]
        values = big * k[:, None] - rows - rows[:, ::-1]  # column j: s = j + 1
        if variant:
            values[:, 0] = big * k - a[1:big, big - 1]  # s = 1 guesses one character
            first = 1
        else:
            values = np.concatenate([k[:, None], values], axis=1)  # s = 0: final guess
            first = 0
        best, smin, smax, count = _tally(values, first)
        a[big, 1:big] = best
        out.append((np.full_like(k, big), k, smin, smax, count))
    # cells (n, L), n <= L: row L, every n at once, moves s < n
    n = np.arange(1, big + 1, dtype=np.int64)
    s = np.arange(1, max(big, 2), dtype=np.int64)
    rest = n[:, None] - s[None, :]
    row = a[big]
    values = np.where(rest >= 1, n[:, None] * big - row[s][None, :] - row[np.maximum(rest, 0)], NEG)
    if variant:
        values[:, 0] = np.where(n > 1, n * big - row[np.maximum(n - 1, 0)], big)
        first = 1
    else:
        values = np.concatenate([np.full((big, 1), big, np.int64), values], axis=1)
        first = 0
    best, smin, smax, count = _tally(values, first)
    a[1 : big + 1, big] = best
    out.append((n, np.full_like(n, big), smin, smax, count))
    return out


def run_baseline(rules: str, seconds: float, cap: int):
    """Levels 1, 2, ... until ``seconds`` pass or level ``cap``: (levels, time, table, moves)."""
    a = gw.new_table(cap)
    moves = np.zeros((3, cap + 1, cap + 1), np.int32)
    start = time.perf_counter()
    level = 0
    while level < cap and time.perf_counter() - start < seconds:
        level += 1
        for n, m, smin, smax, count in baseline_level(a, level, rules == "variant"):
            moves[:, n, m] = smin, smax, count
    return level, time.perf_counter() - start, a, moves


# --- the kernel ------------------------------------------------------------------------------


def run_kernel(rules: str, size: int, band: int, deadline: float = float("inf"), keep=False):
    """solve_band over 1..size in bands; stops after the band that passes ``deadline``."""
    a = gw.new_table(size)
    moves = np.zeros((3, size + 1, size + 1), np.int32) if keep else None
    start, cpu = time.perf_counter(), time.process_time()
    hi = 0
    while hi < size and time.perf_counter() < deadline:
        lo, hi = hi + 1, min(size, hi + band)
        result = gw.solve_band(a, lo, hi, rules)
        if keep:
            for i, field in enumerate(("min", "max", "count")):
                moves[i, lo : hi + 1, 1 : hi + 1] = getattr(result, f"bottom_{field}")
                moves[i, 1:lo, lo : hi + 1] = getattr(result, f"right_{field}")
    return hi, time.perf_counter() - start, time.process_time() - cpu, a, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=4096)
    parser.add_argument("--minutes", type=float, default=10.0, help="budget of stage 3")
    parser.add_argument("--band", type=int, default=512, help="levels per solve_band call")
    parser.add_argument("--baseline-seconds", type=float, default=60.0, help="per rule")
    parser.add_argument("--cap", type=int, default=16384, help="table size of stage 3")
    args = parser.parse_args()

    start = time.perf_counter()
    for rules in gw.RULES:
        run_kernel(rules, 64, 16)
    print(f"numba load/compile: {time.perf_counter() - start:.1f} s")

    print(f"\n== 1. kernel to U = {args.max_n}, both rules, move sets, bands of {args.band} ==")
    kernel_wall = {}
    for rules in gw.RULES:
        _, wall, cpu, a, _ = run_kernel(rules, args.max_n, args.band)
        kernel_wall[rules] = wall
        print(f"{rules:9s} {wall:7.2f} s wall  {cpu:7.2f} s cpu  "
              f"p({args.max_n},{args.max_n}) = {a[-1, -1] / args.max_n**2:.6f}")
        del a
    print(f"both rules: {sum(kernel_wall.values()):.2f} s   peak RSS {peak_rss_mib():.0f} MiB")

    print(f"\n== 2. plain vectorised numpy, {args.baseline_seconds:.0f} s per rule ==")
    for rules in gw.RULES:
        level, base_time, a_base, moves_base = run_baseline(
            rules, args.baseline_seconds, min(args.max_n, BASELINE_CAP))
        _, kern_time, _, a_kern, moves_kern = run_kernel(rules, level, args.band, keep=True)
        same = np.array_equal(a_base[: level + 1, : level + 1], a_kern) and np.array_equal(
            moves_base[:, : level + 1, : level + 1], moves_kern)
        print(f"{rules:9s} numpy reached U = {level} in {base_time:.1f} s; kernel {kern_time:.3f} s"
              f" -> measured ratio {base_time / kern_time:.0f}x (identical: {same})")
        projected = base_time * (args.max_n / level) ** 3
        print(f"{'':9s} numpy extrapolated (U^3) to U = {args.max_n}: {projected:.0f} s;"
              f" kernel (stage 1) {kernel_wall[rules]:.2f} s"
              f" -> ratio ~{projected / kernel_wall[rules]:.0f}x")
        del a_base, moves_base, a_kern, moves_kern

    print(f"\n== 3. each rule on a table of {args.cap}, {args.minutes:.1f} min in all ==")
    deadline = time.perf_counter() + 60 * args.minutes
    for i, rules in enumerate(gw.RULES):
        share = time.perf_counter() + (deadline - time.perf_counter()) / (len(gw.RULES) - i)
        reached, wall, cpu, _, _ = run_kernel(rules, args.cap, args.band, deadline=share)
        done = "done" if reached == args.cap else "budget spent"
        print(f"{rules:9s} U = {reached} ({done}) in {wall:.1f} s wall, {cpu:.1f} s cpu;"
              f" peak RSS {peak_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
