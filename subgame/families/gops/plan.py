"""GOPS as a plan: one stage whose step j-1 solves level j (cards left in each hand);
shards are contiguous ranges of deck ranks.

Level j's arrays live under ``j<j>/`` with the deck rank (P in the combinatorial number
system) as first axis and one chunk per shard along it, so each shard writes whole chunks.
Under ``--objective win`` (group ``gops/N<cards>-win``) every array has the difference axis
``diff`` (d + diff_max) after the deck axis.  A shard reads only the rows of level j-1's
values that its decks lead to (``game.previous_rows``); a worker builds the level's layout
once (cached per process).  ``--upcard-values`` and ``--strategies`` choose the levels that
keep f_k and the bids (the values f are kept at every level).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from functools import partial
from math import comb
from typing import TYPE_CHECKING, Annotated, Any, Literal

import numpy as np
import typer

from subgame.computation import ComputationConfig
from subgame.errors import InvalidInput, check_int, integer_text
from subgame.families.gops import game as gops
from subgame.families.gops.game.cards import deck_labels, subsets
from subgame.families.gops.game.objective import OBJECTIVES, deck_reach, diff_max
from subgame.families.gops.game.patterns import pattern_labels, stored_pattern_count
from subgame.plan import (ArraySpec, ChunkMax, Plan, ShardTask, Stage, Step, Writer,
                          inner_chunks, sum_metrics)
from subgame.storage.cache import cached

if TYPE_CHECKING:
    from subgame.storage import ComputationStore

FAMILY = "gops"
KERNEL_VERSION = 1
MAX_CARDS = 16
DEFAULT_SHARD_STATES = 200_000
# A run of at most this many matrix games (all levels) solves on numpy lanes (game/lanes.py)
# and never imports numba: below it, numba's import and cache load, paid once a process,
# cost more than the lanes lose to the compiled kernel (`python bench/gops.py --lanes 7|8`
# measures both and the break-even run).  Win games are cheaper (most are saddle points),
# so the win objective breaks even later.
LANE_GAMES = {"points": 400_000, "win": 800_000}
LANE_MAX_CARDS = 8  # beyond this every run is above LANE_GAMES: no need to count
# A level whose games times j^2 (its work, about: a game's time grows like j^1.5..2) reach
# this is solved by the kernel compiled for its j (game/level.py, _solve_rows), which is
# faster on a large level but takes tens of seconds to compile, once per machine and j
# (numba's cache keeps it): only levels whose generic solve costs as much in every run get
# one (`python bench/gops.py --specialised 13` times both kernels and the compile).
SPECIALISE_WORK = 5_000_000_000
# A level's shards are solved in batches of consecutive ones (Step.batch), one task each,
# the warm starts' bases carried from shard to shard: a shard's first deck row would have
# no previous row to guess from, a third of N = 13's 3-deck shards at j = 8, 9 and the
# whole of a 1-deck shard (N >= 14).  A batch holds about BATCH_DECKS decks (`python
# bench/gops.py --carried-bases 13 --store S` measures what carrying gains), and a level
# keeps at least MIN_BATCHES of them, so that its tasks still share out over a cluster's
# workers.
BATCH_DECKS = 16
MIN_BATCHES = 16
# Chunks Zarr decodes at once for one read (its async.concurrency, 10 by default).
ZARR_CHUNKS_IN_FLIGHT = 10
# CPU seconds a matrix game of level j takes in a shard (the kernel, level j-1's rows read,
# level j's written), points objective: measured in process with numba's cache warm,
# `subgame run gops --cards 11 --strategies none`, each step's shard_cpu_seconds /
# matrix_games in `subgame status --json` (j = 4..9; a level that stores strategies took
# 1.02x at j = 9, `--strategies top:3`).  Beyond j = 9, the power law fitted to
# j = 6..9 in log-log (a game's simplex grows with its j x j matrix); below j = 4, j = 4's.
# A level on the kernel specialised to its j (SPECIALISE_WORK) takes 1/SPECIALISED_SPEEDUP
# of that: j = 8 of `--cards 12 --strategies none`, 0.334 us a game against 0.421.
SHARD_SECONDS_A_GAME = {4: 0.107e-6, 5: 0.145e-6, 6: 0.206e-6, 7: 0.313e-6, 8: 0.421e-6,
                        9: 0.565e-6}
GAME_SECONDS_FIT = (2.518e-9, 2.466)  # c j^p seconds
SPECIALISED_SPEEDUP = 1.26
# The inner chunks of the sharded arrays (`subgame.plan.inner_chunks`): what a state query
# reads and decodes of each array, against a whole shard's chunk (20 MB of strategies at
# j = 5 of N = 10). A shard task writes its shards itself (`storage.chunk_writer`), so an
# inner chunk costs it little beyond the compressor's work on its bytes.
INNER_CHUNK_BYTES = 1 << 16
CardsOption = Annotated[int, typer.Option("--cards", min=1, max=MAX_CARDS, metavar="<int>",
                                          help="N: cards 1..N in each suit.")]
ObjectiveOption = Annotated[Literal[OBJECTIVES], typer.Option(
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


def parse_top_levels(option: str, text: str, cards: int) -> int:
    """'all' | 'none' | 'top:K' -> how many of the top levels store what ``option`` names."""
    if text == "all":
        return cards
    if text == "none":
        return 0
    if text.startswith("top:"):
        try:
            top = integer_text(option, text[4:])
        except InvalidInput:
            top = 0
        if 1 <= top <= cards:  # top:0 would be none under another name (another identity)
            return top
    raise InvalidInput(f"{option} must be all, none or top:K with 1 <= K <= {cards}, "
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
    upcard_values: Annotated[str, typer.Option(
        "--upcard-values", help="Per-upcard values f_k of all, none, or top:K levels (the "
                                "values f are stored for every level).")] = "all"

    def __post_init__(self) -> None:
        check_int("--cards", self.cards, 1, MAX_CARDS)
        check_int("--shard-states", self.shard_states, 1, 10**9)
        parse_top_levels("--strategies", self.strategies, self.cards)
        parse_top_levels("--upcard-values", self.upcard_values, self.cards)
        check_objective(self.objective)

    def group_path(self) -> str:
        return group_path(self.cards, self.objective)

    def constants(self) -> dict[str, Any]:
        # "objective" in words replaces the field's value: points stores keep their identity.
        return {"game": FAMILY, "objective": OBJECTIVE_WORDS[self.objective],
                "ties": "win nothing", "kernel_version": KERNEL_VERSION}

    def identity(self) -> dict[str, Any]:
        # Stores made before --upcard-values existed hold f_k at every level: "all" leaves
        # the identity as it was, so they stay valid; any other setting is part of it.
        found = super().identity()
        if self.upcard_values == "all":
            del found["upcard_values"]
        return found

    @property
    def strategy_levels(self) -> int:
        """Levels N-K+1..N store strategies."""
        return parse_top_levels("--strategies", self.strategies, self.cards)

    @property
    def upcard_value_levels(self) -> int:
        """Levels N-K+1..N store f_k."""
        return parse_top_levels("--upcard-values", self.upcard_values, self.cards)

    def plan(self) -> Plan:
        return gops_plan(self)

    def with_strategies(self, j: int) -> bool:
        return j > self.cards - self.strategy_levels

    def with_upcard_values(self, j: int) -> bool:
        return j > self.cards - self.upcard_value_levels

    def diff_axis(self, j: int) -> tuple[int, ...]:
        """The difference axis of level j's arrays: () under points, (2 diff_max + 1,)."""
        if self.objective == "points":
            return ()
        return (2 * diff_max(self.cards, j, self.objective) + 1,)

    def states_per_deck(self, j: int) -> int:
        """Stored states of one deck at level j: its patterns (times its differences)."""
        return stored_pattern_count(self.cards, j) * (self.diff_axis(j) or (1,))[0]

    def shard_rows(self, j: int, n_patterns: int) -> int:
        per_deck = n_patterns * (self.diff_axis(j) or (1,))[0]
        return max(1, min(comb(self.cards, j), self.shard_states // per_deck))

    def level_shards(self, j: int) -> int:
        return -(-comb(self.cards, j) // self.shard_rows(j, stored_pattern_count(self.cards, j)))

    def level_batch(self, j: int) -> int:
        """Shards a task of level j solves one after another, the warm starts carried
        (``Step.batch``): enough for BATCH_DECKS decks, while the level keeps MIN_BATCHES
        batches.  A function of the configuration and j alone, as the results' last bits
        depend on it."""
        rows = self.shard_rows(j, stored_pattern_count(self.cards, j))
        return max(1, min(-(-BATCH_DECKS // rows), self.level_shards(j) // MIN_BATCHES))

    def kernel(self, j: int) -> str:
        """The kernel of level j's shards: 'lanes' (numpy, game/lanes.py) at every level of
        a run of at most LANE_GAMES[objective] matrix games, else 'compiled' (numba, warm
        starts), with or without strategies; 'specialised' (that kernel compiled for j
        alone, the same results bit for bit) at a level whose matrix games times j^2 reach
        SPECIALISE_WORK.  A function of the configuration and j alone, so that every shard
        of a level, resumed or repaired, is solved by the same kernel."""
        def games(i: int) -> int:
            return level_info(self, i, stored_pattern_count(self.cards, i))["matrix_games"]

        if self.cards <= LANE_MAX_CARDS and sum(map(games, range(1, self.cards + 1))) <= \
                LANE_GAMES[self.objective]:
            return "lanes"
        return "specialised" if games(j) * j * j >= SPECIALISE_WORK else "compiled"

    def game_seconds(self, j: int) -> float:
        """CPU seconds a matrix game of level j takes in a shard (SHARD_SECONDS_A_GAME)."""
        if j in SHARD_SECONDS_A_GAME or j < min(SHARD_SECONDS_A_GAME):
            seconds = SHARD_SECONDS_A_GAME[max(j, min(SHARD_SECONDS_A_GAME))]
        else:
            factor, power = GAME_SECONDS_FIT
            seconds = factor * j ** power
        return seconds / SPECIALISED_SPEEDUP if self.kernel(j) == "specialised" else seconds

    def core_seconds(self) -> float | None:
        """Every level's matrix games at their measured cost; not estimated under the win
        objective (its games, mostly saddle points, were not measured for it)."""
        if self.objective != "points":
            return None
        return sum(level_info(self, j, stored_pattern_count(self.cards, j))["matrix_games"]
                   * self.game_seconds(j) for j in range(1, self.cards + 1))

    def worker_bytes(self) -> int:
        """The largest level's need, for a worker solving one of its shards
        (solve_gops_shard): the rows of level j-1's values it reads (at most j per deck of
        the shard) and the chunks of level j-1 Zarr decodes for them (up to
        ``ZARR_CHUNKS_IN_FLIGHT`` at a time), level j's layout (child, child_sign and duel
        per pattern x bid pair, 6 bytes; decks and drop ranks, 9 bytes per deck x card; the
        kernel's warm-start bases, 4 bytes per pattern x upcard x slot),
        the shard's results (values and, where stored, upcard values, float64; both
        strategies, float32 per bid pair) and, as Zarr compresses the largest of them, a
        copy of it."""
        def level(j: int) -> int:
            n_patterns = stored_pattern_count(self.cards, j)
            n_patterns_before = stored_pattern_count(self.cards, j - 1)
            states = self.shard_rows(j, n_patterns) * self.states_per_deck(j)
            rows_read = min(comb(self.cards, j - 1), j * self.shard_rows(j, n_patterns))
            decoded = ZARR_CHUNKS_IN_FLIGHT * self.shard_rows(j - 1, n_patterns_before) \
                if j > 1 else 0
            previous = (rows_read + decoded) * self.states_per_deck(j - 1) * 8 if j > 1 else 0
            layout = n_patterns * j * j * 6 + comb(self.cards, j) * (9 * j + 8) + \
                n_patterns * j * 4 * gops.WARM_SLOTS  # + bases
            upcard_values = states * j * 8 if self.with_upcard_values(j) else 0
            strategies = states * j * j * 4 if self.with_strategies(j) else 0
            return previous + layout + states * 8 + upcard_values + 2 * strategies + \
                max(upcard_values, strategies)

        return max(level(j) for j in range(1, self.cards + 1))


def level_arrays(config: GopsConfig, j: int, n_patterns: int) -> list[ArraySpec]:
    n_p, rows = comb(config.cards, j), config.shard_rows(j, n_patterns)
    diff = config.diff_axis(j)
    diff_dim = ("diff",) if diff else ()
    # Level j (step j-1): chunk i along the deck axis is shard i's region.
    writer = Writer(step=j - 1, shard=ChunkMax((0,)))
    # Points' values and f_k (float64) are stored uncompressed: their mantissas are noise
    # to zstd, which would spend much of a run's work outside the kernel to save a few per
    # cent; win's are mostly saturated cells (-1, 0, 1), which zstd at level 1 shrinks
    # several times over, fast.
    floats = "none" if config.objective == "points" else "zstd-fast"

    def sharded(shape: tuple[int, ...], itemsize: int, whole_axes: int) -> dict[str, Any]:
        chunks = (rows, *shape[1:])
        return {"shape": shape, "chunks": chunks, "inner_chunks": inner_chunks(
            shape, chunks, itemsize, INNER_CHUNK_BYTES, whole_axes)}

    # A state query reads one inner chunk of f_k and of each strategy. The values stay one
    # object a chunk: the next level's shards read them a few decks at a time, and an inner
    # chunk a deck costs those reads more CPU (bench/gops_layout.py); a query
    # reads its values' chunk whole (1.6 MB at most, stored uncompressed).
    specs = [ArraySpec(f"j{j}/values", (n_p, *diff, n_patterns), (rows, *diff, n_patterns),
                       "float64", ("deck", *diff_dim, "pattern"), writer=writer,
                       compression=floats)]
    if config.with_upcard_values(j):
        specs.append(ArraySpec(f"j{j}/upcard_values", dtype="float64",
                               dims=("deck", *diff_dim, "pattern", "upcard"), writer=writer,
                               compression=floats,
                               **sharded((n_p, *diff, n_patterns, j), 8, 1)))
    if config.with_strategies(j):
        specs += [ArraySpec(f"j{j}/{name}", dtype="float32",
                            dims=("deck", *diff_dim, "pattern", "upcard", "bid"),
                            writer=writer, compression="zstd-fast",
                            **sharded((n_p, *diff, n_patterns, j, j), 4, 2))
                  for name in ("strategies", "strategies_two")]
    return specs + coordinate_arrays(config, j, n_patterns)


def coordinate_arrays(config: GopsConfig, j: int, n_patterns: int) -> list[ArraySpec]:
    """Labels of level j's axes, written once by the driver, so that a reader without
    subgame (xarray) can tell which deck, pattern, upcard or bid an entry is."""
    def labels(name: str, values: partial, dtype: str, description: str,
               length: int, chunk: int | None = None) -> ArraySpec:
        return ArraySpec(f"j{j}/{name}", (length,), (chunk or length,), dtype, (name,),
                         fill_value="" if dtype == "str" else 0,
                         attrs={"description": description}, constant=values)

    n_p, rows = comb(config.cards, j), config.shard_rows(j, n_patterns)
    specs = [labels("deck", partial(deck_labels, config.cards, j), "str",
                    "the prize cards left, P", n_p, rows),
             labels("pattern", partial(pattern_labels, config.cards, j), "str",
                    "the order of the bid hands merged, low card first: v in V only, y in Y "
                    "only, = in both; (V, Y) is read here or, negated, at the pattern of "
                    "(Y, V)", n_patterns)]
    if config.with_upcard_values(j) or config.with_strategies(j):
        specs.append(labels("upcard", partial(np.arange, 1, j + 1), "int64",
                            "k: the upcard is the k-th smallest card of the deck", j))
    if config.with_strategies(j):
        specs.append(labels("bid", partial(np.arange, 1, j + 1), "int64",
                            "i: the bid is the i-th smallest card of the bidder's hand", j))
    if config.objective != "points":
        reach = diff_max(config.cards, j, config.objective)
        specs.append(labels("diff", partial(np.arange, -reach, reach + 1), "int64",
                            "d: points so far, player one minus player two", 2 * reach + 1))
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
        arrays += level_arrays(config, j, n_patterns)
        steps.append(Step(j - 1, f"j={j}", config.level_shards(j),
                          info=level_info(config, j, n_patterns), batch=config.level_batch(j)))
    # numba's kernel releases the GIL (numpy's lanes in their array operations), and a
    # shard shares only the lock-guarded layout cache.
    return Plan(FAMILY, config, (Stage("solve", solve_gops_shard, tuple(arrays), tuple(steps),
                                       threads=True),))


def solve_gops_shard(task: ShardTask, store: ComputationStore) -> dict[str, Any]:
    """Solve a batch of consecutive shards of a level (``GopsConfig.level_batch``) one
    after another, the kernel's warm-start bases carried from each to the next (a shard's
    first deck row guesses from the previous shard's last, as in one call over the batch):
    the metrics of ``solve_one_shard``, summed."""
    config: GopsConfig = task.config
    j = task.step.info["cards_left"]
    layout = cached(f"{FAMILY}|layout", (config.cards, j, config.objective),
                    lambda: gops.level_layout(config.cards, j, config.objective))
    # (it counts the level's games, up to 25 ms under win: once per process and level)
    kernel = cached(f"{FAMILY}|kernel", (config, j), lambda: config.kernel(j))
    bases = gops.new_bases(layout)
    return sum_metrics(solve_one_shard(config, layout, kernel, bases, shard, store)
                       for shard in range(task.shard, task.shard + task.shards))


def solve_one_shard(config: GopsConfig, layout: gops.LevelLayout, kernel: str,
                    bases: np.ndarray, shard: int, store: ComputationStore) -> dict[str, Any]:
    """Solve one shard, its warm starts from ``bases`` (and left in it): its rows of level
    j-1 in, its region of level j out.  Besides the kernel's counts it reports the CPU
    seconds of this thread for the kernel and for the whole shard (reads, layout and
    writes; Zarr compresses on its own threads, counted in the step's ``cpu_seconds``
    where the shards ran in the run's process), so that `subgame status --json` shows,
    per level, what the pipeline adds to the kernel (bench/gops.py --pipeline), and which
    kernel solved it (``GopsConfig.kernel``): ``lane_shards`` 1 where numpy's lanes did (a
    small run), ``specialised_shards`` 1 where numba's warm starts compiled for j did (a
    large level), neither where the generic ones did."""
    shard_start = time.thread_time()
    j, rows = layout.j, config.shard_rows(layout.j, layout.n_patterns)
    p_lo, p_hi = shard * rows, min((shard + 1) * rows, layout.n_p)
    # Level 0 is f = 0 (sign(d) = 0 at d = 0 under win); a later level's shard reads only
    # the rows of level j-1 it needs (a few chunks), not the whole level: a worker's memory
    # then follows the shard, not the level.
    if j > 1:
        ranks = gops.previous_rows(layout, p_lo, p_hi)
        prev = store.rows(f"j{j - 1}/values", ranks)
    else:
        ranks, prev = None, gops.level_zero(config.objective)
    helpers = HelperTime()
    kernel_start = time.thread_time()
    result = gops.solve_shard(layout, prev, p_lo, p_hi, config.with_strategies(j),
                              config.with_upcard_values(j), ranks, kernel=kernel,
                              map_parts=helpers.map_parts, bases=bases)
    kernel_cpu = time.thread_time() - kernel_start + helpers.seconds
    store.write_rows(f"j{j}/values", p_lo, result.values)
    if result.upcard_values is not None:
        store.write_rows(f"j{j}/upcard_values", p_lo, result.upcard_values)
    if result.strategies is not None:
        store.write_rows(f"j{j}/strategies", p_lo, result.strategies)
        store.write_rows(f"j{j}/strategies_two", p_lo, result.strategies_two)
    return {"states": int((2 * layout.reach[p_lo:p_hi] + 1).sum()) * layout.n_patterns,
            "games": result.games, "saddles": result.saddles, "pivots": result.pivots,
            "guessed": result.guessed, "max_gap": result.max_gap,
            "lane_shards": int(kernel == "lanes"),
            "specialised_shards": int(kernel == "specialised"),
            "previous_bytes": int(prev.nbytes), "kernel_cpu_seconds": round(kernel_cpu, 4),
            "shard_cpu_seconds": round(time.thread_time() - shard_start + helpers.seconds, 4)}


class HelperTime:
    """``executors.map_parts`` that adds up the CPU seconds of the parts run on other
    threads than the shard's (those on its own are in its ``time.thread_time``)."""

    def __init__(self):
        self.elsewhere: list[float] = []  # appended from the helper threads
        self.shard_thread = threading.get_ident()

    @property
    def seconds(self) -> float:
        return sum(self.elsewhere)

    def map_parts(self, solve_part, parts):
        from subgame.executors import map_parts  # loaded by the run; not at plan time

        def timed(part):
            start = time.thread_time()
            result = solve_part(part)
            if threading.get_ident() != self.shard_thread:
                self.elsewhere.append(time.thread_time() - start)
            return result

        return map_parts(timed, parts)
