"""Guess Who on a real board as a plan: four stages, each sized by the one before.

- "reachable" (one step, one shard): the reachable sets and their moves (SetFamily), each
  policy's move per set and the level table, recomputed from the board in the worker (0.3 s
  on the classic board) and written under ``sets/``; every later worker reads them back.
- "pairs": one step per level L = |S| + |T| (ascending), shards = ranges of
  ``shard_pairs`` positions within the level (one chunk each):
  a(S, T) = |T| if |S| = 1, else max(|T|, max_q |S||T| - a(T, S∩q) - a(T, S\\q)) (official;
  the variant rules add naming a character), which needs only lower levels.
- "closest-half", "trait-search" (official rules only): the same levels again, the policy's
  b against the optimal player, the optimal player's o against it, and b against itself
  (see game/policies.py). Convention: GUESS_FACING_LAST, the policy makes the final guess
  when the opponent has one character standing.

A LaterStage is built by the driver once every earlier step is finished, so the level
steps are numbered after the stage before them. Workers keep the lower levels they need in
memory (tables.LowerLevels): |sets|^2 int64 per table, which is what MAX_SETS bounds.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Callable, Literal

import numpy as np
import typer

from subgame.errors import InvalidInput, check_int
from subgame.families.guess_who_board.game import (
    RULES, PairIndex, SetFamily, classic_characters, closest_to_half_moves, load_board,
    most_balanced_trait_moves, policy_pairs, reachable_sets, solve_pairs)
from subgame.families.guess_who_board.tables import (
    FAMILY_ARRAYS, PAIR_ARRAYS, POLICY_ARRAYS, level_path, lower_levels, set_path,
    stored_family)
from subgame.family import ComputationConfig
from subgame.plan import ArraySpec, ChunkMax, LaterStage, Plan, ShardTask, Step, Writer
from subgame.storage import ComputationStore
from subgame.storage.cache import cached

FAMILY = "guess-who-board"
KERNEL_VERSION = 1
CLASSIC = "classic"
DEFAULT_SHARD_PAIRS = 250_000
# 10,000 sets: 1e8 pairs, 0.8 GB per int64 table held by each worker.
DEFAULT_MAX_SETS = 10_000
MAX_SETS_CEILING = 370_000  # sets^2 x 8 bytes = 1 TiB per int64 table
GUESS_FACING_LAST = True
# Each policy: its stage's name and the moves it makes per set.
POLICIES: dict[str, tuple[str, Callable[[SetFamily], np.ndarray]]] = {
    "closest_half": ("closest-half", lambda family: closest_to_half_moves(
        family, family.max_literals)),
    "trait_search": ("trait-search", most_balanced_trait_moves),
}
# The classic board's reachable sets under the official rules beyond what fits, per
# question limit d, counted with game.reachable.count_reachable (docs/guess_who_board.md),
# to size the refusal's message; from d = 4 on every subset is reachable.
CLASSIC_SETS = {2: 7_964_760, 3: 15_233_331}
PAIRS_PER_CORE_SECOND = 1.1e6  # stage "pairs" on the classic board at d = 1 (bench)


def board_name(board: str) -> str:
    """The board's name in group paths: classic, or the file's stem in safe characters."""
    return CLASSIC if board == CLASSIC else re.sub(r"[^A-Za-z0-9_.-]", "_", Path(board).stem)


@dataclass(frozen=True)
class BoardConfig(ComputationConfig):
    """Solve Guess Who exactly on a real board: every pair of reachable standing sets, then
    the closest-to-half and trait-search policies against the optimal player and themselves."""

    board: Annotated[str, typer.Option(
        "--board", help="classic (shipped), or a board CSV file: a name column plus 0/1 or "
                        "categorical columns.")] = CLASSIC
    max_literals: Annotated[int, typer.Option(
        "--max-literals", help="d: literals per question (trait or not-trait).")] = 1
    rules: Annotated[Literal[RULES], typer.Option(
        "--rules", help="official (naming is the final guess) or variant (naming is a "
                        "question).")] = "official"
    shard_pairs: Annotated[int, typer.Option(
        "--shard-pairs", help="Pairs per shard (Dask task) = chunk length.")] = (
        DEFAULT_SHARD_PAIRS)
    max_sets: Annotated[int, typer.Option(
        "--max-sets", help="Refuse more reachable sets than this: each worker holds "
                           "sets^2 int64 per table. Raise it on a cluster with the memory."
    )] = DEFAULT_MAX_SETS

    def __post_init__(self) -> None:
        check_int("--max-literals", self.max_literals, 1)
        check_int("--shard-pairs", self.shard_pairs, 1, 10**9)
        # Whatever the override, a worker's table (sets^2 int64) stays within MAX_SETS_CEILING's
        # 1 TiB, and the enumeration behind it within seconds: a larger one is no run.
        check_int("--max-sets", self.max_sets, 1, MAX_SETS_CEILING)
        if self.rules not in RULES:
            raise InvalidInput(f"unknown rules {self.rules!r}; choose official or variant")
        characters = (classic_characters() if self.board == CLASSIC
                      else load_board(self.board))
        if len(characters) < 2:
            raise InvalidInput(f"board {board_name(self.board)!r} has "
                               f"{len(characters)} character: a game needs at least two "
                               "(with one there is nothing to guess)")
        # Not a field: the parsed board travels with the configuration to the workers.
        object.__setattr__(self, "characters", characters)
        self.set_family()  # refuses what does not fit, before anything is written

    @property
    def digest(self) -> str:
        """The board's content (names and traits, in order), not its file name."""
        text = repr([(c.name, sorted(c.traits)) for c in self.characters])
        return hashlib.sha256(text.encode()).hexdigest()

    def identity(self) -> dict[str, Any]:
        # The board by name and content: a copy of the file elsewhere is the same board, a
        # changed file another computation. max_sets is a guard, not part of the answer.
        return {"board": board_name(self.board), "board_digest": self.digest,
                "max_literals": self.max_literals, "rules": self.rules,
                "shard_pairs": self.shard_pairs, "game": FAMILY,
                "guess_facing_last": GUESS_FACING_LAST, "kernel_version": KERNEL_VERSION}

    def group_path(self) -> str:
        return (f"{FAMILY}/{board_name(self.board)}-{self.digest[:8]}-d{self.max_literals}"
                f"-{self.rules}")

    def set_family(self) -> SetFamily:
        """The reachable sets, enumerated once per process; InvalidInput when they do not
        fit (the enumeration stops as soon as it passes max_sets)."""
        def enumerate_sets() -> SetFamily:
            try:
                return reachable_sets(self.characters, self.max_literals, self.rules,
                                      self.max_sets)
            except InvalidInput as exc:
                raise InvalidInput(self._too_large(str(exc))) from None

        return cached(f"{FAMILY}|sets", (self.digest, self.max_literals, self.rules,
                                         self.max_sets), enumerate_sets)

    def _too_large(self, reason: str) -> str:
        limit = self.max_sets
        known = CLASSIC_SETS.get(self.max_literals) if (
            self.board == CLASSIC and self.rules == "official") else None
        size = (f"the classic board at d = {self.max_literals} has about {known:.3g} reachable "
                f"sets, "
                f"{known**2:.2g} pairs: {8 * known**2 / 1e12:.3g} TB per int64 table and "
                f"{known**2 / PAIRS_PER_CORE_SECOND / 3600:.3g} core-hours for the pair values"
                if known else reason)
        return (f"{board_name(self.board)} board, d = {self.max_literals}, {self.rules} "
                f"rules: {size}; this run allows {limit:,} sets ({limit**2:.2g} pairs, "
                f"{8 * limit**2 / 1e9:.2g} GB per table in each worker); raise --max-sets "
                f"only where workers hold that (e.g. --cluster; see docs/guess_who_board.md)")

    @property
    def policies(self) -> tuple[str, ...]:
        """The policies are evaluated under the official rules only."""
        return tuple(POLICIES) if self.rules == "official" else ()

    def plan(self) -> Plan:
        stages = [LaterStage("reachable", solve_reachable_shard, build_reachable),
                  LaterStage("pairs", solve_pairs_shard, partial(build_levels, None))]
        stages += [LaterStage(POLICIES[policy][0], solve_policy_shard,
                              partial(build_levels, policy)) for policy in self.policies]
        return Plan(FAMILY, self, tuple(stages))


