"""Dask cluster profiles: where the workers of a run come from.

A profile is a small YAML file: a bundled one by name (``deploy/clusters/<name>.yaml``) or
any path. Kinds: ``local`` (a LocalCluster of processes, the default), ``scheduler`` (an
existing scheduler's address), ``slurm`` and ``pbs`` (dask-jobqueue, extra ``hpc``) and
``kubernetes`` (dask-kubernetes, extra ``k8s``). The optional packages are imported only
when such a profile is started, so a laptop needs neither.
"""

from __future__ import annotations

import importlib
import os
import shutil
import socket
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping
from urllib.parse import urlsplit

import yaml

from subgame.errors import InvalidInput, SubgameError
from subgame.interrupts import silent_children

PROFILE_DIRS_ENV = "SUBGAME_CLUSTER_PROFILES"
# Bundled profiles live in the source tree (and in the Docker image, which copies it);
# $SUBGAME_CLUSTER_PROFILES adds folders for installs that have no source tree.
BUNDLED_DIR = Path(__file__).resolve().parent.parent / "deploy" / "clusters"
KINDS = ("local", "scheduler", "slurm", "pbs", "kubernetes")
BATCH_KINDS = {"slurm": "SLURMCluster", "pbs": "PBSCluster"}
SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
MAX_REMOTE_WORKERS = 100_000
DEFAULT_CONNECT_TIMEOUT = "30s"
# A run's workers keep the memory they free for their next shards.  Dask's default
# MALLOC_TRIM_THRESHOLD_=65536 (set by the nanny before a worker starts) also turns glibc's
# dynamic mmap threshold off, so every allocation over 128 KiB becomes a fresh mapping whose
# pages fault in again, shard after shard: a large GOPS run then spends minutes of system
# time in page faults.  Allocations up to glibc's largest threshold (32 MiB) come from the
# heap instead, and up to 256 MiB of freed heap stays with the worker.
WORKER_MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(1 << 25), "MALLOC_TRIM_THRESHOLD_": str(1 << 28)}
# Dask's periodic checks that feed only a dashboard, slowed in a run's scheduler and
# workers: by default an event-loop tick every 20 ms, a system monitor every 0.5 s and a
# statistical profiler sampling every thread every 10 ms, in the scheduler, each nanny and
# each worker, cost an idle local cluster of 2 workers about 10 CPU s a minute on a 2-core
# machine, four times what these settings cost (bench/cluster.py --idle), and a batch
# job's workers pay the same checks.  The memory monitors that pause or restart a worker
# near its limit keep Dask's interval.  A profile's own settings (a batch job's
# `job_script_prologue` exports) come after these.
SLOWED_CHECKS = {"distributed.admin.tick.interval": "1s",
                 "distributed.admin.system-monitor.interval": "5s",
                 "distributed.worker.profile.enabled": False}
# A batch job that ends early (scancel, a lost node, its walltime, a worker retiring at its
# lifetime) leaves the cluster one job short once Dask gives its worker up
# (distributed.deploy.lost-worker-timeout); asking again for the profile's number of
# workers this often submits the replacement.
REPLACE_JOBS_EVERY_MS = 5000


class ClusterUnavailable(SubgameError):
    """The cluster a profile names cannot be reached or started."""


@dataclass(frozen=True)
class WorkerLifetime:
    """Batch jobs end at their walltime. A worker told to retire a little before it hands its
    tasks back to the scheduler instead of dying mid-shard; the stagger spreads retirements
    so the whole pool never leaves at once; the queue's replacement jobs join as they start."""

    lifetime: str  # e.g. "55m" for a 1-hour walltime
    stagger: str = "0s"
    restart: bool = False  # the nanny restarts the worker in place (long walltimes)

    def worker_args(self) -> list[str]:
        args = ["--lifetime", self.lifetime, "--lifetime-stagger", self.stagger]
        return args + ["--lifetime-restart"] if self.restart else args


