"""Zarr layout of a computation: arrays, completion markers, configuration check, lock."""

from subgame.storage.level_store import LevelStore, find_computations
from subgame.storage.location import DEFAULT_STORE, resolve_store

__all__ = ["LevelStore", "find_computations", "DEFAULT_STORE", "resolve_store"]
