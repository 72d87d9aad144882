"""Zarr layout of a computation: arrays, completion markers, identity check, lock."""

from subgame.storage.computation import ComputationStore, find_computations
from subgame.storage.location import DEFAULT_STORE, resolve_store

__all__ = ["ComputationStore", "find_computations", "DEFAULT_STORE", "resolve_store"]
