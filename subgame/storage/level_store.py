"""The Zarr layout of one computation and the truth about its progress.

A computation is one group (``family/identity``) holding its arrays, one marker array per
level (``_markers/<level>``, one chunk per shard so concurrent workers never share a chunk),
and attributes written by the driver only: the configuration, the levels of the plan and
the levels finished. A shard is done when its marker is set; the marker is written after
the shard's data, so a killed run leaves at worst a shard recomputed, never one skipped.
"""

from __future__ import annotations

import time
import warnings
from typing import Any, Iterable, Iterator, Mapping

import fsspec
import numpy as np
import zarr

from subgame.errors import ConfigurationClash, NotComputed
from subgame.plan import ArraySpec, Level, Plan
from subgame.storage.location import COMPRESSORS, open_root

MARKERS = "_markers"


def _marker_path(level_index: int) -> str:
    return f"{MARKERS}/{level_index:05d}"


class LevelStore:
    """A computation's group: arrays, markers and driver-written attributes."""

    def __init__(self, url: str, group: zarr.Group, group_path: str):
        self.url = url
        self.group = group
        self.group_path = group_path

    # -- opening ------------------------------------------------------------------------
    @classmethod
    def open(cls, url: str, group_path: str, *, writable: bool = False) -> "LevelStore":
        """Open an existing computation (workers, queries); no configuration check."""
        root = open_root(url, writable=writable)
        try:
            group = root[group_path]
        except KeyError as exc:
            raise NotComputed(f"{url!r} holds no computation {group_path!r}") from exc
        return cls(url, group, group_path)

    @staticmethod
    def check(url: str, plan: Plan) -> None:
        """Read-only: raise ConfigurationClash if the store holds the plan's group with
        another configuration (a missing store or group is fine: a run will create it)."""
        try:
            root = open_root(url, writable=False)
        except NotComputed:
            return
        if plan.group_path in root:
            stored = dict(root[plan.group_path].attrs.get("config", {}))
            if stored != plan.config.to_attrs():
                raise ConfigurationClash(_clash_message(url, plan.group_path, stored,
                                                        plan.config.to_attrs()))

    @classmethod
    def prepare(cls, url: str, plan: Plan) -> "LevelStore":
        """Driver only: create the computation (or check it) and every array before work starts.

        A stored configuration that differs from the plan's is refused, never merged.
        """
        cls.check(url, plan)
        root = open_root(url, writable=True)
        if plan.group_path in root:
            group = root[plan.group_path]
        else:
            # One metadata write: a run killed here leaves no group without its config.
            group = root.create_group(plan.group_path, attributes={
                "family": plan.family, "config": plan.config.to_attrs(), "levels_done": {}})
        store = cls(url, group, plan.group_path)
        group.attrs["levels"] = [_level_attrs(level) for level in plan.levels]
        for spec in plan.arrays:
            store._ensure_array(spec)
        for level in plan.levels:
            store._ensure_array(ArraySpec(_marker_path(level.index), (level.shards,), (1,),
                                          "uint8", ("shard",)))
        return store

    def _ensure_array(self, spec: ArraySpec) -> zarr.Array:
        if spec.path in self.group:
            array = self.group[spec.path]
            # Constant data is written after its array: rewrite it if a killed run or a
            # repair left it unwritten.
            if spec.values is not None and not np.array_equal(array[...], spec.values):
                array[...] = spec.values
            return array
        array = self.group.create_array(
            spec.path, shape=spec.shape, chunks=spec.chunks, dtype=spec.dtype,
            fill_value=spec.fill_value, dimension_names=spec.dims,
            compressors=COMPRESSORS, attributes=dict(spec.attrs))
        if spec.values is not None:
            array[...] = spec.values
        return array

    # -- data ------------------------------------------------------------------------------
    def array(self, path: str) -> zarr.Array:
        try:
            return self.group[path]
        except KeyError as exc:
            raise NotComputed(f"{self.group_path} has no array {path!r}") from exc

    @property
    def config(self) -> dict[str, Any]:
        return dict(self.group.attrs["config"])

    # -- progress --------------------------------------------------------------------------
    def pending_shards(self, level: Level) -> list[int]:
        done = self.group[_marker_path(level.index)][:]
        return [int(i) for i in np.flatnonzero(done == 0)]

    def mark_done(self, level_index: int, shard: int) -> None:
        self.group[_marker_path(level_index)][shard] = 1

    def reopen(self, pending: Mapping[int, Iterable[int]]) -> None:
        """Driver only: mark these shards pending again and their levels unfinished (a
        repair); the normal resume then recomputes them."""
        done = dict(self.group.attrs.get("levels_done", {}))
        for level_index, shards in pending.items():
            markers = self.group[_marker_path(level_index)]
            for shard in shards:
                markers[shard] = 0
            done.pop(str(level_index), None)
        self.group.attrs["levels_done"] = done

    def level_done(self, level_index: int) -> bool:
        return str(level_index) in self.group.attrs.get("levels_done", {})

    def finish_level(self, level: Level, seconds: float, metrics: dict[str, Any]) -> None:
        """Driver only (attributes are read-modify-write): record a level as complete."""
        done = dict(self.group.attrs.get("levels_done", {}))
        # ``computed`` is what this run did (a resumed level counts only its pending shards).
        done[str(level.index)] = {"seconds": round(seconds, 3), "finished_at": time.time(),
                                  "computed": metrics}
        self.group.attrs["levels_done"] = done

    def reached(self, key: str) -> int:
        """The level attribute ``key`` (e.g. the last table level of a band) of the last
        level in the unbroken run of finished levels from the first; 0 if none finished.
        Reads attributes only, so queries stay cheap however large the store is."""
        done, reached = self.group.attrs.get("levels_done", {}), 0
        for level in self.group.attrs.get("levels", []):
            if str(level["index"]) not in done:
                break
            reached = level[key]
        return reached

    def status(self) -> dict[str, Any]:
        """Per level: shards done of total, whether finished, its stored information."""
        attrs = self.group.attrs
        done = attrs.get("levels_done", {})
        levels = []
        for level in attrs.get("levels", []):
            markers = self.group[_marker_path(level["index"])][:]
            levels.append({**level, "shards_done": int(markers.sum()),
                           "finished": str(level["index"]) in done,
                           **done.get(str(level["index"]), {})})
            if "array_prefix" in level:  # families that keep each level in its own folder
                levels[-1]["bytes_on_disk"] = self.bytes_on_disk(level["array_prefix"])
        return {"computation": self.group_path, "family": attrs.get("family"),
                "config": dict(attrs.get("config", {})), "levels": levels,
                "levels_finished": sum(level["finished"] for level in levels),
                "levels_total": len(levels), "bytes_on_disk": self.bytes_on_disk()}

    def bytes_on_disk(self, prefix: str = "") -> int:
        """Stored bytes under this computation (or under ``prefix`` inside it)."""
        fs, root = fsspec.core.url_to_fs(self.url)
        path = f"{root.rstrip('/')}/{self.group_path}/{prefix}".rstrip("/")
        try:
            return int(fs.du(path))
        except FileNotFoundError:
            return 0


def _level_attrs(level: Level) -> dict[str, Any]:
    return {"index": level.index, "name": level.name, "shards": level.shards, **level.info}


def _clash_message(url: str, group_path: str, stored: dict, wanted: dict) -> str:
    differ = [f"{key}: stored {stored.get(key)!r}, requested {wanted.get(key)!r}"
              for key in sorted(set(stored) | set(wanted)) if stored.get(key) != wanted.get(key)]
    return (f"{url!r} already holds {group_path} with a different configuration "
            f"({'; '.join(differ)}); use another --store or the stored options")


def find_computations(url: str) -> Iterator[LevelStore]:
    """Every computation in a store (groups carrying a ``config`` attribute)."""
    root = open_root(url, writable=False)
    with warnings.catch_warnings():
        # A live run's lock file sits among the arrays; it is ours, not a stray object.
        warnings.filterwarnings("ignore", message="Object at .*\\.lock is not recognized")
        members = list(root.members(max_depth=None))
    for path, member in members:
        if isinstance(member, zarr.Group) and "config" in member.attrs:
            yield LevelStore(url, member, path)
