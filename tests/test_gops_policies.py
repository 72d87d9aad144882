"""Policies evaluated exactly (`subgame gops evaluate`) and a game to play (`subgame gops
play`), on stores the pipeline wrote: `match` against a direct recursion over explicit card
sets (the opponent's bids read through `query`) and against a seeded simulation."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from functools import lru_cache

import numpy as np
import pytest
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.families.gops.game import solve_levels
from subgame.families.gops.game.evaluate import POLICIES, StoredStrategies, evaluate
from subgame.families.gops.read import evaluate_policies, query_state
from subgame.flows.run import run_flow
from subgame.options import RunOptions
from tests import gops_explicit_evaluation as explicit
from tests.gops_equilibrium_range import EquilibriumRange

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


def reply_table(direct: MatchAgainstStored) -> np.ndarray:
    """Player two's stored bids against `match` for every reachable (P, Y, d, upcard), read
    through `query`: [P bit mask, Y bit mask, d + T, upcard - 1, card - 1]."""
    total = N * (N + 1) // 2
    table = np.zeros((1 << N, 1 << N, 2 * total + 1, N, N))

    def mask(cards) -> int:
        return sum(1 << (c - 1) for c in cards)

    def visit(prizes: tuple, hand_two: tuple, diff: int) -> None:
        for upcard in prizes:
            reply = direct.reply(prizes, hand_two, diff, upcard)
            for card, q in reply.items():
                table[mask(prizes), mask(hand_two), diff + total, upcard - 1, card - 1] = q
            for card, q in reply.items():
                if q > 0:
                    visit(tuple(c for c in prizes if c != upcard),
                          tuple(c for c in hand_two if c != card),
                          diff + sign(upcard - card) * upcard)

    visit(tuple(range(1, N + 1)), tuple(range(1, N + 1)), 0)
    return table


def simulate_match(table: np.ndarray, games: int, rng: np.random.Generator) -> np.ndarray:
    """Final differences of ``games`` seeded games of `match` against the bids of
    ``table``, all games a round at a time (numpy)."""
    total = N * (N + 1) // 2
    # nth_card[mask, t]: the (t+1)-th smallest card of the set ``mask`` (0 past its size)
    nth_card = np.zeros((1 << N, N), np.int64)
    for mask in range(1 << N):
        held = [c for c in range(1, N + 1) if mask >> (c - 1) & 1]
        nth_card[mask, :len(held)] = held
    bids = table.reshape(-1, N)
    prizes = np.full(games, (1 << N) - 1)
    hand_two = prizes.copy()
    diff = np.zeros(games, np.int64)
    for left in range(N, 0, -1):
        upcard = nth_card[prizes, rng.integers(0, left, games)]  # uniform over the prizes
        at = ((prizes << N | hand_two) * (2 * total + 1) + diff + total) * N + upcard - 1
        # A card with probability proportional to the stored float32 bids (renormalised,
        # as the evaluation does); the draw is below the last partial sum, so never past it.
        mass = np.cumsum(bids[at], axis=1)
        card = (mass < rng.random(games)[:, None] * mass[:, -1:]).sum(axis=1) + 1
        diff += np.sign(upcard - card) * upcard
        prizes &= ~(1 << (upcard - 1))
        hand_two &= ~(1 << (card - 1))
    return diff


@pytest.mark.parametrize("objective", ["points", "win"])
def test_match_against_a_seeded_simulation(store, objective):
    """3 million games of `match` against the stored optimal player two, simulated from the
    bids `query` reports: the exact E[points], P(win), P(tie), P(lose) of the evaluation
    each lie within 5 standard errors of the simulated means (a 5-sigma interval: a false
    failure has probability below 1e-5 per figure)."""
    table = reply_table(MatchAgainstStored(store, objective))
    rng = np.random.default_rng(11)
    final = np.concatenate([simulate_match(table, 1_000_000, rng) for _ in range(3)])
    games = final.size
    row = by_policy(evaluate_policies(store, N, objective, ["match"]))["match"]
    error = final.std() / np.sqrt(games)
    assert abs(final.mean() - row["expected_points"]) <= 5 * error, (final.mean(), row)
    for outcome, p in zip((final > 0, final == 0, final < 0),
                          (row["p_win"], row["p_tie"], row["p_lose"])):
        assert abs(outcome.mean() - p) <= 5 * np.sqrt(p * (1 - p) / games), (outcome.mean(), p)


@pytest.mark.parametrize("n_cards", [5, 6])
def test_level_by_level_equals_the_explicit_set_evaluation(n_cards):
    """The evaluation on the solver's states (deck, d, pattern, orientation; policies as
    bid tables, upcard+1 through the parked hand) against the explicit-set evaluation over
    (V, Y, P, d) with every policy in card terms (tests/gops_explicit_evaluation.py), on
    in-memory solves: every policy against both objectives' optimal player two."""
    stored = {objective: {layout.j: StoredStrategies(objective, result.strategies,
                                                     result.strategies_two)
                          for layout, result in solve_levels(n_cards, True, objective)
                          if layout.j}
              for objective in ("points", "win")}
    for objective in ("points", "win"):
        for policy in POLICIES:
            own = policy.split("-", 1)[1] if policy.startswith("optimal-") else None
            args = (n_cards, policy, objective, stored[objective].__getitem__,
                    stored[own].__getitem__ if own else None)
            found, reference = evaluate(*args), explicit.evaluate(*args)
            for name, value in vars(reference).items():
                assert getattr(found, name) == pytest.approx(value, abs=1e-12), (
                    objective, policy, name)


