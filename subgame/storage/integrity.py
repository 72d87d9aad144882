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

Metadata is held against the plan (`subgame.storage.template`): a metadata document that is
missing, unreadable or not the one the plan gives is damage. A repair writes the plan's
document back and keeps the chunks under it: each chunk's checksum then says whether it
can be trusted (the same bytes under the same codecs), and only the writers of the chunks
that fail or are missing are recomputed.

A store being written is read in the order its driver and workers write it: the
computation's attributes (its steps and which are finished), then every marker, then the
list of stored files. A shard's marker is set after its chunks are stored, so a chunk
missing from a listing taken after its marker was read set is lost, never "not yet
written". Where a live run holds the computation's lock, what is found is confirmed by
scanning again (the driver may be growing or recreating an array right then): only what
every scan finds is reported.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import time
from dataclasses import asdict, dataclass
from typing import Any, Iterator, Mapping

import fsspec
import numpy as np
import zarr

from subgame.errors import NotComputed, StoreLocked
from subgame.plan import ArraySpec, LaterStage, Plan, Stage, Writer
from subgame.storage.computation import FORMAT, ComputationStore
from subgame.storage.lock import StoreLock
from subgame.storage.location import reaching
from subgame.storage.template import (MARKERS, OWNER_ATTR, PLAIN_GROUP, TEMPLATES_ATTR,
                                      array_differs, array_document, keep_compression,
                                      keep_layout,
                                      invalid_specs, marker_path, parse, recorded_specs)

FAILPOINT_ENV = "SUBGAME_FAILPOINT"
CONFIRM_SCANS = 3  # scans of a computation a live run is writing (see the module's text)


