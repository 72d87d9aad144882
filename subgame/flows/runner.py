"""The loop every family's flow runs: lock, prepare the store, solve pending levels in order."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from subgame.errors import InvalidInput
from subgame.plan import Plan
from subgame.storage import LevelStore, resolve_store
from subgame.storage.lock import StoreLock
from subgame.tasks.executors import DaskExecutor, Executor, SerialExecutor
from subgame.tasks.level import solve_level

EXECUTORS = ("dask", "serial")


@dataclass(frozen=True)
class RunOptions:
    """Where a run stores its results and who computes them."""

    store: str | None = None
    scheduler: str | None = None
    workers: int | None = None
    executor: str = "dask"
    progress: bool = False
    max_levels: int | None = None  # stop after this many levels (time-boxed runs)

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise InvalidInput(f"unknown executor {self.executor!r}; choose one of {EXECUTORS}")
        for name in ("workers", "max_levels"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise InvalidInput(f"--{name.replace('_', '-')} must be at least 1, got {value}")

    def make_executor(self) -> Executor:
        if self.executor == "serial":
            return SerialExecutor()
        return DaskExecutor(self.scheduler, self.workers)


@dataclass
class RunReport:
    computation: str
    store: str
    levels_computed: list[str] = field(default_factory=list)
    levels_skipped: int = 0
    shards_computed: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

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
        store = LevelStore.prepare(url, plan)
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
