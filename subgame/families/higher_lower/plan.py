"""Higher/lower as plans: one run asks for the distinct-card sweep, a deck grid, or both.

Distinct cards (``higher-lower/distinct/B<B>``): step b is the block of deck sizes
n in (b*B, (b+1)*B]; its shards are the float sweep (always) and the exact integer sweep
(while n <= exact_max). Each shard continues from the state its chain stored at the end
of block b-1 and stores its own end state, one array per block, so a rerun of block b
always starts from block b-1's state, whatever was killed when. N and exact_max are the
extent: a later, larger run computes only the new blocks (and a partial last one).

Decks with repeated ranks (``higher-lower/decks/<grid>``): a stage of exact DP shards,
one per feasible grid point (ranks x suits x ties x policy), then a Monte Carlo stage of
shards point x batch, each with its own stream from SeedSequence(seed).spawn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from itertools import product
from typing import Annotated, Any, Optional

import numpy as np
import typer

from subgame.computation import ComputationConfig
from subgame.errors import SEED_MAX, InvalidInput, check_int
from subgame.families.higher_lower import game as hl
from subgame.family import parse_int_list
from subgame.plan import (MAX_SHARDS_PER_STEP, MAX_STEPS, ArraySpec, ChunkGrid, ChunkMax, Plan,
                          ShardTask, Stage, Step, Writer, check_plan_size)
from subgame.storage import ComputationStore
from subgame.storage.encoding import HEX, from_hex, to_hex

FAMILY = "higher-lower"
KERNEL_VERSION = 1
MAX_N = 10**7
EXACT_WORDS_LIMIT = 3 * 10**7  # (suits+1)^ranks words: beyond this the exact DP is too big
GAMES_PER_SHARD = 250_000
FLOAT, EXACT = 0, 1  # shard numbers of the distinct sweep's two chains
# n = 1: the lone card needs no guess (P_all = 1 = 0.5 * 2^1, no streak, no ratio yet).
N1_ROW = {"p_all": 1.0, "log_p_all": 0.0, "p_all_mantissa": 0.5, "p_all_exponent": 1,
          "expected_streak": 0.0, "ratio": np.nan}
SWEEP_ARRAYS = {"p_all": "float64", "log_p_all": "float64", "p_all_mantissa": "float64",
                "p_all_exponent": "int64", "expected_streak": "float64", "ratio": "float64"}


DEFAULT_EXACT_MAX = 2000


@dataclass(frozen=True)
class DistinctConfig(ComputationConfig):
    EXTENT = ("max_n", "exact_max")

    max_n: int
    exact_max: int = DEFAULT_EXACT_MAX
    block: int = 10_000

    def __post_init__(self) -> None:
        check_int("--max-n", self.max_n, 1, MAX_N)
        check_int("--block", self.block, 1, MAX_N)
        check_int("--exact-max", self.exact_max, 0, self.max_n)
        check_plan_size(self.blocks, 2, f"use --block {-(-self.max_n // MAX_STEPS)} or more")

    def group_path(self) -> str:
        return f"{FAMILY}/distinct/B{self.block}"

    def constants(self) -> dict[str, Any]:
        return {"game": FAMILY, "deck": "distinct", "policy": "majority",
                "kernel_version": KERNEL_VERSION}

    def plan(self) -> Plan:
        return distinct_plan(self)

    def block_end(self, b: int) -> int:
        """Last deck size of block b (block -1 ends at n = 1, the sweeps' first level)."""
        return 1 if b < 0 else min((b + 1) * self.block, self.max_n)

    @property
    def blocks(self) -> int:
        return -(-self.max_n // self.block)

    def worker_bytes(self) -> int:
        """The larger shard of a block (solve_distinct_shard). Float: the block's six
        float64 columns, twice (the first block prepends n = 1), and the level vectors,
        float64 of length n/2, a few at once. Exact: two consecutive levels of n/2 Python
        integers each (about log2 n! bits: 4 bytes per 30 bits, 28 bytes of header and an
        8-byte reference each), and the hexadecimal text of the block's totals and of the
        last level, log2 n! / 4 digits each: as Python strings, in to_hex's fixed-width
        numpy array (4 bytes a digit, every entry as long as the longest) and as Zarr
        encodes it, about 7 bytes a digit in all (traced: 0.9-2x of this at n = 600-2000)."""
        floats = 2 * 6 * 8 * min(self.block, self.max_n) + 4 * 8 * (self.max_n + 1) // 2
        if not self.exact_max:
            return floats
        n = self.exact_max
        bits = math.lgamma(n + 1) / math.log(2)
        level = (n + 1) // 2 * 2 * (28 + 8 + bits / 7.5)
        text = (min(self.block, n) * 2 + (n + 1) // 2 * 2) * (7 * bits / 4 + 60)
        return max(floats, int(2 * level + text))


def _n_axis(name: str, length: int, chunk: int, dtype: str, shard: int,
            axis: str = "n") -> ArraySpec:
    """A per-n result: chunk b along n is block b's, written by the float or exact shard.
    The exact counts stop at exact_max: their axis is ``exact_n`` (xarray wants one length
    per dimension name)."""
    return ArraySpec(name, (length,), (min(chunk, length),), dtype, (axis,),
                     fill_value="" if dtype == "str" else 0, attrs=HEX if dtype == "str" else {},
                     writer=Writer(step=ChunkMax((0,)), shard=shard))


def distinct_plan(config: DistinctConfig) -> Plan:
    N, B = config.max_n, config.block
    arrays = [ArraySpec("n", (N,), (min(B, N),), "int64", ("n",),
                        constant=partial(np.arange, 1, N + 1))]
    arrays += [_n_axis(name, N, B, dtype, FLOAT) for name, dtype in SWEEP_ARRAYS.items()]
    if config.exact_max:
        arrays.append(ArraySpec("exact_n", (config.exact_max,), (min(B, config.exact_max),),
                                "int64", ("exact_n",),
                                constant=partial(np.arange, 1, config.exact_max + 1)))
        arrays += [_n_axis(name, config.exact_max, B, "str", EXACT, "exact_n")
                   for name in ("count", "streak_count")]
    steps = []
    for b in range(config.blocks):
        end, half = config.block_end(b), (config.block_end(b) + 1) // 2
        float_writer = Writer(step=b, shard=FLOAT)
        arrays += [ArraySpec(f"state/{b}/float_{part}", (half,), (half,), "float64", ("u",),
                             writer=float_writer) for part in ("x", "streak")]
        arrays.append(ArraySpec(f"state/{b}/float_exponent", (1,), (1,), "int64", ("one",),
                                writer=float_writer))
        exact = b * B < config.exact_max
        if exact:
            exact_half = (min(end, config.exact_max) + 1) // 2
            arrays += [ArraySpec(f"state/{b}/exact_{part}", (exact_half,), (exact_half,), "str",
                                 ("u",), fill_value="", attrs=HEX,
                                 writer=Writer(step=b, shard=EXACT))
                       for part in ("wins", "streak")]
        steps.append(Step(b, f"n={b * B + 1}..{end}", 2 if exact else 1,
                          info={"first_n": b * B + 1, "last_n": end, "exact": exact,
                                "exact_last_n": min(end, config.exact_max)}))
    return Plan(FAMILY, config, (Stage("sweep", solve_distinct_shard, tuple(arrays),
                                       tuple(steps)),))


def _float_start(store: ComputationStore, b: int) -> hl.FloatLevel:
    if b == 0:
        return hl.FIRST_FLOAT
    prefix, n = f"state/{b - 1}/float_", store.config["block"] * b
    return hl.FloatLevel(n, store.array(prefix + "x")[:], int(store.array(prefix + "exponent")[0]),
                         store.array(prefix + "streak")[:])


def _exact_start(store: ComputationStore, b: int) -> hl.ExactLevel:
    if b == 0:
        return hl.FIRST_EXACT
    prefix, n = f"state/{b - 1}/exact_", store.config["block"] * b
    return hl.ExactLevel(n, from_hex(store.array(prefix + "wins")[:]),
                         from_hex(store.array(prefix + "streak")[:]))


def solve_distinct_shard(task: ShardTask, store: ComputationStore) -> dict[str, Any]:
    config: DistinctConfig = task.config
    b, start = task.step.index, config.block_end(task.step.index - 1)
    if task.shard == FLOAT:
        first = _float_start(store, b)
        table, last = hl.float_sweep(config.block_end(b), first)
        rows = slice(first.n, last.n)  # 0-based positions of n = first.n + 1 .. last.n
        columns = {"log_p_all": table.log_p, "p_all_mantissa": table.mantissa,
                   "p_all_exponent": table.exponent, "expected_streak": table.streak,
                   "ratio": table.ratio,
                   "p_all": np.ldexp(table.mantissa, table.exponent.astype(np.int32))}
        if b == 0:  # the sweeps start after n = 1, whose row is known
            rows = slice(0, last.n)
            columns = {name: np.concatenate([[N1_ROW[name]], values])
                       for name, values in columns.items()}
        for name, values in columns.items():
            store.array(name)[rows] = values
        store.array(f"state/{b}/float_x")[:] = last.x
        store.array(f"state/{b}/float_streak")[:] = last.streak
        store.array(f"state/{b}/float_exponent")[:] = [last.exponent]
        return {"deck_sizes": last.n - start}
    first = _exact_start(store, b)
    stop = min(config.block_end(b), config.exact_max)
    # One level at a time: a level is n/2 integers of n log n bits, and every level of a
    # block would hold gigabytes at n = 2000; only their totals are stored.
    last = first
    counts, streaks = ([first.count], [first.streak_total]) if b == 0 else ([], [])
    for last in hl.exact_levels(stop, first):
        counts.append(last.count)
        streaks.append(last.streak_total)
    rows = slice(stop - len(counts), stop)
    store.array("count")[rows] = to_hex(counts)
    store.array("streak_count")[rows] = to_hex(streaks)
    store.array(f"state/{b}/exact_wins")[:] = to_hex(last.wins)
    store.array(f"state/{b}/exact_streak")[:] = to_hex(last.streak)
    return {"exact_deck_sizes": stop - start}


# -- decks with repeated ranks -----------------------------------------------------------------
def parse_choices(option: str, text: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    values = tuple(v.strip().replace("-", "_") for v in text.split(","))
    bad = [v for v in values if v not in allowed]  # an empty entry ("optimal,,") too
    if bad:
        raise InvalidInput(f"{option} takes a comma-separated list of {', '.join(allowed)}; "
                           f"got {text!r}")
    return tuple(dict.fromkeys(values))


@dataclass(frozen=True)
class DeckConfig(ComputationConfig):
    ranks: tuple[int, ...]
    suits: tuple[int, ...]
    ties: tuple[str, ...] = ("loss",)
    policies: tuple[str, ...] = ("optimal", "majority")
    games: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        check_int("--games", self.games, 0, 10**12)
        check_int("--seed", self.seed, 0, SEED_MAX)
        most = MAX_SHARDS_PER_STEP // len(self.points) * GAMES_PER_SHARD
        check_plan_size(2, len(self.points) * self.batches,
                        f"use --games {most:,} or fewer for {len(self.points)} grid points "
                        f"(Monte Carlo shards of {GAMES_PER_SHARD:,} games)")

    @property
    def points(self) -> list[tuple[int, int, str, str]]:
        return list(product(self.ranks, self.suits, self.ties, self.policies))

    @property
    def batches(self) -> int:
        return -(-self.games // GAMES_PER_SHARD)

    def group_path(self) -> str:
        def join(values):
            return ".".join(str(v) for v in values)

        return (f"{FAMILY}/decks/r{join(self.ranks)}-s{join(self.suits)}-{join(self.ties)}-"
                f"{join(self.policies)}-G{self.games}-seed{self.seed}")

    def constants(self) -> dict[str, Any]:
        return {"game": FAMILY, "games_per_shard": GAMES_PER_SHARD,
                "kernel_version": KERNEL_VERSION}

    def plan(self) -> Plan:
        return deck_plan(self)


def exact_feasible(ranks: int, suits: int) -> bool:
    return (suits + 1) ** ranks <= EXACT_WORDS_LIMIT


def deck_plan(config: DeckConfig) -> Plan:
    points = config.points
    P = len(points)
    # A grid point's ranks, suits, ties and policy label every per-point result (CF's
    # ``coordinates`` attribute: xarray reads them as coordinates of the point axis).
    labelled = {"coordinates": "ranks suits ties policy"}
    arrays = [ArraySpec(name, (P,), (P,), dtype, ("point",), fill_value=fill,
                        constant=partial(np.array, [point[i] for point in points]))
              for i, (name, dtype, fill) in enumerate((("ranks", "int64", 0),
                                                       ("suits", "int64", 0),
                                                       ("ties", "str", ""),
                                                       ("policy", "str", "")))]
    # exact_wins and exact_orders hold hexadecimal integers, like the distinct sweep
    arrays += [ArraySpec(name, (P,), (1,), dtype, ("point",), fill_value=fill,
                         attrs={**labelled, **(HEX if dtype == "str" else {})},
                         writer=Writer(step=0, shard=ChunkMax((0,))))
               for name, dtype, fill in (("exact_wins", "str", ""), ("exact_orders", "str", ""),
                                         ("exact_p", "float64", np.nan),
                                         ("exact_states", "int64", 0))]
    stages = [Stage("exact", solve_exact_shard, tuple(arrays), (
        Step(0, "exact DP", P, info={"feasible": [exact_feasible(r, s)
                                                  for r, s, _, _ in points]}),))]
    if config.games:
        # Shard point * batches + batch writes chunk (point, batch).
        writer = Writer(step=1, shard=ChunkGrid((0, 1)))
        stages.append(Stage("monte-carlo", solve_monte_carlo_shard, tuple(
            ArraySpec(name, (P, config.batches), (1, 1), "int64", ("point", "batch"),
                      attrs=labelled, writer=writer) for name in ("mc_wins", "mc_games")), (
            Step(1, "Monte Carlo", P * config.batches,
                 info={"games": config.games, "batches": config.batches}),)))
    return Plan(FAMILY, config, tuple(stages))


def solve_exact_shard(task: ShardTask, store: ComputationStore) -> dict[str, Any]:
    ranks, suits, ties, policy = task.config.points[task.shard]
    point = task.shard
    if not exact_feasible(ranks, suits):  # its chunks hold the fill values, written
        for name, fill in (("exact_wins", ""), ("exact_orders", ""), ("exact_p", np.nan),
                           ("exact_states", 0)):
            store.array(name)[point] = fill
        return {"exact_points": 0}
    solution = hl.solve(ranks, suits, ties, policy)
    store.array("exact_wins")[point] = format(solution.wins, "x")
    store.array("exact_orders")[point] = format(solution.orders, "x")
    store.array("exact_p")[point] = float(solution.p)
    store.array("exact_states")[point] = sum(solution.states)
    return {"exact_points": 1, "states": sum(solution.states)}


def solve_monte_carlo_shard(task: ShardTask, store: ComputationStore) -> dict[str, Any]:
    config: DeckConfig = task.config
    point, batch = divmod(task.shard, config.batches)
    ranks, suits, ties, policy = config.points[point]
    games = min(GAMES_PER_SHARD, config.games - batch * GAMES_PER_SHARD)
    stream = np.random.SeedSequence(config.seed).spawn(len(config.points))[point].spawn(
        config.batches)[batch]
    wins, played = hl.simulate(policy, ranks, suits, ties, games, stream)
    store.array("mc_wins")[point, batch] = wins
    store.array("mc_games")[point, batch] = played
    return {"games": played}


# -- the `run higher-lower` options ---------------------------------------------------------
@dataclass(frozen=True)
class HigherLowerRun:
    """Sweep the higher/lower card-guessing problem: distinct cards and/or r x s decks."""

    max_n: Annotated[Optional[int], typer.Option(
        "--max-n", help="Distinct-card sweep over deck sizes n <= N.")] = None
    exact_max: Annotated[Optional[int], typer.Option(
        "--exact-max", help="Exact counts n! P_all(n) for n <= this (at most --max-n) "
                            "[default: the smaller of 2000 and --max-n].")] = None
    block: Annotated[int, typer.Option("--block", help="Deck sizes per step.")] = 10_000
    ranks: Annotated[Optional[str], typer.Option(
        "--ranks", help="Deck sweep: ranks per deck, e.g. 8,13.")] = None
    suits: Annotated[Optional[str], typer.Option(
        "--suits", help="Deck sweep: suits per deck, e.g. 2,4.")] = None
    ties: Annotated[str, typer.Option(
        "--ties", help="loss and/or pass (comma-separated): what an equal rank does.")] = "loss"
    policy: Annotated[str, typer.Option(
        "--policy", help="optimal, majority, always-higher (comma-separated).")] = \
        "optimal,majority"
    games: Annotated[int, typer.Option(
        "--games", help="Monte Carlo games per grid point (0: exact DP only).")] = 0
    seed: Annotated[int, typer.Option("--seed", min=0, max=SEED_MAX,
                                                   help="Root of the random streams.")] = 0


def computations(run: HigherLowerRun) -> list[ComputationConfig]:
    """The distinct sweep (--max-n), a deck grid (--ranks and --suits), or both."""
    chosen: list[ComputationConfig] = []
    if run.max_n is not None:
        if run.exact_max is not None and run.exact_max > run.max_n:
            raise InvalidInput(f"--exact-max {run.exact_max} exceeds --max-n {run.max_n}: "
                               "exact counts stop where the sweep does; give --exact-max "
                               f"{run.max_n} or less, or leave it out")
        exact_max = DEFAULT_EXACT_MAX if run.exact_max is None else run.exact_max
        chosen.append(DistinctConfig(run.max_n, min(exact_max, run.max_n), run.block))
    elif run.exact_max is not None:
        raise InvalidInput("--exact-max belongs to the distinct-card sweep: give --max-n too")
    if (run.ranks is None) != (run.suits is None):
        raise InvalidInput("give both --ranks and --suits for a deck sweep")
    if run.ranks is not None:
        chosen.append(DeckConfig(
            parse_int_list("--ranks", run.ranks, 1, 52), parse_int_list("--suits", run.suits, 1, 8),
            parse_choices("--ties", run.ties, hl.TIES),
            parse_choices("--policy", run.policy, hl.POLICIES), run.games, run.seed))
    if not chosen:
        raise InvalidInput("give --max-n for the distinct-card sweep and/or --ranks and "
                           "--suits for a deck sweep")
    return chosen
