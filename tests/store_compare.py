"""Compare stores array by array, and snapshot a store's files to prove it was not touched."""

from __future__ import annotations

import hashlib
import os

import numpy as np
import zarr


def _arrays(url: str) -> dict[str, zarr.Array]:
    root = zarr.open_group(url, mode="r", use_consolidated=False)  # not a run's snapshot
    return {path: member for path, member in root.members(max_depth=None)
            if isinstance(member, zarr.Array)}


def assert_stores_equal(left: str, right: str) -> None:
    """Same arrays, same shapes, same values (markers included); attributes may differ in
    timings only."""
    a, b = _arrays(left), _arrays(right)
    assert sorted(a) == sorted(b)
    for path in a:
        assert a[path].shape == b[path].shape, path
        np.testing.assert_array_equal(a[path][...], b[path][...], err_msg=path)


def _attributes(url: str) -> dict[str, dict]:
    """Every node's attributes, the root's included; of a finished step, which step it is
    (the record's time and work counts describe the run that did it, not the result)."""
    root = zarr.open_group(url, mode="r", use_consolidated=False)
    found = {"": dict(root.attrs)}
    found.update((path, dict(member.attrs)) for path, member in root.members(max_depth=None))
    for attrs in found.values():
        if "steps_done" in attrs:
            attrs["steps_done"] = sorted(attrs["steps_done"])
    return found


def assert_results_equal(left: str, right: str) -> None:
    """Equal stores (`assert_stores_equal`) whose every group and array also has the same
    attributes: the computation's record (identity, extent, the plan's steps and arrays,
    the later stages built, the finished steps and constants, `complete`) and the arrays'
    own (their writers, descriptions, labels)."""
    assert_stores_equal(left, right)
    a, b = _attributes(left), _attributes(right)
    assert sorted(a) == sorted(b)
    for path in a:
        assert a[path] == b[path], path


def tree_snapshot(path: str) -> dict[str, str]:
    """Every file under ``path`` with the hash of its bytes."""
    snapshot = {}
    for folder, _, files in os.walk(path):
        for name in files:
            full = os.path.join(folder, name)
            with open(full, "rb") as f:
                snapshot[os.path.relpath(full, path)] = hashlib.sha256(f.read()).hexdigest()
    return snapshot
