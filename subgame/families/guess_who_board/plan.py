"""Guess Who on a real board as a plan: stages, each sized by the one before.

On sets (``--types none``, the default):

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

On types (``--types bisimulation|dominance``, game/types.py; no policy stages: a policy's
move depends on the concrete set, not on its type):

- "reachable" (one step, one shard): the reachable sets' masks only (no moves), sorted by
  size, and where each size starts;
- "types": one step per set size k = 1..n (one shard): the type of every set of size k,
  from the types of the smaller sets (game.types.TypeLevels; a worker keeps them between
  steps and restores them from the store when it starts afresh);
- "pairs": as on sets, over pairs of types: a(type S, type T).

A LaterStage is built by the driver once every earlier step is finished, so the level
steps are numbered after the stage before them. Workers keep the lower levels they need in
memory (tables.LowerLevels): |sets|^2 (or |types|^2) int64 per table, which is what
max_sets bounds.
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

from subgame.computation import ComputationConfig
from subgame.errors import InvalidInput, check_int
from subgame.families.guess_who_board.game import (
    RULES, PairIndex, SetFamily, classic_characters, closest_to_half_moves, load_board,
    most_balanced_trait_moves, policy_pairs, reachable_sets, solve_pairs)
from subgame.families.guess_who_board.game.bitsets import popcounts
from subgame.families.guess_who_board.game.reachable import question_sets, reachable_masks
from subgame.families.guess_who_board.game.types import REDUCTIONS
from subgame.families.guess_who_board.tables import (
    FAMILY_ARRAYS, PAIR_ARRAYS, POLICY_ARRAYS, level_path, lower_levels, set_path,
    solved_family, stored_type_levels, type_path)
from subgame.plan import (ArraySpec, ChunkMax, Inputs, LaterStage, Plan, ShardTask, Step,
                          Writer)
from subgame.storage import ComputationStore
from subgame.storage.cache import cached

FAMILY = "guess-who-board"
KERNEL_VERSION = 1
CLASSIC = "classic"
DEFAULT_SHARD_PAIRS = 250_000
# 10,000 sets (or types): 1e8 pairs, 0.8 GB per int64 table held by each worker.
DEFAULT_MAX_SETS = 10_000
MAX_SETS_CEILING = 370_000  # sets^2 x 8 bytes = 1 TiB per int64 table
# On types the reachable sets are only enumerated and typed (about 40 bytes each at the
# types stage's peak, a direct mask table of 4 x 2^n bytes up to 26 characters): at most
# this many, every subset of 25 characters.
MAX_TYPED_SETS = 2**25
SETS_CHUNK = 2**23  # masks per chunk of sets/masks (64 MiB of int64)
TYPES = ("none", *REDUCTIONS)
GUESS_FACING_LAST = True
# Each policy: its stage's name and the moves it makes per set.
POLICIES: dict[str, tuple[str, Callable[[SetFamily], np.ndarray]]] = {
    "closest_half": ("closest-half", lambda family: closest_to_half_moves(
        family, family.max_literals)),
    "trait_search": ("trait-search", most_balanced_trait_moves),
}
# The classic board's reachable sets under the official rules beyond what fits, per
# question limit d, counted with game.reachable.count_reachable, to size the refusal's
# message; from d = 4 on every subset is reachable.
CLASSIC_SETS = {2: 7_964_760, 3: 15_233_331}
# Stage "pairs" on the classic board at d = 1 (`python bench/guess_who_board.py` times it).
PAIRS_PER_CORE_SECOND = 1.1e6


def board_name(board: str) -> str:
    """The board's name in group paths: classic, or the file's stem in safe characters."""
    return CLASSIC if board == CLASSIC else re.sub(r"[^A-Za-z0-9_.-]", "_", Path(board).stem)


@dataclass(frozen=True)
class BoardConfig(ComputationConfig):
    """Solve Guess Who exactly on a real board: every pair of reachable standing sets (or of
    their types), then the closest-to-half and trait-search policies against the optimal
    player and themselves (on sets)."""

    board: Annotated[str, typer.Option(
        "--board", metavar="<classic or file>", help="classic (shipped), or a board CSV file: a name column plus 0/1 or "
                        "categorical columns.")] = CLASSIC
    max_literals: Annotated[int, typer.Option(
        "--max-literals", help="d: literals per question (trait or not-trait).")] = 1
    rules: Annotated[Literal[RULES], typer.Option(
        "--rules", help="official (naming is the final guess) or variant (naming is a "
                        "question).")] = "official"
    types: Annotated[Literal[TYPES], typer.Option(
        "--types", help="Solve on sets (none), or on types of sets that play alike: "
                        "bisimulation, or dominance (fewest; no policy stages).")] = "none"
    shard_pairs: Annotated[int, typer.Option(
        "--shard-pairs", help="Pairs per shard (Dask task) = chunk length.")] = (
        DEFAULT_SHARD_PAIRS)
    max_sets: Annotated[int, typer.Option(
        "--max-sets", help="Refuse more reachable sets (on types: more types) than this: "
                           "each worker holds sets^2 int64 per table. Raise it on a "
                           "cluster with the memory.")] = DEFAULT_MAX_SETS

    def __post_init__(self) -> None:
        check_int("--max-literals", self.max_literals, 1)
        check_int("--shard-pairs", self.shard_pairs, 1, 10**9)
        # Whatever the override, a worker's table (sets^2 int64) stays within MAX_SETS_CEILING's
        # 1 TiB, and the enumeration behind it within seconds: a larger one is no run.
        check_int("--max-sets", self.max_sets, 1, MAX_SETS_CEILING)
        if self.rules not in RULES:
            raise InvalidInput(f"unknown rules {self.rules!r}; choose official or variant")
        if self.types not in TYPES:
            raise InvalidInput(f"unknown --types {self.types!r}; choose one of "
                               f"{', '.join(TYPES)}")
        characters = (classic_characters() if self.board == CLASSIC
                      else load_board(self.board))
        if len(characters) < 2:
            raise InvalidInput(f"board {board_name(self.board)!r} has "
                               f"{len(characters)} character: a game needs at least two "
                               "(with one there is nothing to guess)")
        question_sets(characters, self.max_literals)  # a board no question fits is refused
        # Not a field: the parsed board travels with the configuration to the workers. The
        # reachable sets are enumerated when a plan or a worker first needs them.
        object.__setattr__(self, "characters", characters)

    @property
    def digest(self) -> str:
        """The board's content (names and traits, in order), not its file name."""
        text = repr([(c.name, sorted(c.traits)) for c in self.characters])
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def on_types(self) -> bool:
        return self.types != "none"

    def identity(self) -> dict[str, Any]:
        # The board by name and content: a copy of the file elsewhere is the same board, a
        # changed file another computation. max_sets is a guard, not part of the answer. A
        # solve on sets has the identity it had before types existed (stores stay valid).
        identity = {"board": board_name(self.board), "board_digest": self.digest,
                    "max_literals": self.max_literals, "rules": self.rules,
                    "shard_pairs": self.shard_pairs, "game": FAMILY,
                    "guess_facing_last": GUESS_FACING_LAST, "kernel_version": KERNEL_VERSION}
        return identity | ({"types": self.types} if self.on_types else {})

    def group_path(self) -> str:
        return (f"{FAMILY}/{board_name(self.board)}-{self.digest[:8]}-d{self.max_literals}"
                f"-{self.rules}" + (f"-{self.types}" if self.on_types else ""))

    def _cache_key(self) -> tuple:
        return (self.digest, self.max_literals, self.rules)

    def set_family(self) -> SetFamily:
        """The reachable sets and their moves, enumerated once per process; InvalidInput
        when they do not fit (the enumeration stops as soon as it passes max_sets)."""
        def enumerate_sets() -> SetFamily:
            try:
                return reachable_sets(self.characters, self.max_literals, self.rules,
                                      self.max_sets)
            except InvalidInput as exc:
                raise InvalidInput(self._too_large(str(exc))) from None

        return cached(f"{FAMILY}|sets", (*self._cache_key(), self.max_sets), enumerate_sets)

    def reachable_masks(self) -> np.ndarray:
        """The reachable sets alone (masks sorted by size, then mask), once per process;
        InvalidInput beyond MAX_TYPED_SETS."""
        def enumerate_masks() -> np.ndarray:
            try:
                return reachable_masks(question_sets(self.characters, self.max_literals),
                                       len(self.characters), self.rules, MAX_TYPED_SETS)
            except InvalidInput:
                raise InvalidInput(
                    f"{board_name(self.board)} board, d = {self.max_literals}, {self.rules} "
                    f"rules: more than {MAX_TYPED_SETS:,} reachable sets, beyond what the "
                    "types stage holds") from None

        return cached(f"{FAMILY}|masks", self._cache_key(), enumerate_masks)

    def size_start(self) -> np.ndarray:
        """Where the reachable sets of each size k start in ``reachable_masks`` (index k;
        n + 2 entries)."""
        return np.searchsorted(popcounts(self.reachable_masks()),
                               np.arange(len(self.characters) + 2)).astype(np.int64)

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
                f"{8 * limit**2 / 1e9:.2g} GB per table in each worker); solve on types "
                f"(--types dominance), or raise --max-sets only where workers hold that "
                f"(e.g. --cluster; see docs/guess_who_board.md)")

    @property
    def policies(self) -> tuple[str, ...]:
        """The policies are evaluated under the official rules, on sets only."""
        return tuple(POLICIES) if self.rules == "official" and not self.on_types else ()

    def plan(self) -> Plan:
        # The reachable sets are enumerated here, once per process: what does not fit is
        # refused before anything is written.
        if self.on_types:
            self.reachable_masks()
            n = len(self.characters)
            stages = [LaterStage("reachable", solve_reachable_shard, build_masks),
                      LaterStage("types", solve_types_shard, build_types,
                                 reads=(set_path("size_start"),), foresee=foresee_types),
                      LaterStage("pairs", solve_pairs_shard, partial(build_levels, None),
                                 reads=tuple(type_path(k) for k in range(1, n + 1)))]
            return Plan(FAMILY, self, tuple(stages))
        self.set_family()
        sizes = (set_path("sizes"),)
        stages = [LaterStage("reachable", solve_reachable_shard, build_reachable),
                  LaterStage("pairs", solve_pairs_shard, partial(build_levels, None),
                             reads=sizes, foresee=foresee_sizes)]
        stages += [LaterStage(POLICIES[policy][0], solve_policy_shard,
                              partial(build_levels, policy), reads=sizes,
                              foresee=foresee_sizes) for policy in self.policies]
        return Plan(FAMILY, self, tuple(stages))

    def worker_bytes(self) -> int | None:
        """The largest shard's memory beyond the worker process: on sets, the lower levels
        of the tables of a level stage (int64 per pair: one for "pairs", three for a policy
        stage) and the set family; on types, the types stage (masks, set types and hashes
        of a level, the mask table); the pairs on types only the run can size."""
        if self.on_types:
            sets, n = len(self.reachable_masks()), len(self.characters)
            return 40 * sets + (4 << n if n <= 26 else 64 * sets)
        family = self.set_family()
        tables = 3 if self.policies else 1
        return (8 * tables * PairIndex(family).total + family.masks.nbytes * 3
                + family.move_children.nbytes + family.move_ptr.nbytes)


