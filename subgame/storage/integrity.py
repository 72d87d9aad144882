"""Find damaged chunks and turn them back into pending work.

Every array is written with a crc32c codec over its compressed bytes, so a chunk whose bytes
changed after it was written fails its checksum whenever it is read. A scan reads every
stored chunk of a computation; each failure is a ``Damage`` naming the array, the chunk, its
region and the (step, shard) that writes it.

Who writes a chunk: a marker chunk ``_markers/<step>`` [i] is shard i of that step. A data
array says it in its ``written_by`` attribute, a typed `subgame.plan.Writer` (e.g. a table
banded by max(n, m) is step = the largest chunk index along axes 0 and 1; a Monte Carlo
array is shard = the chunk's position in the grid point x batch grid). A chunk with no
declared writer is recomputed by recomputing every step: always correct, only slower.

Why repairing the writing shard is enough, and later steps are not recomputed: a checksum
failure means the bytes changed after they were written, and every read is checked. A later
step that read the chunk before the damage read good bytes, so its results are right; one
that read it after the damage failed loudly and is not finished, so it is pending anyway.
This holds because shard solvers are deterministic (the same inputs give the same bytes),
which resume already requires.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
from dataclasses import asdict, dataclass
from typing import Any, Iterator, Mapping

import fsspec
import numpy as np
import zarr

from subgame.errors import InvalidInput, NotComputed
from subgame.plan import ArraySpec, LaterStage, Plan, Writer
from subgame.storage.computation import MARKERS, OWNER_ATTR, ComputationStore, marker_path
from subgame.storage.location import open_root, reaching
_MARKER = re.compile(rf"^{MARKERS}/(\d+)$")
FAILPOINT_ENV = "SUBGAME_FAILPOINT"


def failpoint(name: str) -> None:
    """Tests kill the process here: $SUBGAME_FAILPOINT names the point."""
    if os.environ.get(FAILPOINT_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
_CHUNK = re.compile(r"^(?P<array>.+)/c/(?P<index>\d+(?:/\d+)*)$")


@dataclass(frozen=True)
class Damage:
    """One unreadable object: a chunk (``chunk`` set) or an array's metadata (``chunk`` None).

    ``step``/``shard`` name the work that rewrites it; None when no writer is declared."""

    computation: str
    array: str
    chunk: tuple[int, ...] | None
    region: tuple[tuple[int, int], ...] | None  # [start, stop) per axis
    step: int | None
    shard: int | None
    reason: str

    def describe(self) -> str:
        if not self.array:
            return (f"{self.computation or 'the store root'}: {self.reason}; it cannot be "
                    "repaired in place: compute into a new store")
        where = (f"chunk {list(self.chunk)} (region "
                 + ", ".join(f"{a}:{b}" for a, b in self.region) + ")"
                 if self.chunk is not None else "metadata")
        owner = (f"step {self.step} shard {self.shard}" if self.step is not None
                 else "every step (its writer is not declared)")
        return f"{self.computation}/{self.array} {where}: {self.reason}; recompute {owner}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def chunk_owner(array: str, writer: Writer | None, chunk: tuple[int, ...],
                grid: tuple[int, ...]) -> tuple[int, int] | None:
    """(step, shard) that writes ``chunk`` of ``array``, or None when undeclared."""
    marker = _MARKER.match(array)
    if marker:
        return int(marker.group(1)), chunk[0]
    return writer.owner(chunk, grid) if writer is not None else None


def _grid(array: zarr.Array) -> tuple[int, ...]:
    return tuple(-(-n // c) for n, c in zip(array.shape, array.chunks))


def _region(array: zarr.Array, chunk: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    return tuple((i * c, min((i + 1) * c, n)) for i, c, n in zip(chunk, array.chunks,
                                                                  array.shape))


def _files(url: str, group_path: str) -> tuple[fsspec.AbstractFileSystem, str, list[str]]:
    fs, root = fsspec.core.url_to_fs(url)
    base = f"{root.rstrip('/')}/{group_path}"
    return fs, base, sorted(path[len(base) + 1:] for path in fs.find(base))


def scan(url: str, group_path: str) -> list[Damage]:
    """Read every stored chunk of one computation; return what fails (read-only)."""
    try:
        group = open_root(url, writable=False)[group_path]
    except (ValueError, KeyError) as exc:  # the computation's own metadata
        raise InvalidInput(f"the metadata of {group_path} in {url!r} is unreadable ({exc}); "
                           "recompute it into a new store") from None
    _, _, files = _files(url, group_path)
    chunks = stored_chunks(files)
    damages, arrays = [], {}
    for name in files:
        if not name.endswith("/zarr.json"):
            continue
        path = name[:-len("/zarr.json")]
        try:
            node = group[path]
        except Exception as exc:  # noqa: BLE001 - any failure to parse is damage
            damages.append(Damage(group_path, path, None, None, None, None,
                                  f"unreadable metadata ({type(exc).__name__})"))
            continue
        if isinstance(node, zarr.Array):
            arrays[path] = node
            damages += _scan_array(group_path, path, node, chunks.get(path, []))
    return damages + missing_chunks(group, group_path, arrays, chunks)


def stored_chunks(files: list[str]) -> dict[str, list[tuple[int, ...]]]:
    """Array path -> indices of its stored chunks, from a computation's file names."""
    chunks: dict[str, list[tuple[int, ...]]] = {}
    for name in files:
        found = _CHUNK.match(name)
        if found:
            index = tuple(int(i) for i in found["index"].split("/"))
            chunks.setdefault(found["array"], []).append(index)
    return chunks


