"""A minimal family for testing the spine alone: level k holds the k-th partial sums.

values[k, i] = values[k-1, i] + i * (k + 1), so level k needs level k-1 (read from the
store) and the end result is known in closed form: values[k, i] = i * (k+1)(k+2)/2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from subgame.plan import ArraySpec, Level, Plan
from subgame.storage import LevelStore

WIDTH = 8  # states per shard


@dataclass(frozen=True)
class ToyConfig:
    levels: int
    shards: int

    def group_path(self) -> str:
        return f"toy/L{self.levels}"

    def to_attrs(self) -> dict:
        return {"levels": self.levels, "shards": self.shards}


def solve_toy_shard(url: str, plan: Plan, level_index: int, shard: int) -> dict:
    store = LevelStore.open(url, plan.group_path, writable=True)
    values = store.array("values")
    region = slice(shard * WIDTH, (shard + 1) * WIDTH)
    previous = values[level_index - 1, region] if level_index else 0
    values[level_index, region] = previous + np.arange(region.start, region.stop) * (
        level_index + 1)
    return {"states": WIDTH}


def toy_plan(levels: int = 4, shards: int = 3) -> Plan:
    config = ToyConfig(levels, shards)
    arrays = (ArraySpec("values", (levels, shards * WIDTH), (1, WIDTH), "int64",
                        ("level", "state")),)
    return Plan("toy", config, arrays,
                tuple(Level(k, f"k={k}", shards) for k in range(levels)), solve_toy_shard)


def expected(levels: int = 4, shards: int = 3) -> np.ndarray:
    k = np.arange(levels)[:, None]
    return np.arange(shards * WIDTH)[None, :] * (k + 1) * (k + 2) // 2
