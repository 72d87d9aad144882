"""Clue leaderboards' 95 % intervals and paired comparisons (game/leaderboard_stats.py) at
their nominal level, balanced seating, and the leaderboard as query, JSON, export and an
80-column table show it."""

from __future__ import annotations

import json
from collections import Counter
from itertools import product

import numpy as np
import pytest
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.engine import run_computation
from subgame.families.clue.game import simulate_batch
from subgame.families.clue.game.leaderboard_stats import DealMoments
from subgame.families.clue.game.tournament import QUANTITIES, seat_orders
from subgame.families.clue.plan import ClueConfig
from subgame.families.clue.read import leaderboard, tournament_table
from subgame.options import RunOptions

REPEATS = 200
# Coverage of REPEATS intervals at 95 %: Binomial(200, 0.95) lies in 181..199 with
# probability 0.998 (too few: intervals too narrow; all 200: too wide).
COVERED = range(181, 200)
Q = {name: i for i, name in enumerate(QUANTITIES)}


@pytest.mark.parametrize("seating, players", [("every-rotation", 3), ("every-rotation", 5),
                                              ("every-order", 3), ("every-order", 4)])
def test_balanced_seating_gives_every_entry_every_seat_equally(seating, players):
    orders = seat_orders(seating, players, deal=17)
    seats = Counter((seat, entry) for order in orders for seat, entry in enumerate(order))
    assert set(seats) == set(product(range(players), repeat=2))
    assert set(seats.values()) == {len(orders) // players}
    assert all(sorted(order) == list(range(players)) for order in orders)
    assert len(set(orders)) == len(orders)  # each seat order once


def test_rotation_balances_over_p_consecutive_deals():
    seats = Counter((seat, entry) for deal in range(10, 14)
                    for seat, entry in enumerate(seat_orders("rotate", 4, deal)[0]))
    assert set(seats.values()) == {1} and len(seats) == 16


def test_every_order_plays_each_deal_once_per_order():
    lineup = ["core", "weighted-inverse", "random"]
    counts = simulate_batch(lineup, 3, 1, 1, 4, np.random.SeedSequence(3),
                            seating="every-order")
    assert counts["games"].tolist() == [4 * 6] * 3  # each entry at every table of a deal
    moments = counts["deal_moments"]
    assert moments[0, 0] == 4  # deals
    sums = moments[0, 1:].reshape(3, len(QUANTITIES))
    assert sums[:, Q["seat_games"]].tolist() == [24] * 3
    assert sums[:, Q["first_places"]].tolist() == counts["first_places"].tolist()
    assert (sums[:, Q["rank_sum"]] == counts["rank_counts"] @ np.arange(1, 4)).all()


@pytest.fixture(scope="module")
def pool():
    """Per-deal vectors of real games: 400 deals at p = 2, k = 2, h = 1, each played
    once per rotation.  Resampling deals from the pool gives tournaments whose true rates
    are the pool's own, known exactly."""
    lineup = ["weighted-inverse", "random"]
    return np.array([simulate_batch(lineup, 2, 2, 1, 1, np.random.SeedSequence([11, d]),
                                    seating="every-rotation")["deal_moments"][0]
                     for d in range(400)])


def moments_of(vectors: np.ndarray) -> np.ndarray:
    return vectors.T @ vectors  # rows are (1, v): the sum of outer products


def pool_rate(vectors: np.ndarray, strategy: int, num: str, den: str) -> float:
    sums = vectors[:, 1:].sum(axis=0).reshape(-1, len(QUANTITIES))
    return sums[strategy, Q[num]] / sums[strategy, Q[den]]


@pytest.mark.parametrize("strategy, rate, num, den", [
    (0, "first_share", "first_places", "seat_games"),
    (1, "first_share", "first_places", "seat_games"),
    (0, "wrong_rate", "wrong_guesses", "guesses"),
    (0, "mean_rank", "rank_sum", "seat_games"),
    (1, "mean_guess_round", "guess_round_sum", "guesses")])
def test_intervals_cover_the_true_rate_at_their_level(pool, strategy, rate, num, den):
    """200 tournaments of 100 deals drawn (seeded) from the pool: the true rate is the
    pool's; about 95 % of the intervals must hold it."""
    truth = pool_rate(pool, strategy, num, den)
    rng = np.random.default_rng(5)
    covered = 0
    for _ in range(REPEATS):
        deals = pool[rng.integers(0, len(pool), 100)]
        row = DealMoments(moments_of(deals), ["a", "b"]).rate(strategy, rate)
        covered += row[f"{rate}_low"] <= truth <= row[f"{rate}_high"]
    assert covered in COVERED, (rate, covered, truth)


def synthetic_deals(rng, deals: int, share: tuple[float, float], games: int = 3):
    """Deals of two strategies whose sole first places per game are correlated within a
    deal (a deal's difficulty moves both), with known true first shares ``share``."""
    vectors = np.zeros((deals, 1 + 2 * len(QUANTITIES)), dtype=np.int64)
    vectors[:, 0] = 1
    shift = rng.normal(0, 0.15, deals)
    for s, p in enumerate(share):
        firsts = rng.random((deals, games)) < np.clip(p + shift, 0, 1)[:, None]
        base = 1 + s * len(QUANTITIES)
        vectors[:, base + Q["seat_games"]] = games
        vectors[:, base + Q["first_places"]] = firsts.sum(axis=1)
    return vectors


def test_correlated_games_of_a_deal_keep_the_coverage():
    """Games of one deal are correlated; a Wilson interval over games would be too narrow.
    Over deals (effective trials) 95 % of the intervals hold the true share (0.4: the
    shift is symmetric and the clip never bites, so the mean share is exact)."""
    rng = np.random.default_rng(8)
    covered = 0
    for _ in range(REPEATS):
        row = DealMoments(moments_of(synthetic_deals(rng, 80, (0.4, 0.4))),
                          ["a", "b"]).rate(0, "first_share")
        covered += row["first_share_low"] <= 0.4 <= row["first_share_high"]
    assert covered in COVERED, covered


def test_the_paired_test_calls_equal_strategies_different_at_most_5_percent():
    """Two strategies with the same true share: Binomial(200, 0.05) exceeds 19 with
    probability 0.003; and clearly different ones are told apart."""
    rng = np.random.default_rng(9)
    false_calls = sum(DealMoments(moments_of(synthetic_deals(rng, 80, (0.3, 0.3))), ["a", "b"])
                      .against_leader()["others"].popitem()[1]["distinguishable"]
                      for _ in range(REPEATS))
    assert false_calls <= 19
    apart = DealMoments(moments_of(synthetic_deals(rng, 200, (0.2, 0.5))), ["a", "b"])
    comparison = apart.against_leader()
    assert comparison["leader"] == "b" and comparison["others"]["a"]["distinguishable"]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("clue_intervals") / "store.zarr")
    run_computation(ClueConfig(players="3", cards_per_player="1", hidden="1", games=40,
                               lineup="weighted-geometric,weighted-uniform,random",
                               seating="every-order"), RunOptions(path, executor="serial"))
    return path


