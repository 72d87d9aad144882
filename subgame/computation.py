"""What the plan (`subgame.plan`) names of a computation, below it: the configuration that
asks for it and the store its shards write, as a shard solver sees it.

This module imports nothing of subgame, so the plan, the Zarr store that implements
`ShardStore` (`subgame.storage.ComputationStore`) and the families import it without
importing one another.
"""

from __future__ import annotations

import json
from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Protocol

if TYPE_CHECKING:
    import numpy as np


def as_json(value: Any) -> Any:
    """Tuples as lists, as a stored attribute reads back."""
    return json.loads(json.dumps(value))


class ComputationConfig:
    """Mixin for a frozen dataclass that configures one computation (one store group).

    Its fields split into *identity* (a store must match it) and *extent* (``EXTENT``: a
    later run may grow it, e.g. Guess Who's U, and then computes only what is new)."""

    EXTENT: ClassVar[tuple[str, ...]] = ()

    def constants(self) -> dict[str, Any]:
        """Identity that no option sets (the kernel's version, the objective...)."""
        return {}

    def identity(self) -> dict[str, Any]:
        return as_json({**{f.name: getattr(self, f.name) for f in fields(self)
                           if f.name not in self.EXTENT}, **self.constants()})

    def extent(self) -> dict[str, Any]:
        return as_json({name: getattr(self, name) for name in self.EXTENT})

    def covering(self, stored: Mapping[str, Any]):
        """This configuration grown to cover a stored extent: a run never shrinks a store."""
        return replace(self, **{name: max(getattr(self, name), stored[name])
                                for name in self.EXTENT if name in stored})

    def group_path(self) -> str:
        raise NotImplementedError

    def held_by(self) -> tuple["ComputationConfig", ...]:
        """Other computations whose finished results hold this one's (Guess Who's `both`
        tables hold the `official` one): a run finds them stored and computes nothing."""
        return ()

    def core_seconds(self) -> float | None:
        """CPU seconds of every shard of this computation on one core, from costs measured
        with the family's solver (--dry-run's compute time). None: not estimated."""
        return None

    def plan(self):
        """The computation as a `subgame.plan.Plan` (not annotated: the plan module sits
        above this one)."""
        raise NotImplementedError

    def worker_bytes(self) -> int | None:
        """Peak memory one worker needs for the largest shard of this computation, beyond
        the worker process itself (``subgame.estimate.WORKER_BASE_BYTES``): the family's
        estimate, written beside the solver it describes. None: not estimated (no check)."""
        return None


class ShardStore(Protocol):
    """The store a shard solver gets (`subgame.plan.ShardSolver`): the computation's group,
    opened writable by the executor, its arrays by path."""

    @property
    def config(self) -> dict[str, Any]:
        """The computation's identity and extent, as stored."""

    def array(self, path: str) -> Any:
        """The Zarr array at ``path`` in the computation's group."""

    def rows(self, path: str, ranks: np.ndarray) -> np.ndarray:
        """Rows ``ranks`` (sorted, unique) of the array at ``path``."""

    def write_rows(self, path: str, start: int, data: np.ndarray) -> None:
        """Rows ``start:start + len(data)`` of the array at ``path``, written."""
