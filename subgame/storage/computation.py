"""The Zarr layout of one computation and the truth about its progress.

A computation is one group (``family/identity``) holding its arrays, one marker array per
step (``_markers/<step>``, one chunk per shard so concurrent workers never share a chunk),
and attributes written by the driver only:

- ``format``: the layout version (2; stores of subgame 0.1 are converted by `subgame upgrade`);
- ``family``, ``identity`` (what a store must match) and ``extent`` (what a later run may grow);
- ``steps``: the plan's steps as stored; ``steps_done``: per finished step, its timings;
- ``built_stages``: the arrays and steps of stages sized by earlier ones, once built;
- ``constants_done``: the constant arrays whose data the driver has written;
- ``complete``: the last run ended with every step of every stage finished (a rerun then
  answers from the attributes alone).

A shard is done when its marker is set; the marker is written after the shard's data, so a
killed run leaves at worst a shard recomputed, never one skipped.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.parse
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence

import fsspec
import numpy as np

from subgame.errors import ConfigurationClash, InvalidInput, NotComputed
from subgame.plan import ArraySpec, Step
from subgame.storage import reading
from subgame.storage.chunk_writer import write_rows
from subgame.storage.entry_reader import EntryReader
from subgame.storage.location import open_root, reaching
from subgame.storage.template import (MARKERS, OWNER_ATTR, TEMPLATES_ATTR,  # noqa: F401
                                      array_attrs, create_arrays, keep_compression,
                                      keep_layout, marker_path, marker_spec, same_layout)

if TYPE_CHECKING:  # (imported with the first store opened: `subgame.storage.zarr_settings`)
    import zarr

FORMAT = 2


def step_changed(stored: Mapping[str, Any], step: Step) -> bool:
    """A step must be recomputed when what it covers changed (a grown extent)."""
    return stored != step.to_attrs()


class ComputationStore:
    """A computation's group: arrays, markers and driver-written attributes."""

    def __init__(self, url: str, group: zarr.Group, group_path: str):
        self.url = url
        self.group = group
        self.group_path = group_path
        self._arrays: dict[str, zarr.Array] | None = None  # kept by a long-lived reader
        self._members: dict[str, bool] | None = None  # likewise, what `has` found
        self._readers: dict[str, EntryReader | None] | None = None  # and their readers

    # -- opening ------------------------------------------------------------------------
    @classmethod
    def open(cls, url: str, group_path: str, *, writable: bool = False) -> "ComputationStore":
        """Open an existing computation (workers, queries); no configuration check."""
        if not writable and reading.kept():
            return reading.opened(url, group_path, lambda: cls._open(url, group_path))
        return cls._open(url, group_path, writable)

    @classmethod
    def _open(cls, url: str, group_path: str, writable: bool = False) -> "ComputationStore":
        root = open_root(url, writable=writable)
        try:
            group = root[group_path]
        except KeyError as exc:
            raise NotComputed(f"{url!r} holds no computation {group_path!r}") from exc
        except ValueError as exc:
            raise _unreadable(url, group_path) from exc
        check_format(url, group_path, group.attrs)
        return cls(url, group, group_path)

    @staticmethod
    def stored_attrs(url: str, group_path: str) -> Mapping[str, Any] | None:
        """The computation's attributes, or None when the store or group does not exist.
        Where the root's and the group's documents read as groups', from them alone, without
        Zarr (a rerun that finds everything stored imports none of it); else Zarr opens
        them, and says what is wrong."""
        attrs = _document_attrs(url, group_path)
        if attrs is None:
            try:
                root = open_root(url, writable=False)
            except NotComputed:
                return None
            try:
                if group_path not in root:
                    return None
                attrs = root[group_path].attrs
            except ValueError as exc:
                raise _unreadable(url, group_path) from exc
        check_format(url, group_path, attrs)
        return dict(attrs)

    @staticmethod
    def check_identity(url: str, group_path: str, identity: Mapping[str, Any],
                       stored: Mapping[str, Any] | None) -> None:
        """Raise ConfigurationClash if the stored identity differs from the requested one."""
        if stored is not None and dict(stored["identity"]) != dict(identity):
            raise ConfigurationClash(_clash_message(url, group_path, dict(stored["identity"]),
                                                    dict(identity)))

    @classmethod
    def create(cls, url: str, group_path: str, family: str, identity: Mapping[str, Any],
               extent: Mapping[str, Any]) -> "ComputationStore":
        """Driver only: open the computation, creating its group when absent, and record
        the (possibly grown) extent."""
        root = open_root(url, writable=True)
        if group_path in root:
            group = root[group_path]
        else:
            # One metadata write: a run killed here leaves no group without its identity.
            group = root.create_group(group_path, attributes={
                "format": FORMAT, "family": family, "identity": dict(identity),
                "extent": dict(extent), "steps": [], "steps_done": {}})
        group.attrs["extent"] = dict(extent)
        return cls(url, group, group_path)

    # -- arrays --------------------------------------------------------------------------
    def ensure_arrays(self, specs: Iterable[ArraySpec]) -> list[ArraySpec]:
        """Driver only: create every array (or grow it to a larger extent), then write the
        constant data not yet written (or grown). Returns the shard-written arrays created
        afresh because their chunks changed: what was in them is gone. The arrays present
        are read in one listing and the rest created at once (`create_arrays`)."""
        written = set(self.group.attrs.get("constants_done", []))
        present = self.members()
        prepared, absent, constants, recreated = [], [], [], []
        for spec in specs:
            before = present.get(spec.path)
            same = False
            if before is not None:
                spec = keep_layout(spec, before.shards, before.chunks)
                same = same_layout(spec, before.shards, before.chunks)
            if same:
                spec = keep_compression(spec, [codec.to_dict() for codec in before.compressors])
            prepared.append(spec)
            if before is not None and not same:
                del self.group[spec.path]  # another layout: the caller reopens its writers
                if spec.writer is not None:
                    recreated.append(spec)
            # (grown: compared before resizing; a recreated array holds no data yet)
            fresh = not same
            grown = not fresh and before.shape != spec.shape
            if fresh:
                absent.append(spec)
            else:
                if grown:
                    before.resize(spec.shape)
                if dict(before.attrs) != array_attrs(spec):
                    before.attrs.put(array_attrs(spec))
            if spec.constant is not None and (spec.path not in written or fresh or grown):
                constants.append(spec)
        create_arrays(self.group, absent, present, constants)
        if constants:
            self.group.attrs["constants_done"] = sorted(written | {s.path for s in constants})
        self._record_templates({spec.path: spec.to_attrs() for spec in prepared})
        return recreated

    def members(self) -> dict[str, zarr.Array | zarr.Group]:
        """Every array and group in the computation, by path: one listing of the store."""
        return dict(self.group.members(max_depth=None))

    def _record_templates(self, specs: Mapping[str, Any], drop: Iterable[str] = ()) -> None:
        """The specs of the arrays as prepared, for `subgame verify --store` (written after
        the arrays, so a recorded spec names an array that exists)."""
        recorded = dict(self.group.attrs.get(TEMPLATES_ATTR, {}))
        updated = {path: spec for path, spec in {**recorded, **specs}.items()
                   if path not in set(drop)}
        if updated != recorded:
            self.group.attrs[TEMPLATES_ATTR] = updated

    def array(self, path: str) -> zarr.Array:
        if self._arrays is not None and path in self._arrays:
            return self._arrays[path]
        try:
            array = self.group[path]
        except KeyError as exc:
            raise NotComputed(f"{self.group_path} has no array {path!r}") from exc
        except ValueError as exc:  # its metadata torn: a run writing it, or damage
            raise _unreadable(self.url, f"{self.group_path}/{path}") from exc
        if self._arrays is not None:
            self._arrays[path] = array
        return array

    def has(self, path: str) -> bool:
        """Whether the computation holds this array or group (a kept reader asks the store
        once: a step that adds arrays rewrites the group's metadata, and `reading` opens the
        computation afresh then)."""
        if self._members is None:
            return path in self.group
        if path not in self._members:
            self._members[path] = path in self.group
        return self._members[path]

    def entries(self, paths: Sequence[str], where: tuple) -> list[np.ndarray]:
        """The entries at ``where`` of several arrays: straight from their files where
        `entry_reader` reads them, else read together through Zarr, one trip into its event
        loop for all (each array's own read is a trip, a thread switch each way)."""
        from zarr.core.sync import sync

        found = [reader.read(where) if reader else None
                 for reader in map(self._entry_reader, paths)]
        if all(entry is not None for entry in found):
            return found
        arrays = [self.array(path)._async_array for path in paths]

        async def read() -> list[np.ndarray]:
            return list(await asyncio.gather(*(array.getitem(where) for array in arrays)))

        return sync(read())

    def points(self, path: str, points: np.ndarray) -> np.ndarray:
        """The entries of an array at the positions ``points`` (an (n, ndim) integer
        array): each block that holds some read once, straight from its file where
        `entry_reader` reads it, else by Zarr's coordinate selection."""
        reader = self._entry_reader(path)
        found = reader.read_points(points) if reader else None
        if found is None:
            found = self.array(path).get_coordinate_selection(tuple(points.T))
        return found

    def _entry_reader(self, path: str) -> EntryReader | None:
        if self._readers is not None and path in self._readers:
            return self._readers[path]
        reader = EntryReader.of(self.array(path))
        if self._readers is not None:
            self._readers[path] = reader
        return reader

    def rows(self, path: str, ranks: np.ndarray) -> np.ndarray:
        """Rows ``ranks`` (sorted, unique) of an array, read a run of consecutive ranks at a
        time. Zarr's orthogonal indexing (``oindex[ranks]``) would turn the other axes' full
        slices into index arrays, element by element, for every chunk it touches: about twice
        the CPU time of reading the runs, for a GOPS shard's rows of the level below."""
        array = self.array(path)
        out = np.empty((len(ranks), *array.shape[1:]), array.dtype)
        starts = np.flatnonzero(np.diff(ranks, prepend=-2) != 1)
        for lo, hi in zip(starts, np.r_[starts[1:], len(ranks)]):
            out[lo:hi] = array[ranks[lo]:ranks[hi - 1] + 1]
        return out

    def write_rows(self, path: str, start: int, data: np.ndarray) -> None:
        """``array[start:start + len(data)] = data``: straight to the array's files where
        the rows are whole chunks that `chunk_writer` writes, else through Zarr."""
        if not write_rows(self.array(path), start, data):
            self.array(path)[start:start + len(data)] = data

    def keep_arrays(self) -> None:
        """Keep the arrays opened through this (read-only) computation (storage.reading)."""
        self._arrays, self._members, self._readers = {}, {}, {}

    def remove(self, path: str) -> None:
        if path in self.group:
            del self.group[path]

    # -- steps and markers ---------------------------------------------------------------
    def steps_differ(self, steps: Iterable[tuple[str, Step]]) -> bool:
        """Whether any of these (stage, step) is new or differs from the stored one."""
        stored = {entry["index"]: entry for entry in self.group.attrs.get("steps", [])}
        return any(stored.get(step.index) != {**step.to_attrs(), "stage": stage}
                   for stage, step in steps)

    def ensure_steps(self, steps: Iterable[Step], stage: str) -> None:
        """Driver only: record the stage's steps and their markers. A stored step that
        differs (a grown extent changed what it covers) gets fresh markers and is no longer
        finished."""
        stored = {entry["index"]: entry for entry in self.group.attrs.get("steps", [])}
        done = dict(self.group.attrs.get("steps_done", {}))
        present, markers = self.members(), []
        for step in steps:
            record = {**step.to_attrs(), "stage": stage}
            previous = stored.get(step.index)
            if previous is not None and previous != record:
                done.pop(str(step.index), None)
                self.remove(marker_path(step.index))
                present.pop(marker_path(step.index), None)
            stored[step.index] = record
            if marker_path(step.index) not in present:
                markers.append(marker_spec(step.index, step.shards))
        create_arrays(self.group, markers, present)
        self.group.attrs.update({"steps": [stored[i] for i in sorted(stored)],
                                 "steps_done": done})

    def pending_shards(self, step: Step) -> list[int]:
        done = self.group[marker_path(step.index)][:]
        return [int(i) for i in np.flatnonzero(done == 0)]

    def mark_done(self, step_index: int, shard: int) -> None:
        self.group[marker_path(step_index)][shard] = 1

    def reopen(self, pending: Mapping[int, Iterable[int]]) -> None:
        """Driver only: mark these shards pending again and their steps unfinished (a
        repair); the normal resume then recomputes them."""
        done = dict(self.group.attrs.get("steps_done", {}))
        for step_index, shards in pending.items():
            markers = self.group[marker_path(step_index)]
            for shard in shards:
                markers[shard] = 0
            done.pop(str(step_index), None)
        self.group.attrs["steps_done"] = done

    def step_done(self, step_index: int) -> bool:
        return str(step_index) in self.group.attrs.get("steps_done", {})

    def finish_step(self, step: Step, seconds: float, metrics: dict[str, Any],
                    cpu_seconds: float | None = None) -> None:
        """Driver only (attributes are read-modify-write): record a step as complete, with
        its wall seconds and, where its shards ran in the driver's process, that process's
        CPU seconds over the step."""
        done = dict(self.group.attrs.get("steps_done", {}))
        # ``computed`` is what this run did (a resumed step counts only its pending shards).
        done[str(step.index)] = {"seconds": round(seconds, 3),
                                 **({} if cpu_seconds is None else
                                    {"cpu_seconds": round(cpu_seconds, 3)}),
                                 "finished_at": time.time(), "computed": metrics}
        self.group.attrs["steps_done"] = done

    # -- later stages --------------------------------------------------------------------
    def built_stage(self, name: str) -> tuple[tuple[ArraySpec, ...], tuple[Step, ...]] | None:
        built = self.group.attrs.get("built_stages", {}).get(name)
        if built is None:
            return None
        return (tuple(ArraySpec.from_attrs(a) for a in built["arrays"]),
                tuple(Step.from_attrs(s) for s in built["steps"]))

    def record_stage(self, name: str, arrays: Iterable[ArraySpec], steps: Iterable[Step]) -> None:
        built = dict(self.group.attrs.get("built_stages", {}))
        built[name] = {"arrays": [a.to_attrs() for a in arrays],
                       "steps": [s.to_attrs() for s in steps]}
        self.group.attrs["built_stages"] = built

    def discard_stages(self, names: Iterable[str]) -> None:
        """Forget built later stages (an earlier stage was reopened): their arrays, markers
        and records go, and the next run builds them again from the new results."""
        built = dict(self.group.attrs.get("built_stages", {}))
        names = [name for name in names if name in built]
        if not names:
            return
        steps = list(self.group.attrs.get("steps", []))
        done = dict(self.group.attrs.get("steps_done", {}))
        for name in names:
            record = built.pop(name)
            for array in record["arrays"]:
                self.remove(array["path"])
            self._record_templates({}, drop=[array["path"] for array in record["arrays"]])
            for step in record["steps"]:
                self.remove(marker_path(step["index"]))
                done.pop(str(step["index"]), None)
            steps = [s for s in steps if s.get("stage") != name]
        self.group.attrs.update({"built_stages": built, "steps": steps, "steps_done": done})

    # -- reading progress ----------------------------------------------------------------
    @property
    def identity(self) -> dict[str, Any]:
        return dict(self.group.attrs["identity"])

    @property
    def extent(self) -> dict[str, Any]:
        return dict(self.group.attrs.get("extent", {}))

    @property
    def config(self) -> dict[str, Any]:
        """Identity and extent together: everything the computation was asked for."""
        return {**self.identity, **self.extent}

    def reached(self, key: str) -> int:
        """The step information ``key`` (e.g. the last table level of a band) of the last
        step in the unbroken run of finished steps from the first; 0 if none finished.
        Reads attributes only, so queries stay cheap however large the store is."""
        done, reached = self.group.attrs.get("steps_done", {}), 0
        for step in self.group.attrs.get("steps", []):
            if str(step["index"]) not in done:
                break
            reached = step["info"][key]
        return reached

    def status(self) -> dict[str, Any]:
        """Per step: shards done of total, whether finished, its stored information."""
        attrs = self.group.attrs
        done = attrs.get("steps_done", {})
        by_step = self._bytes_by_step()
        steps = []
        for step in attrs.get("steps", []):
            path = marker_path(step["index"])
            # A run preparing the store records its steps before it makes their markers.
            shards_done = int(self.group[path][:].sum()) if path in self.group else None
            finished = str(step["index"]) in done
            state = ("done" if finished else "preparing" if shards_done is None
                     else "partial" if shards_done else "pending")
            steps.append({"index": step["index"], "name": step["name"], "stage": step["stage"],
                          "shards": step["shards"], **step["info"],
                          "shards_done": shards_done or 0, "state": state,
                          "finished": finished, **done.get(str(step["index"]), {})})
            if step["index"] in by_step:
                steps[-1]["bytes_on_disk"] = by_step[step["index"]]
        return {"computation": self.group_path, "family": attrs.get("family"),
                "identity": self.identity, "extent": self.extent, "steps": steps,
                "steps_finished": sum(step["finished"] for step in steps),
                "steps_total": len(steps), "bytes_on_disk": self.bytes_on_disk()}

    def _bytes_by_step(self) -> dict[int, int]:
        """Stored bytes of the arrays written by one step alone (a constant writer step)."""
        from subgame.storage.zarr_settings import zarr

        sizes: dict[int, int] = {}
        try:
            members = list(self.group.members(max_depth=None))
        except ValueError as exc:  # some array's metadata torn
            raise _unreadable(self.url, self.group_path) from exc
        for path, member in members:
            owner = member.attrs.get(OWNER_ATTR) if isinstance(member, zarr.Array) else None
            if owner is not None and isinstance(owner["step"], int):
                sizes[owner["step"]] = sizes.get(owner["step"], 0) + self.bytes_on_disk(path)
        return sizes

    def bytes_on_disk(self, prefix: str = "") -> int:
        """Stored bytes under this computation (or under ``prefix`` inside it)."""
        fs, root = fsspec.core.url_to_fs(self.url)
        path = f"{root.rstrip('/')}/{self.group_path}/{prefix}".rstrip("/")
        try:
            return int(fs.du(path))
        except FileNotFoundError:
            return 0


