"""Executors run a level's pending shards: serially in-process, or fanned out over Dask.

Both call the same ``run_shard``: solve (the plan's function writes the shard's region),
then set the shard's marker. The marker is written after the data, by the process that
wrote the data, so a shard whose marker is set is complete whatever is killed later.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Mapping, Protocol

from subgame.clusters import ClusterProfile
from subgame.plan import Level, Plan
from subgame.storage import LevelStore

ShardDone = Callable[[Mapping[str, Any]], None]


def run_shard(url: str, plan: Plan, level_index: int, shard: int) -> dict[str, Any]:
    metrics = plan.solve_shard(url, plan, level_index, shard)
    LevelStore.open(url, plan.group_path, writable=True).mark_done(level_index, shard)
    return {"shard": shard, **metrics}


class Executor(Protocol):
    name: str

    def run_shards(self, url: str, plan: Plan, level: Level, shards: list[int],
                   on_done: ShardDone) -> list[dict[str, Any]]: ...

    def close(self) -> None: ...


class SerialExecutor:
    """Runs shards one after another in this process: unit tests and debugging."""

    name = "serial"

    def run_shards(self, url, plan, level, shards, on_done):
        results = []
        for shard in shards:
            results.append(run_shard(url, plan, level.index, shard))
            on_done(results[-1])
        return results

    def close(self) -> None:
        pass


class DaskExecutor:
    """Maps shards over the Dask cluster a profile names (local processes by default)."""

    name = "dask"

    def __init__(self, profile: ClusterProfile):
        self.running = profile.start()
        self.client = self.running.client
        # Worker start/stop chatter would drown the progress bar; warnings still show.
        logging.getLogger("distributed").setLevel(logging.WARNING)

    def run_shards(self, url, plan, level, shards, on_done):
        from distributed import as_completed

        workers = sorted(self.client.scheduler_info()["workers"])
        futures = []
        for shard in shards:
            # Affinity keeps shard i on the same worker level after level, so the state the
            # worker cached for shard i's previous level is reused instead of reloaded.
            where = ({"workers": [workers[shard % len(workers)]], "allow_other_workers": True}
                     if level.affinity and workers else {})
            futures.append(self.client.submit(run_shard, url, plan, level.index, shard,
                                              pure=False, **where))
        results = []
        try:
            for future in as_completed(futures):
                results.append(future.result())
                on_done(results[-1])
        finally:
            self.client.cancel([f for f in futures if not f.done()])
        return results

    def close(self) -> None:
        self.running.close()
