"""The stored layout of one board computation, and reading it back (workers and readers).

    sets/masks, sizes, move_ptr, move_children   the SetFamily (stage "reachable")
    sets/<policy>_move                           each policy's move per set (-1: none)
    sets/level_start                             PairIndex.level_start: level L's pairs have
                                                 global indices level_start[L] .. [L+1]-1
    L<level>/a, first_move, optimal_moves, final_optimal          stage "pairs"

On types (--types bisimulation|dominance):

    sets/masks, size_start                       the reachable sets (stage "reachable")
    types/K<k>/set_type                          the type of each set of size k (stage
                                                 "types"), numbered by size, then by first set
    L<level>/a, first_move, optimal_moves, final_optimal          over pairs of types
    L<level>/<policy>/vs_optimal, optimal_vs, vs_self             the policy stages

A level L = |S| + |T| holds its pairs in PairIndex order (blocks by |S|, then S, then T), so
a shard's range of positions is a whole number of chunks. Levels without pairs (no
reachable sets of fitting sizes) have no arrays and no step.
"""

from __future__ import annotations

import threading
from typing import Any, Iterable

import numpy as np

from subgame.families.guess_who_board.game import PairIndex, SetFamily
from subgame.families.guess_who_board.game.types import TypeFamily, TypeLevels
from subgame.storage import ComputationStore
from subgame.storage.cache import cached, replace

FAMILY_ARRAYS = ("masks", "sizes", "move_ptr", "move_children")
PAIR_ARRAYS = {"a": "int64", "first_move": "int32", "optimal_moves": "int32",
               "final_optimal": "bool"}
POLICY_ARRAYS = ("vs_optimal", "optimal_vs", "vs_self")


def set_path(name: str) -> str:
    return f"sets/{name}"


def level_path(level: int, name: str) -> str:
    return f"L{level}/{name}"


def type_path(size: int) -> str:
    return f"types/K{size}/set_type"


def stored_family(store: ComputationStore, config: Any) -> SetFamily:
    """The set family as stage "reachable" stored it (read once per process)."""
    def load() -> SetFamily:
        parts = {name: store.array(set_path(name))[...] for name in FAMILY_ARRAYS}
        characters = config.characters
        traits = tuple(sorted({t for c in characters for t in c.traits}))
        return SetFamily(characters, traits, config.max_literals, config.rules,
                         parts["masks"], parts["sizes"], parts["move_ptr"],
                         parts["move_children"])

    return cached(f"{__name__}|family|{store.url}|{store.group_path}", "sets", load)


def stored_type_levels(store: ComputationStore, config: Any, through: int) -> TypeLevels:
    """The types of the set sizes 1 .. ``through`` as stage "types" stored them: one
    TypeLevels per process and computation, grown as the steps come (a step that adds size
    k leaves it here for the next), restored from the store where it starts afresh."""
    def start() -> TypeLevels:
        return TypeLevels(config.characters, config.max_literals, config.rules,
                          config.types, store.array(set_path("masks"))[...])

    slot = f"{__name__}|types|{store.url}|{store.group_path}"
    levels = cached(slot, "types", start)
    if levels.through > through:  # a step again (a repair): from the stored types
        levels = start()
        replace(slot, "types", levels)
    for size in range(levels.through + 1, through + 1):
        levels.restore(size, store.array(type_path(size))[...])
    return levels


def solved_family(store: ComputationStore, config: Any) -> SetFamily | TypeFamily:
    """What the pairs are made of: the stored sets, or the stored types of every size."""
    if not config.on_types:
        return stored_family(store, config)
    return stored_type_levels(store, config, len(config.characters)).family()


class LowerLevels:
    """One worker's copy of some per-level tables, flat by global pair index, holding every
    level below the one being solved: a shard's lookups go anywhere below its level, so
    each finished level is read from the store once per worker, as the next one starts."""

    def __init__(self, index: PairIndex, names: Iterable[str]):
        self.index = index
        self.tables = {name: np.zeros(index.total, np.int64) for name in names}
        self.through = 1  # levels start at 2
        self._lock = threading.Lock()  # a worker may run several shards at once

    def load_through(self, store: ComputationStore, level: int) -> dict[str, np.ndarray]:
        with self._lock:
            for below in range(self.through + 1, level + 1):
                start, size = int(self.index.level_start[below]), self.index.level_size(below)
                for name, table in self.tables.items():
                    if size:
                        table[start:start + size] = store.array(level_path(below, name))[...]
            self.through = max(self.through, level)
        return self.tables


def lower_levels(store: ComputationStore, index: PairIndex, stage: str,
                 names: Iterable[str], level: int) -> dict[str, np.ndarray]:
    """The tables ``names`` (paths under L<level>/) of every level below ``level``; one slot
    per computation, so a new stage frees the previous stage's tables."""
    tables = cached(f"{__name__}|levels|{store.url}|{store.group_path}", stage,
                    lambda: LowerLevels(index, names))
    return tables.load_through(store, level - 1)


def read_pairs(store: ComputationStore, index: PairIndex, name: str, s_ids: np.ndarray,
               t_ids: np.ndarray) -> np.ndarray:
    """Stored values of ``name`` (a per-level array) at the pairs (S, T), any levels."""
    levels, positions = index.locate(np.asarray(s_ids), np.asarray(t_ids))
    out = None
    for level in np.unique(levels).tolist():
        chosen = levels == level
        values = store.array(level_path(level, name)).get_coordinate_selection(
            (positions[chosen],))
        if out is None:
            out = np.empty(len(levels), values.dtype)
        out[chosen] = values
    return out if out is not None else np.empty(0, np.int64)
