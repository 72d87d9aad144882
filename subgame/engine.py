"""The engine: run a computation's plan with an executor. No Prefect here.

    refuse (bad store, clashing identity, live lock, bad cluster)   nothing written yet
    -> lock -> repair (--repair) -> prepare the store (arrays, steps, markers)
    -> for each stage, for each unfinished step: solve_step (pending shards -> executor)

The Prefect flow (`subgame.flows.run`) calls `run_computation` with `solve_step` wrapped as
a Prefect task; tests and embedders call it as it is.
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)

from subgame import interrupts
from subgame.family import ComputationConfig
from subgame.options import RunOptions
from subgame.plan import LaterStage, Plan, ShardSolver, ShardTask, Stage, Step
from subgame.storage import ComputationStore, resolve_store
from subgame.storage.integrity import repair_damage, restore_groups
from subgame.storage.location import check_store_location, publish_metadata
from subgame.storage.lock import StoreLock
from subgame.tasks.executors import DaskExecutor, Executor, SerialExecutor, ShardDone

if TYPE_CHECKING:
    from subgame.estimate import RunEstimate


@dataclass
class RunReport:
    computation: str
    store: str
    steps_computed: list[str] = field(default_factory=list)
    steps_skipped: int = 0
    shards_computed: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    repaired: list[str] = field(default_factory=list)  # damage found and reopened (--repair)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _sum_metrics(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Shard metrics summed over the step; those named max_* take the maximum."""
    totals: dict[str, Any] = {}
    for result in results:
        for key, value in result.items():
            if key != "shard" and isinstance(value, (int, float)):
                combine = max if key.startswith("max_") else (lambda x, y: x + y)
                totals[key] = combine(totals[key], value) if key in totals else value
    return totals


def solve_step(store: ComputationStore, config: Any, step: Step, solve_shard: ShardSolver,
               executor: Executor, on_done: ShardDone) -> dict[str, Any]:
    """Run a step's pending shards, then record the step as finished (driver only)."""
    pending = store.pending_shards(step)
    start = time.perf_counter()
    results = executor.run_shards(
        solve_shard, [ShardTask(store.url, store.group_path, config, step, shard)
                      for shard in pending], on_done)
    seconds = time.perf_counter() - start
    store.finish_step(step, seconds, _sum_metrics(results))
    return {"shards_computed": len(pending), "seconds": seconds}


def make_executor(options: RunOptions) -> Executor:
    if options.executor == "serial":
        return SerialExecutor()
    return DaskExecutor(options.cluster_profile())


def _progress(enabled: bool) -> Progress:
    # The remaining time is rich's estimate from the recent pace: good within a step's
    # shards, optimistic across steps, which grow with the level.
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                    disable=not enabled, transient=False)


def refuse_early(config: ComputationConfig, options: RunOptions
                 ) -> tuple[str, ComputationConfig, Mapping[str, Any] | None]:
    """Every refusal a run can meet before it writes anything or starts a cluster: a bad
    store location, a clashing identity, a live lock, an unusable cluster, new data or a
    worker's peak memory beyond what is free (unless --force; --dry-run prints them).
    Returns the store URL, the configuration grown to the stored extent (a run never
    shrinks a store) and the stored attributes (None before the first run)."""
    url = resolve_store(options.store)
    check_store_location(url)
    if options.repair and not options.dry_run:  # before any group's metadata is read
        restore_groups(url, config.group_path(), config.identity(), config.extent())
    stored = ComputationStore.stored_attrs(url, config.group_path())
    ComputationStore.check_identity(url, config.group_path(), config.identity(), stored)
    StoreLock(url, config.group_path()).check()
    if options.executor == "dask":
        options.cluster_profile().probe()
    grown = config if stored is None else config.covering(stored["extent"])
    if not (options.force or options.dry_run or finished(grown, stored, options)):
        # Imported here: its byte units are dask's, 0.2 s of imports that a run finding
        # everything stored does not pay.
        from subgame.estimate import estimate_run

        estimate_run(url, grown, stored, options).refuse_unfit()
    return url, grown, stored


def finished(grown: ComputationConfig, stored: Mapping[str, Any] | None,
             options: RunOptions) -> bool:
    """The store holds this extent and its last run ended with every step finished."""
    return not options.repair and stored is not None and bool(stored.get("complete")) and \
        grown.extent() == stored["extent"]  # a larger extent: there is new work


def dry_run(config: ComputationConfig, options: RunOptions) -> "RunEstimate":
    """What a run would compute and need, refused as every run is; writes nothing and
    starts nothing."""
    from subgame.estimate import estimate_run

    return estimate_run(*refuse_early(config, options), options)


