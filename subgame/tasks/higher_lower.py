"""Higher/lower as plans.

Distinct cards (``higher-lower/distinct/N<N>``): level b is the block of deck sizes
n in (b*B, (b+1)*B]; its shards are the float sweep (always) and the exact integer sweep
(while n <= exact_max). Each shard continues from the state its chain stored at the end
of block b-1 and stores its own end state, one array per block, so a rerun of block b
always starts from block b-1's state, whatever was killed when.

Decks with repeated ranks (``higher-lower/decks/<grid>``): one level of exact DP shards,
one per feasible grid point (ranks x suits x ties x policy), then one level of Monte Carlo
shards, grid points x batches, each with its own stream from SeedSequence(seed).spawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np

from subgame.errors import InvalidInput, check_int
from subgame.games import higher_lower as hl
from subgame.plan import ArraySpec, Level, Plan
from subgame.storage import LevelStore
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


@dataclass(frozen=True)
class DistinctConfig:
    max_n: int
    exact_max: int = 2000
    block: int = 10_000

    def __post_init__(self) -> None:
        check_int("--max-n", self.max_n, 1, MAX_N)
        check_int("--block", self.block, 1, MAX_N)
        check_int("--exact-max", self.exact_max, 0, self.max_n)

    def group_path(self) -> str:
        return f"{FAMILY}/distinct/N{self.max_n}"

    def to_attrs(self) -> dict[str, Any]:
        return {"game": FAMILY, "deck": "distinct", "max_n": self.max_n,
                "exact_max": self.exact_max, "block": self.block, "policy": "majority",
                "kernel_version": KERNEL_VERSION}

    def block_end(self, b: int) -> int:
        """Last deck size of block b (block -1 ends at n = 1, the sweeps' first level)."""
        return 1 if b < 0 else min((b + 1) * self.block, self.max_n)

    @property
    def blocks(self) -> int:
        return -(-self.max_n // self.block)


def _n_axis(name: str, length: int, chunk: int, dtype: str, shard: int) -> ArraySpec:
    """A per-n result: chunk b along n is block b's, written by the float or exact shard."""
    attrs = {"written_by": {"level": [0], "shard": shard}, **(HEX if dtype == "str" else {})}
    return ArraySpec(name, (length,), (min(chunk, length),), dtype, ("n",),
                     fill_value="" if dtype == "str" else 0, attrs=attrs)


def distinct_plan(config: DistinctConfig) -> Plan:
    N, B = config.max_n, config.block
    arrays = [ArraySpec("n", (N,), (min(B, N),), "int64", ("n",), values=np.arange(1, N + 1))]
    arrays += [_n_axis(name, N, B, dtype, FLOAT) for name, dtype in SWEEP_ARRAYS.items()]
    if config.exact_max:
        arrays += [_n_axis(name, config.exact_max, B, "str", EXACT)
                   for name in ("count", "streak_count")]
    levels = []
    for b in range(config.blocks):
        end, half = config.block_end(b), (config.block_end(b) + 1) // 2
        float_writer = {"written_by": {"level": b, "shard": FLOAT}}
        arrays += [ArraySpec(f"state/{b}/float_{part}", (half,), (half,), "float64", ("u",),
                             attrs=float_writer) for part in ("x", "streak")]
        arrays.append(ArraySpec(f"state/{b}/float_exponent", (1,), (1,), "int64", ("one",),
                                attrs=float_writer))
        exact = b * B < config.exact_max
        if exact:
            exact_half = (min(end, config.exact_max) + 1) // 2
            arrays += [ArraySpec(f"state/{b}/exact_{part}", (exact_half,), (exact_half,), "str",
                                 ("u",), fill_value="",
                                 attrs={"written_by": {"level": b, "shard": EXACT}, **HEX})
                       for part in ("wins", "streak")]
        levels.append(Level(b, f"n={b * B + 1}..{end}", 2 if exact else 1,
                            info={"first_n": b * B + 1, "last_n": end, "exact": exact}))
    return Plan(FAMILY, config, tuple(arrays), tuple(levels), solve_distinct_shard)


def _float_start(store: LevelStore, b: int) -> hl.FloatLevel:
    if b == 0:
        return hl.FIRST_FLOAT
    prefix, n = f"state/{b - 1}/float_", store.config["block"] * b
    return hl.FloatLevel(n, store.array(prefix + "x")[:], int(store.array(prefix + "exponent")[0]),
                         store.array(prefix + "streak")[:])


def _exact_start(store: LevelStore, b: int) -> hl.ExactLevel:
    if b == 0:
        return hl.FIRST_EXACT
    prefix, n = f"state/{b - 1}/exact_", store.config["block"] * b
    return hl.ExactLevel(n, from_hex(store.array(prefix + "wins")[:]),
                         from_hex(store.array(prefix + "streak")[:]))


def solve_distinct_shard(url: str, plan: Plan, level_index: int, shard: int) -> dict[str, Any]:
    config: DistinctConfig = plan.config
    store = LevelStore.open(url, plan.group_path, writable=True)
    b, start = level_index, config.block_end(level_index - 1)
    if shard == FLOAT:
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
    levels = [first] if b == 0 else []
    levels += list(hl.exact_levels(stop, first))
    rows = slice(levels[0].n - 1, stop)
    store.array("count")[rows] = to_hex(lv.count for lv in levels)
    store.array("streak_count")[rows] = to_hex(lv.streak_total for lv in levels)
    store.array(f"state/{b}/exact_wins")[:] = to_hex(levels[-1].wins)
    store.array(f"state/{b}/exact_streak")[:] = to_hex(levels[-1].streak)
    return {"exact_deck_sizes": stop - start}


# -- decks with repeated ranks -----------------------------------------------------------------
def parse_choices(option: str, text: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    values = tuple(v.strip().replace("-", "_") for v in text.split(",") if v.strip())
    bad = [v for v in values if v not in allowed]
    if not values or bad:
        raise InvalidInput(f"{option} takes a comma-separated list of {', '.join(allowed)}; "
                           f"got {text!r}")
    return tuple(dict.fromkeys(values))


def parse_sizes(option: str, text: str, upper: int) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        values = ()
    if not values or any(not 1 <= v <= upper for v in values):
        raise InvalidInput(f"{option} takes a comma-separated list of integers in 1..{upper}; "
                           f"got {text!r}")
    return tuple(dict.fromkeys(values))


@dataclass(frozen=True)
class DeckConfig:
    ranks: tuple[int, ...]
    suits: tuple[int, ...]
    ties: tuple[str, ...] = ("loss",)
    policies: tuple[str, ...] = ("optimal", "majority")
    games: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        check_int("--games", self.games, 0, 10**12)
        check_int("--seed", self.seed, 0)

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

    def to_attrs(self) -> dict[str, Any]:
        return {"game": FAMILY, "ranks": list(self.ranks), "suits": list(self.suits),
                "ties": list(self.ties), "policies": list(self.policies), "games": self.games,
                "seed": self.seed, "games_per_shard": GAMES_PER_SHARD,
                "kernel_version": KERNEL_VERSION}


def exact_feasible(ranks: int, suits: int) -> bool:
    return (suits + 1) ** ranks <= EXACT_WORDS_LIMIT


def deck_plan(config: DeckConfig) -> Plan:
    points = config.points
    P = len(points)
    arrays = [ArraySpec(name, (P,), (P,), dtype, ("point",), fill_value=fill,
                        values=np.array([point[i] for point in points]))
              for i, (name, dtype, fill) in enumerate((("ranks", "int64", 0),
                                                       ("suits", "int64", 0),
                                                       ("ties", "str", ""),
                                                       ("policy", "str", "")))]
    arrays += [ArraySpec(name, (P,), (1,), dtype, ("point",), fill_value=fill,
                         attrs={"written_by": {"level": 0, "shard": [0]}})
               for name, dtype, fill in (("exact_wins", "str", ""), ("exact_orders", "str", ""),
                                         ("exact_p", "float64", np.nan),
                                         ("exact_states", "int64", 0))]
    # exact_wins and exact_orders hold hexadecimal integers, like the distinct sweep
    levels = [Level(0, "exact DP", P, info={"feasible": [exact_feasible(r, s)
                                                         for r, s, _, _ in points]})]
    if config.games:
        arrays += [ArraySpec(name, (P, config.batches), (1, 1), "int64", ("point", "batch"))
                   for name in ("mc_wins", "mc_games")]
        levels.append(Level(1, "Monte Carlo", P * config.batches,
                            info={"games": config.games, "batches": config.batches}))
    return Plan(FAMILY, config, tuple(arrays), tuple(levels), solve_deck_shard)


def solve_deck_shard(url: str, plan: Plan, level_index: int, shard: int) -> dict[str, Any]:
    config: DeckConfig = plan.config
    store = LevelStore.open(url, plan.group_path, writable=True)
    if level_index == 0:
        ranks, suits, ties, policy = config.points[shard]
        if not exact_feasible(ranks, suits):
            return {"exact_points": 0}
        solution = hl.solve(ranks, suits, ties, policy)
        store.array("exact_wins")[shard] = format(solution.wins, "x")
        store.array("exact_orders")[shard] = format(solution.orders, "x")
        store.array("exact_p")[shard] = float(solution.p)
        store.array("exact_states")[shard] = sum(solution.states)
        return {"exact_points": 1, "states": sum(solution.states)}
    point, batch = divmod(shard, config.batches)
    ranks, suits, ties, policy = config.points[point]
    games = min(GAMES_PER_SHARD, config.games - batch * GAMES_PER_SHARD)
    stream = np.random.SeedSequence(config.seed).spawn(len(config.points))[point].spawn(
        config.batches)[batch]
    wins, played = hl.simulate(policy, ranks, suits, ties, games, stream)
    store.array("mc_wins")[point, batch] = wins
    store.array("mc_games")[point, batch] = played
    return {"games": played}

