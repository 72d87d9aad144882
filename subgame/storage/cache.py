"""Per-process cache for worker inputs: each worker loads the previous level once.

Dask runs many shards of a level in the same worker process; the inputs they share (the
previous level's values, a growing table) are loaded on first use and kept under a slot
name until a different key claims that slot, so memory holds one generation per slot.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Hashable

_entries: dict[str, tuple[Hashable, Any]] = {}
_lock = threading.Lock()


def cached(slot: str, key: Hashable, load: Callable[[], Any]) -> Any:
    """The value cached in ``slot`` if it was loaded for ``key``, else ``load()`` (and keep it)."""
    with _lock:
        entry = _entries.get(slot)
        if entry is not None and entry[0] == key:
            return entry[1]
        _entries.pop(slot, None)  # free the old generation before loading the new one
        value = load()
        _entries[slot] = (key, value)
        return value


def replace(slot: str, key: Hashable, value: Any) -> None:
    """Store a value the caller computed (e.g. the table after the level it just solved)."""
    with _lock:
        _entries[slot] = (key, value)
