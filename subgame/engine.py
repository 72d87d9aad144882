"""The engine: run a computation's plan with an executor. No Prefect here.

    check_run: refuse (bad store, clashing identity, live lock, bad cluster, will not fit)
      -> a CheckedRun (store URL, grown configuration, stored attributes, plan, estimate)
    -> lock -> repair (--repair) -> prepare the store (arrays, steps, markers)
    -> for each stage, for each unfinished step: solve_step (pending shards -> executor)

Every refusal runs once per run, in `check_run`, and the plan is built there once. The CLI
checks, then runs the checked record in this process or hands it to the Prefect flow
(`subgame.flows.run`), which calls `run_computation` with `solve_step` wrapped as a Prefect
task; tests, embedders and deployments may give a configuration instead, checked here.
What the run shows goes to listeners (`RunListener`: the CLI's progress display).
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

from subgame import interrupts
from subgame.computation import ComputationConfig
from subgame.options import RunOptions
from subgame.plan import LaterStage, Plan, ShardSolver, ShardTask, Stage, Step, sum_metrics
from subgame.storage import ComputationStore, resolve_store
from subgame.storage.location import check_store_location, publish_metadata
from subgame.storage.lock import StoreLock
from subgame.executors import (DaskExecutor, Executor, SerialExecutor, ShardDone,
                               ThreadExecutor)

if TYPE_CHECKING:
    from subgame.clusters import ClusterProfile
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
    orchestration: str = "in process"  # or "Prefect flow"; "stored" when nothing was to do

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def solve_step(store: ComputationStore, config: Any, step: Step, solve_shard: ShardSolver,
               executor: Executor, on_done: ShardDone,
               pending: Sequence[int] | None = None) -> dict[str, Any]:
    """Run a step's pending shards (read from the markers unless given), every shard of a
    batch with one pending (``Step.batch``), then record the step as finished (driver
    only)."""
    batches = step.batches(store.pending_shards(step) if pending is None else pending)
    start, cpu = time.perf_counter(), time.process_time()
    results = executor.run_shards(
        solve_shard, [ShardTask(store.url, store.group_path, config, step, batch.start,
                                len(batch)) for batch in batches], on_done)
    seconds = time.perf_counter() - start
    # Where the shards ran here, the process's CPU over the step is the step's whole cost:
    # the shards' metrics time their own threads, not Zarr's codec threads.
    store.finish_step(step, seconds, sum_metrics(results),
                      time.process_time() - cpu if executor.in_process else None)
    return {"shards_computed": sum(map(len, batches)), "seconds": seconds}


class RunListener:
    """What a run tells whoever watches it (the CLI's progress display); every method does
    nothing unless overridden, as cubed's callbacks."""

    def run_started(self, computation: str, steps: int, steps_done: int) -> None: ...

    def step_started(self, stage: str, step: Step, pending: int) -> None: ...

    def shard_done(self, step: Step, metrics: Mapping[str, Any]) -> None: ...

    def step_finished(self, step: Step, result: Mapping[str, Any]) -> None: ...

    def steps_known(self, steps: int) -> None:
        """A later stage was built: the run has at least this many steps (more than it
        announced when the estimate could not foresee the stage)."""

    def run_finished(self) -> None: ...


@dataclass(frozen=True)
class CheckedRun:
    """A computation that met every refusal a run can meet before it writes anything: its
    store URL, the configuration grown to the stored extent (a run never shrinks a store),
    the stored attributes (None before the first run), and, where there is work (or for
    --dry-run), its plan, built once, and the estimate of what the run adds."""

    url: str
    config: ComputationConfig
    stored: Mapping[str, Any] | None
    plan: Plan | None
    estimate: "RunEstimate | None"

    @property
    def finished(self) -> bool:
        return self.plan is None

    def stored_report(self) -> RunReport:
        """The report of a run with nothing to do, from the attributes alone."""
        return RunReport(self.config.group_path(), self.url,
                         steps_skipped=len(self.stored["steps"]), orchestration="stored")


class Checked:
    """The runs the CLI checked, the listener it attaches and the Dask executor it started
    while Prefect imported (None without one), handed to the Prefect flow as they are.
    Prefect records a flow's parameters as JSON where it can and a placeholder where it
    cannot; this holds a plan's functions, so it is kept opaque (no ``__dict__``: Prefect's
    encoder gives up at once and records the type name)."""

    __slots__ = ("runs", "listener", "executor")

    def __init__(self, runs: Sequence[CheckedRun], listener: RunListener | None = None,
                 executor: Executor | None = None):
        self.runs, self.listener, self.executor = tuple(runs), listener, executor

    def run_all(self, options: RunOptions, solve: Callable[..., dict[str, Any]] = solve_step,
                orchestration: str = "in process") -> list[dict[str, Any]]:
        """`run_computation` for every run in turn; the executor goes to the first run with
        work, which closes it as one it started."""
        first = next((run for run in self.runs if not run.finished), None)
        return [run_computation(run, options, solve, self.listener, orchestration,
                                self.executor if run is first else None).as_dict()
                for run in self.runs]


# A run whose new data (the estimate's uncompressed upper bound) is at most this runs in
# process under --orchestrate auto: the largest plans below it, GOPS N = 10 and Guess Who
# U = 4096, take less in one process than Prefect's and a cluster's start-up; the next
# sizes of a stage that holds the GIL (Guess Who U = 8192) gain from workers and a flow
# run (`python bench/pipeline.py --gops 10 --guess-who 4096 8192` times them end to end).
# A plan whose every stage runs on threads (GOPS) stays in process at any size (below).
SMALL_RUN_BYTES = 2**30


def in_process(runs: Sequence[CheckedRun], options: RunOptions) -> bool:
    """Whether the run goes through the engine here rather than a Prefect flow run: under
    --orchestrate auto, a run that names no workers and is small, or whose every stage
    runs on a thread per core (``Stage.threads``), of any size: those threads use the
    machine's cores as a local cluster's workers would, without the flow run's server,
    the workers' start-up, their copies of what a shard caches, or the pickling between
    them: faster end to end, and less CPU (`python bench/gops.py --pipeline 12` with and
    without `--run-options '--orchestrate prefect'` measures both)."""
    if options.orchestrate != "auto":
        return options.orchestrate == "none"
    pending = [run for run in runs if not run.finished]
    return not options.names_workers() and (
        sum(run.estimate.new_bytes for run in pending) <= SMALL_RUN_BYTES
        or all(isinstance(stage, Stage) and stage.threads
               for run in pending for stage in run.plan.stages))


def check_run(config: ComputationConfig, options: RunOptions) -> CheckedRun:
    """Every refusal a run can meet before it writes anything or starts a cluster, once: a
    bad store location, a clashing identity, a live lock, an unusable cluster, new data or
    a worker's peak memory beyond what is free (unless --force; --dry-run prints them)."""
    url = resolve_store(options.store)
    check_store_location(url)
    if options.repair and not options.dry_run:  # before any group's metadata is read
        from subgame.storage.integrity import restore_groups

        restore_groups(url, config.group_path(), config.identity(), config.extent())
    stored = ComputationStore.stored_attrs(url, config.group_path())
    if stored is None and not (options.repair or options.dry_run):
        for holder in config.held_by():
            held = ComputationStore.stored_attrs(url, holder.group_path())
            if held is not None and dict(held["identity"]) == holder.identity() and \
                    finished(holder.covering(held["extent"]), held, options):
                return CheckedRun(url, holder.covering(held["extent"]), held, None, None)
    ComputationStore.check_identity(url, config.group_path(), config.identity(), stored)
    StoreLock(url, config.group_path()).check()
    if options.executor == "dask":
        options.cluster_profile().probe()
    grown = config if stored is None else config.covering(stored["extent"])
    if finished(grown, stored, options) and not options.dry_run:
        return CheckedRun(url, grown, stored, None, None)
    # Imported here: a run that finds everything stored estimates nothing.
    from subgame.estimate import estimate_run

    plan = grown.plan()
    estimate = estimate_run(url, grown, stored, options, plan)
    if not (options.force or options.dry_run):
        estimate.refuse_unfit()
    return CheckedRun(url, grown, stored, plan, estimate)


def finished(grown: ComputationConfig, stored: Mapping[str, Any] | None,
             options: RunOptions) -> bool:
    """The store holds this extent and its last run ended with every step finished."""
    return not options.repair and stored is not None and bool(stored.get("complete")) and \
        grown.extent() == stored["extent"]  # a larger extent: there is new work


def dry_run(config: ComputationConfig, options: RunOptions) -> "RunEstimate":
    """What a run would compute and need, refused as every run is; writes nothing and
    starts nothing."""
    return check_run(config, options).estimate


def shares_step(batches: int, profile: ClusterProfile | None) -> bool:
    """Whether a step of this many batches goes to the executor the options name: a
    cluster other than a local one takes every step; a local cluster or threads would
    only add start-up to a step of one batch, which runs here."""
    return batches > 1 or (profile is not None and profile.kind != "local")


def needs_cluster(runs: Sequence[CheckedRun], options: RunOptions) -> bool:
    """Whether the runs will start the Dask cluster the options name (`shares_step`), as
    far as the plans' steps are known before the run."""
    if options.executor != "dask":
        return False
    profile = options.cluster_profile()
    return any(shares_step(len(step.batches(range(step.shards))), profile)
               for run in runs if not run.finished
               for stage in run.plan.stages if isinstance(stage, Stage)
               for step in stage.steps)


def run_computation(run: CheckedRun | ComputationConfig, options: RunOptions,
                    solve_step: Callable[..., dict[str, Any]] = solve_step,
                    listener: RunListener | None = None,
                    orchestration: str = "in process",
                    executor: Executor | None = None) -> RunReport:
    """Solve every step of the computation that the store's markers do not show finished.
    ``run`` is a checked record (`check_run`), or a configuration to check first;
    ``executor``, one started before the run (the CLI starts a cluster while Prefect
    imports), which the run uses and closes as one it starts itself."""
    if not isinstance(run, CheckedRun):
        run = check_run(run, options)
    if run.finished:
        return run.stored_report()
    plan, url, config = run.plan, run.url, run.config
    listener = listener or RunListener()
    report = RunReport(plan.group_path, url, orchestration=orchestration)
    profile = options.cluster_profile() if options.executor == "dask" else None
    with ExitStack() as stack:
        stack.enter_context(StoreLock(url, plan.group_path))
        if executor is not None:  # closed before the lock goes: no shard outlives it
            stack.callback(executor.close)
        store = ComputationStore.create(url, plan.group_path, plan.family, config.identity(),
                                        config.extent())
        # However the run ends, readers other than subgame (xarray) get the metadata as left.
        stack.callback(publish_metadata, url)
        store.group.attrs["complete"] = False  # until every step of every stage is done
        if options.repair:
            from subgame.storage.integrity import repair_damage

            report.repaired = [damage.describe() for damage in repair_damage(store, plan)]
        prepare(store, plan)
        publish_metadata(url)  # the arrays as sized for this run
        stack.callback(listener.run_finished)
        known = store.group.attrs["steps"]  # a later stage adds its steps once built
        # The estimate counts the later stages it could foresee as well.
        listener.run_started(plan.group_path, max(len(known), run.estimate.steps),
                             sum(store.step_done(s["index"]) for s in known))
        for stage, step in pending_steps(store, plan, report, listener.steps_known):
            batches = step.batches(store.pending_shards(step))
            pending = [shard for batch in batches for shard in batch]
            if not shares_step(len(batches), profile) or \
                    (options.executor == "threads" and not stage.threads):
                # A solver that holds the GIL (or may not share its process) gains nothing
                # from threads.
                chosen: Executor = SerialExecutor()
            else:
                if executor is None:  # started for the first step with work to share
                    executor = ThreadExecutor(options.workers) \
                        if options.executor == "threads" else \
                        SerialExecutor() if profile is None else DaskExecutor(profile)
                    stack.callback(executor.close)
                chosen = executor
            listener.step_started(stage.name, step, len(pending))
            result = solve_step(store, config, step, stage.solve_shard, chosen,
                                lambda metrics, step=step: listener.shard_done(step, metrics),
                                pending)
            listener.step_finished(step, result)
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


def pending_steps(store: ComputationStore, plan: Plan, report: RunReport,
                  steps_known: Callable[[int], None] = lambda steps: None
                  ) -> Iterator[tuple[Stage, Step]]:
    """The unfinished steps in order. A later stage is built (and recorded) from the arrays
    it reads when every step before it is finished (``steps_known`` is then told how many
    steps the run has); the loop stops at a later stage whose inputs are not ready."""
    next_index = 0
    for stage in plan.stages:
        if isinstance(stage, LaterStage):
            built = store.built_stage(stage.name)
            if built is None:
                if not all(store.step_done(i) for i in range(next_index)):
                    return  # (only after --max-steps stopped the run early)
                inputs = {path: store.array(path)[...] for path in stage.reads}
                built = stage.build(inputs, plan.config, next_index)
                store.ensure_arrays(built[0])
                store.ensure_steps(built[1], stage.name)
                store.record_stage(stage.name, *built)
                steps_known(next_index + len(built[1]))
            stage = Stage(stage.name, stage.solve_shard, *built)
        for step in stage.steps:
            if store.step_done(step.index):
                report.steps_skipped += 1
            else:
                yield stage, step
        next_index += len(stage.steps)
