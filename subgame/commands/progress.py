"""The terminal's progress display, a listener the CLI attaches to a run (the engine draws
nothing itself)."""

from __future__ import annotations

from typing import Any, Mapping

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)
from rich.table import Column

from subgame.engine import RunListener
from subgame.plan import Step


class ProgressDisplay(RunListener):
    """Steps, and the shards of the current step, with elapsed time and rich's estimate of
    the time left from the recent pace: good within a step's shards, optimistic across
    steps, which grow with the level."""

    progress: Progress | None = None

    def __init__(self, console: Console | None = None) -> None:
        self.console = console  # (rich's own, the terminal, when None)

    def run_started(self, computation: str, steps: int, steps_done: int) -> None:
        # Plain text, not markup: a computation's name is no rich markup (nor emoji code).
        # A long name gives way (an ellipsis), never the counts and times.
        fixed = {"no_wrap": True, "overflow": "crop"}
        self.progress = Progress(
            TextColumn("{task.description}", markup=False, table_column=Column(
                no_wrap=True, overflow="ellipsis", ratio=1, min_width=8)),
            BarColumn(bar_width=16, table_column=Column(width=16, **fixed)),
            MofNCompleteColumn(table_column=Column(min_width=9, justify="right", **fixed)),
            TimeElapsedColumn(table_column=Column(width=8, **fixed)),
            TextColumn("eta", markup=False, table_column=Column(width=3, **fixed)),
            TimeRemainingColumn(table_column=Column(width=8, **fixed)),
            expand=True, transient=False, console=self.console)
        self.progress.start()
        self.steps = self.progress.add_task(f"{computation} steps", total=steps,
                                            completed=steps_done)

    def step_started(self, stage: str, step: Step, pending: int) -> None:
        self.shards = self.progress.add_task(f"  {stage} {step.name} shards",
                                             total=step.shards,
                                             completed=step.shards - pending)

    def shard_done(self, step: Step, metrics: Mapping[str, Any]) -> None:
        self.progress.advance(self.shards, metrics["shards"])

    def step_finished(self, step: Step, result: Mapping[str, Any]) -> None:
        self.progress.remove_task(self.shards)
        self.progress.advance(self.steps)

    def steps_known(self, steps: int) -> None:
        (task,) = [task for task in self.progress.tasks if task.id == self.steps]
        self.progress.update(self.steps, total=max(steps, task.total or 0))

    def run_finished(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None