def fill_missing_chunks(url: str, group_path: str) -> int:
    """Write the fill value into every chunk a finished shard owns but never stored (a
    store written before every chunk was stored, as subgame 0.1 did); returns how many."""
    group = open_root(url, writable=True)[group_path]
    arrays = {path: member for path, member in group.members(max_depth=None)
              if isinstance(member, zarr.Array)}
    missing = missing_chunks(group, group_path, arrays,
                             stored_chunks(_files(url, group_path)[2]))
    for damage in missing:
        array = group[damage.array]
        array[tuple(slice(a, b) for a, b in damage.region)] = array.fill_value
    return len(missing)


def missing_chunks(group: zarr.Group, group_path: str, arrays: Mapping[str, zarr.Array],
                   stored: Mapping[str, list[tuple[int, ...]]]) -> list[Damage]:
    """Chunks that a finished shard wrote (its marker is set) and markers of a finished
    step that are not in the store. Every written chunk is stored (write_empty_chunks), so
    each is damage: deleted, or lost with its disk."""
    markers: dict[int, np.ndarray] = {}

    def finished(step: int, shard: int) -> bool:
        if step not in markers:
            try:
                markers[step] = group[marker_path(step)][:]
            except Exception:  # noqa: BLE001 - absent or damaged: reported on its own
                markers[step] = np.zeros(0, dtype="uint8")
        return shard < len(markers[step]) and bool(markers[step][shard])

    damages = []
    for path, member in arrays.items():
        rule = member.attrs.get(OWNER_ATTR)
        if not isinstance(rule, Mapping):
            continue
        writer, grid, present = Writer.from_attrs(rule), _grid(member), set(stored.get(path, []))
        for chunk in itertools.product(*map(range, grid)):
            if chunk not in present:
                step, shard = writer.owner(chunk, grid)
                if finished(step, shard):
                    damages.append(Damage(group_path, path, chunk, _region(member, chunk),
                                          step, shard, "missing chunk of a finished shard"))
    done = group.attrs.get("steps_done", {})
    for step in group.attrs.get("steps", []):
        path = marker_path(step["index"])
        if str(step["index"]) in done:
            present = set(stored.get(path, []))
            damages += [Damage(group_path, path, (shard,), ((shard, shard + 1),), step["index"],
                               shard, "missing marker of a finished step")
                        for shard in range(step["shards"]) if (shard,) not in present]
    return damages


def _scan_array(group_path: str, path: str, array: zarr.Array,
                chunks: list[tuple[int, ...]]) -> Iterator[Damage]:
    rule = array.attrs.get(OWNER_ATTR)
    writer = Writer.from_attrs(rule) if isinstance(rule, Mapping) else None
    for chunk in chunks:
        try:
            array.blocks[chunk]
        except Exception as exc:  # noqa: BLE001 - checksum, codec or truncation: all damage
            owner = chunk_owner(path, writer, chunk, _grid(array)) or (None, None)
            reason = " ".join(str(exc).split())[:80]
            yield Damage(group_path, path, chunk, _region(array, chunk), *owner, reason)


