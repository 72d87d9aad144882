"""A computation as data: its stages, each stage's steps and shards, the arrays they write.

A plan says what to compute, never who runs it. A **stage** is one kind of work with its own
shard solver (enumerate, solve, simulate, aggregate...); it is a list of **steps** run in
order, each step one Prefect task of independent **shards** (Dask tasks). A game's own
levels are the family's business: a Guess Who step is a band of several table levels.

A stage is either known up front (`Stage`) or sized by what earlier stages wrote
(`LaterStage`): the driver builds it once they are done and stores what it built, so a
resumed run rebuilds exactly the same thing. Steps are numbered across the whole plan.

Nothing large lives here: workers get a `ShardTask` (store URL, group, configuration, step,
shard) with the store the executor opened for it, and read their inputs from that store;
constant tables are computed by the driver (`ArraySpec.constant`) and written once. This module imports no Prefect, Dask or Zarr.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from math import prod
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Union

from subgame.computation import ComputationConfig, ShardStore
from subgame.errors import InvalidInput

if TYPE_CHECKING:
    import numpy as np


# -- who writes a chunk ---------------------------------------------------------------------
@dataclass(frozen=True)
class ChunkMax:
    """The largest of the chunk's indices along ``axes`` (a table banded by max(n, m))."""

    axes: tuple[int, ...]

    def resolve(self, chunk: tuple[int, ...], grid: tuple[int, ...]) -> int:
        return max(chunk[axis] for axis in self.axes)


@dataclass(frozen=True)
class ChunkGrid:
    """The chunk's row-major position in the chunk grid of ``axes`` (a 2-D shard grid such
    as grid point x batch, numbered point * batches + batch)."""

    axes: tuple[int, ...]

    def resolve(self, chunk: tuple[int, ...], grid: tuple[int, ...]) -> int:
        position = 0
        for axis in self.axes:
            position = position * grid[axis] + chunk[axis]
        return position


Term = Union[int, ChunkMax, ChunkGrid]
_TERMS = {"chunk_max": ChunkMax, "chunk_grid": ChunkGrid}


@dataclass(frozen=True)
class Writer:
    """Which step and shard write each chunk of an array, as a function of the chunk index.

    Repairs recompute exactly the writers of damaged chunks; stored as the array's
    ``written_by`` attribute so `subgame verify --store` can name them without the plan."""

    step: Term
    shard: Term

    def owner(self, chunk: tuple[int, ...], grid: tuple[int, ...]) -> tuple[int, int]:
        return tuple(term if isinstance(term, int) else term.resolve(chunk, grid)
                     for term in (self.step, self.shard))

    def to_attrs(self) -> dict[str, Any]:
        def encode(term: Term) -> Any:
            if isinstance(term, int):
                return term
            name = next(key for key, kind in _TERMS.items() if isinstance(term, kind))
            return {name: list(term.axes)}

        return {"step": encode(self.step), "shard": encode(self.shard)}

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any]) -> "Writer":
        def decode(value: Any) -> Term:
            if isinstance(value, int):
                return value
            (name, axes), = value.items()
            return _TERMS[name](tuple(axes))

        return cls(decode(attrs["step"]), decode(attrs["shard"]))


