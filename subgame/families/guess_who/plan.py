"""Guess Who as a plan: one stage whose steps are bands of table levels L = max(n, m);
shards are rule sets.

Band b (step b) holds the levels L in [b*B + 1, (b+1)*B], with B the chunk edge of every stored
table, so band b writes exactly the chunks (b, j), j <= b, and (i, b), i < b, each whole
and each once. The two rule sets are independent shards; each keeps its growing table in
its worker's memory between bands (the step has affinity), and reloads it from the store
only after a restart. U is the extent: a later run with a larger U grows the tables and
computes only the new bands (and the last band, if it was partial).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Literal

import numpy as np
import typer

from subgame.computation import ComputationConfig
from subgame.errors import InvalidInput, check_int
from subgame.families.guess_who import game as guess_who
from subgame.plan import (MAX_STEPS, ArraySpec, ChunkMax, Plan, ShardTask, Stage, Step, Writer,
                          check_plan_size)
from subgame.storage import ComputationStore
from subgame.storage.cache import cached, replace

FAMILY = "guess-who"
KERNEL_VERSION = 1
MAX_N = 65536  # the in-memory table is (U+1)^2 int64: 34 GB at this bound
MOVE_ARRAYS = {"s_min": "int32", "s_max": "int32", "s_count": "int32", "final_guess": "bool"}
RulesOption = Annotated[Literal[(*guess_who.RULES, "both")], typer.Option(
    "--rules", help="The rule sets to compute.")]


def parse_rules(rules: str) -> tuple[str, ...]:
    """'official' | 'variant' | 'both' -> the rule sets to compute."""
    if rules == "both":
        return guess_who.RULES
    if rules in guess_who.RULES:
        return (rules,)
    raise InvalidInput(f"unknown rules {rules!r}; choose official, variant or both")


@dataclass(frozen=True)
class GuessWhoConfig(ComputationConfig):
    """Compute exact Guess Who tables a(n,m) = n*m*p(n,m) and optimal move sets, n, m <= U."""

    EXTENT = ("max_n",)

    max_n: Annotated[int, typer.Option("--max-n", help="Largest n and m (U); a later run "
                                                       "may grow it.")]
    rules: RulesOption = "both"
    band: Annotated[int, typer.Option(
        "--band", help="Table levels per step = chunk edge of the stored tables.")] = 512

    def __post_init__(self) -> None:
        check_int("--max-n", self.max_n, 1, MAX_N)
        check_int("--band", self.band, 1, MAX_N)
        parse_rules(self.rules)
        check_plan_size(self.bands, len(self.rule_sets),
                        f"use --band {-(-self.max_n // MAX_STEPS)} or more")

    @property
    def rule_sets(self) -> tuple[str, ...]:
        return parse_rules(self.rules)

    @property
    def edge(self) -> int:
        """The chunk edge: the band width, or the whole table when it is smaller."""
        return min(self.band, self.max_n)

    def group_path(self) -> str:
        return f"{FAMILY}/{self.rules}-B{self.band}"

    def held_by(self) -> tuple["GuessWhoConfig", ...]:
        return () if self.rules == "both" else (dataclasses.replace(self, rules="both"),)

    def constants(self) -> dict[str, Any]:
        return {"game": FAMILY, "kernel_version": KERNEL_VERSION}

    def plan(self) -> Plan:
        return guess_who_plan(self)

    def band_levels(self, index: int) -> tuple[int, int]:
        """First and last table level L of band ``index``."""
        return index * self.edge + 1, min((index + 1) * self.edge, self.max_n)

    @property
    def bands(self) -> int:
        return -(-self.max_n // self.edge)

    def worker_bytes(self) -> int:
        """A shard keeps its rule's whole table, (U+1)^2 int64, between bands; a worker that
        restarts mid-run reads the filled part back through a temporary as large (up to
        U - B square); the band's move strips hold 13 bytes per cell of the L-shaped band
        (B x U twice)."""
        U, B = self.max_n, self.edge
        return 8 * (U + 1) ** 2 + 8 * (U - B) ** 2 + 13 * 2 * B * U


def guess_who_plan(config: GuessWhoConfig) -> Plan:
    U, edge = config.max_n, config.edge
    arrays = []
    for shard, rule in enumerate(config.rule_sets):
        # Chunk (i, j) belongs to band max(i, j) and is written by the rule's shard.
        writer = Writer(step=ChunkMax((0, 1)), shard=shard)
        arrays += [ArraySpec(f"{rule}/{axis}", (U,), (edge,), "int64", (axis,),
                             constant=partial(np.arange, 1, U + 1)) for axis in ("n", "m")]
        arrays.append(ArraySpec(f"{rule}/a", (U, U), (edge, edge), "int64", ("n", "m"),
                                attrs={"description": "a(n,m) = n*m*p(n,m), exact"},
                                writer=writer))
        arrays += [ArraySpec(f"{rule}/{name}", (U, U), (edge, edge), dtype, ("n", "m"),
                             writer=writer)
                   for name, dtype in MOVE_ARRAYS.items()]
    steps = []
    for index in range(config.bands):
        lo, hi = config.band_levels(index)
        steps.append(Step(index, f"L={lo}..{hi}", len(config.rule_sets), affinity=True,
                          info={"first_level": lo, "last_level": hi,
                                "cells": hi * hi - (lo - 1) * (lo - 1)}))
    return Plan(FAMILY, config, (Stage("solve", solve_guess_who_shard, tuple(arrays),
                                       tuple(steps)),))


def _load_table(store: ComputationStore, rule: str, max_n: int, through: int) -> np.ndarray:
    table = guess_who.new_table(max_n)
    if through:
        table[1:through + 1, 1:through + 1] = store.array(f"{rule}/a")[:through, :through]
    return table


def solve_guess_who_shard(task: ShardTask, store: ComputationStore) -> dict[str, Any]:
    config: GuessWhoConfig = task.config
    rule = config.rule_sets[task.shard]
    lo, hi = config.band_levels(task.step.index)
    # The table is sized by U: a grown extent must not reuse a smaller cached table.
    slot = f"{FAMILY}|{task.url}|{task.group_path}|{rule}|{config.max_n}"
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
