"""The numpy lane kernel (game/lanes.py) against HiGHS, the compiled kernel and the seed
paper, and the small run that never imports numba."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import zarr

from subgame.families.gops.game import (level_layout, level_zero, locate, payoff_matrices,
                                        solve_matrix_games, solve_shard)
from subgame.families.gops.game import lanes, patterns
from subgame.families.gops.plan import GopsConfig, level_info
from tests import gops_reference as reference
from tests.test_gops_kernel import HARD_GAMES, HIGHS_AGREEMENT

ACCURACY = 1e-9  # the certified tolerance every stored value keeps
RESULTS = ("values", "upcard_values", "strategies", "strategies_two")


def solve_lanes(games: np.ndarray):
    """lanes.solve_games on games (G, m, n); strategies back as (G, m) and (G, n)."""
    values, gaps, pivots, x, y = lanes.solve_games(np.ascontiguousarray(games.transpose(1, 2, 0)))
    return values, gaps, pivots, x.T, y.T


def random_games(rng, count: int, size: int) -> np.ndarray:
    """Normal entries, small integers (degenerate: ties everywhere) and duplicated rows."""
    kinds = [rng.normal(size=(count, size, size)),
             rng.integers(-2, 3, size=(count, size, size)).astype(float)]
    copies = rng.normal(size=(count, size, size))
    copies[:, -1] = copies[:, 0]
    kinds.append(copies)
    return np.concatenate(kinds)


def assert_optimal(games, values, gaps, x, y):
    """x guarantees value - 1e-9 against every column, y concedes at most value + 1e-9."""
    assert (gaps <= ACCURACY).all()
    for strategy in (x, y):
        assert (strategy >= 0).all() and np.allclose(strategy.sum(axis=1), 1.0)
    assert (np.einsum("gi,gil->gl", x, games).min(axis=1) >= values - ACCURACY).all()
    assert (np.einsum("gil,gl->gi", games, y).max(axis=1) <= values + ACCURACY).all()


def highs_values(games) -> np.ndarray:
    return np.array([reference.highs_game(game)[0] for game in games])


@pytest.mark.parametrize("size", [2, 3, 5, 8])
def test_random_games_against_highs(size):
    games = random_games(np.random.default_rng(size), 40, size)
    values, gaps, pivots, x, y = solve_lanes(games)
    assert (pivots >= 0).all() and (pivots > 0).any()
    assert_optimal(games, values, gaps, x, y)
    np.testing.assert_allclose(values, highs_values(games), atol=HIGHS_AGREEMENT)


@pytest.mark.parametrize("objective", ["points", "win"])
def test_real_gops_games_against_highs_and_the_compiled_solver(objective):
    """Every pattern's game of 4 decks x every upcard of level 5 of N = 7 (win at d = 2):
    optimal within 1e-9, every 8th at HiGHS' value; the compiled batch solver (slack basis,
    as the lanes) gives the same bits."""
    prev = level_zero(objective)
    for j in range(5):
        layout = level_layout(7, j, objective)
        prev = solve_shard(layout, prev, 0, layout.n_p, False, False, kernel="lanes").values
    layout = level_layout(7, 5, objective)
    games = np.concatenate([payoff_matrices(layout, prev, rank, k, 2 * (objective == "win"))
                            for rank in (0, 5, 11, 20) for k in range(5)])
    values, gaps, pivots, x, y = solve_lanes(games)
    assert_optimal(games, values, gaps, x, y)
    np.testing.assert_allclose(values[::8], highs_values(games[::8]), atol=HIGHS_AGREEMENT)
    compiled = solve_matrix_games(games)
    for ours, theirs in zip((values, x, y, gaps, pivots), compiled):
        np.testing.assert_array_equal(ours, theirs)


def test_hard_games_are_resolved_as_the_compiled_solver_does():
    """The 20 games of level 7 of N = 13 whose tableau strategies do not certify (one is
    the game that broke the N = 13 run): the basis re-solve and, where that misses, the
    compiled refinement give the compiled solver's answers bit for bit."""
    games = np.load(HARD_GAMES)
    values, gaps, pivots, x, y = solve_lanes(games)
    compiled = solve_matrix_games(games)
    for ours, theirs in zip((values, x, y, gaps, pivots), compiled):
        np.testing.assert_array_equal(ours, theirs)
    assert gaps.max() < 1e-12 and 3.5e-9 < x[0, 1] < 3.6e-9


def solve_both(n_cards: int, objective: str, with_strategies: bool, warm_start: bool):
    """Every level by both kernels, each level's input (yielded too) the compiled one's."""
    prev = level_zero(objective)
    for j in range(1, n_cards + 1):
        layout = level_layout(n_cards, j, objective)
        compiled = solve_shard(layout, prev, 0, layout.n_p, with_strategies,
                               warm_start=warm_start)
        ours = solve_shard(layout, prev, 0, layout.n_p, with_strategies, kernel="lanes")
        yield layout, compiled, ours, prev
        prev = compiled.values