# -- stage "reachable" on sets -----------------------------------------------------------------
SET_DIMS = {"move_ptr": ("set_edge",), "move_children": ("move", "side"),
            "level_start": ("level_edge",), "size_start": ("size_edge",)}


def reachable_tables(config: BoardConfig) -> dict[str, np.ndarray]:
    """Everything stage "reachable" stores, by name under sets/."""
    if config.on_types:
        return {"masks": config.reachable_masks(), "size_start": config.size_start()}
    family = config.set_family()
    tables = {name: getattr(family, name) for name in FAMILY_ARRAYS}
    tables |= {f"{policy}_move": POLICIES[policy][1](family) for policy in config.policies}
    tables["level_start"] = PairIndex(family).level_start
    return tables


def set_arrays(config: BoardConfig, first_step: int) -> tuple[ArraySpec, ...]:
    writer = Writer(step=first_step, shard=0)  # every chunk
    return tuple(ArraySpec(set_path(name), table.shape,
                           (max(1, min(table.shape[0], SETS_CHUNK)), *table.shape[1:]),
                           str(table.dtype), SET_DIMS.get(name, ("set",)), writer=writer)
                 for name, table in reachable_tables(config).items())


def build_reachable(inputs: Inputs, config: BoardConfig, first_step: int):
    family = config.set_family()
    step = Step(first_step, "reachable", 1, info={
        "sets": len(family), "moves": len(family.move_children),
        "pairs": PairIndex(family).total})
    return set_arrays(config, first_step), (step,)


