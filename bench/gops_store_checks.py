"""Checks that back a finished GOPS store (points objective), read through the public reader.

1. The root's games: the pipeline stores f = f_k = 0 at the root by antisymmetry
   (f(Y, V, P) = -f(V, Y, P), so V = Y gives 0) without using a solved value.  Here each
   root game X^k is rebuilt from the stored level N-1 and solved by scipy's HiGHS: its
   value must be 0, and the stored optimal bids of each player must guarantee it
   (player one: min over bids of x^T X >= -tolerance; player two: max of X y <=
   tolerance).  Both players' stored bids are also compared: the row strategy (the LP's
   duals) and the column strategy (its primal) are computed apart.
2. Certificates: per level the largest certified gap g_hi - g_lo the run recorded
   (``steps_done``), against the 1e-9 tolerance.
3. ``--samples`` random states at each level j <= ``--max-level`` against the explicit-set
   recursion with every matrix game solved by scipy's HiGHS (tests/gops_reference.py,
   independent of the patterns, ranks and solver of the pipeline), and each one's mirror
   f(Y, V, P) = -f(V, Y, P).

4. The previous release's kernel (``--previous REV``, default the 0.3 kernel's 8742bf9, taken
   from git as `bench/gops.py --previous` does; ``none`` skips it): per level j = 2..N-1,
   ``--windows`` runs of ``--window-rows`` random consecutive decks are solved again by it
   from the stored rows of level j-1 they read, and their values must equal the stored
   ones within the two kernels' certified gaps (each value is within half its game's gap
   of the game's value; a value is an average of its games').

    python bench/gops_store_checks.py --store S --cards 14 [--samples 30 --max-level 4]
                                      [--previous 8742bf9 --windows 2 --window-rows 16]

Exits 1, naming them, if any check fails (values against 1e-9; the float32 bids' guarantees
against 1e-5).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np
import zarr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from subgame.families.gops.game import level_layout, payoff_matrices  # noqa: E402
from subgame.families.gops.plan import group_path  # noqa: E402
from subgame.families.gops.read import query_state  # noqa: E402
from bench.gops import PREVIOUS_RELEASE, previous_kernel  # noqa: E402
from tests import gops_reference as reference  # noqa: E402

TOLERANCE = 1e-9
BIDS_TOLERANCE = 1e-5  # stored float32 probabilities: about 1e-7 of payoffs up to ~100


def random_state(rng: random.Random, cards: int, j: int) -> tuple[tuple, tuple, tuple]:
    """Hands and prizes of j cards each, drawn from 1..N independently."""
    deck = range(1, cards + 1)
    return tuple(tuple(sorted(rng.sample(deck, j))) for _ in range(3))


def previous_kernel_agrees(group, n: int, gaps: dict[int, float], args, rng) -> bool:
    """Check 4: windows of decks of every level solved again by the previous kernel."""
    old = previous_kernel(args.previous)
    worst_excess = worst = 0.0
    for j in range(2, n):
        layout = old.level_layout(n, j)
        below, stored = group[f"j{j - 1}/values"], group[f"j{j}/values"]
        for _ in range(args.windows):
            p_lo = rng.randrange(layout.n_p)
            p_hi = min(p_lo + args.window_rows, layout.n_p)
            ranks = old.previous_rows(layout, p_lo, p_hi)
            again = old.solve_shard(layout, below.oindex[ranks], p_lo, p_hi, False, False,
                                    ranks)
            difference = np.abs(stored[p_lo:p_hi].reshape(again.values.shape) - again.values)
            worst = max(worst, float(difference.max()))
            worst_excess = max(worst_excess,
                               float(difference.max()) - (gaps[j] + again.max_gap) / 2)
    print(f"{args.windows} windows of {args.window_rows} decks at each level j = 2..{n - 1} "
          f"solved again by kernel {args.previous} from the stored level below: largest "
          f"|stored - previous kernel| = {worst:.1e}, "
          f"{'within' if worst_excess <= 0 else 'BEYOND'} the certified gaps")
    return worst_excess <= 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--cards", type=int, required=True)
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--max-level", type=int, default=4)
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--previous", default=PREVIOUS_RELEASE)
    parser.add_argument("--windows", type=int, default=2)
    parser.add_argument("--window-rows", type=int, default=16)
    args = parser.parse_args()
    n = args.cards
    full = list(range(1, n + 1))

    group = zarr.open_group(args.store, mode="r", use_consolidated=False)[group_path(n, "points")]
    root = query_state(args.store, n, full, full, full)
    below = group[f"j{n - 1}/values"][...]
    games = np.concatenate([payoff_matrices(level_layout(n, n), below, 0, k) for k in range(n)])
    highs = np.array([reference.highs_game(game)[0] for game in games])
    failed = [] if np.abs(highs).max() <= TOLERANCE else ["root games' HiGHS values"]
    print(f"root: stored f = {root['value']:.3e}; its {n} games rebuilt from level {n - 1} "
          f"and solved by HiGHS: largest |value| = {np.abs(highs).max():.1e}")
    if root["bids"] is not None:
        one = np.array([[root["bids"][str(k)]["player_one"][str(b)] for b in full]
                        for k in full])
        two = np.array([[root["bids"][str(k)]["player_two"][str(b)] for b in full]
                        for k in full])
        guarantee = min((one[k] @ games[k]).min() for k in range(n))
        concede = max((games[k] @ two[k]).max() for k in range(n))
        if min(guarantee, -concede) < -BIDS_TOLERANCE or np.abs(one - two).max() > BIDS_TOLERANCE:
            failed.append("root bids")
        print(f"root: player one's stored bids guarantee >= {guarantee:.1e}, player two's "
              f"concede <= {concede:.1e} (float32 storage); largest difference between "
              f"the two players' bid probabilities {np.abs(one - two).max():.1e}")
    done = group.attrs["steps_done"]
    gaps = {int(step) + 1: entry["computed"]["max_gap"] for step, entry in done.items()}
    print("certified gap per level: " + ", ".join(f"j={j}: {gap:.1e}"
                                                  for j, gap in sorted(gaps.items())))
    print(f"largest {max(gaps.values()):.1e} (tolerance {TOLERANCE:g})")
    if max(gaps.values()) > TOLERANCE:
        failed.append("certificates")

    rng = random.Random(args.seed)
    worst = worst_mirror = 0.0
    for j in range(1, args.max_level + 1):
        for _ in range(args.samples):
            v, y, p = random_state(rng, n, j)
            stored = query_state(args.store, n, v, y, p)["value"]
            mirror = query_state(args.store, n, y, v, p)["value"]
            worst = max(worst, abs(stored - reference.value(v, y, p)))
            worst_mirror = max(worst_mirror, abs(stored + mirror))
    print(f"{args.samples} random states at each level j = 1..{args.max_level} (seed "
          f"{args.seed}): largest |stored - explicit HiGHS recursion| = {worst:.1e}, "
          f"largest |f(V, Y, P) + f(Y, V, P)| = {worst_mirror:.1e}")
    if max(worst, worst_mirror) > TOLERANCE:
        failed.append("random states")
    if args.previous != "none" and not previous_kernel_agrees(group, n, gaps, args, rng):
        failed.append(f"values against kernel {args.previous}")
    if failed:
        sys.exit(f"FAILED: {', '.join(failed)}")
    print("all checks passed")


if __name__ == "__main__":
    main()
