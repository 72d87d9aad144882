"""A computation as data: the plan lists its arrays, its levels and each level's shards.

The plan names the function that solves one shard; it says nothing about who runs it.
Executors (serial for tests and debugging, Dask for real runs) run a level's pending shards;
the Prefect flow wraps the loop over levels. This module imports no Prefect, Dask or Zarr.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol


class ConfigLike(Protocol):
    """A family's typed configuration (a frozen dataclass)."""

    def group_path(self) -> str:
        """Where the computation lives inside the store, e.g. ``guess-who/U40``."""

    def to_attrs(self) -> dict[str, Any]:
        """JSON-serialisable identity of the computation, checked on every open."""


@dataclass(frozen=True)
class ArraySpec:
    """One Zarr array of the computation, created by the driver before any worker writes."""

    path: str
    shape: tuple[int, ...]
    chunks: tuple[int, ...]
    dtype: str
    dims: tuple[str, ...]
    fill_value: int | float | bool = 0
    attrs: Mapping[str, Any] = field(default_factory=dict)
    values: Any = None  # small constant data (coordinates) the driver writes at creation


@dataclass(frozen=True)
class Level:
    """One level of the backward induction: ``shards`` independent pieces of work.

    ``affinity`` asks the executor to send shard ``i`` to the same worker every level, so
    that a worker's cached state from the previous level is reused (Guess Who keeps the
    growing table in memory).  ``info`` is stored as the level's attributes when it ends.
    """

    index: int
    name: str
    shards: int
    affinity: bool = False
    info: Mapping[str, Any] = field(default_factory=dict)


# solve_shard(store_url, plan, level_index, shard) -> metrics dict; it reads its inputs from
# the store, writes its region, and returns small JSON-able metrics.  It must be a top-level
# function (executors pickle it to Dask workers).
ShardSolver = Callable[[str, "Plan", int, int], Mapping[str, Any]]


@dataclass(frozen=True)
class Plan:
    family: str
    config: ConfigLike
    arrays: tuple[ArraySpec, ...]
    levels: tuple[Level, ...]
    solve_shard: ShardSolver

    @property
    def group_path(self) -> str:
        return self.config.group_path()

    def level(self, index: int) -> Level:
        return self.levels[index]
