"""Higher/lower card guessing (seed 004): pure kernels for the sweeps.

- :mod:`.distinct`: n distinct cards, the seed's problem.  Exact integer levels
  (n! P_all(n) and n! E[streak]), a scaled float64 sweep to n = 10^5 and beyond, and the
  extrapolated limits.
- :mod:`.decks`: r ranks x s suits, ties lost or passed; exact DP for the optimal, majority
  and always-higher policies.
- :mod:`.montecarlo`: shardable simulation of those policies with Wilson intervals.
- :mod:`.seed`: the seed's own code, the baseline.
- :mod:`.brute_force`: the seed's brute force over all n! orders, as an exact count.

No I/O, no Prefect, Dask or Zarr.
"""

from .brute_force import MAX_BRUTE_FORCE, orders_guessed_all_right
from .decks import POLICIES, TIES, DeckSolution, PolicyTable, policy_table, solve
from .distinct import (FIRST_EXACT, FIRST_FLOAT, RATIO_LIMIT, STREAK_LIMIT, ExactLevel,
                       Extrapolation, FloatLevel, FloatSweep, asymptotics, exact_counts,
                       exact_levels, extrapolate, float_sweep, MIN_SWEEP)
from .montecarlo import MAX_TABLE_ROWS, Estimate, combine, simulate

__all__ = [
    "MAX_BRUTE_FORCE", "orders_guessed_all_right",
    "POLICIES", "TIES", "DeckSolution", "PolicyTable", "policy_table", "solve",
    "FIRST_EXACT", "FIRST_FLOAT", "RATIO_LIMIT", "STREAK_LIMIT", "ExactLevel", "Extrapolation",
    "FloatLevel", "FloatSweep", "asymptotics", "exact_counts", "exact_levels", "extrapolate",
    "float_sweep", "MIN_SWEEP", "MAX_TABLE_ROWS", "Estimate", "combine", "simulate",
]