# -- stage "reachable" ------------------------------------------------------------------------
SET_DIMS = {"move_ptr": ("set_edge",), "move_children": ("move", "side"),
            "level_start": ("level_edge",)}


def reachable_tables(config: BoardConfig) -> dict[str, np.ndarray]:
    """Everything stage "reachable" stores, by name under sets/."""
    family = config.set_family()
    tables = {name: getattr(family, name) for name in FAMILY_ARRAYS}
    tables |= {f"{policy}_move": POLICIES[policy][1](family) for policy in config.policies}
    tables["level_start"] = PairIndex(family).level_start
    return tables


def build_reachable(store: ComputationStore, config: BoardConfig, first_step: int):
    family = config.set_family()
    writer = Writer(step=first_step, shard=0)  # one chunk per array
    arrays = tuple(ArraySpec(set_path(name), table.shape,
                             tuple(max(1, n) for n in table.shape), str(table.dtype),
                             SET_DIMS.get(name, ("set",)), writer=writer)
                   for name, table in reachable_tables(config).items())
    step = Step(first_step, "reachable", 1, info={
        "sets": len(family), "moves": len(family.move_children),
        "pairs": PairIndex(family).total})
    return arrays, (step,)


def solve_reachable_shard(task: ShardTask, store: ComputationStore) -> dict[str, Any]:
    for name, table in reachable_tables(task.config).items():
        store.array(set_path(name))[...] = table
    return {"sets": len(task.config.set_family())}


