"""The toy's configuration, plan and shard solvers."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Annotated

import numpy as np
import typer

from subgame.computation import ComputationConfig
from subgame.plan import (ArraySpec, ChunkMax, Inputs, LaterStage, Plan, ShardTask, Stage, Step,
                          Writer)
from subgame.storage import ComputationStore

WIDTH = 8  # states per shard


@dataclass(frozen=True)
class ToyConfig(ComputationConfig):
    """Partial sums level by level, then the distinct residues of the last level."""

    EXTENT = ("levels",)

    levels: Annotated[int, typer.Option("--levels", help="Levels of partial sums.")] = 4
    shards: Annotated[int, typer.Option("--shards", help="Shards per level.")] = 3
    modulus: Annotated[int, typer.Option("--modulus", help="Residues of the last level.")] = 7
    delay: Annotated[float, typer.Option("--delay", help="Seconds each shard sleeps.")] = 0.0

    def group_path(self) -> str:
        return f"toy/S{self.shards}-M{self.modulus}"

    def plan(self) -> Plan:
        return toy_plan(self)


def solve_sums_shard(task: ShardTask, store: ComputationStore) -> dict:
    time.sleep(task.config.delay)
    values = store.array("values")
    k, region = task.step.index, slice(task.shard * WIDTH, (task.shard + 1) * WIDTH)
    previous = values[k - 1, region] if k else 0
    values[k, region] = previous + np.arange(region.start, region.stop) * (k + 1)
    return {"states": WIDTH}


def residues(values: np.ndarray, config: ToyConfig) -> np.ndarray:
    return np.unique(values[config.levels - 1] % config.modulus)


def build_distinct(inputs: Inputs, config: ToyConfig, first_step: int):
    count = len(residues(inputs["values"], config))
    arrays = (ArraySpec("distinct", (count,), (WIDTH,), "int64", ("residue",),
                        writer=Writer(step=first_step, shard=ChunkMax((0,)))),)
    return arrays, (Step(first_step, "distinct", -(-count // WIDTH), info={"count": count}),)


def solve_distinct_shard(task: ShardTask, store: ComputationStore) -> dict:
    region = slice(task.shard * WIDTH, (task.shard + 1) * WIDTH)
    found = residues(store.array("values")[...], task.config)[region]
    store.array("distinct")[region] = found
    return {"residues": len(found)}


def toy_plan(config: ToyConfig) -> Plan:
    arrays = (ArraySpec("values", (config.levels, config.shards * WIDTH), (1, WIDTH), "int64",
                        ("level", "state"), writer=Writer(ChunkMax((0,)), ChunkMax((1,)))),)
    steps = tuple(Step(k, f"k={k}", config.shards) for k in range(config.levels))
    # A shard sleeps (the GIL released) and writes its own chunks: safe on threads.
    return Plan("toy", config, (Stage("sums", solve_sums_shard, arrays, steps, threads=True),
                                LaterStage("distinct", solve_distinct_shard, build_distinct,
                                           reads=("values",))))


def expected(levels: int = 4, shards: int = 3) -> np.ndarray:
    k = np.arange(levels)[:, None]
    return np.arange(shards * WIDTH)[None, :] * (k + 1) * (k + 2) // 2
