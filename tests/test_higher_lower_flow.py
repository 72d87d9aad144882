"""The higher/lower flow end to end, against brute force and the seed's own code."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache
from itertools import permutations
from math import factorial

import pytest
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.families.higher_lower.game import seed
from subgame.families.higher_lower.read import asymptotics, deck_table, query_deck, query_n
from subgame.flows.run import run_flow
from subgame.options import RunOptions
from tests.store_compare import assert_stores_equal, tree_snapshot

SWEEP = dict(max_n=60, exact_max=40, block=7)
app = build_app()


def higher_lower(store: str, family: dict, **options) -> list[dict]:
    """One `run higher-lower`: one report per computation (distinct sweep, deck grid)."""
    return run_flow("higher-lower", family, RunOptions(store, **options))


@pytest.fixture(scope="module")
def store(tmp_path_factory, dask_scheduler):
    path = str(tmp_path_factory.mktemp("hl") / "store.zarr")
    reports = higher_lower(path, dict(**SWEEP, ranks="3,4", suits="1,2", ties="loss,pass",
                                      policy="optimal,majority,always-higher", games=30_000),
                           scheduler=dask_scheduler)
    assert [len(r["steps_computed"]) for r in reports] == [9, 2]
    return path


def test_counts_equal_the_seeds_brute_force(store):
    for n in range(1, 9):
        right = sum(seed.guess_all(order) for order in permutations(range(n)))
        answer = query_n(store, n)
        assert int(answer["count"]) == right
        assert Fraction(answer["p_all_exact"]) == Fraction(right, factorial(n))
    assert query_n(store, 9)["p_all"] == pytest.approx(0.17085537918871255, rel=1e-15)


def test_float_sweep_matches_exact_counts_across_blocks(store):
    for n in range(1, SWEEP["exact_max"] + 1):
        answer = query_n(store, n)
        exact = Fraction(int(answer["count"]), factorial(n))
        assert answer["p_all"] == pytest.approx(float(exact), rel=1e-13), n
        streak = Fraction(answer["expected_streak_exact"])
        assert answer["expected_streak"] == pytest.approx(float(streak), rel=1e-13), n
    assert query_n(store, 50)["count"] is None  # beyond --exact-max: floats only


def test_asymptotics_bracket_the_closed_forms(store):
    limits = asymptotics(store)
    for name in ("ratio", "streak"):
        fit, truth = limits[name], limits["closed_form"][name]
        assert abs(fit["limit"] - truth) <= fit["error"], name


@lru_cache(maxsize=None)
def deck_odds(counts: tuple[int, ...], up: int, ties: str, policy: str) -> Fraction:
    """Chance to guess every remaining card right: plain recursion over the multiset."""
    left = sum(counts)
    if left == 0:
        return Fraction(1)
    lower, higher = sum(counts[:up]), sum(counts[up + 1:])

    def after(rank: int) -> Fraction:
        rest = list(counts)
        rest[rank] -= 1
        return Fraction(counts[rank], left) * deck_odds(tuple(rest), rank, ties, policy)

    wins = {"lower": sum(after(r) for r in range(up)),
            "higher": sum(after(r) for r in range(up + 1, len(counts)))}
    equal = after(up) if ties == "pass" and counts[up] else Fraction(0)
    if policy == "optimal":
        guess = "higher" if wins["higher"] >= wins["lower"] else "lower"
    elif policy == "majority":
        guess = "higher" if higher >= lower else "lower"
    else:
        guess = "higher"
    return wins[guess] + equal


def whole_deck(ranks: int, suits: int, ties: str, policy: str) -> Fraction:
    counts = [suits] * ranks
    total = Fraction(0)
    for up in range(ranks):
        rest = list(counts)
        rest[up] -= 1
        total += Fraction(suits, ranks * suits) * deck_odds(tuple(rest), up, ties, policy)
    return total


@pytest.mark.parametrize("ranks", [3, 4])
@pytest.mark.parametrize("suits", [1, 2])
@pytest.mark.parametrize("ties", ["loss", "pass"])
@pytest.mark.parametrize("policy", ["optimal", "majority", "always_higher"])
def test_deck_points_exact_and_monte_carlo(store, ranks, suits, ties, policy):
    answer = query_deck(store, ranks, suits, ties, policy)
    exact = whole_deck(ranks, suits, ties, policy)
    assert Fraction(answer["exact"]["p"]) == exact
    assert answer["monte_carlo"]["games"] == 30_000
    # A 99.99% Wilson interval: a miss has chance 1e-4 per point, and the seed is fixed,
    # so the test is deterministic.
    mc = query_deck(store, ranks, suits, ties, policy, confidence=0.9999)["monte_carlo"]
    assert mc["low"] <= float(exact) <= mc["high"]


def test_the_deck_export_carries_the_monte_carlo_interval(store):
    """export higher-lower --decks: the 95 % Wilson interval per point, as query gives it."""
    table = deck_table(store)
    assert len(table) == 24
    for row in table.itertuples():
        mc = query_deck(store, row.ranks, row.suits, row.ties, row.policy)["monte_carlo"]
        assert (row.mc_p, row.mc_low, row.mc_high) == (mc["p"], mc["low"], mc["high"])
        assert row.mc_low <= row.mc_p <= row.mc_high and mc["confidence"] == 0.95


def test_resume_and_executors_give_the_same_store(store, tmp_path):
    resumed = str(tmp_path / "resumed.zarr")
    args = dict(**SWEEP, ranks="3,4", suits="1,2", ties="loss,pass",
                policy="optimal,majority,always-higher", games=30_000)
    higher_lower(resumed, args, executor="serial", max_steps=4)
    reports = higher_lower(resumed, args, executor="serial")
    assert reports[0]["steps_skipped"] == 4 and len(reports[0]["steps_computed"]) == 5
    assert reports[1]["steps_skipped"] == 2  # the deck sweep finished in the first run
    assert_stores_equal(store, resumed)  # Dask-computed vs serial, resumed: same bits


@pytest.mark.parametrize("args, message", [
    (["--max-n", "0"], "--max-n must be between 1"),
    (["--max-n", "10", "--exact-max", "-1"], "--exact-max must be between 0 and 10"),
    (["--ranks", "3"], "give both --ranks and --suits"),
    (["--ranks", "3,x", "--suits", "2"], "--ranks takes a comma-separated list"),
    (["--ranks", "0", "--suits", "2"], "--ranks takes a comma-separated list"),
    (["--ranks", "3", "--suits", "2", "--ties", "draw"], "--ties takes"),
    (["--ranks", "3", "--suits", "2", "--policy", "psychic"], "--policy takes"),
    (["--ranks", "3", "--suits", "2", "--games", "-5"], "--games must be"),
    ([], "give --max-n"),
])
def test_bad_input_is_refused(store, args, message):
    before = tree_snapshot(store)
    result = CliRunner().invoke(app, ["run", "higher-lower", *args, "--store", store])
    assert result.exit_code == 2 and message in result.output, result.output
    assert tree_snapshot(store) == before


def test_query_cli(store):
    runner = CliRunner()
    result = runner.invoke(app, ["query", "higher-lower", "--n", "9", "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert Fraction(answer["p_all_exact"]) == Fraction(int(answer["count"]), factorial(9))
    outside = runner.invoke(app, ["query", "higher-lower", "--n", "61", "--store", store])
    assert outside.exit_code == 2 and "outside the stored range" in outside.output


def test_a_grown_sweep_recomputes_only_its_partial_block_and_the_new_ones(tmp_path):
    from subgame.engine import run_computation
    from subgame.families.higher_lower.plan import DistinctConfig

    grown, fresh = str(tmp_path / "grown.zarr"), str(tmp_path / "fresh.zarr")
    run_computation(DistinctConfig(20, 20, 7), RunOptions(grown, executor="serial"))
    report = run_computation(DistinctConfig(30, 30, 7), RunOptions(grown, executor="serial"))
    assert report.steps_computed == ["n=15..21", "n=22..28", "n=29..30"]
    run_computation(DistinctConfig(30, 30, 7), RunOptions(fresh, executor="serial"))
    assert_stores_equal(grown, fresh)
