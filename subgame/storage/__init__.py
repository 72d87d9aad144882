"""Zarr layout of a computation: arrays, completion markers, identity check, lock.

The names below are imported on first use: `subgame --help`, and a command module that
only names a store, import no Zarr."""

_NAMES = {"ComputationStore": "computation", "find_computations": "computation",
          "DEFAULT_STORE": "location", "resolve_store": "location"}
__all__ = list(_NAMES)


def __getattr__(name: str):
    if name in _NAMES:
        from importlib import import_module

        return getattr(import_module(f"subgame.storage.{_NAMES[name]}"), name)
    raise AttributeError(f"module 'subgame.storage' has no attribute {name!r}")