def solve_reachable_shard(task: ShardTask, store: ComputationStore) -> dict[str, Any]:
    tables = reachable_tables(task.config)
    for name, table in tables.items():
        store.array(set_path(name))[...] = table
    return {"sets": len(tables["masks"])}


def foresee_sizes(config: BoardConfig) -> Inputs:
    """What a level stage on sets reads, known before the run (the sets' sizes)."""
    return {set_path("sizes"): config.set_family().sizes}


# -- stages "reachable" and "types" on types --------------------------------------------------
def build_masks(inputs: Inputs, config: BoardConfig, first_step: int):
    step = Step(first_step, "reachable", 1, info={"sets": len(config.reachable_masks())})
    return set_arrays(config, first_step), (step,)


def foresee_types(config: BoardConfig) -> Inputs:
    return {set_path("size_start"): config.size_start()}


def build_types(inputs: Inputs, config: BoardConfig, first_step: int):
    """One step of one shard per set size k = 1..n, writing types/K<k>/set_type."""
    start = inputs[set_path("size_start")]
    arrays, steps = [], []
    for k in range(1, len(config.characters) + 1):
        sets = int(start[k + 1] - start[k])
        step = first_step + k - 1
        arrays.append(ArraySpec(type_path(k), (sets,), (max(1, min(sets, SETS_CHUNK)),),
                                "int32", ("set",), fill_value=-1,
                                writer=Writer(step=step, shard=0)))
        steps.append(Step(step, f"types k={k}", 1, info={"size": k, "sets": sets}))
    return tuple(arrays), tuple(steps)