@pytest.mark.parametrize("objective", ["points", "win"])
@pytest.mark.parametrize("n_cards", [3, 6])
def test_lanes_are_the_slack_basis_kernel_bit_for_bit(n_cards, objective):
    """Values, f_k, both strategy arrays, games, saddles, pivots and gaps: equal to the
    compiled kernel without warm starts; and a level cut into shards equals the whole."""
    for layout, compiled, ours, prev in solve_both(n_cards, objective, True, False):
        for name in RESULTS:
            np.testing.assert_array_equal(getattr(ours, name), getattr(compiled, name))
        assert (ours.games, ours.saddles, ours.pivots, ours.max_gap, ours.guessed) == \
            (compiled.games, compiled.saddles, compiled.pivots, compiled.max_gap, 0)
        if layout.j == n_cards // 2:
            cut = layout.n_p // 3
            parts = [solve_shard(layout, prev, lo, hi, True, kernel="lanes")
                     for lo, hi in ((0, cut), (cut, layout.n_p))]
            for name in RESULTS:
                np.testing.assert_array_equal(
                    np.concatenate([getattr(part, name) for part in parts]),
                    getattr(ours, name))


@pytest.mark.parametrize("objective", ["points", "win"])
def test_lanes_within_the_certified_gaps_of_the_warm_kernel_at_n7(objective):
    """N = 7, values only: each level's values within half the two kernels' gaps of the
    warm-start kernel's (its pipeline default), the same games solved."""
    for layout, compiled, ours, _ in solve_both(7, objective, False, True):
        assert ours.games == compiled.games and ours.max_gap <= ACCURACY
        tolerance = (ours.max_gap + compiled.max_gap) / 2 + 1e-15
        difference = np.nan_to_num(np.abs(ours.values - compiled.values))
        assert difference.max() <= tolerance, (layout.j, difference.max())
        assert np.array_equal(np.isnan(ours.values), np.isnan(compiled.values))


def test_nine_card_opening_on_lanes():
    """Rhoads & Bartholdi: with upcard 9 first in the 9-card game, the optimal strategy
    bids 9 with probability 0.7475 (unique in that coordinate), and the game's value is 0;
    level 9 solved by the lanes from the compiled kernel's level 8."""
    prev = level_zero()
    for j in range(9):
        layout = level_layout(9, j)
        prev = solve_shard(layout, prev, 0, layout.n_p, False, False).values
    top = solve_shard(level_layout(9, 9), prev, 0, 1, True, kernel="lanes")
    full = range(1, 10)
    ref = locate(9, full, full, full)
    assert top.values[0, ref.pattern] == 0.0
    assert round(float(top.strategies[0, ref.pattern, 8, 8]), 4) == 0.7475
    assert round(float(top.strategies_two[0, ref.pattern, 8, 8]), 4) == 0.7475


def test_numpy_pattern_tables_equal_the_compiled_ones():
    for n_cards in range(1, 10):
        for j in range(1, n_cards + 1):
            keys = np.empty(patterns.pattern_count(n_cards, j), np.int64)
            patterns._enumerate(n_cards, j, keys)
            assert np.array_equal(np.sort(patterns._small_enumerate(n_cards, j)),
                                  np.sort(keys))
            stored = patterns.canonical_patterns(n_cards, j)
            raw = np.empty((stored.size, j, j), np.int64)
            duel = np.empty((stored.size, j, j), np.int8)
            patterns._children(stored, j, raw, duel)
            small_raw, small_duel = patterns._small_children(stored, j)
            assert np.array_equal(small_raw, raw) and np.array_equal(small_duel, duel)


def test_the_kernel_follows_the_run_size():
    """Points runs up to N = 8 (202 728 games), win runs up to N = 7 (720 384) on lanes at
    every level; larger runs on the warm-start kernel at every level, whether it stores
    strategies or not (at N = 12 level 8 on that kernel compiled for j = 8 alone)."""
    kernels = {(n, objective): GopsConfig(n, objective=objective).kernel(n)
               for n in (1, 7, 8, 9, 12) for objective in ("points", "win")}
    assert kernels == {(1, "points"): "lanes", (1, "win"): "lanes",
                       (7, "points"): "lanes", (7, "win"): "lanes",
                       (8, "points"): "lanes", (8, "win"): "compiled",
                       (9, "points"): "compiled", (9, "win"): "compiled",
                       (12, "points"): "compiled", (12, "win"): "compiled"}
    top = GopsConfig(12, strategies="top:3")
    assert [top.kernel(j) for j in range(1, 13)] == \
        ["compiled"] * 7 + ["specialised"] + ["compiled"] * 4
    assert {GopsConfig(9, strategies="none").kernel(j) for j in range(1, 10)} == \
        {"compiled"}
    assert {GopsConfig(7, strategies="none").kernel(j) for j in range(1, 8)} == {"lanes"}