def scan_store(url: str) -> list[Damage]:
    """Every computation in the store (found by their metadata files), scanned; metadata
    that cannot be parsed outside any computation is reported as such."""
    with reaching(url):
        fs, root = fsspec.core.url_to_fs(url)
        root = root.rstrip("/")
        found = fs.exists(f"{root}/zarr.json")
    if not found:
        raise NotComputed(f"no subgame store at {url!r}")
    computations, unreadable = [], []
    for path in sorted(p for p in fs.find(root) if p.endswith("/zarr.json")):
        node = path[len(root) + 1:-len("/zarr.json")]
        try:
            meta = json.loads(fs.cat_file(path))
        except ValueError:
            unreadable.append(node)
            continue
        if meta.get("node_type") == "group" and "identity" in meta.get("attributes", {}):
            computations.append(node)
    damages = [Damage(node, "", None, None, None, None, "unreadable metadata")
               for node in unreadable
               if not any(node.startswith(f"{c}/") for c in computations)]
    for group_path in computations:
        damages += scan(url, group_path)
    return damages


def repair_damage(store: ComputationStore, plan: Plan) -> list[Damage]:
    """Driver only, under the lock, before the store is prepared: find every damaged object,
    reopen the shards that write it, then delete it (preparing recreates lost arrays and
    constants). Writers are taken from the plan, so lost metadata loses nothing."""
    fs, base, _ = _files(store.url, plan.group_path)
    damages = scan(store.url, plan.group_path)
    arrays = _plan_arrays(store, plan)
    pending: dict[int, set[int]] = {}
    constants = set()
    for damage in damages:
        lost = ([(damage.array, damage.chunk)] if damage.chunk is not None else
                [(path, chunk) for path, (_, chunks) in arrays.items()
                 if path == damage.array or path.startswith(f"{damage.array}/")
                 for chunk in chunks])
        for path, chunk in lost:
            if path not in arrays:
                continue  # not the plan's
            spec = arrays[path][0]
            if spec is not None and spec.constant is not None:
                constants.add(path)  # the driver writes it again
                continue
            grid = tuple(-(-n // c) for n, c in zip(spec.shape, spec.chunks)) if spec else ()
            owner = chunk_owner(path, spec.writer if spec else None, chunk, grid)
            if owner is None:  # undeclared writer: every step, always correct
                for index, shards in _plan_steps(store):
                    pending.setdefault(index, set()).update(range(shards))
                break
            pending.setdefault(owner[0], set()).add(owner[1])
    failpoint("repair:scanned")
    # Intent first: once the shards are pending, a kill anywhere below loses nothing.
    store.reopen({step: sorted(shards) for step, shards in pending.items()
                  if marker_path(step) in store.group})
    failpoint("repair:reopened")
    if constants:
        store.group.attrs["constants_done"] = sorted(
            set(store.group.attrs.get("constants_done", [])) - constants)
    for damage in damages:
        target = f"{base}/{damage.array}"
        if damage.chunk is not None:
            target += "/c/" + "/".join(map(str, damage.chunk))
        if fs.exists(target):  # a damaged group's members went with it
            fs.rm(target, recursive=True)
            failpoint("repair:deleted-one")
    return damages


def _plan_steps(store: ComputationStore) -> list[tuple[int, int]]:
    """(index, shards) of every step of the plan, later stages included once built."""
    return [(step["index"], step["shards"]) for step in store.group.attrs.get("steps", [])]


def _plan_arrays(store: ComputationStore, plan: Plan
                 ) -> dict[str, tuple[ArraySpec | None, list[tuple[int, ...]]]]:
    """Every array the plan stores (markers included, without a spec) with its chunks."""
    specs = [spec for stage in plan.stages if not isinstance(stage, LaterStage)
             for spec in stage.arrays]
    specs += [spec for stage in plan.stages if isinstance(stage, LaterStage)
              for spec in (store.built_stage(stage.name) or ((), ()))[0]]
    arrays: dict[str, tuple[ArraySpec | None, list[tuple[int, ...]]]] = {
        spec.path: (spec, list(itertools.product(*(range(-(-n // c)) for n, c in
                                                   zip(spec.shape, spec.chunks)))))
        for spec in specs}
    for index, shards in _plan_steps(store):
        arrays[marker_path(index)] = (None, [(shard,) for shard in range(shards)])
    return arrays