# -- the level stages: "pairs" and one per policy ---------------------------------------------
def level_arrays(policy: str | None) -> dict[str, str]:
    """The arrays a level stage writes per level, with their dtypes."""
    if policy is None:
        return dict(PAIR_ARRAYS)
    return {f"{policy}/{name}": "int64" for name in POLICY_ARRAYS}


def build_levels(policy: str | None, store: ComputationStore, config: BoardConfig,
                 first_step: int):
    """One step per non-empty level, ascending; shard i writes chunk i of each array."""
    index = PairIndex(stored_family(store, config))
    arrays, steps = [], []
    for level in index.levels:
        size = index.level_size(level)
        if not size:
            continue
        step = first_step + len(steps)
        writer = Writer(step=step, shard=ChunkMax((0,)))
        chunk = min(config.shard_pairs, size)
        arrays += [ArraySpec(level_path(level, name), (size,), (chunk,), dtype, ("pair",),
                             writer=writer) for name, dtype in level_arrays(policy).items()]
        prefix = "" if policy is None else f"{POLICIES[policy][0]} "
        steps.append(Step(step, f"{prefix}L={level}", -(-size // chunk), info={
            "level": level, "pairs": size, "policy": policy}))
    return tuple(arrays), tuple(steps)


def shard_range(task: ShardTask) -> tuple[int, int, int]:
    """The shard's level and its positions lo .. hi-1 within the level."""
    level, size = task.step.info["level"], task.step.info["pairs"]
    lo = task.shard * task.config.shard_pairs
    return level, lo, min(lo + task.config.shard_pairs, size)


def solve_pairs_shard(task: ShardTask, store: ComputationStore) -> dict[str, Any]:
    family = stored_family(store, task.config)
    index = PairIndex(family)
    level, lo, hi = shard_range(task)
    below = lower_levels(store, index, "pairs", ["a"], level)
    result = solve_pairs(family, index, level, lo, hi, below["a"].__getitem__)
    for name in PAIR_ARRAYS:
        store.array(level_path(level, name))[lo:hi] = getattr(
            result, "values" if name == "a" else name)
    return {"pairs": hi - lo}


def solve_policy_shard(task: ShardTask, store: ComputationStore) -> dict[str, Any]:
    """b against the optimal player (whose o looks up b), and b against itself."""
    family = stored_family(store, task.config)
    index = PairIndex(family)
    level, lo, hi = shard_range(task)
    policy = task.step.info["policy"]
    moves = store.array(set_path(f"{policy}_move"))[...]
    below = lower_levels(store, index, policy, level_arrays(policy), level)
    table = {name: below[f"{policy}/{name}"].__getitem__ for name in POLICY_ARRAYS}
    results = {
        "vs_optimal": policy_pairs(family, index, level, lo, hi, moves, table["optimal_vs"],
                                   GUESS_FACING_LAST),
        "optimal_vs": solve_pairs(family, index, level, lo, hi, table["vs_optimal"]).values,
        "vs_self": policy_pairs(family, index, level, lo, hi, moves, table["vs_self"],
                                GUESS_FACING_LAST)}
    for name, values in results.items():
        store.array(level_path(level, f"{policy}/{name}"))[lo:hi] = values
    return {"pairs": hi - lo}
