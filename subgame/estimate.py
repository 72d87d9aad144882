"""How big a run will be, before it writes anything or starts a worker, and whether it fits.

From the plan alone (`subgame.plan.PlanSize`): steps, shards, the store's new data in
uncompressed bytes (an upper bound, but for a checksum a chunk) and its new files. From
the family (`ComputationConfig.worker_bytes`, each formula beside the solver it
describes): the peak memory of one worker on the largest shard. From this machine: the
free disk and free files where a local store goes, and the memory each worker gets.
`subgame run --dry-run` prints it; a run refuses what does not fit unless --force.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Mapping

import psutil

from subgame.clusters import BATCH_KINDS, BatchJob
from subgame.computation import ComputationConfig
from subgame.errors import InvalidInput, SubgameError
from subgame.options import RunOptions
from subgame.plan import Plan, PlanSize
from subgame.storage.location import nearest_existing

# Resident memory of an idle worker process once a shard has imported numpy, numba, zarr
# and the family, added to every family's shard estimate (`python bench/estimates.py`
# compares the estimates with the peaks measured).
WORKER_BASE_BYTES = 256 * 2**20


class DoesNotFit(SubgameError):
    """The run's estimated store or memory exceeds what is available (--force overrides)."""


def format_bytes(n: int) -> str:
    """Dask's units, imported where a size is shown (a refusal, --dry-run): its 0.15 s of
    imports are no part of an in-process run."""
    from dask.utils import format_bytes

    return format_bytes(n)