# -- arrays, steps, stages --------------------------------------------------------------------
@dataclass(frozen=True)
class ArraySpec:
    """One Zarr array, created by the driver before any worker writes.

    ``constant`` (a cheap top-level callable) gives data the driver writes once at creation:
    coordinates and constant tables. Arrays with a ``writer`` are written by shards.
    ``compression`` names the array's codecs (`subgame.storage.zarr_settings.COMPRESSIONS`);
    an array keeps those it was created with (`ComputationStore.ensure_arrays`).

    ``inner_chunks``: the array is stored with Zarr 3's sharding codec, each chunk of
    ``chunks`` (what one shard task writes, whole) one object made of independently
    readable inner chunks of this shape, so that a reader of one entry reads and decodes
    one inner chunk (`inner_chunks`). None: one chunk is one object (as every array of a
    store written before the sharded layout).
    """

    path: str
    shape: tuple[int, ...]
    chunks: tuple[int, ...]
    dtype: str
    dims: tuple[str, ...]
    fill_value: int | float | bool | str = 0
    attrs: Mapping[str, Any] = field(default_factory=dict)
    writer: Writer | None = None
    constant: Callable[[], "np.ndarray"] | None = None
    compression: str = "zstd"
    inner_chunks: tuple[int, ...] | None = None

    def stored_chunks(self) -> tuple[int, ...]:
        """The chunk shape Zarr records: ``chunks``, where sharded each axis rounded up to
        a whole number of inner chunks (only an axis a chunk spans whole is ever rounded:
        `inner_chunks`), as the sharding codec needs."""
        if self.inner_chunks is None:
            return self.chunks
        return tuple(-(-c // i) * i for c, i in zip(self.chunks, self.inner_chunks))

    def to_attrs(self) -> dict[str, Any]:
        """The spec as JSON (a later stage's arrays are stored so a resume rebuilds them)."""
        return {"path": self.path, "shape": list(self.shape), "chunks": list(self.chunks),
                "dtype": self.dtype, "dims": list(self.dims), "fill_value": self.fill_value,
                "attrs": dict(self.attrs),
                "writer": self.writer.to_attrs() if self.writer else None,
                "compression": self.compression,
                **({"inner_chunks": list(self.inner_chunks)} if self.inner_chunks else {})}

    @classmethod
    def from_attrs(cls, data: Mapping[str, Any]) -> "ArraySpec":
        # (an older store's recorded spec names no compression: its arrays are all zstd's)
        return cls(data["path"], tuple(data["shape"]), tuple(data["chunks"]), data["dtype"],
                   tuple(data["dims"]), data["fill_value"], dict(data["attrs"]),
                   Writer.from_attrs(data["writer"]) if data["writer"] else None,
                   compression=data.get("compression", "zstd"),
                   inner_chunks=tuple(data["inner_chunks"]) if data.get("inner_chunks")
                   else None)


def inner_chunks(shape: tuple[int, ...], chunks: tuple[int, ...], itemsize: int,
                 target_bytes: int, whole_axes: int) -> tuple[int, ...] | None:
    """Inner chunks of about ``target_bytes`` (at most that, or the ``whole_axes`` last axes
    whole) for an array of this shape and chunks, None where a chunk is no larger (or
    would be its one inner chunk).

    The last ``whole_axes`` axes are kept whole, and as many axes before them as fit; the
    next axis is cut: an axis a chunk spans whole into near-equal pieces (the stored chunk
    then rounds it up, `ArraySpec.stored_chunks`), an axis split among chunks by the
    largest divisor of its chunk that fits, so that inner chunks never straddle two
    writers' regions; the axes before it one entry each."""
    if prod(chunks) * itemsize <= target_bytes:
        return None
    inner = list(chunks)
    span = itemsize * prod(chunks[len(chunks) - whole_axes:])
    for axis in range(len(chunks) - whole_axes - 1, -1, -1):
        if span * chunks[axis] <= target_bytes:
            span *= chunks[axis]
            continue
        fits = max(1, target_bytes // span)
        if chunks[axis] >= shape[axis]:
            pieces = -(-chunks[axis] // fits)
            inner[axis] = -(-chunks[axis] // pieces)
        else:
            inner[axis] = max(d for d in range(1, fits + 1) if chunks[axis] % d == 0)
        inner[:axis] = [1] * axis
        break
    return tuple(inner) if tuple(inner) != tuple(chunks) else None


@dataclass(frozen=True)
class Step:
    """One Prefect task's worth of work: ``shards`` independent pieces.

    ``affinity`` asks the executor to send shard ``i`` to the same worker every step, so a
    worker's cached state from the previous step is reused. ``info`` describes the step (its
    game levels, sizes) and is stored with it: a later run whose step differs in ``shards``
    or ``info`` (a grown extent) recomputes that step.

    ``batch``: one task solves ``batch`` consecutive shards in order (shard // batch is the
    batch), so that the solver may carry what it learnt from one to the next (GOPS's warm
    starts); a batch is therefore solved, and resumed, whole.  It is not stored with the
    step: it changes the results only within the family's stated tolerance, so a store's
    finished steps stay finished when it changes.
    """

    index: int
    name: str
    shards: int
    affinity: bool = False
    info: Mapping[str, Any] = field(default_factory=dict)
    batch: int = 1

    def to_attrs(self) -> dict[str, Any]:
        record = {**asdict(self), "info": dict(self.info)}
        del record["batch"]
        return record

    def batches(self, pending: Iterable[int]) -> list[range]:
        """The shards of every batch that has a pending shard, a range a batch."""
        firsts = sorted({shard - shard % self.batch for shard in pending})
        return [range(first, min(first + self.batch, self.shards)) for first in firsts]

    @classmethod
    def from_attrs(cls, data: Mapping[str, Any]) -> "Step":
        return cls(data["index"], data["name"], data["shards"], data["affinity"],
                   dict(data["info"]))


@dataclass(frozen=True)
class ShardTask:
    """What a worker gets: where to write, the configuration, the step and the shard, or
    the batch of ``shards`` shards from ``shard`` on (``Step.batch``)."""

    url: str
    group_path: str
    config: Any
    step: Step
    shard: int
    shards: int = 1


def sum_metrics(results: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Shards' metrics summed (a batch's, a step's); those named max_* take the maximum,
    and ``shard`` and ``shards`` (which shards) are left out."""
    totals: dict[str, Any] = {}
    for result in results:
        for key, value in result.items():
            if key not in ("shard", "shards") and isinstance(value, (int, float)):
                combine = max if key.startswith("max_") else (lambda x, y: x + y)
                totals[key] = combine(totals[key], value) if key in totals else value
    return totals


# solve_shard(task, store) -> metrics: read inputs from the store (the executor opens it once
# per task, writable), write the region of the task's shards, return small JSON-able
# metrics. A top-level function (executors pickle it to Dask workers).
ShardSolver = Callable[[ShardTask, ShardStore], Mapping[str, Any]]


@dataclass(frozen=True)
class Stage:
    """A stage whose arrays and steps are known before the run starts. ``threads``: its
    shard solver releases the GIL for its work and is safe beside itself in one process,
    so an in-process run (the ``threads`` executor) gives its shards a thread per core."""

    name: str
    solve_shard: ShardSolver
    arrays: tuple[ArraySpec, ...]
    steps: tuple[Step, ...]
    threads: bool = False


# What a later stage's build gets: each array it reads (a path in the computation's group)
# as the earlier stages stored it.
Inputs = Mapping[str, "np.ndarray"]


@dataclass(frozen=True)
class LaterStage:
    """A stage sized by what earlier stages wrote. Once every earlier step is done, the
    driver reads the arrays ``reads`` names and ``build(inputs, config, first_step)``
    returns the stage's arrays and steps (numbered from ``first_step``) from them; they
    are stored, and a resume reads them back.

    ``foresee(config)`` gives what those arrays will hold from the configuration alone,
    where that is cheap (None: only the run can know), so `--dry-run` and the progress
    display count the stage before it is built; a stage that reads nothing is foreseen by
    building it."""

    name: str
    solve_shard: ShardSolver
    build: Callable[[Inputs, Any, int], tuple[tuple[ArraySpec, ...], tuple[Step, ...]]]
    reads: tuple[str, ...] = ()
    foresee: Callable[[Any], Inputs | None] | None = None

    def foreseen(self, config: Any) -> Inputs | None:
        if not self.reads:
            return {}
        return None if self.foresee is None else self.foresee(config)


@dataclass(frozen=True)
class Plan:
    family: str
    config: ComputationConfig
    stages: tuple[Stage | LaterStage, ...]

    @property
    def group_path(self) -> str:
        return self.config.group_path()


# -- how big a plan is, before anything is written -------------------------------------------
# A step is a Prefect task (tens of milliseconds of orchestration each) and a shard a Dask
# task plus a marker chunk file: beyond these counts a run spends its time and the driver's
# memory on bookkeeping (a million shards grew the driver past 4 GB before any work).
MAX_STEPS = 10_000
MAX_SHARDS_PER_STEP = 100_000
# Bytes per element as Zarr's nbytes counts them; a variable-length string counts 16 (its
# stored text may be longer: the higher/lower exact counts are long hexadecimal numbers).
STRING_ITEMSIZE = 16


def check_plan_size(steps: int, shards_per_step: int, remedy: str) -> None:
    """Refuse a plan of too many steps or shards, from counts a configuration computes
    arithmetically (so nothing is materialised before the refusal); ``remedy`` says which
    option to change, and to what."""
    if steps > MAX_STEPS or shards_per_step > MAX_SHARDS_PER_STEP:
        raise InvalidInput(f"this run would make {steps:,} steps of up to {shards_per_step:,} "
                           f"shards (at most {MAX_STEPS:,} steps of {MAX_SHARDS_PER_STEP:,}): "
                           f"{remedy}")


def array_bytes(spec: ArraySpec) -> int:
    """The array's bytes uncompressed (what Zarr's nbytes says)."""
    import numpy as np

    itemsize = STRING_ITEMSIZE if spec.dtype == "str" else np.dtype(spec.dtype).itemsize
    return prod(spec.shape) * itemsize


def array_chunks(spec: ArraySpec) -> int:
    """Chunk files of the array once every chunk is written."""
    return prod(-(-size // chunk) for size, chunk in zip(spec.shape, spec.chunks))


def foreseen_stages(plan: Plan) -> tuple[tuple[Stage, ...], tuple[str, ...]]:
    """The plan's stages as far as they are known before the run (each later stage built
    from what it foresees its inputs will hold), and the names of the stages after them."""
    known: list[Stage] = []
    first_step = 0
    for position, stage in enumerate(plan.stages):
        if isinstance(stage, LaterStage):
            inputs = stage.foreseen(plan.config)
            if inputs is None:
                return tuple(known), tuple(later.name for later in plan.stages[position:])
            stage = Stage(stage.name, stage.solve_shard,
                          *stage.build(inputs, plan.config, first_step))
        known.append(stage)
        first_step += len(stage.steps)
    return tuple(known), ()


@dataclass(frozen=True)
class PlanSize:
    """What a plan's stages write, as far as they are known before the run
    (`foreseen_stages`): steps, shards, uncompressed bytes (what is stored is at most these
    and a 4-byte checksum a chunk: an array is compressed or, where that gains little,
    stored as it is), files (chunks, one marker per shard, one metadata file per array).
    ``later_stages`` names the stages only the run can size."""

    steps: int
    shards: int
    max_shards_per_step: int
    bytes: int
    files: int
    later_stages: tuple[str, ...]

    @classmethod
    def of(cls, plan: Plan) -> "PlanSize":
        known, later = foreseen_stages(plan)
        steps = [step for stage in known for step in stage.steps]
        arrays = [spec for stage in known for spec in stage.arrays]
        shards = sum(step.shards for step in steps)
        return cls(len(steps), shards, max((step.shards for step in steps), default=0),
                   sum(map(array_bytes, arrays)) + shards,
                   sum(map(array_chunks, arrays)) + shards + len(arrays) + len(steps),
                   later)
