"""The loop every family's flow runs: lock, prepare the store, solve pending levels in order."""

from __future__ import annotations

import logging
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from subgame.clusters import ClusterProfile, resolve_profile
from subgame.errors import InvalidInput, SubgameError
from subgame.plan import Plan
from subgame.storage import LevelStore, resolve_store
from subgame.storage.location import check_store_location
from subgame.storage.integrity import remove_damage
from subgame.storage.lock import StoreLock
from subgame.tasks.executors import DaskExecutor, Executor, SerialExecutor
from subgame.tasks.level import solve_level

EXECUTORS = ("dask", "serial")


class _UserErrorsWithoutTraceback(logging.Filter):
    """A flow run failed by the user's mistake (bad input, a clash, a live lock) logs the
    message, not a traceback: the traceback would only bury the one line that matters."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], SubgameError):
            record.exc_info, record.exc_text = None, None
        return True


logging.getLogger("prefect.flow_runs").addFilter(_UserErrorsWithoutTraceback())


@dataclass(frozen=True)
class RunOptions:
    """Where a run stores its results and who computes them."""

    store: str | None = None
    scheduler: str | None = None
    workers: int | None = None
    executor: str = "dask"
    progress: bool = False
    max_levels: int | None = None  # stop after this many levels (time-boxed runs)
    cluster: str | None = None  # a bundled cluster profile's name or a profile YAML file
    repair: bool = False  # recompute the shards whose chunks fail their checksums first

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise InvalidInput(f"unknown executor {self.executor!r}; choose one of {EXECUTORS}")
        for name in ("workers", "max_levels"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise InvalidInput(f"--{name.replace('_', '-')} must be at least 1, got {value}")
        if self.executor == "serial" and (self.cluster or self.scheduler):
            raise InvalidInput("--cluster and --scheduler choose Dask workers; the serial "
                               "executor computes in this process")
        if self.executor == "dask":
            self.cluster_profile  # a bad profile fails here, before any store is touched

    @cached_property
    def cluster_profile(self) -> ClusterProfile:
        return resolve_profile(self.cluster, self.scheduler, self.workers)

    def probe(self) -> None:
        """Refuse an unusable store location or cluster before a flow run starts (the CLI
        calls this; inside a flow the same mistakes fail the run)."""
        check_store_location(resolve_store(self.store))
        if self.executor == "dask":
            self.cluster_profile.probe()

    def make_executor(self) -> Executor:
        if self.executor == "serial":
            return SerialExecutor()
        return DaskExecutor(self.cluster_profile)


@dataclass
class RunReport:
    computation: str
    store: str
    levels_computed: list[str] = field(default_factory=list)
    levels_skipped: int = 0
    shards_computed: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    repaired: list[str] = field(default_factory=list)  # damage found and reopened (--repair)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _progress(enabled: bool) -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), disable=not enabled, transient=False)


def run_plan(plan: Plan, options: RunOptions) -> RunReport:
    """Solve every level of ``plan`` that the store's markers do not show as finished."""
    url = resolve_store(options.store)
    report = RunReport(plan.group_path, url)
    with ExitStack() as stack:
        stack.enter_context(StoreLock(url, plan.group_path))
        repair = remove_damage(url, plan) if options.repair else None
        store = LevelStore.prepare(url, plan)
        if repair is not None:
            store.reopen(repair.pending)
            report.repaired = [damage.describe() for damage in repair.damages]
        todo = [level for level in plan.levels if not store.level_done(level.index)]
        report.levels_skipped = len(plan.levels) - len(todo)
        todo = todo[:options.max_levels]
        if not todo:
            return report
        executor = options.make_executor()
        stack.callback(executor.close)
        progress = stack.enter_context(_progress(options.progress))
        levels_bar = progress.add_task(f"{plan.group_path} levels", total=len(plan.levels),
                                       completed=report.levels_skipped)
        for level in todo:
            shards_bar = progress.add_task(f"  {level.name} shards", total=level.shards,
                                           completed=level.shards - len(
                                               store.pending_shards(level)))
            result = solve_level(url, plan, level.index, executor,
                                 lambda _metrics, bar=shards_bar: progress.advance(bar))
            progress.remove_task(shards_bar)
            progress.advance(levels_bar)
            report.levels_computed.append(level.name)
            report.shards_computed += result["shards_computed"]
            report.seconds[level.name] = round(result["seconds"], 3)
    return report
