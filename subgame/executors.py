"""Executors run a step's pending shards: serially in-process, on a thread per core
in-process (stages whose solver releases the GIL), or fanned out over Dask.

All call the same ``run_shard``: solve (the stage's function writes the shard's region, or
a batch's), then set the markers. A marker is written after the data, by the process that
wrote the data, so a shard whose marker is set is complete whatever is killed later.

A shard solver whose work falls into parts that do not depend on each other may hand them
to ``map_parts``: on the thread executor's helper threads, so that a level's last shards
(fewer than the threads) still use every core; elsewhere in the shard's own thread.
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any, Callable, Mapping, Protocol, Sequence

from subgame.clusters import ClusterProfile
from subgame.plan import ShardSolver, ShardTask

ShardDone = Callable[[Mapping[str, Any]], None]
_HELPERS: list[ThreadPoolExecutor] = []  # the open thread executors' pools for parts


def map_parts(solve_part: Callable[[Any], Any], parts: Sequence[Any]) -> list[Any]:
    """``solve_part`` of each part, in order: on the helper threads of this process's
    thread executor when one is open (its shards' threads wait while the helpers compute,
    so the cores stay as many as the threads), else one after another in this thread (a
    serial run; a Dask worker, whose cores are its cluster's to share out)."""
    if not _HELPERS or len(parts) < 2:
        return [solve_part(part) for part in parts]
    return list(_HELPERS[-1].map(solve_part, parts))


def run_shard(solve_shard: ShardSolver, task: ShardTask) -> dict[str, Any]:
    """Open the store once (the solver reads and writes through it), solve, then mark the
    task's shards (a batch's once all its data is written)."""
    from subgame.storage.computation import ComputationStore

    store = ComputationStore.open(task.url, task.group_path, writable=True)
    metrics = solve_shard(task, store)
    for shard in range(task.shard, task.shard + task.shards):
        store.mark_done(task.step.index, shard)
    return {"shard": task.shard, "shards": task.shards, **metrics}


class Executor(Protocol):
    name: str
    in_process: bool  # the shards run in this process (its CPU time is theirs and Zarr's)

    def run_shards(self, solve_shard: ShardSolver, tasks: list[ShardTask],
                   on_done: ShardDone) -> list[dict[str, Any]]: ...

    def close(self) -> None: ...


class SerialExecutor:
    """Runs shards one after another in this process: unit tests and debugging."""

    name = "serial"
    in_process = True

    def run_shards(self, solve_shard, tasks, on_done):
        results = []
        for task in tasks:
            results.append(run_shard(solve_shard, task))
            on_done(results[-1])
        return results

    def close(self) -> None:
        pass


class ThreadExecutor:
    """Runs shards on a pool of threads in this process, one per core: for stages whose
    shard solver releases the GIL (``Stage.threads``: a compiled ``nogil`` kernel), this
    uses every core without a cluster's start-up, its workers' imports and compiled-code
    loads, or a second copy of what a worker caches (a GOPS level's layout is built once
    and shared). Each shard is computed exactly as the serial executor computes it, so the
    store's bytes do not depend on the executor.  A shard may hand independent parts of
    its work to as many helper threads (``map_parts``)."""

    name = "threads"
    in_process = True

    def __init__(self, threads: int | None = None):
        threads = threads or os.cpu_count() or 1
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="shard")
        self.helpers = ThreadPoolExecutor(threads, thread_name_prefix="part")
        _HELPERS.append(self.helpers)

    def run_shards(self, solve_shard, tasks, on_done):
        running = {self.pool.submit(run_shard, solve_shard, task) for task in tasks}
        results = []
        try:
            while running:
                # Short waits: the main thread takes a Ctrl-C (interrupts) between them.
                done, running = wait(running, timeout=0.5, return_when=FIRST_COMPLETED)
                for future in done:
                    results.append(future.result())
                    on_done(results[-1])
        finally:
            for future in running:
                future.cancel()  # those not started; the running ones finish (close)
        return results

    def close(self) -> None:
        # A shard already running finishes and marks itself before the run's lock is
        # released (the engine closes its executor first); those not started are dropped.
        # The helpers go last: a running shard may still be waiting for its parts.
        self.pool.shutdown(wait=True, cancel_futures=True)
        if self.helpers in _HELPERS:
            _HELPERS.remove(self.helpers)
        self.helpers.shutdown(wait=True)


class DaskExecutor:
    """Maps shards over the Dask cluster a profile names (local processes by default)."""

    name = "dask"
    in_process = False

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
        if self.running is not None:  # the run that took it closes it; its starter may too
            self.running.close()
            self.running = None
