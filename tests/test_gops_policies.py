"""Policies evaluated exactly (`subgame gops evaluate`) and a game to play (`subgame gops
play`), on stores the pipeline wrote: `match` against a direct recursion over explicit card
sets (the opponent's bids read through `query`) and against a seeded simulation."""

from __future__ import annotations

import json
from functools import lru_cache

import numpy as np
import pytest
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.families.gops.read import evaluate_policies, query_state
from subgame.flows.run import run_flow
from subgame.options import RunOptions

N = 4
app = build_app()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("gops_policies") / "store.zarr")
    for objective in ("points", "win"):
        run_flow("gops", {"cards": N, "objective": objective}, RunOptions(path, executor="serial"))
    run_flow("gops", {"cards": 5, "strategies": "top:2"}, RunOptions(path, executor="serial"))
    return path


def by_policy(result: dict) -> dict:
    return {row["policy"]: row for row in result["policies"]}


def sign(a: int) -> int:
    return (a > 0) - (a < 0)


class MatchAgainstStored:
    """`match` (player one bids the upcard) against the stored optimal player two, by a
    direct recursion over explicit (P, Y, d): V = P on every path."""

    def __init__(self, store: str, objective: str):
        self.store, self.objective = store, objective

    @lru_cache(maxsize=None)
    def reply(self, prizes: tuple, hand_two: tuple, diff: int, upcard: int) -> dict:
        answer = query_state(self.store, N, prizes, hand_two, prizes, upcard, self.objective,
                             diff if self.objective == "win" else 0)
        return {int(c): q for c, q in answer["bids"][str(upcard)]["player_two"].items()}

    @lru_cache(maxsize=None)
    def law(self, prizes: tuple, hand_two: tuple, diff: int) -> dict:
        """Law of the final difference from (V = P, Y, P, d)."""
        if not prizes:
            return {diff: 1.0}
        out: dict = {}
        for upcard in prizes:
            rest = tuple(c for c in prizes if c != upcard)
            for card, q in self.reply(prizes, hand_two, diff, upcard).items():
                if q == 0:
                    continue
                after = diff + sign(upcard - card) * upcard
                for final, p in self.law(rest, tuple(c for c in hand_two if c != card),
                                         after).items():
                    out[final] = out.get(final, 0.0) + p * q / len(prizes)
        return out

    @lru_cache(maxsize=None)
    def best_response(self, prizes: tuple, hand_two: tuple, diff: int) -> float:
        """Player one's objective when player two answers `match` as well as possible."""
        if not prizes:
            return float(diff if self.objective == "points" else sign(diff))
        total = 0.0
        for upcard in prizes:
            rest = tuple(c for c in prizes if c != upcard)
            total += min(self.best_response(rest, tuple(c for c in hand_two if c != card),
                                            diff + sign(upcard - card) * upcard)
                         for card in hand_two)
        return total / len(prizes)


@pytest.mark.parametrize("objective", ["points", "win"])
def test_match_against_a_direct_recursion(store, objective):
    full = tuple(range(1, N + 1))
    direct = MatchAgainstStored(store, objective)
    law = direct.law(full, full, 0)
    row = by_policy(evaluate_policies(store, N, objective, ["match"]))["match"]
    assert sum(law.values()) == pytest.approx(1, abs=1e-6)  # float32 strategies
    # The evaluation renormalises the float32 bids; the direct recursion takes them as read.
    assert row["expected_points"] == pytest.approx(sum(d * p for d, p in law.items()), abs=1e-6)
    assert row["p_win"] == pytest.approx(sum(p for d, p in law.items() if d > 0), abs=1e-6)
    assert row["p_tie"] == pytest.approx(law.get(0, 0.0), abs=1e-6)
    assert row["p_lose"] == pytest.approx(sum(p for d, p in law.items() if d < 0), abs=1e-6)
    assert row["exploitability"] == pytest.approx(-direct.best_response(full, full, 0), abs=1e-9)
    assert row["exploitability"] > 0.5


