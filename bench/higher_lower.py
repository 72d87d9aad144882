"""Higher/lower benchmark: every figure below is measured in this run.

    python bench/higher_lower.py [--seed-n 400] [--float-n 100000] [--exact-n 5000]
                                 [--largest 13x3]

1. The seed's memoised recursion (as given, fresh cache) against the level sweeps at
   --seed-n.  The recursion is O(n^3) (n^2 states, each a mean over n cards, in exact
   rationals inside statistics.mean): about 30 s at n = 400, an hour at n = 2000, so the
   default is 400 and the n = 2000 figure is extrapolated from 100/200/400 unless asked for.
2. The float sweep to --float-n: wall time, P_all, the ratio, E[streak] and their
   extrapolated limits against the closed forms.
3. Exact integer levels to --exact-n: wall time, and the worst relative error of the float
   sweep against them (P_all, ratio, E[streak]).
4. Decks: 13 x 2 and 8 x 4, every policy and tie rule; then the --largest deck (optimal,
   ties lost).  13x4, the real deck, takes minutes and about 5.5 GB.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import threading
import time

import numpy as np

from subgame.families.higher_lower.game import (POLICIES, RATIO_LIMIT, STREAK_LIMIT, TIES, asymptotics,
                                        exact_levels, float_sweep, seed, solve)


def timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def seed_p_all(n: int) -> float:
    """The seed's P_all(n) from a cleared cache; its recursion is n frames deep."""
    seed.P_all_given.cache_clear()
    sys.setrecursionlimit(max(10_000, 20 * n))
    threading.stack_size(1 << 29)
    out = []
    worker = threading.Thread(target=lambda: out.append(seed.P_all(n)))
    worker.start()
    worker.join()
    return out[0]


def last_exact(n: int):
    for level in exact_levels(n):
        pass
    return level


def bench_seed(n: int) -> None:
    print(f"== 1. seed recursion vs level sweeps, n = {n}")
    p_seed, t_seed = timed(seed_p_all, n)
    (table, _), t_float = timed(float_sweep, n)
    exact, t_exact = timed(last_exact, n)
    assert math.isclose(p_seed, float(exact.p_all), rel_tol=1e-12)
    assert math.isclose(table.mantissa[-1] * 2.0 ** table.exponent[-1], p_seed, rel_tol=1e-12)
    print(f"seed recursion {t_seed:9.3f} s   P_all = {p_seed!r}")
    print(f"float sweep    {t_float:9.5f} s   ratio {t_seed / t_float:,.0f}x")
    print(f"exact sweep    {t_exact:9.5f} s   ratio {t_seed / t_exact:,.0f}x")
    if n < 2000:
        sizes = [m for m in (100, 200) if m < n] + [n]
        times = [timed(seed_p_all, m)[1] for m in sizes[:-1]] + [t_seed]
        slope = np.polyfit(np.log(sizes), np.log(times), 1)[0]
        t2000 = t_seed * (2000 / n) ** slope
        (_, _), f2000 = timed(float_sweep, 2000)
        _, e2000 = timed(last_exact, 2000)
        print(f"seed times {dict(zip(sizes, (round(t, 3) for t in times)))}: "
              f"grows like n^{slope:.2f}; extrapolated to n = 2000: {t2000:,.0f} s")
        print(f"n = 2000 measured: float sweep {f2000:.4f} s, exact sweep {e2000:.3f} s; "
              f"ratio (seed extrapolated) {t2000 / f2000:,.0f}x float, {t2000 / e2000:,.0f}x exact")


def bench_float(n: int) -> None:
    print(f"== 2. float sweep to n = {n:,}")
    (table, _), t = timed(float_sweep, n)
    log10 = table.log_p[-1] / math.log(10)
    print(f"wall {t:.2f} s   P_all({n}) = {table.mantissa[-1]:.15f} * 2^{table.exponent[-1]}"
          f" = 10^{log10:.6f}")
    print(f"P_all(n)/P_all(n-1) = {float(table.ratio[-1])!r}   "
          f"E[streak] = {float(table.streak[-1])!r}")
    for name, value in asymptotics(table).items():
        exact = RATIO_LIMIT if name == "ratio" else STREAK_LIMIT
        print(f"limit of {name:6}: {value.limit!r} +- {value.error:.1e}   closed form {exact!r}"
              f"   difference {value.limit - exact:.1e}")


def rel_error(x: float, exponent: int, num: int, den: int) -> float:
    """|x 2^exponent - num/den| / (num/den), in integers: no float range limits."""
    a, b = float(x).as_integer_ratio()
    lhs, rhs = a * den, b * num
    if exponent >= 0:
        lhs <<= int(exponent)
    else:
        rhs <<= int(-exponent)
    return abs(lhs - rhs) / rhs


def bench_exact(n: int) -> None:
    print(f"== 3. exact levels to n = {n:,}")
    start = time.perf_counter()
    counts, streaks = [], []
    for level in exact_levels(n):
        counts.append(level.count)
        streaks.append(level.streak_total)
    t = time.perf_counter() - start
    print(f"wall {t:.1f} s (counts and streak totals, n = 2..{n}); "
          f"C_{n} has {counts[-1].bit_length():,} bits")
    table, _ = float_sweep(n)
    worst = {"P_all": 0.0, "ratio": 0.0, "streak": 0.0}
    factorial = 1
    for i, (count, streak) in enumerate(zip(counts, streaks)):
        m = i + 2
        factorial *= m
        errors = {"P_all": rel_error(table.mantissa[i], table.exponent[i], count, factorial),
                  "streak": rel_error(table.streak[i], 0, streak, factorial)}
        if i:
            errors["ratio"] = rel_error(table.ratio[i], 0, count, m * counts[i - 1])
        for key, value in errors.items():
            worst[key] = max(worst[key], value)
    print("float sweep, worst relative error for n <= {:,}: ".format(n)
          + ", ".join(f"{k} {v:.2e}" for k, v in worst.items()))


def bench_decks(largest: tuple[int, int]) -> None:
    print("== 4. decks (exact DP)")
    for ranks, suits in ((13, 2), (8, 4)):
        for ties in TIES:
            for policy in POLICIES:
                solution, t = timed(solve, ranks, suits, ties, policy)
                print(f"{ranks:2d} x {suits} ties={ties:4} {policy:13} P = {float(solution.p):.6e}"
                      f"  {t:6.2f} s  states {sum(solution.states):,}")
    ranks, suits = largest
    solution, t = timed(solve, ranks, suits, "loss", "optimal")
    print(f"largest: {ranks} x {suits} optimal, ties lost: P = {solution.p.numerator}"
          f" / {solution.p.denominator} = {float(solution.p):.6e}")
    print(f"         {t:.1f} s, {sum(solution.states):,} states "
          f"(largest level {max(solution.states):,})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed-n", type=int, default=400)
    parser.add_argument("--float-n", type=int, default=100_000)
    parser.add_argument("--exact-n", type=int, default=5000)
    parser.add_argument("--largest", default="13x3")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    float_sweep(10), solve(2, 2)  # compile now (cached on disk after the first run)
    bench_seed(args.seed_n)
    bench_float(args.float_n)
    bench_exact(args.exact_n)
    bench_decks(tuple(int(v) for v in args.largest.split("x")))


if __name__ == "__main__":
    main()
