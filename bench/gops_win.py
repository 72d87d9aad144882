"""GOPS under the win objective against the points objective; every ratio compares two
measurements of this run.

1. Whole serial in-process solves of both objectives (kernel called level by level, one
   shard per level, everything in memory; ``--strategies`` to also keep both players'
   bids): matrix games, saddle points, pivots, wall time, their ratios.
2. Policies evaluated exactly (``game.evaluate``) against the optimal player two of each
   objective, on the in-memory strategies: the table of docs/gops.md.
3. The root's first-move strategies of both objectives side by side.

The public C++/GLPK solver's times are quoted, not measured here (its author's machine):
N = 9 under the win objective in 582 s.

    python bench/gops_win.py [--sizes 8 9] [--strategies] [--policies 4 5 6 7 8]
"""

from __future__ import annotations

import argparse
import time


from subgame.families.gops.game import solve_levels
from subgame.families.gops.game.evaluate import POLICIES, StoredStrategies, evaluate

QUOTED = {9: 582.0}  # seconds, win objective, the published C++ solver (quoted)


def solve(n_cards: int, objective: str, with_strategies: bool):
    start = time.perf_counter()
    games = saddles = pivots = 0
    gap = 0.0
    levels = {}
    for layout, result in solve_levels(n_cards, with_strategies, objective):
        games += result.games
        saddles += result.saddles
        pivots += result.pivots
        gap = max(gap, result.max_gap)
        levels[layout.j] = (layout, result)
    return time.perf_counter() - start, games, saddles, pivots, gap, levels


def compare(sizes: list[int], with_strategies: bool) -> None:
    print("== win against points: serial in-process solves"
          f"{' with strategies' if with_strategies else ', values only'} ==")
    solve(4, "points", False), solve(4, "win", False)  # compiled (numba cache), warm
    for n in sizes:
        rows = {objective: solve(n, objective, with_strategies)
                for objective in ("points", "win")}
        for objective, (wall, games, saddles, pivots, gap, _) in rows.items():
            print(f"N={n} {objective:6s} {wall:8.2f} s  {games:>11,d} games  "
                  f"{saddles / games:6.1%} saddles  {pivots / games:4.2f} pivots/game  "
                  f"{wall / games * 1e6:.3f} us/game  max gap {gap:.1e}")
        (pw, pg, *_), (ww, wg, *_) = rows["points"], rows["win"]
        quoted = (f"; quoted C++/GLPK solver, win, its author's machine: {QUOTED[n]:.0f} s"
                  if n in QUOTED else "")
        print(f"N={n} win / points: {wg / pg:.1f}x the games, {ww / pw:.1f}x the time{quoted}")


def policy_table(sizes: list[int]) -> None:
    print("== policies of player one against the optimal player two (exact) ==")
    print("| N | opponent | policy | E[points] | P(win) | P(tie) | P(lose) | exploitability |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        stored = {objective: {j: StoredStrategies(objective, r.strategies, r.strategies_two)
                              for j, (_, r) in solve(n, objective, True)[5].items() if j}
                  for objective in ("points", "win")}
        for objective in ("points", "win"):
            start = time.perf_counter()
            for policy in POLICIES:
                own = policy.split("-", 1)[1] if policy.startswith("optimal-") else None
                e = evaluate(n, policy, objective, stored[objective].__getitem__,
                             stored[own].__getitem__ if own else None)
                print(f"| {n} | {objective} | {policy} | {e.expected_points:+.4f} | "
                      f"{e.p_win:.4f} | {e.p_tie:.4f} | {e.p_lose:.4f} | "
                      f"{e.exploitability:.4f} |")
            print(f"  (N={n} {objective}: {time.perf_counter() - start:.1f} s for "
                  f"{len(POLICIES)} policies)", flush=True)


def first_moves(n_cards: int) -> None:
    print(f"== N={n_cards}: root first-move probabilities, points | win ==")
    tables = {}
    for objective in ("points", "win"):
        levels = solve(n_cards, objective, True)[5]
        layout, result = levels[n_cards]
        strategies = result.strategies[0] if objective == "points" else result.strategies[0, 0]
        tables[objective] = strategies[0]  # the one root pattern V = Y; [upcard, bid]
    print("upcard | " + " ".join(f"{b:>5d}" for b in range(1, n_cards + 1)) + " || "
          + " ".join(f"{b:>5d}" for b in range(1, n_cards + 1)))
    for k in range(n_cards):
        cells = [" ".join(f"{q:5.3f}" if q > 5e-4 else "    ." for q in tables[o][k])
                 for o in ("points", "win")]
        print(f"{k + 1:>6d} | {cells[0]} || {cells[1]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[8, 9])
    parser.add_argument("--strategies", action="store_true")
    parser.add_argument("--policies", type=int, nargs="*", default=[4, 5, 6, 7, 8])
    parser.add_argument("--first-move", type=int, default=9)
    args = parser.parse_args()
    compare(args.sizes, args.strategies)
    if args.first_move:
        first_moves(args.first_move)
    policy_table(args.policies)


if __name__ == "__main__":
    main()
