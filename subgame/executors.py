"""Executors run a step's pending shards: serially in-process, or fanned out over Dask.

Both call the same ``run_shard``: solve (the stage's function writes the shard's region),
then set the shard's marker. The marker is written after the data, by the process that
wrote the data, so a shard whose marker is set is complete whatever is killed later.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Mapping, Protocol

from subgame.clusters import ClusterProfile
from subgame.plan import ShardSolver, ShardTask

ShardDone = Callable[[Mapping[str, Any]], None]


def run_shard(solve_shard: ShardSolver, task: ShardTask) -> dict[str, Any]:
    """Open the store once (the solver reads and writes through it), solve, then mark."""
    from subgame.storage.computation import ComputationStore

    store = ComputationStore.open(task.url, task.group_path, writable=True)
    metrics = solve_shard(task, store)
    store.mark_done(task.step.index, task.shard)
    return {"shard": task.shard, **metrics}


class Executor(Protocol):
    name: str

    def run_shards(self, solve_shard: ShardSolver, tasks: list[ShardTask],
                   on_done: ShardDone) -> list[dict[str, Any]]: ...

    def close(self) -> None: ...


class SerialExecutor:
    """Runs shards one after another in this process: unit tests and debugging."""

    name = "serial"

    def run_shards(self, solve_shard, tasks, on_done):
        results = []
        for task in tasks:
            results.append(run_shard(solve_shard, task))
            on_done(results[-1])
        return results

    def close(self) -> None:
        pass


class DaskExecutor:
    """Maps shards over the Dask cluster a profile names (local processes by default)."""

    name = "dask"

    def __init__(self, profile: ClusterProfile):
        import distributed  # noqa: F401 - importing it sets its loggers' levels; ours follow

        # The scheduler's and nannies' chatter (they live in this process for a local
        # cluster) would drown the progress bar; warnings still show.
        logging.getLogger("distributed").setLevel(logging.WARNING)
        self.running = profile.start()
        self.client = self.running.client

    def run_shards(self, solve_shard, tasks, on_done):
        from distributed import as_completed

        workers = sorted(self.client.scheduler_info()["workers"])
        futures = []
        for task in tasks:
            # Affinity keeps shard i on the same worker step after step, so the state the
            # worker cached for shard i's previous step is reused instead of reloaded.
            where = ({"workers": [workers[task.shard % len(workers)]],
                      "allow_other_workers": True}
                     if task.step.affinity and workers else {})
            futures.append(self.client.submit(run_shard, solve_shard, task, pure=False,
                                              **where))
        results = []
        try:
            for future in as_completed(futures, loop=self.client.loop):
                results.append(future.result())
                on_done(results[-1])
        finally:
            self.client.cancel([f for f in futures if not f.done()])
        return results

    def close(self) -> None:
        self.running.close()
