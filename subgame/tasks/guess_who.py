"""Guess Who as a plan: levels are bands of table levels L = max(n, m), shards are rule sets.

Band b holds the levels L in [b*B + 1, (b+1)*B], with B the chunk edge of every stored
table, so band b writes exactly the chunks (b, j), j <= b, and (i, b), i < b, each whole
and each once. The two rule sets are independent shards; each keeps its growing table in
its worker's memory between bands (the level has affinity), and reloads it from the store
only after a restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from subgame.errors import InvalidInput, check_int
from subgame.games import guess_who
from subgame.plan import ArraySpec, Level, Plan
from subgame.storage import LevelStore
from subgame.storage.cache import cached, replace

FAMILY = "guess-who"
KERNEL_VERSION = 1
MAX_N = 65536  # the in-memory table is (U+1)^2 int64: 34 GB at this bound
MOVE_ARRAYS = {"s_min": "int32", "s_max": "int32", "s_count": "int32", "final_guess": "bool"}


def parse_rules(rules: str) -> tuple[str, ...]:
    """'official' | 'variant' | 'both' -> the rule sets to compute."""
    if rules == "both":
        return guess_who.RULES
    if rules in guess_who.RULES:
        return (rules,)
    raise InvalidInput(f"unknown rules {rules!r}; choose official, variant or both")


@dataclass(frozen=True)
class GuessWhoConfig:
    max_n: int
    rules: tuple[str, ...] = guess_who.RULES
    band: int = 512

    def __post_init__(self) -> None:
        check_int("--max-n", self.max_n, 1, MAX_N)
        check_int("--band", self.band, 1, MAX_N)
        if not self.rules or set(self.rules) - set(guess_who.RULES) or \
                len(set(self.rules)) != len(self.rules):
            raise InvalidInput(f"rules must be distinct names from {guess_who.RULES}")

    @property
    def edge(self) -> int:
        """The chunk edge: the band width, or the whole table when it is smaller."""
        return min(self.band, self.max_n)

    def group_path(self) -> str:
        return f"{FAMILY}/U{self.max_n}"

    def to_attrs(self) -> dict[str, Any]:
        return {"game": FAMILY, "max_n": self.max_n, "rules": list(self.rules),
                "band": self.band, "kernel_version": KERNEL_VERSION}

    def band_levels(self, index: int) -> tuple[int, int]:
        """First and last table level L of band ``index``."""
        return index * self.edge + 1, min((index + 1) * self.edge, self.max_n)

    @property
    def bands(self) -> int:
        return -(-self.max_n // self.edge)


def guess_who_plan(config: GuessWhoConfig) -> Plan:
    U, edge = config.max_n, config.edge
    arrays = []
    for shard, rule in enumerate(config.rules):
        # Chunk (i, j) belongs to band max(i, j) and is written by the rule's shard.
        writer = {"written_by": {"level": [0, 1], "shard": shard}}
        arrays += [ArraySpec(f"{rule}/n", (U,), (U,), "int64", ("n",),
                             values=np.arange(1, U + 1)),
                   ArraySpec(f"{rule}/m", (U,), (U,), "int64", ("m",),
                             values=np.arange(1, U + 1)),
                   ArraySpec(f"{rule}/a", (U, U), (edge, edge), "int64", ("n", "m"),
                             attrs={"description": "a(n,m) = n*m*p(n,m), exact", **writer})]
        arrays += [ArraySpec(f"{rule}/{name}", (U, U), (edge, edge), dtype, ("n", "m"),
                             attrs=writer)
                   for name, dtype in MOVE_ARRAYS.items()]
    levels = []
    for index in range(config.bands):
        lo, hi = config.band_levels(index)
        levels.append(Level(index, f"L={lo}..{hi}", len(config.rules), affinity=True,
                            info={"first_level": lo, "last_level": hi,
                                  "cells": hi * hi - (lo - 1) * (lo - 1)}))
    return Plan(FAMILY, config, tuple(arrays), tuple(levels), solve_guess_who_shard)


def _load_table(store: LevelStore, rule: str, max_n: int, through: int) -> np.ndarray:
    table = guess_who.new_table(max_n)
    if through:
        table[1:through + 1, 1:through + 1] = store.array(f"{rule}/a")[:through, :through]
    return table


def solve_guess_who_shard(url: str, plan: Plan, level_index: int, shard: int) -> dict[str, Any]:
    config: GuessWhoConfig = plan.config
    rule = config.rules[shard]
    lo, hi = config.band_levels(level_index)
    store = LevelStore.open(url, plan.group_path, writable=True)
    slot = f"{FAMILY}|{url}|{plan.group_path}|{rule}"
    table = cached(slot, lo - 1, lambda: _load_table(store, rule, config.max_n, lo - 1))
    moves = guess_who.solve_band(table, lo, hi, rule)
    strips = {"a": (table[lo:hi + 1, 1:hi + 1], table[1:lo, lo:hi + 1]),
              "s_min": (moves.bottom_min, moves.right_min),
              "s_max": (moves.bottom_max, moves.right_max),
              "s_count": (moves.bottom_count, moves.right_count),
              "final_guess": (moves.bottom_final, moves.right_final)}
    for name, (bottom, right) in strips.items():
        array = store.array(f"{rule}/{name}")
        array[lo - 1:hi, :hi] = bottom
        if lo > 1:
            array[:lo - 1, lo - 1:hi] = right
    replace(slot, hi, table)
    return {"cells": hi * hi - (lo - 1) * (lo - 1)}