def test_values_against_the_optimal_player_depend_on_the_equilibrium():
    """Why docs/gops.md's table moved with the kernel: at N = 4 under points, `upcard+1`
    can expect anything from -0.302 to -0.217 against player two's strategies that are
    optimal in every subgame (explicit sets, HiGHS: tests/gops_equilibrium_range.py).  The
    stored one gives a value inside that range; `match`'s range is a point (its value is a
    property of the game), and the exploitabilities of these fixed policies, a property of
    the policy alone, do not depend on player two's stored strategy at all."""
    stored = {layout.j: StoredStrategies("points", result.strategies, result.strategies_two)
              for layout, result in solve_levels(N, True, "points") if layout.j}
    for policy, width in (("upcard+1", 0.08), ("match", 1e-6)):
        low, high = EquilibriumRange(policy).value_range(N)
        found = evaluate(N, policy, "points", stored.__getitem__)
        assert low - 1e-6 <= found.expected_points <= high + 1e-6, (policy, low, high)
        assert (high - low > width) if policy == "upcard+1" else (high - low < width)
    assert EquilibriumRange("upcard+1").value_range(N) == pytest.approx((-0.3016, -0.2172),
                                                                        abs=1e-4)


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


def test_both_openings_side_by_side(store, tmp_path):
    """`plot gops --both-objectives` draws one PNG with a panel per objective (wider than
    high) and refuses, in one line, a store that lacks one objective's computation."""
    import matplotlib.image

    result = CliRunner().invoke(app, ["plot", "gops", "--cards", str(N), "--both-objectives",
                                      "--out", str(tmp_path), "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    (path,) = json.loads(result.stdout)["files"]
    assert path.endswith(f"gops_first_move_N{N}.png")
    height, width = matplotlib.image.imread(path).shape[:2]
    assert width > 1.5 * height
    refused = CliRunner().invoke(app, ["plot", "gops", "--cards", "5", "--both-objectives",
                                       "--out", str(tmp_path), "--store", store])
    assert refused.exit_code == 2 and len(refused.output.strip().splitlines()) == 1


def play(store: str, script: str, *options: str):
    return CliRunner().invoke(app, ["gops", "play", "--cards", str(N), *options,
                                    "--store", store], input=script)


ROUND = re.compile(r"Round (\d) of \d: prize (\d)\.  your hand ([\d ]+|-); the machine's "
                   r"([\d ]+|-); prizes left ([\d ]+|-); score (\d+):(\d+)\.")
VALUES = re.compile(r"value ([+-][\d.]+) before the prize, ([+-][\d.]+) with prize")
AFTER = re.compile(r"score (\d+):(\d+); value ([+-][\d.]+) after the round")


def cards(text: str) -> list[int]:
    return [] if text == "-" else [int(c) for c in text.split()]


@pytest.mark.parametrize("objective", ["points", "win"])
def test_a_scripted_game_shows_consistent_values(store, objective):
    """One game driven over stdin: a wrong entry is asked again; the last card plays
    itself (N - 1 bids in the script); both hands and the score are shown; the value
    (points already won included) after a round is the next round's value before, the
    first is the root's and the last is the final score difference (or its sign); and
    each is the stored value of the position shown, recomputed here from query."""
    result = play(store, "9\n4\n3\n2\n", "--objective", objective, "--seed", "7")
    assert result.exit_code == 0, result.output
    assert "'9' is not a card of your hand" in result.output
    assert result.output.count("Your bid?") == N - 1 and "Your last card 1 is played" in \
        result.output
    rounds, befores, afters = (pattern.findall(result.output) for pattern in (ROUND, VALUES,
                                                                              AFTER))
    assert len(rounds) == len(befores) == len(afters) == N
    full = list(range(1, N + 1))
    assert float(befores[0][0]) == pytest.approx(
        query_state(store, N, full, full, full, objective=objective)["value"], abs=1e-4)
    for r in range(N - 1):
        assert befores[r + 1][0] == afters[r][2]  # after one round = before the next
        _, _, hand, machine, prizes, mine, theirs = rounds[r + 1]
        diff = int(mine) - int(theirs)
        stored = query_state(store, N, cards(hand), cards(machine), cards(prizes),
                             objective=objective,
                             diff=diff if objective == "win" else 0)["value"]
        whole = stored + diff if objective == "points" else stored
        assert float(afters[r][2]) == pytest.approx(whole, abs=1e-4)
    mine, theirs, last = afters[-1]
    final = int(mine) - int(theirs)
    assert float(last) == (final if objective == "points" else sign(final))
    assert result.output.strip().splitlines()[-1].startswith(f"Final score {mine}:{theirs}")
    again = play(store, "9\n4\n3\n2\n", "--objective", objective, "--seed", "7")
    assert again.output == result.output  # the seed fixes prizes and the machine's bids


def test_quit_new_game_and_end_of_input(store):
    quit_early = play(store, "4\nq\n", "--seed", "3")
    assert quit_early.exit_code == 0 and "Quit in round 2" in quit_early.output
    two_games = play(store, "4\nn\n4\n3\n2\nn\n1\n2\n3\n", "--seed", "3")
    assert two_games.exit_code == 0, two_games.output
    assert "Game abandoned in round 2; a new game." in two_games.output
    assert two_games.output.count("Final score") == 2  # then the input ends between games
    short = play(store, "1\n", "--seed", "3")
    assert short.exit_code == 1
    assert "input ended in round 2 of 4" in short.output and "cannot be resumed" in \
        short.output and "error" not in short.output
    refused = CliRunner().invoke(app, ["gops", "play", "--cards", "5", "--store", store],
                                 input="1\n")
    assert refused.exit_code == 2 and "lacks finished strategies" in refused.output
    assert "Round" not in refused.output


def test_ctrl_c_says_the_game_cannot_resume(store):
    """A real process at its prompt, sent SIGINT: one honest line, exit status 130.  It
    starts as a terminal's foreground job does, with Ctrl-C's default disposition: a suite
    launched in the background (`pytest &` from a script) ignores SIGINT, and a process
    inherits that."""
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        game = subprocess.Popen([sys.executable, "-m", "subgame.cli", "gops", "play",
                                 "--cards", str(N), "--store", store], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, inherited)
    try:
        for line in game.stdout:
            if "Your bid?" in line:
                break
        game.send_signal(signal.SIGINT)
        # stdin stays open until the game exits (communicate() would close it): a game that
        # did not take the signal then fails here as such, not as an end of its input
        game.wait(timeout=120)
        err = game.stderr.read()
    finally:
        game.kill()
    assert game.returncode == 130, err
    assert err.strip().splitlines() == ["interrupted: the game is abandoned and cannot be "
                                        "resumed (nothing is stored); `subgame gops play` "
                                        "starts a new one"]