def failpoint(name: str) -> None:
    """Tests kill the process here: $SUBGAME_FAILPOINT names the point."""
    if os.environ.get(FAILPOINT_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


@dataclass(frozen=True)
class Damage:
    """One unreadable object: a chunk (``chunk`` set), an array's metadata (``chunk``
    None) or a group's (``array`` empty).

    ``step``/``shard`` name the work that rewrites a chunk; None when no writer is declared."""

    computation: str
    array: str
    chunk: tuple[int, ...] | None
    region: tuple[tuple[int, int], ...] | None  # [start, stop) per axis
    step: int | None
    shard: int | None
    reason: str

    def describe(self) -> str:
        family = self.computation.split("/")[0] or "<family>"
        repair = f"`subgame run {family} <the options that made it> --repair`"
        if not self.array:
            return (f"{self.computation or 'the store root'}: {self.reason}; {repair} "
                    "rewrites it")
        if self.chunk is None:
            return (f"{self.computation}/{self.array}: {self.reason}; {repair} rewrites it "
                    "from the plan and recomputes the shards whose chunks fail their checks")
        where = ("chunk " + str(list(self.chunk)) + " (region "
                 + ", ".join(f"{a}:{b}" for a, b in self.region) + ")")
        owner = (f"step {self.step} shard {self.shard}" if self.step is not None
                 else "every step (its writer is not declared)")
        return f"{self.computation}/{self.array} {where}: {self.reason}; recompute {owner}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def key(self) -> tuple[str, str, tuple[int, ...] | None]:
        return self.computation, self.array, self.chunk


def _stored_chunks(array: zarr.Array) -> tuple[int, ...]:
    """The shape of the array's stored objects: its shards where sharded, else its chunks."""
    return array.shards or array.chunks


def _grid(array: zarr.Array) -> tuple[int, ...]:
    return tuple(-(-n // c) for n, c in zip(array.shape, _stored_chunks(array)))


def _region(array: zarr.Array, chunk: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    return tuple((i * c, min((i + 1) * c, n))
                 for i, c, n in zip(chunk, _stored_chunks(array), array.shape))


def chunk_owner(array: str, writer: Writer | None, chunk: tuple[int, ...],
                grid: tuple[int, ...]) -> tuple[int, int] | None:
    """(step, shard) that writes ``chunk`` of ``array``, or None when undeclared."""
    if array.startswith(f"{MARKERS}/"):
        return int(array.rsplit("/", 1)[1]), chunk[0]
    return writer.owner(chunk, grid) if writer is not None else None


class _Files:
    """A computation's objects, read through fsspec (metadata as bytes, chunk listings)."""

    def __init__(self, url: str, group_path: str):
        with reaching(url):
            self.fs, root = fsspec.core.url_to_fs(url)
        self.root = root.rstrip("/")
        self.base = f"{self.root}/{group_path}".rstrip("/")

    def document(self, path: str) -> bytes | None:
        """``path``/zarr.json (relative to the computation), or None when absent."""
        try:
            return self.fs.cat_file(f"{self.base}/{path}/zarr.json" if path
                                    else f"{self.base}/zarr.json")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def listing(self) -> list[str]:
        try:
            return sorted(path[len(self.base) + 1:] for path in self.fs.find(self.base))
        except FileNotFoundError:
            return []


def stored_chunks(files: list[str]) -> dict[str, set[tuple[int, ...]]]:
    """Array path -> indices of its stored chunks, from a computation's file names."""
    chunks: dict[str, set[tuple[int, ...]]] = {}
    for name in files:
        array, sep, index = name.partition("/c/")
        if sep and index and all(part.isdigit() for part in index.split("/")):
            chunks.setdefault(array, set()).add(tuple(int(i) for i in index.split("/")))
    return chunks


def _open_array(url: str, path: str) -> zarr.Array:
    return zarr.open_array(url, path=path, mode="r")


def computation_attrs(files: _Files) -> Mapping[str, Any] | None:
    """The computation group's attributes, or None when its document is not a computation's."""
    document = parse(files.document(""))
    if not isinstance(document, dict) or document.get("node_type") != "group":
        return None
    attrs = document.get("attributes")
    if not isinstance(attrs, dict) or "identity" not in attrs or attrs.get("format") != FORMAT:
        return None
    return attrs


def scan(url: str, group_path: str, plan_specs: Mapping[str, ArraySpec] | None = None,
         published: frozenset[str] = frozenset()) -> list[Damage]:
    """Hold one computation against its plan: every metadata document and every stored
    chunk, and the chunks finished shards wrote (read-only). ``plan_specs`` (a repair's)
    adds the plan's arrays to those the store recorded; ``published`` names arrays the
    root's consolidated metadata lists (a store prepared before specs were recorded)."""
    files = _Files(url, group_path)
    attrs = computation_attrs(files)
    if attrs is None:
        return [Damage(group_path, "", None, None, None, None,
                       "the computation's group metadata is missing or unreadable")]
    specs = {**(plan_specs or {}), **recorded_specs(attrs)}
    damages = [Damage(group_path, path, None, None, None, None,
                      "its spec in the computation's attributes is not valid")
               for path in invalid_specs(attrs)]
    finished_steps = set(attrs.get("steps_done") or {})
    markers = {step["index"]: _markers(url, f"{group_path}/{marker_path(step['index'])}")
               for step in attrs.get("steps") or []}
    listing = files.listing()  # after the state it is judged against (see the module's text)
    chunks = stored_chunks(listing)
    documents = {name[:-len("/zarr.json")] for name in listing if name.endswith("/zarr.json")}
    sound = {}  # path -> (its array, its spec or None)
    for path in sorted(set(specs) | documents):
        stored, spec = files.document(path), specs.get(path)
        # A subgroup, or an array the plan does not name, is held to being readable.
        reason = array_differs(stored, spec) if spec is not None else _unreadable(stored)
        if reason is None and (spec is not None or parse(stored)["node_type"] == "array"):
            try:
                sound[path] = (_open_array(url, f"{group_path}/{path}"), spec)
            except Exception as exc:  # noqa: BLE001 - any failure to parse is damage
                reason = f"invalid metadata (zarr.json: {type(exc).__name__})"
        if reason is not None:
            damages.append(Damage(group_path, path, None, None, None, None, reason))
    if not attrs.get(TEMPLATES_ATTR):
        damages += [Damage(group_path, path, None, None, None, None,
                           "missing metadata (zarr.json)")
                    for path in sorted(published - documents - set(specs))]
    constants = set(attrs.get("constants_done") or [])
    for path, (array, spec) in sound.items():
        damages += _scan_array(group_path, path, array, chunks.get(path, set()))
        damages += _missing_chunks(group_path, path, array, spec, chunks.get(path, set()),
                                   markers, finished_steps, path in constants)
    return damages


def _unreadable(document: bytes | None) -> str | None:
    found = parse(document)
    if isinstance(found, dict) and found.get("node_type") in ("group", "array"):
        return None
    return "unreadable metadata (zarr.json)"


def _markers(url: str, path: str) -> np.ndarray:
    try:
        return _open_array(url, path)[:]
    except Exception:  # noqa: BLE001 - absent or damaged: reported on its own
        return np.zeros(0, dtype="uint8")


def _scan_array(group_path: str, path: str, array: zarr.Array,
                chunks: set[tuple[int, ...]]) -> Iterator[Damage]:
    rule = array.attrs.get(OWNER_ATTR)
    writer = Writer.from_attrs(rule) if isinstance(rule, Mapping) else None
    grid = _grid(array)
    for chunk in sorted(chunks):
        if len(chunk) != len(grid) or not all(i < g for i, g in zip(chunk, grid)):
            continue  # beyond the array: a smaller extent's leftover, never read
        try:  # (a sharded object's index and each inner chunk carry their checksums)
            array[tuple(slice(a, b) for a, b in _region(array, chunk))]
        except Exception as exc:  # noqa: BLE001 - checksum, codec or truncation: all damage
            owner = chunk_owner(path, writer, chunk, grid) or (None, None)
            yield Damage(group_path, path, chunk, _region(array, chunk), *owner, _reason(exc))


def _reason(exc: Exception) -> str:
    """A read failure in words: zarr's checksum message prints raw bytes, cut mid-way."""
    text = str(exc)
    if "checksum" in text.lower():
        return "the chunk fails its checksum (its bytes changed after they were written)"
    return f"unreadable ({type(exc).__name__}: {' '.join(text.split())[:120]})"


def _missing_chunks(group_path: str, path: str, array: zarr.Array, spec: ArraySpec | None,
                    present: set[tuple[int, ...]], markers: Mapping[int, np.ndarray],
                    finished_steps: set[str], constant: bool) -> list[Damage]:
    """Chunks a finished shard wrote (its marker was set when read, before the listing),
    markers of a finished step and chunks of a written constant that are not stored. Every
    written chunk is stored (write_empty_chunks), so each is damage: deleted, or lost."""
    grid = _grid(array)
    if path.startswith(f"{MARKERS}/"):
        step = int(path.rsplit("/", 1)[1])
        if str(step) not in finished_steps:
            return []
        return [Damage(group_path, path, (shard,), ((shard, shard + 1),), step, shard,
                       "missing marker of a finished step")
                for shard in range(grid[0]) if (shard,) not in present]
    rule = (spec.writer.to_attrs() if spec is not None and spec.writer is not None
            else array.attrs.get(OWNER_ATTR))
    if not isinstance(rule, Mapping) and not constant:
        return []
    writer = Writer.from_attrs(rule) if isinstance(rule, Mapping) else None
    damages = []
    for chunk in itertools.product(*map(range, grid)):
        if chunk in present:
            continue
        region = _region(array, chunk)
        if writer is None:
            damages.append(Damage(group_path, path, chunk, region, None, None,
                                  "missing chunk of a written constant"))
            continue
        step, shard = writer.owner(chunk, grid)
        done = markers.get(step, np.zeros(0, dtype="uint8"))
        if shard < len(done) and done[shard]:
            damages.append(Damage(group_path, path, chunk, region, step, shard,
                                  "missing chunk of a finished shard"))
    return damages


def fill_missing_chunks(url: str, group_path: str) -> int:
    """Write the fill value into every chunk a finished shard owns but never stored (a
    store written before every chunk was stored, as subgame 0.1 did); returns how many."""
    missing = [d for d in scan(url, group_path) if d.reason.startswith("missing chunk")]
    group = zarr.open_group(url, path=group_path, mode="a")
    for damage in missing:
        array = group[damage.array]
        array[tuple(slice(a, b) for a, b in damage.region)] = array.fill_value
    return len(missing)


def _live_run(url: str, group_path: str) -> bool:
    try:
        StoreLock(url, group_path).check()
    except StoreLocked:
        return True
    except OSError:
        return False
    return False


def _confirmed_scan(url: str, group_path: str, published: frozenset[str]) -> list[Damage]:
    """A scan; where a live run writes the computation, only what repeated scans all find."""
    damages = scan(url, group_path, published=published)
    for _ in range(CONFIRM_SCANS - 1):
        if not damages or not _live_run(url, group_path):
            break
        time.sleep(0.2)
        again = {damage.key for damage in scan(url, group_path, published=published)}
        damages = [damage for damage in damages if damage.key in again]
    return damages


def scan_store(url: str) -> list[Damage]:
    """Every computation in the store (found by their metadata documents), held against
    its recorded plan; metadata outside any computation that cannot be read is damage too
    (the root's, a family's group, a computation's own)."""
    files = _Files(url, "")
    with reaching(url):
        listing = files.listing()
    documents = sorted(name[:-len("zarr.json")].rstrip("/") for name in listing
                       if name == "zarr.json" or name.endswith("/zarr.json"))
    if not documents:
        raise NotComputed(f"no subgame store at {url!r}: nothing to verify")
    computations, damages = [], []
    for node in documents:
        if any(node.startswith(f"{c}/") for c in computations):
            continue
        document = files.document(node)
        found = parse(document)
        if isinstance(found, dict) and found.get("node_type") == "group" and \
                "identity" in (found.get("attributes") or {}):
            computations.append(node)
        elif _unreadable(document):
            damages.append(Damage(node, "", None, None, None, None, _unreadable(document)))
    if not computations and not damages:
        raise NotComputed(f"{url!r} holds Zarr groups but no subgame computation: nothing "
                          "to verify")
    snapshot = parse(files.document("")) if "" in documents else None
    published = ((snapshot.get("consolidated_metadata") or {}).get("metadata") or {}
                 if isinstance(snapshot, dict) else {})
    for group_path in computations:
        damages += _confirmed_scan(url, group_path, frozenset(
            path[len(group_path) + 1:] for path, document in published.items()
            if path.startswith(f"{group_path}/") and isinstance(document, dict)
            and document.get("node_type") == "array"))
    return damages


# -- repair ------------------------------------------------------------------------------------
def restore_groups(url: str, group_path: str, identity: Mapping[str, Any],
                   extent: Mapping[str, Any]) -> list[str]:
    """Before a repairing run opens the store: the root's, the family's and the
    computation's own group documents, rewritten where missing or unreadable. A lost
    computation document loses only its bookkeeping (which steps are finished, the later
    stages built): the markers are the truth about shards, so the run redoes the rest."""
    files = _Files(url, "")
    if not files.fs.exists(files.root):
        return []
    restored = []
    parts = group_path.split("/")
    for depth in range(len(parts)):
        node = "/".join(parts[:depth])
        if _unreadable(files.document(node)):
            _write(files, node, PLAIN_GROUP)
            restored.append(node or "the store root")
    computation = _Files(url, group_path)
    if files.fs.exists(computation.base) and computation_attrs(computation) is None:
        _write(files, group_path, {**PLAIN_GROUP, "attributes": {
            # A computation's group path starts with its family's name (the registry's).
            "format": FORMAT, "family": parts[0], "identity": dict(identity),
            "extent": dict(extent), "steps": [], "steps_done": {}}})
        restored.append(group_path)
    return restored


def _write(files: _Files, node: str, document: Mapping[str, Any] | bytes) -> None:
    data = document if isinstance(document, bytes) else json.dumps(document, indent=2).encode()
    path = f"{files.base}/{node}/zarr.json" if node else f"{files.base}/zarr.json"
    files.fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
    files.fs.pipe_file(path, data)


def plan_specs(store: ComputationStore, plan: Plan, files: _Files) -> dict[str, ArraySpec]:
    """Every array the plan stores: the stages known up front and the later stages built,
    each with the compression its readable metadata names (`keep_compression`: a store
    with no specs recorded, as `subgame upgrade` leaves one, is repaired to its own
    codecs, not to today's)."""
    specs = [spec for stage in plan.stages if isinstance(stage, Stage) for spec in stage.arrays]
    specs += [spec for stage in plan.stages if isinstance(stage, LaterStage)
              for spec in (store.built_stage(stage.name) or ((), ()))[0]]
    return {spec.path: _as_stored(spec, files.document(spec.path)) for spec in specs}


def _as_stored(spec: ArraySpec, document: bytes | None) -> ArraySpec:
    """The spec with the layout (`keep_layout`) and compression (`keep_compression`) that
    the array's readable metadata names; unchanged where it is absent or unreadable."""
    found = parse(document)
    codecs = found.get("codecs") if isinstance(found, dict) else None
    if not isinstance(codecs, list) or not codecs or not isinstance(codecs[0], dict):
        return spec
    try:
        chunks = tuple(found["chunk_grid"]["configuration"]["chunk_shape"])
        if codecs[0].get("name") == "sharding_indexed":
            inner = codecs[0]["configuration"]
            shards, chunks, codecs = chunks, tuple(inner["chunk_shape"]), inner["codecs"]
        else:
            shards = None
    except (KeyError, TypeError):
        return spec
    return keep_compression(keep_layout(spec, shards, chunks), codecs[1:])


def repair_damage(store: ComputationStore, plan: Plan) -> list[Damage]:
    """Driver only, under the lock, before the store is prepared: rewrite every damaged
    metadata document from the plan (its chunks stay), then find every damaged or missing
    chunk, reopen the shards that write it, and delete it (preparing rewrites constants)."""
    files = _Files(store.url, plan.group_path)
    specs = plan_specs(store, plan, files)
    damages = scan(store.url, plan.group_path, specs)
    recorded = {**specs, **recorded_specs(store.group.attrs)}
    for damage in damages:
        if damage.chunk is None:
            _restore_document(files, damage.array, recorded)
    chunk_damages = [damage for damage in scan(store.url, plan.group_path, specs)
                     if damage.chunk is not None]
    pending: dict[int, set[int]] = {}
    constants = set()
    for damage in chunk_damages:
        if damage.step is not None:
            pending.setdefault(damage.step, set()).add(damage.shard)
        elif damage.array in set(store.group.attrs.get("constants_done", [])):
            constants.add(damage.array)  # the driver writes it again
        else:  # undeclared writer: every step, always correct
            for step in store.group.attrs.get("steps", []):
                pending.setdefault(step["index"], set()).update(range(step["shards"]))
    failpoint("repair:scanned")
    # Intent first: once the shards are pending, a kill anywhere below loses nothing.
    store.reopen({step: sorted(shards) for step, shards in pending.items()
                  if marker_path(step) in recorded})
    failpoint("repair:reopened")
    if constants:
        store.group.attrs["constants_done"] = sorted(
            set(store.group.attrs.get("constants_done", [])) - constants)
    for damage in chunk_damages:
        target = f"{files.base}/{damage.array}/c/" + "/".join(map(str, damage.chunk))
        if files.fs.exists(target):
            files.fs.rm(target)
            failpoint("repair:deleted-one")
    return damages + [d for d in chunk_damages if d.key not in {x.key for x in damages}]


def _restore_document(files: _Files, path: str, specs: Mapping[str, ArraySpec]) -> None:
    """Write back a damaged document: an array's from its spec, a group above the plan's
    arrays as a plain group; anything else is not the plan's and goes (nothing reads it)."""
    if path in specs:
        for depth in range(1, path.count("/") + 1):  # the subgroups above it
            parent = path.rsplit("/", depth)[0]
            if _unreadable(files.document(parent)):
                _write(files, parent, PLAIN_GROUP)
        _write(files, path, array_document(specs[path]))
    elif any(spec.startswith(f"{path}/") for spec in specs):
        _write(files, path, PLAIN_GROUP)
    elif files.fs.exists(f"{files.base}/{path}"):
        files.fs.rm(f"{files.base}/{path}", recursive=True)