@dataclass(frozen=True)
class BatchJob:
    """One batch job of a profile, read from its dask-jobqueue options: its worker
    processes, cores and memory, its walltime, and how long its workers stay (their
    lifetime, else the walltime)."""

    processes: int
    cores: int
    memory_bytes: int | None
    walltime: str | None
    stay_seconds: float | None

    @property
    def threads_per_worker(self) -> int:
        return max(1, self.cores // self.processes)

    @property
    def worker_memory_bytes(self) -> int | None:
        return None if self.memory_bytes is None else self.memory_bytes // self.processes

    def at_once(self, workers: int) -> int:
        """Jobs that hold ``workers`` workers at a time."""
        return -(-workers // self.processes)


def walltime_seconds(walltime: str) -> float:
    """A batch queue's walltime in seconds, as Slurm reads it: minutes, MM:SS, HH:MM:SS,
    or D-HH, D-HH:MM, D-HH:MM:SS (PBS writes HH:MM:SS)."""
    days, dash, clock = str(walltime).rpartition("-")
    parts = [float(part) for part in clock.split(":")]
    if not 1 <= len(parts) <= 3 or min(parts) < 0 or (dash and not days):
        raise ValueError(walltime)
    units = (3600, 60, 1) if dash else {1: (60,), 2: (60, 1), 3: (3600, 60, 1)}[len(parts)]
    return 86400 * float(days or 0) + sum(part * unit for part, unit in zip(parts, units))


@dataclass(frozen=True)
class ClusterProfile:
    """One way to get Dask workers. ``options`` are the keyword arguments of the
    dask-jobqueue or dask-kubernetes cluster class, passed through as written."""

    name: str
    kind: str = "local"
    address: str | None = None  # kind "scheduler"
    workers: int | None = None  # local: processes [default one per core]; others: scale to
    threads_per_worker: int = 1
    memory_limit: str | None = None  # local only; batch jobs say "memory" in options
    connect_timeout: str = DEFAULT_CONNECT_TIMEOUT
    lifetime: WorkerLifetime | None = None
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        where = f"cluster profile {self.name!r}"
        if self.kind not in KINDS:
            raise InvalidInput(f"{where}: unknown kind {self.kind!r}; choose one of {KINDS}")
        for name in ("workers", "threads_per_worker"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise InvalidInput(f"{where}: {name} must be a positive integer, got {value!r}")
        if self.workers is not None and self.workers > self.max_workers:
            raise InvalidInput(f"{where}: at most {self.max_workers} workers, got {self.workers}")
        if self.kind == "scheduler":
            if not self.address:
                raise InvalidInput(f"{where}: kind scheduler needs an address")
            check_address(self.address)
        elif self.address:
            raise InvalidInput(f"{where}: address is only for kind scheduler")
        try:
            self.connect_seconds()
        except (ValueError, TypeError, KeyError):
            raise InvalidInput(f"{where}: connect_timeout must be a duration such as 30s, "
                               f"got {self.connect_timeout!r}") from None
        if self.lifetime is not None and self.kind not in BATCH_KINDS:
            raise InvalidInput(f"{where}: lifetime is for batch queues (slurm, pbs)")
        if self.options and self.kind in ("local", "scheduler"):
            raise InvalidInput(f"{where}: options are for slurm, pbs and kubernetes profiles")

    def connect_seconds(self) -> float:
        # Dask's own reading of a duration; imported here, not at start-up (0.2 s that a
        # run finding everything stored would pay), and skipped for the default.
        if self.connect_timeout == DEFAULT_CONNECT_TIMEOUT:
            return 30.0
        from dask.utils import parse_timedelta

        return parse_timedelta(self.connect_timeout)

    @property
    def max_workers(self) -> int:
        """Beyond a few processes per core a local cluster only slows the run down; a
        remote one is bounded by what any queue or cluster would accept."""
        return 4 * (os.cpu_count() or 1) if self.kind == "local" else MAX_REMOTE_WORKERS

    def batch_options(self) -> dict[str, Any]:
        """Keyword arguments of the dask-jobqueue cluster (and job) class: the profile's,
        with the job script's `worker_exports` before its own lines (`_own_prologue`), and
        its lifetime."""
        options = dict(self.options)
        options["job_script_prologue"] = [*worker_exports(self.batch_job().threads_per_worker),
                                          *self._own_prologue()]
        options.pop("env_extra", None)  # (in the prologue now)
        if self.lifetime is not None:
            options["worker_extra_args"] = [*options.get("worker_extra_args", []),
                                            *self.lifetime.worker_args()]
        return options

    def _own_prologue(self) -> list[str]:
        """The job script's lines that dask-jobqueue would take without subgame's: the
        profile's `job_script_prologue`, else Dask's jobqueue configuration's (a site's
        jobqueue.yaml), and where neither has lines, `env_extra` (its old name), the
        profile's else the configuration's."""
        import dask

        def given(option: str, setting: str):
            value = self.options.get(option)
            return dask.config.get(f"jobqueue.{self.kind}.{setting}", None) \
                if value is None else value

        lines = given("job_script_prologue", "job-script-prologue")
        return list(lines or given("env_extra", "env-extra") or [])

    def batch_job(self) -> BatchJob:
        """The shape of this (slurm or pbs) profile's jobs; a value that does not read is
        one clear error."""
        from dask.utils import parse_bytes, parse_timedelta

        options, where = self.options, f"cluster profile {self.name!r}"
        try:
            processes = int(options.get("processes") or 1)
            cores = int(options.get("cores") or processes)
            memory = parse_bytes(options["memory"]) if options.get("memory") else None
            walltime = options.get("walltime")
            stay = parse_timedelta(self.lifetime.lifetime) if self.lifetime else \
                walltime_seconds(walltime) if walltime else None
        except (ValueError, TypeError, KeyError):
            raise InvalidInput(f"{where}: options cores, processes, memory, walltime (and "
                               f"lifetime) must read as in deploy/clusters/{self.kind}.yaml"
                               ) from None
        if processes < 1 or cores < processes:
            raise InvalidInput(f"{where}: a job needs 1 <= processes <= cores")
        return BatchJob(processes, cores, memory, walltime, stay)

    def probe(self) -> None:
        """Fail fast, before a flow run starts: a scheduler that does not answer, or an
        optional package that is not installed."""
        if self.kind == "scheduler":
            parts = urlsplit(self.address)
            try:
                socket.create_connection((parts.hostname, parts.port),
                                         timeout=self.connect_seconds()).close()
            except OSError as exc:
                raise ClusterUnavailable(f"no Dask scheduler answers at {self.address}: "
                                         f"{exc.strerror or exc}") from None
        elif self.kind in BATCH_KINDS:
            cluster_class = getattr(_optional("dask_jobqueue", "hpc", self.kind),
                                    BATCH_KINDS[self.kind])
            submit = cluster_class.job_cls.submit_command
            if shutil.which(submit) is None:
                raise ClusterUnavailable(f"profile {self.name!r} submits {self.kind} jobs, "
                                         f"but {submit!r} is not on this machine's PATH")
        elif self.kind == "kubernetes":
            _optional("dask_kubernetes.operator", "k8s", self.kind)

    def start(self) -> "RunningCluster":
        """Start (or connect to) the cluster and a client on it."""
        from distributed import Client

        cluster = None if self.kind == "scheduler" else self._make_cluster()
        try:
            keeper = None
            if cluster is not None and self.kind != "local":
                cluster.scale(self.workers or 1)
                if self.kind in BATCH_KINDS:
                    keeper = _keep_workers(cluster, self.workers or 1)
            # Not the process's default client: an embedder's own dask computations (xarray
            # reading the store afterwards) keep their scheduler when the run ends.
            client = Client(cluster if cluster is not None else self.address,
                            timeout=self.connect_timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            if cluster is not None:
                cluster.close()
            raise ClusterUnavailable(f"cannot reach the Dask scheduler "
                                     f"{self.address or ''} of profile {self.name!r} within "
                                     f"{self.connect_timeout}: {exc}") from None
        return RunningCluster(client, cluster, keeper)

    def _make_cluster(self):
        """The cluster object (no workers asked for yet, except a local one's)."""
        if self.kind == "local":
            import dask
            from distributed import LocalCluster

            # A compiled kernel that runs its own thread pool (numba prange) must use only
            # the worker's share of the cores, or the workers oversubscribe the machine.
            with silent_children(), _local_worker_malloc(), \
                    dask.config.set(SLOWED_CHECKS):  # the nannies pass it on
                return LocalCluster(n_workers=self.workers or os.cpu_count() or 1,
                                    threads_per_worker=self.threads_per_worker, processes=True,
                                    memory_limit=self.memory_limit or "auto",
                                    # A shard's error reaches the driver with its traceback;
                                    # the workers' own log lines would repeat it, or report
                                    # the driver gone after a Ctrl-C.
                                    host="127.0.0.1", dashboard_address=None, silence_logs=50,
                                    preload=["subgame.interrupts"],  # workers ignore Ctrl-C
                                    env={"NUMBA_NUM_THREADS": str(self.threads_per_worker)})
        if self.kind in BATCH_KINDS:
            import dask

            module = _optional("dask_jobqueue", "hpc", self.kind)
            with dask.config.set(SLOWED_CHECKS):  # the scheduler, in this process
                return getattr(module, BATCH_KINDS[self.kind])(**self.batch_options())
        operator = _optional("dask_kubernetes.operator", "k8s", self.kind)
        return operator.KubeCluster(**{"n_workers": self.workers or 1, **self.options})


def worker_exports(threads: int) -> list[str]:
    """The shell lines a batch job's script starts with: WORKER_MALLOC (the nanny gives its
    worker a pre-spawn variable from its own environment before Dask's configuration),
    NUMBA_NUM_THREADS (a kernel's own thread pool, numba's prange, keeps to the ``threads``
    of the job's cores that are its worker's, as on a local cluster) and SLOWED_CHECKS
    (Dask reads DASK_A__B__C as the setting a.b.c)."""
    return [*(f"export {name}={value}" for name, value in WORKER_MALLOC.items()),
            f"export NUMBA_NUM_THREADS={threads}",
            *(f"export DASK_{name.upper().replace('.', '__').replace('-', '_')}={value}"
              for name, value in SLOWED_CHECKS.items())]


@contextmanager
def _local_worker_malloc():
    """WORKER_MALLOC for the workers started inside: Dask takes a pre-spawn variable
    from this process's environment before its own configuration, and a cluster started
    earlier in this process has set Dask's values there, so both are set until the workers
    have started, then restored."""
    import dask

    saved = {name: os.environ.get(name) for name in WORKER_MALLOC}
    os.environ.update(WORKER_MALLOC)
    try:
        with dask.config.set({f"distributed.nanny.pre-spawn-environ.{name}": value
                              for name, value in WORKER_MALLOC.items()}):
            yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _keep_workers(cluster, workers: int):
    """A periodic callback on the cluster's event loop that asks for ``workers`` again
    (REPLACE_JOBS_EVERY_MS), started there."""
    from tornado.ioloop import PeriodicCallback

    keeper = PeriodicCallback(lambda: cluster.scale(workers), REPLACE_JOBS_EVERY_MS)
    cluster.loop.add_callback(keeper.start)
    return keeper


@dataclass
class RunningCluster:
    """A client and, when this process started it, the cluster to close with it (and the
    callback that replaces its lost batch jobs)."""

    client: Any
    cluster: Any = None
    keeper: Any = None

    def close(self) -> None:
        if self.keeper is not None:
            self.cluster.loop.add_callback(self.keeper.stop)
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _optional(module: str, extra: str, kind: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InvalidInput(f"{kind} profiles need the optional packages of subgame's "
                           f"{extra!r} extra: pip install 'subgame[{extra}]'") from None


def check_address(address: str) -> str:
    """A scheduler address must read protocol://host:port."""
    try:
        parts = urlsplit(address)
        port = parts.port
    except ValueError:  # e.g. an unclosed IPv6 bracket
        parts, port = urlsplit(""), None
    if parts.scheme not in SCHEMES or not parts.hostname or port is None or \
            parts.path not in ("", "/"):
        raise InvalidInput(f"scheduler address {address!r} must read protocol://host:port "
                           f"with protocol one of {SCHEMES}, e.g. tcp://10.0.0.5:8786")
    return address


def bundled_profiles() -> dict[str, Path]:
    """Profile name -> file, from $SUBGAME_CLUSTER_PROFILES folders, then the bundled ones."""
    folders = [Path(p) for p in os.environ.get(PROFILE_DIRS_ENV, "").split(os.pathsep) if p]
    found: dict[str, Path] = {}
    for folder in [*folders, BUNDLED_DIR]:
        for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else ():
            found.setdefault(path.stem, path)
    return found


def load_profile(name_or_path: str) -> ClusterProfile:
    """A profile by bundled name or YAML path; every mistake in it is one clear error."""
    known = bundled_profiles()
    path = known.get(name_or_path) or Path(name_or_path)
    if name_or_path not in known and not (path.suffix in (".yaml", ".yml") and path.is_file()):
        raise InvalidInput(f"no cluster profile {name_or_path!r}: give a YAML file or one of "
                           f"{sorted(known) or ['local']}")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        reason = " ".join(str(exc).split())
        raise InvalidInput(f"cannot read cluster profile {str(path)!r}: {reason}") from None
    if not isinstance(data, dict):
        raise InvalidInput(f"cluster profile {str(path)!r} must be a mapping of settings")
    return profile_from_mapping(path.stem, data)


def profile_from_mapping(name: str, data: Mapping[str, Any]) -> ClusterProfile:
    allowed = {f.name for f in fields(ClusterProfile)} - {"name"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise InvalidInput(f"cluster profile {name!r}: unknown settings {unknown}; "
                           f"known: {sorted(allowed)}")
    values = dict(data)
    if values.get("lifetime") is not None:
        lifetime = values["lifetime"]
        keys = {f.name for f in fields(WorkerLifetime)}
        if not isinstance(lifetime, dict) or "lifetime" not in lifetime or set(lifetime) - keys:
            raise InvalidInput(f"cluster profile {name!r}: lifetime takes {sorted(keys)} "
                               f"(lifetime required), got {lifetime!r}")
        values["lifetime"] = WorkerLifetime(**{k: str(v) if k != "restart" else bool(v)
                                               for k, v in lifetime.items()})
    options = values.get("options") or {}
    if not isinstance(options, dict):
        raise InvalidInput(f"cluster profile {name!r}: options must be a mapping")
    values["options"] = MappingProxyType(dict(options))
    for key in ("kind", "address", "memory_limit", "connect_timeout"):
        if values.get(key) is not None and not isinstance(values[key], str):
            raise InvalidInput(f"cluster profile {name!r}: {key} must be a string")
    return ClusterProfile(name=name, **values)


def resolve_profile(cluster: str | None, scheduler: str | None,
                    workers: int | None) -> ClusterProfile:
    """The profile a run's options ask for: --scheduler, --cluster, or a local cluster."""
    if cluster and scheduler:
        raise InvalidInput("give --cluster or --scheduler, not both")
    if scheduler:
        if workers is not None:
            raise InvalidInput("--workers sizes a cluster subgame starts; an existing "
                               "scheduler (--scheduler) brings its own workers")
        return ClusterProfile("scheduler", kind="scheduler", address=check_address(scheduler))
    profile = load_profile(cluster) if cluster else ClusterProfile("local")
    if workers is not None:
        if profile.kind == "scheduler":
            raise InvalidInput(f"--workers cannot resize the existing scheduler of profile "
                               f"{profile.name!r}")
        profile = replace(profile, workers=workers)
    return profile
