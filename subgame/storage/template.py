"""The plan is the template: every metadata document of a computation follows from its plan.

Each array's ``zarr.json`` (shape, data type, chunks, codecs, fill value, dimension names,
attributes with its ``written_by`` writer) is what `ComputationStore.ensure_arrays` creates
from an `ArraySpec`; a marker array's follows from its step's shard count; the groups above
a computation are plain groups. So a document is checked by comparing it, as JSON, with the
one the spec gives, and restored by writing that one back: the chunks under it stay, and
their checksums then say which of them can still be trusted.

The driver records the specs it prepared in the computation's ``arrays`` attribute (a later
stage's are in ``built_stages``), so `subgame verify --store` holds a store against its plan
without rebuilding it; a repair has the plan itself.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Collection, Mapping, Sequence

from subgame.plan import ArraySpec

if TYPE_CHECKING:  # Zarr itself is imported where an array is made: a rerun that finds its
    import zarr    # store finished reads documents alone (`ComputationStore.stored_attrs`)

TEMPLATES_ATTR = "arrays"  # the computation's attribute: array path -> spec as prepared
OWNER_ATTR = "written_by"
MARKERS = "_markers"
PLAIN_GROUP = {"attributes": {}, "zarr_format": 3, "node_type": "group"}


def marker_path(step_index: int) -> str:
    return f"{MARKERS}/{step_index:05d}"


def marker_spec(step_index: int, shards: int) -> ArraySpec:
    """The marker array of a step: one uint8 chunk per shard, so workers never share one."""
    return ArraySpec(marker_path(step_index), (shards,), (1,), "uint8", ("shard",), 0)


def array_attrs(spec: ArraySpec) -> dict[str, Any]:
    """The attributes an array of this spec carries: its own and its writer."""
    return {**spec.attrs, **({OWNER_ATTR: spec.writer.to_attrs()} if spec.writer else {})}


def keep_compression(spec: ArraySpec, compressors: list[Any] | None) -> ArraySpec:
    """The spec of an array already in the store whose metadata lists these compressors
    (after its array-to-bytes codec), with the compression it was created with: its chunks
    are encoded so, and its metadata is held to its spec (an older store has every array
    compressed with zstd at level 3).  Unchanged where they are unknown (``None``: the
    metadata is unreadable) or none of ours (the metadata is then damage)."""
    from subgame.storage.zarr_settings import compression_of

    stored = compression_of(compressors) if compressors is not None else None
    return spec if stored in (None, spec.compression) else replace(spec, compression=stored)


def keep_layout(spec: ArraySpec, shards: tuple[int, ...] | None,
                chunks: tuple[int, ...]) -> ArraySpec:
    """The spec of an array already in the store with these ``shards`` and ``chunks`` (as
    Zarr reports them): one stored without sharding in the spec's chunks (a store written
    before the sharded layout), or sharded in the spec's chunks with other inner chunks
    (written under another inner chunk size), keeps that layout, its chunks and metadata as
    they are."""
    if spec.inner_chunks is not None and shards is None and tuple(chunks) == spec.chunks:
        return replace(spec, inner_chunks=None)
    if spec.inner_chunks is not None and shards is not None:
        kept = replace(spec, inner_chunks=tuple(chunks))
        if kept.stored_chunks() == tuple(shards):
            return kept
    return spec


def same_layout(spec: ArraySpec, shards: tuple[int, ...] | None,
                chunks: tuple[int, ...]) -> bool:
    """Whether an array with these ``shards`` and ``chunks`` is stored as the spec says."""
    return (tuple(shards or chunks), tuple(chunks) if shards else None) == \
        (spec.stored_chunks(), spec.inner_chunks)


def _array_options(spec: ArraySpec) -> dict[str, Any]:
    """How an array of the plan is created: its document is these options as Zarr writes
    them (`array_documents`)."""
    from subgame.storage.zarr_settings import COMPRESSIONS

    layout = ({"chunks": spec.inner_chunks, "shards": spec.stored_chunks()}
              if spec.inner_chunks else {"chunks": spec.chunks})
    return {"shape": spec.shape, **layout, "dtype": spec.dtype,
            "fill_value": spec.fill_value, "dimension_names": spec.dims,
            "compressors": COMPRESSIONS[spec.compression], "attributes": array_attrs(spec)}


def create_arrays(group: zarr.Group, specs: Sequence[ArraySpec], present: Collection[str],
                  constants: Sequence[ArraySpec] = ()) -> None:
    """Create the arrays of these specs in ``group``, with the groups above them that are
    not ``present``, then write the ``constants``' data (arrays present or just created):
    each array's document is the one Zarr writes (`array_documents`), and all go to the
    store at once,
    as do the constants, so that preparing a plan costs the store's latency twice, not a
    few times per array (hundreds of round trips for GOPS N = 7)."""
    from zarr.core.array import AsyncArray
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.sync import sync

    parents = {spec.path.rsplit("/", depth)[0] for spec in specs
               for depth in range(1, spec.path.count("/") + 1)} - set(present)
    documents = {**{path: json.dumps(PLAIN_GROUP, indent=2).encode() for path in parents},
                 **dict(zip((spec.path for spec in specs), array_documents(specs)))}
    buffer = default_buffer_prototype().buffer
    root = group.store_path

    async def write() -> None:
        await asyncio.gather(*((root / path / "zarr.json").set(buffer.from_bytes(document))
                               for path, document in documents.items()))
        arrays = await asyncio.gather(*(AsyncArray.open(root / spec.path)
                                        for spec in constants))
        await asyncio.gather(*(array.setitem(..., spec.constant())
                               for array, spec in zip(arrays, constants)))

    sync(write())


_DOCUMENTS: dict[str, bytes] = {}  # a spec (as JSON) -> its array's document
MAX_DOCUMENTS = 4096


def array_documents(specs: Sequence[ArraySpec]) -> list[bytes]:
    """The ``zarr.json`` that creating each spec's array writes: the specs not seen before
    are created together in memory (one call into Zarr's event loop, not two per array)."""
    from zarr.api.asynchronous import open_group
    from zarr.core.sync import sync

    from subgame.storage.zarr_settings import zarr

    keys = [json.dumps(spec.to_attrs(), sort_keys=True) for spec in specs]
    new = {key: spec for key, spec in zip(keys, specs) if key not in _DOCUMENTS}
    if new:
        memory = zarr.storage.MemoryStore()

        async def create() -> None:  # each under its own name: a document names no path
            group = await open_group(memory, mode="w")
            await asyncio.gather(*(group.create_array(str(i), **_array_options(spec))
                                   for i, spec in enumerate(new.values())))

        sync(create())
        if len(_DOCUMENTS) + len(new) > MAX_DOCUMENTS:
            _DOCUMENTS.clear()
        _DOCUMENTS.update((key, memory._store_dict[f"{i}/zarr.json"].to_bytes())
                          for i, key in enumerate(new))
    return [_DOCUMENTS[key] for key in keys]


def array_document(spec: ArraySpec) -> bytes:
    """The ``zarr.json`` that creating this spec's array writes."""
    return array_documents([spec])[0]


def array_differs(stored: bytes | None, spec: ArraySpec) -> str | None:
    """Why a stored array document is not the spec's (None: it is): missing, unreadable,
    or which fields differ."""
    if stored is None:
        return "missing metadata (zarr.json)"
    found = parse(stored)
    if not isinstance(found, dict) or found.get("node_type") != "array":
        return "unreadable metadata (zarr.json)"
    expected = json.loads(array_document(spec))
    differ = sorted(key for key in set(found) | set(expected)
                    if found.get(key) != expected.get(key))
    return f"metadata differs from the plan ({', '.join(differ)})" if differ else None


def parse(document: bytes | None) -> Any:
    """A metadata document as JSON, or None when it is absent or not JSON."""
    if document is None:
        return None
    try:
        return json.loads(document)
    except (ValueError, RecursionError):  # ValueError covers bad UTF-8 as well
        return None


def recorded_specs(attrs: Mapping[str, Any]) -> dict[str, ArraySpec]:
    """Every array the computation's attributes say the driver prepared: the recorded
    specs, the later stages' built arrays and one marker array per recorded step.  A
    recorded spec that makes no metadata document (damaged attributes: an unknown data
    type or compression, a missing field) is left out (`invalid_specs` names it)."""
    recorded = [(path, _spec(data)) for path, data in _recorded_arrays(attrs)]
    specs = {path: spec for path, spec in recorded if spec is not None}
    for step in attrs.get("steps") or []:
        specs[marker_path(step["index"])] = marker_spec(step["index"], step["shards"])
    return specs


def invalid_specs(attrs: Mapping[str, Any]) -> list[str]:
    """The arrays whose recorded spec makes no metadata document."""
    return [path for path, data in _recorded_arrays(attrs) if _spec(data) is None]


def _recorded_arrays(attrs: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(path, recorded spec as JSON) of the prepared arrays and the later stages' built ones."""
    found = list((attrs.get(TEMPLATES_ATTR) or {}).items())
    for built in (attrs.get("built_stages") or {}).values():
        found += [(spec["path"], spec) for spec in built["arrays"]]
    return found


def _spec(data: Any) -> ArraySpec | None:
    """A recorded spec, None where it makes no metadata document."""
    try:
        spec = ArraySpec.from_attrs(data)
        array_document(spec)
    except Exception:  # noqa: BLE001 - whatever fails to make a document is damage
        return None
    return spec
