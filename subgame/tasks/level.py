"""The one Prefect task per level: run the level's pending shards, then finish the level."""

from __future__ import annotations

import time
from typing import Any

from prefect import task
from prefect.cache_policies import NONE

from subgame.plan import Plan
from subgame.storage import LevelStore
from subgame.tasks.executors import Executor, ShardDone


def _sum_metrics(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Shard metrics summed over the level; those named max_* take the maximum."""
    totals: dict[str, Any] = {}
    for result in results:
        for key, value in result.items():
            if key != "shard" and isinstance(value, (int, float)):
                combine = max if key.startswith("max_") else (lambda x, y: x + y)
                totals[key] = combine(totals[key], value) if key in totals else value
    return totals


# No caching and no result persistence: the truth is in the store's markers, and the
# plan (small as it is) must not be hashed or pickled by Prefect on every level.
@task(name="solve-level", cache_policy=NONE, persist_result=False,
      task_run_name="{plan.family} level {level_index}")
def solve_level(url: str, plan: Plan, level_index: int, executor: Executor,
                on_done: ShardDone) -> dict[str, Any]:
    store = LevelStore.open(url, plan.group_path, writable=True)
    level = plan.level(level_index)
    pending = store.pending_shards(level)
    start = time.perf_counter()
    results = executor.run_shards(url, plan, level, pending, on_done)
    seconds = time.perf_counter() - start
    store.finish_level(level, seconds, _sum_metrics(results))
    return {"level": level.name, "shards_computed": len(pending), "seconds": seconds}