def already_complete(config: ComputationConfig, options: RunOptions
                     ) -> RunReport | None:
    """The report of a run with nothing to do, read from attributes alone (no plan, no
    Prefect, no Dask), or None when there may be work: the store holds this identity,
    covers this extent, and its last run ended with every step finished. Refuses first,
    as every run does."""
    url, grown, stored = refuse_early(config, options)
    if not finished(grown, stored, options):
        return None
    return RunReport(config.group_path(), url, steps_skipped=len(stored["steps"]))


def run_computation(config: ComputationConfig, options: RunOptions,
                    solve_step: Callable[..., dict[str, Any]] = solve_step) -> RunReport:
    """Solve every step of the computation that the store's markers do not show finished."""
    url, config, _ = refuse_early(config, options)
    plan = config.plan()
    report = RunReport(plan.group_path, url)
    with ExitStack() as stack:
        stack.enter_context(StoreLock(url, plan.group_path))
        store = ComputationStore.create(url, plan.group_path, plan.family, config.identity(),
                                        config.extent())
        # However the run ends, readers other than subgame (xarray) get the metadata as left.
        stack.callback(publish_metadata, url)
        store.group.attrs["complete"] = False  # until every step of every stage is done
        if options.repair:
            report.repaired = [damage.describe() for damage in repair_damage(store, plan)]
        prepare(store, plan)
        publish_metadata(url)  # the arrays as sized for this run
        executor: Executor | None = None
        progress = stack.enter_context(_progress(options.progress))
        known = store.group.attrs["steps"]  # a later stage adds its steps once built
        bar = progress.add_task(f"{plan.group_path} steps", total=len(known),
                                completed=sum(store.step_done(s["index"]) for s in known))
        for stage, step in pending_steps(store, plan, report):
            pending = len(store.pending_shards(step))
            if pending <= 1 and options.executor == "dask" and \
                    options.cluster_profile().kind == "local":
                chosen: Executor = SerialExecutor()  # a cluster would only add start-up
            else:
                if executor is None:  # started for the first step with work to share
                    executor = make_executor(options)
                    stack.callback(executor.close)
                chosen = executor
            shards = progress.add_task(f"  {stage.name} {step.name} shards", total=step.shards,
                                       completed=step.shards - pending)
            result = solve_step(store, config, step, stage.solve_shard, chosen,
                                lambda _metrics, bar=shards: progress.advance(bar))
            progress.remove_task(shards)
            progress.advance(bar)
            interrupts.step_finished()
            report.steps_computed.append(step.name)
            report.shards_computed += result["shards_computed"]
            report.seconds[step.name] = round(result["seconds"], 3)
            if len(report.steps_computed) == options.max_steps:
                break
        else:
            store.group.attrs["complete"] = all(
                store.step_done(step["index"]) for step in store.group.attrs["steps"])
    return report


def prepare(store: ComputationStore, plan: Plan) -> None:
    """Driver only, under the lock: create or grow every array and step known up front. A
    step whose extent grew is reopened, and stages built from earlier results are rebuilt."""
    known = [stage for stage in plan.stages if isinstance(stage, Stage)]
    later = [stage.name for stage in plan.stages if isinstance(stage, LaterStage)]
    if store.steps_differ((stage.name, step) for stage in known for step in stage.steps):
        store.discard_stages(later)  # before their step numbers are taken by new steps
    for stage in known:
        recreated = store.ensure_arrays(stage.arrays)
        store.ensure_steps(stage.steps, stage.name)
        if recreated:  # a grown extent changed their chunks: their writers again
            writers = {spec.writer.step for spec in recreated}
            store.reopen({step.index: range(step.shards) for step in stage.steps
                          if step.index in writers or not all(isinstance(w, int)
                                                              for w in writers)})
            store.discard_stages(later)


def pending_steps(store: ComputationStore, plan: Plan,
                  report: RunReport) -> Iterator[tuple[Stage, Step]]:
    """The unfinished steps in order. A later stage is built (and recorded) when every step
    before it is finished; the loop stops at a later stage whose inputs are not ready."""
    next_index = 0
    for stage in plan.stages:
        if isinstance(stage, LaterStage):
            built = store.built_stage(stage.name)
            if built is None:
                if not all(store.step_done(i) for i in range(next_index)):
                    return  # (only after --max-steps stopped the run early)
                built = stage.build(store, plan.config, next_index)
                store.ensure_arrays(built[0])
                store.ensure_steps(built[1], stage.name)
                store.record_stage(stage.name, *built)
            stage = Stage(stage.name, stage.solve_shard, *built)
        for step in stage.steps:
            if store.step_done(step.index):
                report.steps_skipped += 1
            else:
                yield stage, step
        next_index += len(stage.steps)