def solve_types_shard(task: ShardTask, store: ComputationStore) -> dict[str, Any]:
    """The types of the sets of size k, from those of the smaller sets."""
    k = task.step.info["size"]
    levels = stored_type_levels(store, task.config, k - 1)
    before = levels.first_type
    level_types = levels.add(k)
    if len(level_types):
        store.array(type_path(k))[...] = level_types.astype(np.int32)
    return {"types": levels.first_type - before, "classes": int(levels.classes_per_size[k])}


# -- the level stages: "pairs" and one per policy ---------------------------------------------
def level_arrays(policy: str | None) -> dict[str, str]:
    """The arrays a level stage writes per level, with their dtypes."""
    if policy is None:
        return dict(PAIR_ARRAYS)
    return {f"{policy}/{name}": "int64" for name in POLICY_ARRAYS}


def solved_sizes(inputs: Inputs, config: BoardConfig) -> np.ndarray:
    """The sizes of what the pairs are made of (sets, or types numbered by size) from the
    arrays the stage reads; on types, InvalidInput beyond max_sets types."""
    if not config.on_types:
        return inputs[set_path("sizes")]
    counts = [len(np.unique(inputs[type_path(k)]))
              for k in range(1, len(config.characters) + 1)]
    if sum(counts) > config.max_sets:
        raise InvalidInput(
            f"{config.group_path()}: {sum(counts):,} types, more than --max-sets "
            f"{config.max_sets:,} ({sum(counts)**2:.2g} pairs, "
            f"{8 * sum(counts)**2 / 1e9:.2g} GB per table in each worker); the types are "
            f"stored: rerun with a larger --max-sets where workers hold that")
    return np.repeat(np.arange(1, len(counts) + 1), counts)


def build_levels(policy: str | None, inputs: Inputs, config: BoardConfig, first_step: int):
    """One step per non-empty level, ascending; shard i writes chunk i of each array."""
    index = PairIndex(solved_sizes(inputs, config))
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
    family = solved_family(store, task.config)
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
    family = solved_family(store, task.config)
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
