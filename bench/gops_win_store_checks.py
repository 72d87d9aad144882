"""Checks that back a GOPS store of the win objective, read through the public reader, on
the levels it has finished (a run still under way is checked as far as it got).

1. Certificates: per finished level the largest certified gap the run recorded
   (``steps_done``), against the 1e-9 tolerance.
2. ``--samples`` random states (V, Y, P, d) at each level j <= ``--max-level``, d drawn
   from |d| <= sum(P) + 1 (the states whose outcome is still open, and the first decided
   ones), against the explicit-set recursion with every matrix game solved by scipy's
   HiGHS (tests/gops_reference.py: no patterns, ranks, saturation or antisymmetry), and
   each one's mirror f(Y, V, P, -d) = -f(V, Y, P, d).

    python bench/gops_win_store_checks.py --store S --cards 11 [--samples 30 --max-level 4]

Exits 1, naming them, if any check fails.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import zarr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from subgame.families.gops.plan import group_path  # noqa: E402
from subgame.families.gops.read import query_state  # noqa: E402
from bench.gops_store_checks import random_state  # noqa: E402
from tests import gops_reference as reference  # noqa: E402

TOLERANCE = 1e-9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--cards", type=int, required=True)
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--max-level", type=int, default=4)
    parser.add_argument("--seed", type=int, default=20261206)
    args = parser.parse_args()
    n = args.cards
    group = zarr.open_group(args.store, mode="r", use_consolidated=False)[group_path(n, "win")]
    done = group.attrs.get("steps_done", {})
    gaps = {int(step) + 1: entry["computed"]["max_gap"] for step, entry in done.items()}
    print("certified gap per finished level: " +
          ", ".join(f"j={j}: {gap:.1e}" for j, gap in sorted(gaps.items())))
    failed = ["certificates"] if max(gaps.values()) > TOLERANCE else []

    rng = random.Random(args.seed)
    worst = worst_mirror = 0.0
    levels = [j for j in range(1, args.max_level + 1) if j in gaps]
    for j in levels:
        for _ in range(args.samples):
            v, y, p = random_state(rng, n, j)
            reach = min(n * (n + 1) // 2 - sum(p), sum(p) + 1)
            d = rng.randint(-reach, reach)
            stored = query_state(args.store, n, v, y, p, objective="win", diff=d)["value"]
            mirror = query_state(args.store, n, y, v, p, objective="win", diff=-d)["value"]
            worst = max(worst, abs(stored - reference.value(v, y, p, d)))
            worst_mirror = max(worst_mirror, abs(stored + mirror))
    print(f"{args.samples} random states (V, Y, P, d) at each level j = {levels} (seed "
          f"{args.seed}): largest |stored - explicit HiGHS recursion| = {worst:.1e}, "
          f"largest |f(V, Y, P, d) + f(Y, V, P, -d)| = {worst_mirror:.1e}")
    if max(worst, worst_mirror) > TOLERANCE:
        failed.append("random states")
    if failed:
        print(f"FAILED: {', '.join(failed)}")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