def test_levels_of_enough_work_get_the_kernel_specialised_to_j():
    """The levels whose matrix games times j^2 reach SPECIALISE_WORK (5e9) are solved by
    the kernel compiled for their j, the rest by the generic one: at N = 13 the levels
    j = 7..10, whose games the N = 13 run recorded as 271 507 236, 603 829 512, 355 984 200
    and 53 482 000 (docs/gops.md; j = 10: 5.35e9), and not j = 6 (46 million games,
    1.7e9); at N = 12 only j = 8 (89.5 million games, 5.7e9; j = 7: 92 million, 4.5e9);
    no level of N <= 11 (points) or N <= 9 (win)."""
    def specialised(n_cards: int, objective: str = "points") -> list[int]:
        config = GopsConfig(n_cards, strategies="top:4", objective=objective)
        return [j for j in range(1, n_cards + 1) if config.kernel(j) == "specialised"]

    config = GopsConfig(13)
    assert [level_info(config, j, patterns.stored_pattern_count(13, j))["matrix_games"]
            for j in (7, 8, 9, 10)] == [271_507_236, 603_829_512, 355_984_200, 53_482_000]
    assert specialised(13) == [7, 8, 9, 10]
    assert specialised(14) == [7, 8, 9, 10, 11]
    assert specialised(12) == [8]
    assert specialised(11) == specialised(9, "win") == []
    assert specialised(10, "win") == [6]
    assert specialised(11, "win") == [6, 7, 8]


def subgame(*args: str, importtime: bool = False) -> subprocess.CompletedProcess:
    """The real command line in a fresh process (``-X importtime``: its imports on stderr)."""
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run([sys.executable, *flags, "-m", "subgame.cli", *args],
                          capture_output=True, text=True, check=True, timeout=600)


def test_a_small_run_never_imports_numba(tmp_path):
    """`subgame run gops --cards 5` (points, then win) in fresh processes: numba is never
    imported, every step records that the lanes solved its shards, and the values equal
    the compiled kernel's within the certified gaps."""
    store = str(tmp_path / "s")
    for objective in ("points", "win"):
        run = subgame("run", "gops", "--cards", "5", "--objective", objective, "--store",
                      store, importtime=True)
        imported = {line.split("|")[-1].strip() for line in run.stderr.splitlines()
                    if line.startswith("import time:")}
        assert "subgame.families.gops.game.lanes" in imported and "numba" not in imported
    computations = json.loads(subgame("status", "--store", store, "--json").stdout)[
        "computations"]
    assert len(computations) == 2
    for computation in computations:
        for step in computation["steps"]:
            assert step["computed"]["lane_shards"] == step["shards"] >= 1
            assert step["computed"]["max_gap"] <= ACCURACY
    group = zarr.open_group(store, mode="r")
    for objective, path in (("points", "gops/N5"), ("win", "gops/N5-win")):
        for layout, compiled, _, _ in solve_both(5, objective, False, True):
            stored = group[f"{path}/j{layout.j}/values"][...]
            np.testing.assert_allclose(stored, compiled.values, rtol=0, atol=ACCURACY)


FIRST_CALLS = """
import pickle, threading, numpy as np
from subgame.families.gops.game import level_layout, solve_matrix_games, solve_shard
assert pickle.loads(pickle.dumps(solve_matrix_games)) is solve_matrix_games  # by name
layout = level_layout(6, 3)
prev = np.random.default_rng(0).normal(size=level_layout(6, 2).state_shape)
found = [None] * 4
def solve(t):
    found[t] = solve_shard(layout, prev, 0, layout.n_p, True).values
threads = [threading.Thread(target=solve, args=(t,)) for t in range(4)]
for thread in threads: thread.start()
for thread in threads: thread.join()
lanes = solve_shard(layout, prev, 0, layout.n_p, True, warm_start=False, kernel="lanes")
cold = solve_shard(layout, prev, 0, layout.n_p, True, warm_start=False)
assert all(np.array_equal(values, found[0]) for values in found)
assert np.array_equal(lanes.values, cold.values)
print("ok")
"""


def test_threads_making_the_first_compiled_call_together():
    """In a fresh process, four threads call the compiled kernel first at once: numba is
    imported and every kernel compiled once (subgame/jit.py), all four answers equal, and the
    lanes equal the compiled kernel without warm starts on arbitrary inputs; a deferred
    kernel pickles by name."""
    out = subprocess.run([sys.executable, "-c", FIRST_CALLS], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
