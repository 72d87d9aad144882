"""Convert a computation written by subgame 0.1 to today's layout, in place.

Nothing is recomputed: the arrays and markers stay where they are (steps keep the numbers
0.1 gave its levels). The group moves to the path its configuration names today (a family
whose extent may grow no longer names the extent in the path), and its attributes are
rewritten: identity and extent instead of ``config``, ``steps``/``steps_done`` instead of
``levels``/``levels_done``, typed writers on the arrays; and the chunks 0.1 left unstored
because they held only fill values are stored. The move comes first, so a kill
between the two leaves a 0.1 group that the next `subgame upgrade` converts.
"""

from __future__ import annotations

from typing import Any

import fsspec

from subgame.computation import ComputationConfig
from subgame.errors import InvalidInput
from subgame.plan import LaterStage
from subgame.storage.computation import FORMAT, OWNER_ATTR
from subgame.storage.integrity import fill_missing_chunks
from subgame.storage.location import open_root
from subgame.storage.lock import StoreLock


def upgrade_group(url: str, old_path: str, config: ComputationConfig) -> str:
    """Convert one 0.1 group; returns its path now."""
    plan = config.plan()
    new_path = plan.group_path
    root = open_root(url, writable=True)
    if new_path != old_path:
        if new_path in root:
            raise InvalidInput(f"{old_path} would become {new_path}, which the store already "
                               "holds; compute into a new store or delete one of them")
        with StoreLock(url, old_path):
            fs, base = fsspec.core.url_to_fs(url)
            base = base.rstrip("/")
            fs.mv(f"{base}/{old_path}", f"{base}/{new_path}", recursive=True)
        lock = StoreLock(url, new_path)
        if lock.fs.exists(lock.path):  # ours, moved with the group
            lock.fs.rm_file(lock.path)
        root = open_root(url, writable=True)
    with StoreLock(url, new_path):
        group = root[new_path]
        old = dict(group.attrs)
        stages = [stage for stage in plan.stages if not isinstance(stage, LaterStage)]
        steps = [{**step.to_attrs(), "stage": stage.name}
                 for stage in stages for step in stage.steps]
        shards = [(level["index"], level["shards"]) for level in old["levels"]]
        if shards != [(step["index"], step["shards"]) for step in steps]:
            raise InvalidInput(f"{old_path}: its levels do not match today's steps for "
                               "the same configuration; compute it into a new store")
        specs = [spec for stage in stages for spec in stage.arrays]
        for spec in specs:
            if spec.writer is not None and spec.path in group:
                group[spec.path].attrs.put({**spec.attrs, OWNER_ATTR: spec.writer.to_attrs()})
        attrs: dict[str, Any] = {
            "format": FORMAT, "family": plan.family, "identity": config.identity(),
            "extent": config.extent(), "steps": steps, "steps_done": old["levels_done"],
            "constants_done": sorted(spec.path for spec in specs
                                     if spec.constant is not None and spec.path in group)}
        group.attrs.put(attrs)
        # 0.1 did not store chunks holding only fill values; store them now, so that a
        # missing chunk means damage from here on.
        fill_missing_chunks(url, new_path)
    return new_path
