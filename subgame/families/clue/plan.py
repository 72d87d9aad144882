"""Clue tournaments as a plan: simulate batches of games per grid point, then aggregate.

The grid is players p x cards per player k x hidden h (N = p k + h cards). Stage
"simulate": step b is batch b of every grid point, one shard per point, BATCH_GAMES games
each (the last batch may be partial). Batch b of point (p, k, h) plays from its own stream
``SeedSequence(seed, spawn_key=(p, k, h, b))``, so its games depend neither on the sharding
nor on which other points share the grid. ``games`` is the extent: a later run with more
games appends batch steps (and recomputes a partial last batch that became larger); the
finished batches stay. Stage "aggregate" (a `LaterStage`, so the engine rebuilds it whenever
the batches change) sums each point's batches into its leaderboard, one shard per point.

Line-up: a comma list of strategies seated in that order; a table of p players seats
``lineup[s mod L]`` at seat s, and the kernel moves the entries round the seats as
``--seating`` says (``tournament.seat_orders``): rotated deal by deal (the default), or every
deal played once per rotation or once per seat order, so every entry plays every seat.
Counts are kept per strategy (entries of the same name added), and per deal the moments
the leaderboard's intervals and paired comparisons need (``deal_moments``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from itertools import product
from typing import Annotated, Any

import numpy as np
import typer

from subgame.computation import ComputationConfig
from subgame.errors import SEED_MAX, InvalidInput, check_int
from subgame.exact import counted
from subgame.families.clue.game import COUNT_KEYS, STRATEGIES, check_point, simulate_batch
from subgame.families.clue.game.tournament import MAX_ORDERED, QUANTITIES, SEATINGS
from subgame.family import parse_int_list
from subgame.plan import (MAX_STEPS, ArraySpec, ChunkMax, Inputs, LaterStage, Plan, ShardTask,
                          Stage, Step, Writer, check_plan_size)
from subgame.storage import ComputationStore

FAMILY = "clue"
KERNEL_VERSION = 2  # 2: per-deal moments (intervals, paired comparisons), --seating
BATCH_GAMES = 100
MAX_PLAYERS, MAX_PER_PLAYER, MAX_HIDDEN = 12, 32, 8
MAX_GAMES = 10**9
# Per point x batch x strategy, as simulate_batch counts them (ranks get their own array).
BATCH_COUNTS = COUNT_KEYS
# Per point x strategy, the leaderboard derived from the summed counts.
RATES = ("first_share", "wrong_rate", "mean_guess_round", "mean_lead")


def parse_lineup(text: str) -> tuple[str, ...]:
    names = tuple(v.strip() for v in str(text).split(",") if v.strip())
    unknown = [name for name in names if name not in STRATEGIES]
    if not names or unknown:
        raise InvalidInput(f"--lineup takes a comma-separated list of strategies from "
                           f"{', '.join(STRATEGIES)}; got {text!r}")
    return names


def joined(values) -> str:
    return ",".join(str(v) for v in values)


@dataclass(frozen=True)
class ClueConfig(ComputationConfig):
    """Tournaments of Generalized Clue strategies over a grid of (players, cards per
    player, hidden cards); N = players x cards per player + hidden."""

    EXTENT = ("games",)

    players: Annotated[str, typer.Option(
        "--players", help="Players p per table, comma-separated (2..12).")] = "3"
    cards_per_player: Annotated[str, typer.Option(
        "--cards-per-player", help="Cards k in each hand, comma-separated (1..32).")] = "3"
    hidden: Annotated[str, typer.Option(
        "--hidden", help="Hidden cards h, comma-separated (1..8).")] = "2"
    games: Annotated[int, typer.Option(
        "--games", help="Games per grid point; a later run with more games computes only "
                        "the new batches.")] = 1000
    seed: Annotated[int, typer.Option("--seed", min=0, max=SEED_MAX,
                                                   help="Root of the random streams.")] = 0
    lineup: Annotated[str, typer.Option(
        "--lineup", help="Strategies seated in this order, comma-separated; repeated "
                         "round the table when p exceeds them.")] = "core,weighted-inverse"
    seating: Annotated[str, typer.Option(
        "--seating", help="rotate: each deal played once, the line-up rotated deal by deal; "
                          "every-rotation: each deal played once per rotation (p games, every "
                          "entry in every seat); every-order: once per seat order (p! games, "
                          f"p <= {MAX_ORDERED}).  --games counts deals.")] = "rotate"

    def __post_init__(self) -> None:
        # Stored as canonical text (sorted, no repeats): "5,3" and "3,5" are one identity.
        for name, option, upper, lower in (("players", "--players", MAX_PLAYERS, 2),
                                           ("cards_per_player", "--cards-per-player",
                                            MAX_PER_PLAYER, 1),
                                           ("hidden", "--hidden", MAX_HIDDEN, 1)):
            values = parse_int_list(option, getattr(self, name), lower, upper)
            object.__setattr__(self, name, joined(sorted(values)))
        object.__setattr__(self, "lineup", joined(parse_lineup(self.lineup)))
        check_int("--games", self.games, 1, MAX_GAMES)
        check_int("--seed", self.seed, 0, SEED_MAX)
        check_plan_size(self.batches, len(self.points),
                        f"use --games {MAX_STEPS * BATCH_GAMES:,} or fewer (steps of "
                        f"{BATCH_GAMES} games)")
        smallest = min(self.point_values(0))
        if len(self.lineup_names) > smallest:
            raise InvalidInput(f"a line-up of {counted(len(self.lineup_names), 'strategy', 'strategies')} "
                               f"does not fit a table of {smallest} players; seat at most as many "
                               "strategies as the smallest --players")
        if self.seating not in SEATINGS:
            raise InvalidInput(f"--seating must be one of {', '.join(SEATINGS)}; got "
                               f"{self.seating!r}")
        if self.seating == "every-order" and max(self.point_values(0)) > MAX_ORDERED:
            raise InvalidInput(f"--seating every-order plays p! games a deal; --players goes "
                               f"to {max(self.point_values(0))}, more than {MAX_ORDERED} "
                               "(use every-rotation)")
        for point in self.points:
            check_point(*point, self.seats(point[0]))

    # -- the grid ---------------------------------------------------------------------
    def point_values(self, axis: int) -> tuple[int, ...]:
        text = (self.players, self.cards_per_player, self.hidden)[axis]
        return tuple(int(v) for v in text.split(","))

    @property
    def points(self) -> list[tuple[int, int, int]]:
        """Grid points (p, k, h), p slowest."""
        return list(product(*(self.point_values(axis) for axis in range(3))))

    @property
    def lineup_names(self) -> tuple[str, ...]:
        return tuple(self.lineup.split(","))

    @property
    def strategies(self) -> tuple[str, ...]:
        """The line-up's distinct strategies, in seating order: the strategy axis."""
        return tuple(dict.fromkeys(self.lineup_names))

    def seats(self, players: int) -> list[str]:
        return [self.lineup_names[s % len(self.lineup_names)] for s in range(players)]

    @property
    def batches(self) -> int:
        return -(-self.games // BATCH_GAMES)

    def batch_games(self, batch: int) -> int:
        return min(BATCH_GAMES, self.games - batch * BATCH_GAMES)

    # -- identity -----------------------------------------------------------------------
    def group_path(self) -> str:
        def dotted(text: str) -> str:
            return text.replace(",", ".")

        # "/" would open a subgroup (history-1/2): written as "_".
        lineup = "+".join(self.lineup_names).replace("/", "_")
        seats = "" if self.seating == "rotate" else f"-{self.seating}"
        return (f"{FAMILY}/p{dotted(self.players)}-k{dotted(self.cards_per_player)}-"
                f"h{dotted(self.hidden)}-{lineup}{seats}-seed{self.seed}")

    def constants(self) -> dict[str, Any]:
        return {"game": FAMILY, "batch_games": BATCH_GAMES, "round_limit": "2 (N-k-h) p",
                "kernel_version": KERNEL_VERSION}

    def plan(self) -> Plan:
        return tournament_plan(self)


# -- stage 1: simulate ---------------------------------------------------------------------
def coordinate_arrays(config: ClueConfig) -> list[ArraySpec]:
    points = config.points
    P, S = len(points), len(config.strategies)
    arrays = [ArraySpec(f"point_{name}", (P,), (P,), "int64", ("point",),
                        constant=partial(np.array, [point[axis] for point in points]))
              for axis, name in enumerate(("players", "per_player", "hidden"))]
    arrays.append(ArraySpec("strategy", (S,), (S,), "str", ("strategy",), fill_value="",
                            constant=partial(np.array, list(config.strategies))))
    R = max_players(config)
    arrays.append(ArraySpec("rank", (R,), (R,), "int64", ("rank",),
                            constant=partial(np.arange, 1, R + 1)))
    return arrays


def moments_size(config: ClueConfig) -> int:
    """1 + strategies x QUANTITIES: the side of a deal-moment matrix."""
    return 1 + len(config.strategies) * len(QUANTITIES)


def max_players(config: ClueConfig) -> int:
    return max(config.point_values(0))


def tournament_plan(config: ClueConfig) -> Plan:
    P, S, B, R = len(config.points), len(config.strategies), config.batches, max_players(config)
    # Chunk (point, batch) is written by shard `point` of step `batch`.
    writer = Writer(step=ChunkMax((1,)), shard=ChunkMax((0,)))
    dims = ("point", "batch", "strategy")
    arrays = coordinate_arrays(config)
    arrays += [ArraySpec(f"batch/{key}", (P, B, S), (1, 1, S), "int64", dims, writer=writer)
               for key in BATCH_COUNTS]
    arrays.append(ArraySpec("batch/rank_counts", (P, B, S, R), (1, 1, S, R), "int64",
                            (*dims, "rank"), writer=writer))
    K = moments_size(config)
    arrays.append(ArraySpec("batch/deal_moments", (P, B, K, K), (1, 1, K, K), "int64",
                            ("point", "batch", "moment", "moment_"), writer=writer))
    steps = tuple(Step(b, f"batch {b}", P, info={"batch": b, "games": config.batch_games(b)})
                  for b in range(B))
    return Plan(FAMILY, config, (Stage("simulate", solve_batch_shard, tuple(arrays), steps),
                                 LaterStage("aggregate", solve_aggregate_shard,
                                            build_aggregate)))


def batch_stream(seed: int, point: tuple[int, int, int], batch: int) -> np.random.SeedSequence:
    """The stream of one batch of one grid point, whatever the grid or the sharding."""
    return np.random.SeedSequence(seed, spawn_key=(*point, batch))


def strategy_counts(config: ClueConfig, players: int,
                    counts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """simulate_batch's per-seat-entry counts added up per strategy; ranks padded to the
    grid's largest table."""
    column = np.array([config.strategies.index(name) for name in config.seats(players)])
    S = len(config.strategies)
    summed = {}
    for key in BATCH_COUNTS:
        summed[key] = np.zeros(S, dtype=np.int64)
        np.add.at(summed[key], column, counts[key])
    ranks = np.zeros((S, max_players(config)), dtype=np.int64)
    np.add.at(ranks, column, np.pad(counts["rank_counts"],
                                    ((0, 0), (0, max_players(config) - players))))
    summed["rank_counts"] = ranks
    summed["deal_moments"] = counts["deal_moments"]  # already per strategy
    return summed


def simulate_point_batch(config: ClueConfig, point: int, batch: int) -> dict[str, np.ndarray]:
    """Batch ``batch`` of grid point number ``point``, counted per strategy."""
    p, k, h = config.points[point]
    counts = simulate_batch(config.seats(p), p, k, h, config.batch_games(batch),
                            batch_stream(config.seed, (p, k, h), batch),
                            seating=config.seating)
    return strategy_counts(config, p, counts)


def solve_batch_shard(task: ShardTask, store: ComputationStore) -> dict[str, Any]:
    config: ClueConfig = task.config
    point, batch = task.shard, task.step.index
    counts = simulate_point_batch(config, point, batch)
    for key, values in counts.items():
        store.array(f"batch/{key}")[point, batch] = values
    return {"games": config.batch_games(batch)}


# -- stage 2: aggregate --------------------------------------------------------------------
def build_aggregate(inputs: Inputs, config: ClueConfig, first_step: int):
    """Per point: games played, summed counts and rates per strategy, one shard per point."""
    P, S, R = len(config.points), len(config.strategies), max_players(config)
    writer = Writer(step=first_step, shard=ChunkMax((0,)))
    # CF's ``coordinates`` attribute: xarray labels the point axis with the grid values.
    labelled = {"coordinates": "point_players point_per_player point_hidden"}
    arrays = [ArraySpec("games", (P,), (1,), "int64", ("point",), attrs=labelled,
                        writer=writer),
              ArraySpec("rank_counts", (P, S, R), (1, S, R), "int64",
                        ("point", "strategy", "rank"), attrs=labelled, writer=writer)]
    arrays += [ArraySpec(key, (P, S), (1, S), "int64", ("point", "strategy"), attrs=labelled,
                         writer=writer) for key in BATCH_COUNTS if key != "games"]
    K = moments_size(config)
    arrays.append(ArraySpec("deal_moments", (P, K, K), (1, K, K), "int64",
                            ("point", "moment", "moment_"), attrs=labelled, writer=writer))
    arrays += [ArraySpec(key, (P, S), (1, S), "float64", ("point", "strategy"),
                         fill_value=np.nan, attrs=labelled, writer=writer) for key in RATES]
    return tuple(arrays), (Step(first_step, "aggregate", P, info={"games": config.games}),)


def rates(total: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """First-place share (of the strategy's seat-games), wrong guesses per guess, mean
    round of a guess, mean lead of a correct guess; NaN where nothing was counted."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return {"first_share": total["first_places"] / total["games"],
                "wrong_rate": total["wrong_guesses"] / total["guesses"],
                "mean_guess_round": total["guess_round_sum"] / total["guesses"],
                "mean_lead": total["lead_sum"] / total["leads"]}


def solve_aggregate_shard(task: ShardTask, store: ComputationStore) -> dict[str, Any]:
    config: ClueConfig = task.config
    point = task.shard
    total = {key: store.array(f"batch/{key}")[point].sum(axis=0)
             for key in (*BATCH_COUNTS, "rank_counts", "deal_moments")}
    tables = int(total["games"].sum()) // config.points[point][0]
    store.array("games")[point] = tables
    for key, values in {**total, **rates(total)}.items():
        if key != "games":
            store.array(key)[point] = values
    return {"games": tables}