def _document_attrs(url: str, group_path: str) -> Mapping[str, Any] | None:
    """The group's attributes as its ``zarr.json`` holds them, if it and the root's read as
    group documents (one read of both); None otherwise."""
    with reaching(url):
        fs, root = fsspec.core.url_to_fs(url)
        paths = [f"{root.rstrip('/')}/{node}zarr.json" for node in ("", f"{group_path}/")]
        found = fs.cat(paths, on_error="omit")
    try:
        documents = [json.loads(found[path]) for path in paths]
    except (KeyError, ValueError, RecursionError):
        return None
    if not all(isinstance(d, dict) and d.get("node_type") == "group" and d.get("zarr_format")
               == 3 and isinstance(d.get("attributes", {}), dict) for d in documents):
        return None
    return documents[1].get("attributes", {})


def check_format(url: str, group_path: str, attrs: Mapping[str, Any]) -> None:
    if attrs.get("format") != FORMAT:
        raise InvalidInput(f"{group_path} in {url!r} was written by subgame 0.1; convert it "
                           f"in place (nothing is recomputed) with `subgame upgrade --store "
                           f"{url}`")


def _unreadable(url: str, path: str) -> InvalidInput:
    return InvalidInput(f"the metadata of {path or 'the store root'} in {url!r} cannot be read: "
                        "a run may be writing it now, or it is damaged (`subgame verify "
                        "--store` tells which)")


