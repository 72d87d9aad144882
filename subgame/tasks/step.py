"""The one Prefect task per step: the engine's `solve_step`, seen by Prefect."""

from __future__ import annotations

from prefect import task
from prefect.cache_policies import NONE

from subgame.engine import solve_step

# No caching and no result persistence: the truth is in the store's markers, and the
# configuration (small as it is) must not be hashed or pickled by Prefect on every step.
solve_step_task = task(solve_step, name="solve-step", cache_policy=NONE, persist_result=False,
                       task_run_name="{store.group_path} {step.name}")
