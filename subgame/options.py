"""The options every run takes, declared once: the CLI's `run` commands, the Prefect flow's
parameter and the deployments' `options:` mapping all read this one typed object."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Annotated, Literal, Optional

import typer

from subgame.errors import InvalidInput

if TYPE_CHECKING:
    from subgame.clusters import ClusterProfile

EXECUTORS = ("dask", "threads", "serial")
ORCHESTRATIONS = ("auto", "prefect", "none")


@dataclass(frozen=True)
class RunOptions:
    """Where a run stores its results and who computes them."""

    store: Annotated[Optional[str], typer.Option(
        "--store", metavar="<path or URL>", help="Zarr store path or fsspec URL (default: $SUBGAME_STORE, else "
                        "./subgame.zarr).")] = None
    scheduler: Annotated[Optional[str], typer.Option(
        "--scheduler", metavar="<address>", help="Address of a running Dask scheduler, e.g. tcp://host:8786 "
                            "(default: start a local cluster).")] = None
    workers: Annotated[Optional[int], typer.Option(
        "--workers", min=1, help="Worker processes of the local cluster [default: one per "
                                 "core].")] = None
    cluster: Annotated[Optional[str], typer.Option(
        "--cluster", metavar="<profile>", help="Dask cluster profile: local, slurm, pbs, kubernetes, scheduler "
                          "(bundled, see deploy/clusters) or a profile YAML file.")] = None
    executor: Annotated[Literal[EXECUTORS], typer.Option(
        "--executor", help="dask; threads (in this process, a thread per core or "
                           "--workers, for the stages whose solver releases the GIL, the "
                           "rest serially); or serial (in this process, for debugging).",
        show_default="dask; threads where --orchestrate auto keeps the run in this "
                     "process")
    ] = "dask"
    max_steps: Annotated[Optional[int], typer.Option(
        "--max-steps", "--max-levels", min=1,
        help="Stop after this many steps; run again to continue.")] = None
    repair: Annotated[bool, typer.Option(
        "--repair", help="First recompute the shards whose stored chunks fail their "
                         "checksums (see `subgame verify --store`).")] = False
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print the plan's steps and shards, the store size, chunk files and "
                          "a worker's peak memory against the free disk and the workers' "
                          "memory; write nothing, start nothing.")] = False
    force: Annotated[bool, typer.Option(
        "--force", help="Run even when the estimates say the store or a worker's memory "
                        "will not fit.")] = False
    orchestrate: Annotated[Literal[ORCHESTRATIONS], typer.Option(
        "--orchestrate", help="prefect: a Prefect flow run; none: in this process, no "
                              "Prefect; auto: in this process (no Prefect, no Dask; a thread "
                              "per core where the stage allows it) when the run names no "
                              "--cluster, --scheduler or --workers and its plan is small or "
                              "runs every stage on threads (GOPS), else a flow run.")] = "auto"
    progress: bool = False  # progress bars (the CLI shows them unless --json)

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise InvalidInput(f"unknown executor {self.executor!r}; choose one of {EXECUTORS}")
        if self.orchestrate not in ORCHESTRATIONS:
            raise InvalidInput(f"unknown orchestration {self.orchestrate!r}; choose one of "
                               f"{ORCHESTRATIONS}")
        for name in ("scheduler", "cluster"):
            value = getattr(self, name)
            if value is not None and not value.strip():
                raise InvalidInput(f"--{name} is empty; give one or leave the option out")
        for name in ("workers", "max_steps"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise InvalidInput(f"--{name.replace('_', '-')} must be at least 1, got {value}")
        if self.executor != "dask" and (self.cluster or self.scheduler):
            raise InvalidInput(f"--cluster and --scheduler choose Dask workers; the "
                               f"{self.executor} executor computes in this process")
        if self.executor == "dask":
            self.cluster_profile()  # a bad profile fails here, before any store is touched

    def names_workers(self) -> bool:
        """The run names where to compute (a cluster, a scheduler, local workers)."""
        return bool(self.cluster or self.scheduler or self.workers)

    def cluster_profile(self) -> ClusterProfile:
        """The profile these options name, resolved (a YAML read) once per options object."""
        if "_profile" not in self.__dict__:  # a frozen dataclass: cached beside its fields
            from subgame.clusters import resolve_profile  # YAML and sockets: for runs alone

            object.__setattr__(self, "_profile",
                               resolve_profile(self.cluster, self.scheduler, self.workers))
        return self.__dict__["_profile"]


# The options a user sets on the command line (``progress`` follows from --json).
CLI_FIELDS = tuple(f.name for f in fields(RunOptions) if f.name != "progress")