def _clash_message(url: str, group_path: str, stored: dict, wanted: dict) -> str:
    def shown(identity: dict, key: str) -> str:
        # An identity leaves out an option added later at its default (stores made before
        # it stay valid): e.g. gops' --upcard-values all.
        return repr(identity[key]) if key in identity else "the default"

    differ = [f"{key}: stored {shown(stored, key)}, requested {shown(wanted, key)}"
              for key in sorted(set(stored) | set(wanted)) if stored.get(key) != wanted.get(key)]
    return (f"{url!r} already holds {group_path} with a different configuration "
            f"({'; '.join(differ)}); use another --store or the stored options")


def computation_groups(url: str) -> list[tuple[str, zarr.Group]]:
    """Every computation group in a store (groups carrying an identity or, written by
    subgame 0.1, a config), whatever its format, in the order of their paths. The walk
    does not enter a computation group (none holds another): its levels' arrays, most of a
    store's metadata, are not read, which over HTTP is a request each."""
    # An HTTP server's listing names each member as a link: percent-encoded ("+" as %2B).
    over_http = fsspec.core.split_protocol(url)[0] in ("http", "https")

    def below(group: zarr.Group, prefix: str) -> Iterator[tuple[str, zarr.Group]]:
        for name, child in sorted(group.groups(), key=lambda member: member[0]):
            path = prefix + (urllib.parse.unquote(name) if over_http else name)
            if "identity" in child.attrs or "config" in child.attrs:
                yield path, child
            else:
                yield from below(child, path + "/")

    root = open_root(url, writable=False)
    try:
        return list(below(root, ""))
    except ValueError as exc:  # some group's or array's metadata
        raise _unreadable(url, "") from exc


def find_computations(url: str, family: str | None = None) -> Iterator[ComputationStore]:
    """Every computation in a store (of one family, if given)."""
    if reading.kept():
        for path in reading.group_paths(url, lambda: [p for p, _ in computation_groups(url)]):
            store = ComputationStore.open(url, path)
            if family is None or store.group.attrs.get("family") == family:
                yield store
        return
    for path, group in computation_groups(url):
        if family is not None and group.attrs.get("family") != family:
            continue
        check_format(url, path, group.attrs)
        yield ComputationStore(url, group, path)
