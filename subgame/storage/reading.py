"""Opened computations kept for a long-lived reader (the web oracle, `subgame web`).

Opening a computation reads the root's and the group's metadata, and each array opened
reads its own; a query that then reads one chunk spends most of its time there. A process
that calls ``keep_opened()`` keeps each opened computation, with the arrays opened through
it, and the list of a store's computations, for as long as the files they were read from
are unchanged: a run that finishes a step rewrites the group's ``zarr.json`` (the driver's
attributes), a run that grows an array rewrites the group's extent first, and a new
computation adds a folder to its parent's. A local store is checked by one ``stat`` per
file; other stores (object stores have no cheap equivalent) are opened afresh each time.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Callable, Iterable

import fsspec

_kept = False
_opened: dict[tuple[str, str], tuple[Any, Any]] = {}
_listed: dict[str, tuple[Any, list[str]]] = {}
_lock = threading.Lock()


def keep_opened() -> None:
    """From now on, this process keeps what it opens read-only (see the module text)."""
    global _kept
    _kept = True


def kept() -> bool:
    return _kept


def _local_root(url: str) -> str | None:
    fs, root = fsspec.core.url_to_fs(url)
    return root if fs.protocol in ("file", ("file", "local")) else None


def _stamp(paths: Iterable[str]) -> tuple | None:
    """What changes when any of these files or folders is rewritten (None: one is gone)."""
    try:
        return tuple((s.st_ino, s.st_mtime_ns, s.st_size) for s in map(os.stat, paths))
    except OSError:
        return None


def opened(url: str, group_path: str, open_fresh: Callable[[], Any]) -> Any:
    """The computation as last opened, if its group's metadata is unchanged since."""
    root = _local_root(url)
    if root is None:
        return open_fresh()
    stamp = _stamp([os.path.join(root, group_path, "zarr.json")])
    with _lock:
        entry = _opened.get((url, group_path))
    if stamp is not None and entry is not None and entry[0] == stamp:
        return entry[1]
    store = open_fresh()
    store.keep_arrays()
    with _lock:
        _opened[(url, group_path)] = (stamp, store)
    return store


def group_paths(url: str, list_fresh: Callable[[], list[str]]) -> list[str]:
    """The store's computation groups as last listed, if no folder above one has changed."""
    root = _local_root(url)
    if root is None:
        return list_fresh()

    def folders(paths: list[str]) -> list[str]:
        above = {""} | {"/".join(p.split("/")[:i]) for p in paths
                        for i in range(1, p.count("/") + 1)}
        return [os.path.join(root, folder) for folder in sorted(above)]

    with _lock:
        entry = _listed.get(url)
    if entry is not None and entry[0] is not None and _stamp(folders(entry[1])) == entry[0]:
        return entry[1]
    paths = list_fresh()
    with _lock:
        _listed[url] = (_stamp(folders(paths)), paths)
    return paths