@dataclass(frozen=True)
class RunEstimate:
    """One computation's estimate against what this machine offers (None: unknown)."""

    computation: str
    store: str
    steps: int
    shards: int
    max_shards_per_step: int
    new_bytes: int  # uncompressed upper bound of the data this run adds
    new_files: int
    not_estimated: tuple[str, ...]  # stages sized by earlier results
    worker_peak_bytes: int | None
    workers: int | None
    worker_memory_bytes: int | None
    free_disk_bytes: int | None
    free_files: int | None
    core_seconds: float | None = None  # the shards' CPU, from the family's measured costs
    threads: int | None = None  # the workers' threads in all: the cores the run uses
    job: BatchJob | None = None  # a batch queue's job, for slurm and pbs profiles

    @property
    def wall_seconds(self) -> float | None:
        """The shards' CPU spread over every thread: a lower bound of the run's wall time
        (a level's last shards leave threads idle; start-up and queue waits not counted)."""
        if self.core_seconds is None or not self.threads:
            return None
        return self.core_seconds / self.threads

    def jobs(self) -> tuple[int, int] | None:
        """Batch jobs held at a time, and in all: each job's workers leave at their
        lifetime (else the walltime) and a new job takes their place."""
        if self.job is None or not self.workers:
            return None
        at_once = self.job.at_once(self.workers)
        wall, stay = self.wall_seconds, self.job.stay_seconds
        rounds = 1 if wall is None or not stay else max(1, -(-int(wall) // int(stay)))
        return at_once, at_once * rounds

    def unfit(self) -> list[str]:
        """Why the run would not fit, one phrase per limit it exceeds."""
        reasons = []
        if self.free_disk_bytes is not None and self.new_bytes > self.free_disk_bytes:
            reasons.append(f"its new data (up to {format_bytes(self.new_bytes)} uncompressed) "
                           f"exceeds the {format_bytes(self.free_disk_bytes)} free at the store")
        if self.free_files is not None and self.new_files > self.free_files:
            reasons.append(f"its {self.new_files:,} new files exceed the {self.free_files:,} "
                           f"the store's file system can still hold")
        if None not in (self.worker_peak_bytes, self.worker_memory_bytes) and \
                self.worker_peak_bytes > self.worker_memory_bytes:
            reasons.append(f"a worker would need about {format_bytes(self.worker_peak_bytes)} "
                           f"but has {format_bytes(self.worker_memory_bytes)}")
        return reasons

    def refuse_unfit(self) -> None:
        reasons = self.unfit()
        if reasons:
            raise DoesNotFit(f"{self.computation} will not fit: {'; '.join(reasons)} "
                             f"(see --dry-run; --force runs it anyway)")

    def as_dict(self) -> dict[str, Any]:
        jobs = self.jobs()
        return {**asdict(self), "not_estimated": list(self.not_estimated),
                "wall_seconds": self.wall_seconds, "jobs_at_once": jobs and jobs[0],
                "jobs_in_all": jobs and jobs[1], "fits": not self.unfit()}

    def lines(self) -> list[str]:
        def size(value: int | None) -> str:
            return "unknown" if value is None else format_bytes(value)

        later = (f" (stages {', '.join(self.not_estimated)} are sized by earlier results and "
                 f"not counted)" if self.not_estimated else "")
        workers = "unknown" if self.workers is None else f"{self.workers}"
        verdict = "; ".join(self.unfit()) or "fits"
        return [f"{self.computation} in {self.store}",
                f"  steps {self.steps:,}, shards {self.shards:,} (at most "
                f"{self.max_shards_per_step:,} per step)",
                f"  new data up to {format_bytes(self.new_bytes)} uncompressed in "
                f"{self.new_files:,} files{later}; free at the store: "
                f"{size(self.free_disk_bytes)}",
                f"  peak memory per worker: {size(self.worker_peak_bytes)}; workers: "
                f"{workers}, each with {size(self.worker_memory_bytes)}",
                *self.time_lines(),
                f"  {verdict}"]

    def time_lines(self) -> list[str]:
        """The compute time and, on a batch queue, its jobs (none where not estimated)."""
        if self.core_seconds is None:
            return []
        hours = self.core_seconds / 3600
        line = f"  compute: about {hours:,.2f} core-hours of shards (measured costs a game)"
        if self.wall_seconds is not None:
            line += f"; on {self.threads} threads at least {format_duration(self.wall_seconds)}"
        jobs, job = self.jobs(), self.job
        if jobs is None:
            return [line]
        stays = "" if job.stay_seconds is None else \
            f", its workers leave after {format_duration(job.stay_seconds)}"
        memory = "" if job.memory_bytes is None else f", {format_bytes(job.memory_bytes)}"
        return [line, f"  batch jobs: {jobs[0]} at a time, about {jobs[1]} in all; each "
                      f"{job.processes} workers on {job.cores} cores{memory}, walltime "
                      f"{job.walltime or 'the queue default'}{stays}"]


def format_duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes < 1:
        return f"{seconds:.0f} s"
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"


def free_space(url: str) -> tuple[int | None, int | None]:
    """Free bytes and free files (inodes) of the file system a local store goes to; None
    for an object store (or a file system that does not count inodes)."""
    folder = nearest_existing(url)
    if folder is None:
        return None, None
    files = os.statvfs(folder).f_favail
    return shutil.disk_usage(folder).free, files or None


def machine_memory() -> int:
    """The memory this machine's processes may use: physical memory, or a cgroup's limit
    (a container's) when lower, as Dask counts it."""
    limit = psutil.virtual_memory().total
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            limit = min(limit, int(Path(path).read_text()))
        except (OSError, ValueError):  # absent, or "max"
            pass
    return limit


def worker_memory(options: RunOptions) -> tuple[int | None, int | None]:
    """How many workers and the memory each may use: the serial executor is this process
    on this machine, the threads executor's threads share it; a local cluster's workers
    get what Dask gives them (the profile's memory_limit, in bytes or as a fraction of the
    machine, else "auto": the machine's memory x threads per worker / cores). A
    scheduler's or a batch queue's workers are not asked (None: no check). Dask's own
    parser is not used: importing distributed would cost every run half a second, and a
    run of one-shard steps never starts it."""
    machine = machine_memory()
    if options.executor == "serial":
        return 1, machine
    if options.executor == "threads":  # one process: its threads share the machine
        threads = options.workers or os.cpu_count() or 1
        return threads, machine // threads
    profile = options.cluster_profile()
    if profile.kind in BATCH_KINDS:  # the job's memory, shared by its worker processes
        return profile.workers or 1, profile.batch_job().worker_memory_bytes
    if profile.kind != "local":
        return profile.workers, None
    cores = os.cpu_count() or 1
    limit = profile.memory_limit or "auto"
    if limit == "auto":
        share = machine * min(1, profile.threads_per_worker / cores)
    else:
        try:
            share = float(limit)
            share = share * machine if share <= 1 else share
        except ValueError:
            from dask.utils import parse_bytes

            try:
                share = parse_bytes(limit)
            except ValueError:
                raise InvalidInput(f"cluster profile {profile.name!r}: memory_limit must be "
                                   f"auto, a size such as 4GiB or a fraction, got {limit!r}"
                                   ) from None
    return profile.workers or cores, int(min(share, machine))


def estimate_run(url: str, config: ComputationConfig, stored: Mapping[str, Any] | None,
                 options: RunOptions, plan: Plan) -> RunEstimate:
    """The estimate of running ``config`` (already grown to the stored extent; ``plan`` is
    its plan) into ``url``. New data: everything for a new computation, else what the larger
    extent adds (the stored extent's plan is built for that)."""
    size = PlanSize.of(plan)
    if stored is None:
        before = None
    elif stored["extent"] == config.extent():
        before = size  # (a partial run's missing chunks are not counted)
    else:
        before = PlanSize.of(replace(config, **stored["extent"]).plan())
    shard_bytes = config.worker_bytes()
    free_disk, free_files = free_space(url)
    workers, memory = worker_memory(options)
    threads, job = run_threads(options, workers)
    return RunEstimate(
        config.group_path(), url, size.steps, size.shards, size.max_shards_per_step,
        size.bytes - (before.bytes if before else 0), size.files - (before.files if before else 0),
        size.later_stages, None if shard_bytes is None else WORKER_BASE_BYTES + shard_bytes,
        workers, memory, free_disk, free_files, config.core_seconds(), threads, job)


def run_threads(options: RunOptions, workers: int | None) -> tuple[int | None, BatchJob | None]:
    """The threads the run's shards use in all, and a batch queue's job (None: unknown)."""
    if options.executor != "dask":
        return workers, None
    profile = options.cluster_profile()
    if profile.kind in BATCH_KINDS:
        job = profile.batch_job()
        return workers * job.threads_per_worker, job
    return (None if workers is None else workers * profile.threads_per_worker), None
