"""GOPS as a plan: one stage whose step j-1 solves level j (cards left in each hand);
shards are contiguous ranges of deck ranks.

Level j's arrays live under ``j<j>/`` with the deck rank (P in the combinatorial number
system) as first axis and one chunk per shard along it, so each shard writes whole chunks.
A worker loads level j-1's values once (cached per process) and the level's layout once.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Annotated, Any

import numpy as np
import typer

from subgame.errors import InvalidInput, check_int
from subgame.families.gops import game as gops
from subgame.families.gops.game.patterns import stored_pattern_count
from subgame.family import ComputationConfig
from subgame.plan import ArraySpec, ChunkMax, Plan, ShardTask, Stage, Step, Writer
from subgame.storage.cache import cached

FAMILY = "gops"
KERNEL_VERSION = 1
MAX_CARDS = 16
DEFAULT_SHARD_STATES = 200_000
CardsOption = Annotated[int, typer.Option("--cards", help="N: cards 1..N in each suit.")]


def parse_strategies(text: str, cards: int) -> int:
    """'all' | 'none' | 'top:K' -> how many of the top levels store strategies."""
    if text == "all":
        return cards
    if text == "none":
        return 0
    if text.startswith("top:"):
        try:
            top = int(text[4:])
        except ValueError:
            top = -1
        if 0 <= top <= cards:
            return top
    raise InvalidInput(f"--strategies must be all, none or top:K with 0 <= K <= {cards}, "
                       f"got {text!r}")


@dataclass(frozen=True)
class GopsConfig(ComputationConfig):
    """Solve GOPS with cards 1..N for every subgame, level by level (j = cards left)."""

    cards: CardsOption
    strategies: Annotated[str, typer.Option(
        "--strategies", help="all, none, or top:K (only the K top levels).")] = "all"
    shard_states: Annotated[int, typer.Option(
        "--shard-states", help="States per shard (Dask task).")] = DEFAULT_SHARD_STATES

    def __post_init__(self) -> None:
        check_int("--cards", self.cards, 1, MAX_CARDS)
        check_int("--shard-states", self.shard_states, 1, 10**9)
        parse_strategies(self.strategies, self.cards)

    def group_path(self) -> str:
        return f"{FAMILY}/N{self.cards}"

    def constants(self) -> dict[str, Any]:
        return {"game": FAMILY, "objective": "expected point difference",
                "ties": "win nothing", "kernel_version": KERNEL_VERSION}

    @property
    def strategy_levels(self) -> int:
        """Levels N-K+1..N store strategies."""
        return parse_strategies(self.strategies, self.cards)

    def plan(self) -> Plan:
        return gops_plan(self)

    def with_strategies(self, j: int) -> bool:
        return j > self.cards - self.strategy_levels

    def shard_rows(self, j: int, n_patterns: int) -> int:
        return max(1, min(comb(self.cards, j), self.shard_states // n_patterns))


def level_arrays(config: GopsConfig, j: int, n_patterns: int) -> list[ArraySpec]:
    n_p, rows = comb(config.cards, j), config.shard_rows(j, n_patterns)
    # Level j (step j-1): chunk i along the deck axis is shard i's region.
    writer = Writer(step=j - 1, shard=ChunkMax((0,)))
    specs = [ArraySpec(f"j{j}/values", (n_p, n_patterns), (rows, n_patterns), "float64",
                       ("deck", "pattern"), writer=writer),
             ArraySpec(f"j{j}/upcard_values", (n_p, n_patterns, j), (rows, n_patterns, j),
                       "float64", ("deck", "pattern", "upcard"), writer=writer)]
    if config.with_strategies(j):
        specs += [ArraySpec(f"j{j}/{name}", (n_p, n_patterns, j, j),
                            (rows, n_patterns, j, j), "float32",
                            ("deck", "pattern", "upcard", "bid"), writer=writer)
                  for name in ("strategies", "strategies_two")]
    return specs


def gops_plan(config: GopsConfig) -> Plan:
    arrays, steps = [], []
    for j in range(1, config.cards + 1):
        n_patterns = stored_pattern_count(config.cards, j)
        n_p, rows = comb(config.cards, j), config.shard_rows(j, n_patterns)
        arrays += level_arrays(config, j, n_patterns)
        steps.append(Step(j - 1, f"j={j}", -(-n_p // rows), info={
            "cards_left": j, "decks": n_p, "patterns": n_patterns,
            "states": n_p * n_patterns, "matrix_games": n_p * (n_patterns - 1) * j,
            "strategies": config.with_strategies(j)}))
    return Plan(FAMILY, config, (Stage("solve", solve_gops_shard, tuple(arrays), tuple(steps)),))


def solve_gops_shard(task: ShardTask) -> dict[str, Any]:
    config: GopsConfig = task.config
    j, shard = task.step.info["cards_left"], task.shard
    layout = cached(f"{FAMILY}|layout", (config.cards, j),
                    lambda: gops.level_layout(config.cards, j))
    store = task.store()
    # Level 0 is f = 0; every later level reads the whole previous level once per worker.
    prev = (cached(f"{FAMILY}|prev|{task.url}|{task.group_path}", j - 1,
                   lambda: store.array(f"j{j - 1}/values")[...])
            if j > 1 else np.zeros((1, 1)))
    rows = config.shard_rows(j, layout.n_patterns)
    p_lo, p_hi = shard * rows, min((shard + 1) * rows, layout.n_p)
    result = gops.solve_shard(layout, prev, p_lo, p_hi, config.with_strategies(j))
    store.array(f"j{j}/values")[p_lo:p_hi] = result.values
    store.array(f"j{j}/upcard_values")[p_lo:p_hi] = result.upcard_values
    if result.strategies is not None:
        store.array(f"j{j}/strategies")[p_lo:p_hi] = result.strategies
        store.array(f"j{j}/strategies_two")[p_lo:p_hi] = result.strategies_two
    return {"states": (p_hi - p_lo) * layout.n_patterns, "games": result.games,
            "saddles": result.saddles, "pivots": result.pivots, "max_gap": result.max_gap}