def test_the_leaderboard_in_json_export_and_80_columns(store):
    board = leaderboard(store, 3, 1, 1)
    assert board["seating"] == "every-order" and board["deals"] == 40
    assert board["games"] == 40 * 6
    for row in board["strategies"].values():
        assert row["seat_games"] == 240
        assert row["first_share_low"] <= row["first_share"] <= row["first_share_high"]
        assert row["mean_rank_low"] <= row["mean_rank"] <= row["mean_rank_high"]
    leader = board["comparison"]["leader"]
    assert leader == max(board["strategies"], key=lambda s: board["strategies"][s]["first_share"])
    table = tournament_table(store)
    assert {"deals", "first_share_low", "first_share_high", "mean_rank_low",
            "wrong_rate_high", "mean_lead_low"} <= set(table.columns)
    result = CliRunner(env={"COLUMNS": "80"}).invoke(build_app(), [
        "query", "clue", "--players", "3", "--cards-per-player", "1", "--hidden", "1",
        "--store", store])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    for name in board["strategies"]:  # whole names, one row each
        assert sum(line.startswith(name + " ") for line in lines) == 1
    as_json = CliRunner().invoke(build_app(), [
        "query", "clue", "--players", "3", "--cards-per-player", "1", "--hidden", "1",
        "--store", store, "--json"])
    assert json.loads(as_json.stdout)["comparison"] == json.loads(json.dumps(
        board["comparison"]))


def test_every_order_is_refused_beyond_six_players():
    from subgame.errors import InvalidInput

    with pytest.raises(InvalidInput, match="every-order plays p! games a deal"):
        ClueConfig(players="7", cards_per_player="1", hidden="1", seating="every-order")
    with pytest.raises(InvalidInput, match="--seating must be one of"):
        ClueConfig(seating="shuffled")
