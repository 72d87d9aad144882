"""GOPS as a plan: one stage whose step j-1 solves level j (cards left in each hand);
shards are contiguous ranges of deck ranks.

Level j's arrays live under ``j<j>/`` with the deck rank (P in the combinatorial number
system) as first axis and one chunk per shard along it, so each shard writes whole chunks.
Under ``--objective win`` (group ``gops/N<cards>-win``) every array has the difference axis
``diff`` (d + diff_max) after the deck axis.  A worker loads level j-1's values once (cached
per process) and the level's layout once.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Annotated, Any

import typer

from subgame.errors import InvalidInput, check_int
from subgame.families.gops import game as gops
from subgame.families.gops.game.cards import subsets
from subgame.families.gops.game.level import OBJECTIVES, deck_reach, diff_max, level_zero
from subgame.families.gops.game.patterns import stored_pattern_count
from subgame.family import ComputationConfig
from subgame.plan import ArraySpec, ChunkMax, Plan, ShardTask, Stage, Step, Writer
from subgame.storage.cache import cached

FAMILY = "gops"
KERNEL_VERSION = 1
MAX_CARDS = 16
DEFAULT_SHARD_STATES = 200_000
CardsOption = Annotated[int, typer.Option("--cards", help="N: cards 1..N in each suit.")]
ObjectiveOption = Annotated[str, typer.Option(
    "--objective", help="points (expected point difference) or win (P(win) - P(lose)).")]
# The identity names the objective in words; a points store has always said this.
OBJECTIVE_WORDS = {"points": "expected point difference",
                   "win": "sign of the final point difference (win 1, tie 0, loss -1)"}


def check_objective(objective: str) -> None:
    if objective not in OBJECTIVES:
        raise InvalidInput(f"--objective must be one of {', '.join(OBJECTIVES)}, "
                           f"got {objective!r}")


def group_path(cards: int, objective: str) -> str:
    """gops/N<cards> (points, as stores always had it) or gops/N<cards>-win."""
    return f"{FAMILY}/N{cards}" + ("" if objective == "points" else f"-{objective}")


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
    """Solve GOPS with cards 1..N for every subgame, level by level (j = cards left), for
    the expected point difference (points) or P(win) - P(lose) (win: states gain d)."""

    cards: CardsOption
    strategies: Annotated[str, typer.Option(
        "--strategies", help="all, none, or top:K (only the K top levels).")] = "all"
    shard_states: Annotated[int, typer.Option(
        "--shard-states", help="States per shard (Dask task).")] = DEFAULT_SHARD_STATES
    objective: ObjectiveOption = "points"

    def __post_init__(self) -> None:
        check_int("--cards", self.cards, 1, MAX_CARDS)
        check_int("--shard-states", self.shard_states, 1, 10**9)
        parse_strategies(self.strategies, self.cards)
        check_objective(self.objective)

    def group_path(self) -> str:
        return group_path(self.cards, self.objective)

    def constants(self) -> dict[str, Any]:
        # "objective" in words replaces the field's value: points stores keep their identity.
        return {"game": FAMILY, "objective": OBJECTIVE_WORDS[self.objective],
                "ties": "win nothing", "kernel_version": KERNEL_VERSION}

    @property
    def strategy_levels(self) -> int:
        """Levels N-K+1..N store strategies."""
        return parse_strategies(self.strategies, self.cards)

    def plan(self) -> Plan:
        return gops_plan(self)

    def with_strategies(self, j: int) -> bool:
        return j > self.cards - self.strategy_levels

    def diff_axis(self, j: int) -> tuple[int, ...]:
        """The difference axis of level j's arrays: () under points, (2 diff_max + 1,)."""
        if self.objective == "points":
            return ()
        return (2 * diff_max(self.cards, j, self.objective) + 1,)

    def shard_rows(self, j: int, n_patterns: int) -> int:
        per_deck = n_patterns * (self.diff_axis(j) or (1,))[0]
        return max(1, min(comb(self.cards, j), self.shard_states // per_deck))


def level_arrays(config: GopsConfig, j: int, n_patterns: int) -> list[ArraySpec]:
    n_p, rows = comb(config.cards, j), config.shard_rows(j, n_patterns)
    diff = config.diff_axis(j)
    diff_dim = ("diff",) if diff else ()
    # Level j (step j-1): chunk i along the deck axis is shard i's region.
    writer = Writer(step=j - 1, shard=ChunkMax((0,)))
    specs = [ArraySpec(f"j{j}/values", (n_p, *diff, n_patterns), (rows, *diff, n_patterns),
                       "float64", ("deck", *diff_dim, "pattern"), writer=writer),
             ArraySpec(f"j{j}/upcard_values", (n_p, *diff, n_patterns, j),
                       (rows, *diff, n_patterns, j), "float64",
                       ("deck", *diff_dim, "pattern", "upcard"), writer=writer)]
    if config.with_strategies(j):
        specs += [ArraySpec(f"j{j}/{name}", (n_p, *diff, n_patterns, j, j),
                            (rows, *diff, n_patterns, j, j), "float32",
                            ("deck", *diff_dim, "pattern", "upcard", "bid"), writer=writer)
                  for name in ("strategies", "strategies_two")]
    return specs


def level_info(config: GopsConfig, j: int, n_patterns: int) -> dict[str, Any]:
    """What step j-1 computes (stored with the step: points' keys are those of every store
    so far; win adds the difference axis)."""
    n_p = comb(config.cards, j)
    if config.objective == "points":
        states = n_p * n_patterns
        extra = {}
    else:
        states = int((2 * deck_reach(config.cards, subsets(config.cards, j),
                                     config.objective) + 1).sum()) * n_patterns
        extra = {"diff_max": diff_max(config.cards, j, config.objective)}
    return {"cards_left": j, "decks": n_p, "patterns": n_patterns, "states": states,
            "matrix_games": (states - n_p) * j, **extra,
            "strategies": config.with_strategies(j)}


def gops_plan(config: GopsConfig) -> Plan:
    arrays, steps = [], []
    for j in range(1, config.cards + 1):
        n_patterns = stored_pattern_count(config.cards, j)
        n_p, rows = comb(config.cards, j), config.shard_rows(j, n_patterns)
        arrays += level_arrays(config, j, n_patterns)
        steps.append(Step(j - 1, f"j={j}", -(-n_p // rows),
                          info=level_info(config, j, n_patterns)))
    return Plan(FAMILY, config, (Stage("solve", solve_gops_shard, tuple(arrays), tuple(steps)),))


def solve_gops_shard(task: ShardTask) -> dict[str, Any]:
    config: GopsConfig = task.config
    j, shard = task.step.info["cards_left"], task.shard
    layout = cached(f"{FAMILY}|layout", (config.cards, j, config.objective),
                    lambda: gops.level_layout(config.cards, j, config.objective))
    store = task.store()
    # Level 0 is f = 0 (sign(d) = 0 at d = 0 under win); every later level reads the whole
    # previous level once per worker.
    prev = (cached(f"{FAMILY}|prev|{task.url}|{task.group_path}", j - 1,
                   lambda: store.array(f"j{j - 1}/values")[...])
            if j > 1 else level_zero(config.objective))
    rows = config.shard_rows(j, layout.n_patterns)
    p_lo, p_hi = shard * rows, min((shard + 1) * rows, layout.n_p)
    result = gops.solve_shard(layout, prev, p_lo, p_hi, config.with_strategies(j))
    store.array(f"j{j}/values")[p_lo:p_hi] = result.values
    store.array(f"j{j}/upcard_values")[p_lo:p_hi] = result.upcard_values
    if result.strategies is not None:
        store.array(f"j{j}/strategies")[p_lo:p_hi] = result.strategies
        store.array(f"j{j}/strategies_two")[p_lo:p_hi] = result.strategies_two
    return {"states": int((2 * layout.reach[p_lo:p_hi] + 1).sum()) * layout.n_patterns,
            "games": result.games,
            "saddles": result.saddles, "pivots": result.pivots, "max_gap": result.max_gap}
