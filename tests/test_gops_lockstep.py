"""The compiled lane kernel (game/lockstep.py) against the slack-basis kernel bit for bit,
HiGHS on random games and the hard games of N = 13."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.families.gops.game import lockstep, solve_matrix_games, solve_shard
from tests.test_gops_kernel import HARD_GAMES, HIGHS_AGREEMENT
from tests.test_gops_lanes import (ACCURACY, RESULTS, assert_optimal, highs_values,
                                   random_games, solve_both)


@pytest.mark.parametrize("objective", ["points", "win"])
@pytest.mark.parametrize("n_cards", [3, 6])
def test_lockstep_is_the_slack_basis_kernel_bit_for_bit(n_cards, objective):
    """Every level with strategies: values, f_k, both strategy arrays and the counts equal
    ``solve_shard(..., warm_start=False)``; a level cut into shards equals the whole."""
    for layout, compiled, _, prev in solve_both(n_cards, objective, True, False):
        ours = solve_shard(layout, prev, 0, layout.n_p, True, kernel="lockstep")
        for name in RESULTS:
            np.testing.assert_array_equal(getattr(ours, name), getattr(compiled, name))
        assert (ours.games, ours.saddles, ours.pivots, ours.max_gap, ours.guessed) == \
            (compiled.games, compiled.saddles, compiled.pivots, compiled.max_gap, 0)
        if layout.j == n_cards // 2:
            cuts = (0, 1, layout.n_p // 2, layout.n_p)
            parts = [solve_shard(layout, prev, lo, hi, True, kernel="lockstep")
                     for lo, hi in zip(cuts, cuts[1:])]
            for name in RESULTS:
                np.testing.assert_array_equal(
                    np.concatenate([getattr(part, name) for part in parts]),
                    getattr(ours, name))


@pytest.mark.parametrize("size", [2, 5, 8])
def test_random_games_against_highs(size):
    """Normal, small-integer (degenerate) and duplicated-row games, more than one batch of
    lanes: optimal within 1e-9 (strategies as float32), HiGHS' values, and the compiled
    batch solver's values and pivots."""
    games = random_games(np.random.default_rng(size), 40, size)
    values, x, y, pivots, max_gap = lockstep.solve_matrices(games)
    assert games.shape[0] > lockstep.LANES and max_gap <= ACCURACY
    np.testing.assert_allclose(x.sum(axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(values, highs_values(games), atol=HIGHS_AGREEMENT)
    theirs = solve_matrix_games(games)
    np.testing.assert_array_equal(values, theirs[0])
    assert pivots == theirs[4].sum() and pivots > 0
    x64, y64 = theirs[1], theirs[2]  # the same strategies, in float64: certified at values
    assert_optimal(games, values, theirs[3], x64, y64)
    np.testing.assert_array_equal(x, x64.astype(np.float32))
    np.testing.assert_array_equal(y, y64.astype(np.float32))


def test_hard_games_are_resolved_as_the_compiled_solver_does():
    """The 20 games of level 7 of N = 13 whose tableau strategies do not certify: handed to
    ``solve_into`` afresh, they get the compiled solver's answers bit for bit."""
    games = np.load(HARD_GAMES)
    values, x, y, pivots, max_gap = lockstep.solve_matrices(games)
    theirs = solve_matrix_games(games)
    np.testing.assert_array_equal(values, theirs[0])
    np.testing.assert_array_equal(x, theirs[1].astype(np.float32))
    np.testing.assert_array_equal(y, theirs[2].astype(np.float32))
    assert pivots == theirs[4].sum() and max_gap == theirs[3].max() < 1e-12