def test_match_against_a_seeded_simulation(store):
    """100 000 games of `match` against the stored win-optimal player two: each frequency
    within 4.5 standard errors of the exact probability."""
    direct = MatchAgainstStored(store, "win")
    rng = np.random.default_rng(11)
    games = 100_000
    outcomes = np.zeros(3, int)  # win, tie, lose
    total_points = 0
    for _ in range(games):
        prizes, hand_two, diff = list(range(1, N + 1)), list(range(1, N + 1)), 0
        while prizes:
            upcard = prizes[rng.integers(len(prizes))]
            reply = direct.reply(tuple(prizes), tuple(hand_two), diff, upcard)
            cards = list(reply)
            card = cards[rng.choice(len(cards), p=np.array([reply[c] for c in cards])
                                    / sum(reply.values()))]
            diff += sign(upcard - card) * upcard
            prizes.remove(upcard)
            hand_two.remove(card)
        outcomes[0 if diff > 0 else 1 if diff == 0 else 2] += 1
        total_points += diff
    row = by_policy(evaluate_policies(store, N, "win", ["match"]))["match"]
    for count, p in zip(outcomes, (row["p_win"], row["p_tie"], row["p_lose"])):
        error = np.sqrt(p * (1 - p) / games)
        assert abs(count / games - p) <= 4.5 * error, (count / games, p)
    assert abs(total_points / games - row["expected_points"]) < 0.05


@pytest.mark.parametrize("objective", ["points", "win"])
def test_the_optimal_strategy_is_unexploitable_and_the_other_is_not(store, objective):
    other = "win" if objective == "points" else "points"
    rows = by_policy(evaluate_policies(store, N, objective,
                                       [f"optimal-{objective}", f"optimal-{other}", "random"]))
    own = rows[f"optimal-{objective}"]
    assert own["exploitability"] == pytest.approx(0, abs=1e-6)
    assert own["p_win"] == pytest.approx(own["p_lose"], abs=1e-6)
    assert own["expected_points"] == pytest.approx(0, abs=1e-6)
    assert rows[f"optimal-{other}"]["exploitability"] > 0.01
    for row in rows.values():
        assert row["p_win"] + row["p_tie"] + row["p_lose"] == pytest.approx(1, abs=1e-9)
    assert rows["random"]["exploitability"] > rows[f"optimal-{other}"]["exploitability"]


def test_evaluate_cli_and_refusals(store):
    result = CliRunner().invoke(app, ["gops", "evaluate", "--cards", str(N), "--objective",
                                      "win", "--policy", "greedy-rank", "--policy", "match",
                                      "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    rows = by_policy(json.loads(result.stdout))
    # V = P on every path, so bidding the upcard's rank in the hand is bidding the upcard.
    assert rows["greedy-rank"] == {**rows["match"], "policy": "greedy-rank"}
    refused = CliRunner().invoke(app, ["gops", "evaluate", "--cards", "5", "--store", store])
    assert refused.exit_code == 2 and "--strategies all" in refused.output
    unknown = CliRunner().invoke(app, ["gops", "evaluate", "--cards", str(N), "--policy",
                                       "bluff", "--store", store])
    assert unknown.exit_code == 2 and "--policy must be among" in unknown.output


def test_a_scripted_game(store):
    script = "9\n4\n3\n2\n1\n"  # 9 is not a card: asked again; then the hand high to low
    result = CliRunner().invoke(app, ["gops", "play", "--cards", str(N), "--objective", "win",
                                      "--seed", "7", "--store", store], input=script)
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert "'9' is not a card of your hand" in result.output
    assert sum("the machine bid" in line for line in lines) == N
    assert lines[-1].startswith("Final score")
    again = CliRunner().invoke(app, ["gops", "play", "--cards", str(N), "--objective", "win",
                                     "--seed", "7", "--store", store], input=script)
    assert again.output == result.output  # the seed fixes prizes and the machine's bids
    short = CliRunner().invoke(app, ["gops", "play", "--cards", str(N), "--store", store],
                               input="1\n")
    assert short.exit_code == 2 and "stdin ended" in short.output
    refused = CliRunner().invoke(app, ["gops", "play", "--cards", "5", "--store", store],
                                 input="1\n")
    assert refused.exit_code == 2 and "lacks finished strategies" in refused.output
    assert "Prize" not in refused.output
