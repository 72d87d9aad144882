"""subgame.openspiel against OpenSpiel's own algorithms, on stores the pipeline wrote: the
stored equilibrium's NashConv by OpenSpiel's exploitability.nash_conv, a CFR policy's
exploitability by OpenSpiel's C++ nash_conv, a uniform policy's value by OpenSpiel's
expected_game_score, and subgame's level-by-level evaluator (`gops evaluate --policy
random`).  N = 4 here: OpenSpiel's nash_conv walks the whole tree, which takes minutes and
about 8 GB at N = 5 (`bench/openspiel.py --cards 5` runs the same checks there)."""

from __future__ import annotations

import json
import textwrap

import pytest
from typer.testing import CliRunner

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import policy as openspiel_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability, expected_game_score  # noqa: E402

from subgame.cli import build_app  # noqa: E402
from subgame.families.gops.read import evaluate_policies  # noqa: E402
from subgame.flows.run import run_flow  # noqa: E402
from subgame.openspiel import StoredEquilibrium, load_game, policy  # noqa: E402
from subgame.openspiel.evaluate import measure  # noqa: E402
from subgame.openspiel.states import RETURNS_PER_UNIT  # noqa: E402
from subgame.options import RunOptions  # noqa: E402

N = 4
OBJECTIVES = ("points", "win")
app = build_app()

AGENTS = '''
from open_spiel.python import policy


class Lowest(policy.Policy):
    """Bids its lowest card: a function of the hands alone."""

    def action_probabilities(self, state, player_id=None):
        player = state.current_player() if player_id is None else player_id
        return {min(state.legal_actions(player)): 1.0}


class LowestBot:
    """The same as a bot."""

    def step(self, state):
        return min(state.legal_actions())


def lowest(game, player):
    return Lowest(game, [player])


def lowest_bot(game, player):
    return LowestBot()
'''


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("openspiel") / "store.zarr")
    for objective in OBJECTIVES:
        run_flow("gops", {"cards": N, "objective": objective},
                 RunOptions(path, executor="serial"))
    return path


def evaluate(store: str, objective: str, *options: str) -> dict:
    result = CliRunner().invoke(app, ["gops", "evaluate", "--cards", str(N), "--objective",
                                      objective, "--store", store, "--json", *options])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_openspiel_finds_the_stored_equilibrium_unexploitable(store, objective):
    equilibrium = policy(store, N, objective)
    assert exploitability.nash_conv(equilibrium.game, equilibrium) < 1e-6
    uniform = openspiel_policy.UniformRandomPolicy(equilibrium.game)
    assert exploitability.nash_conv(equilibrium.game, uniform) > 0.5  # the check can fail


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_a_cfr_policy_file_has_openspiels_exploitability(store, objective, tmp_path):
    game = load_game(N, objective)
    solver = pyspiel.CFRSolver(game)
    for _ in range(3):
        solver.evaluate_and_update_policy()
    tabular = solver.tabular_average_policy()
    saved = tmp_path / "cfr.txt"
    saved.write_text(tabular.serialize())
    found = evaluate(store, objective, "--openspiel-policy", str(saved))
    assert found["openspiel_exploitability"] == pytest.approx(
        pyspiel.nash_conv(game, tabular) / 2, abs=1e-9)
    assert found["exploitability"] * RETURNS_PER_UNIT[objective] == pytest.approx(
        found["openspiel_exploitability"], abs=1e-12)
    assert found["openspiel_exploitability"] > 0.05


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_a_uniform_policys_value_is_openspiels_and_subgames(store, objective):
    game = load_game(N, objective)
    uniform = openspiel_policy.UniformRandomPolicy(game)
    equilibrium = policy(store, N, objective)
    found = measure(game, uniform.action_probabilities, StoredEquilibrium(store, N, objective))
    scale = RETURNS_PER_UNIT[objective]
    root = game.new_initial_state()
    as_one = expected_game_score.policy_value(root, [uniform, equilibrium])[0]
    as_two = expected_game_score.policy_value(root, [equilibrium, uniform])[0]
    assert found.seat_one.value * scale == pytest.approx(as_one, abs=1e-9)
    assert found.seat_two.value * scale == pytest.approx(as_two, abs=1e-9)
    assert found.seat_one.value < -0.3
    # subgame's level-by-level evaluator: random (uniform) as player one
    row = evaluate_policies(store, N, objective, ["random"])["policies"][0]
    assert -found.seat_one.best_response == pytest.approx(row["exploitability"], abs=1e-9)
    if objective == "points":
        assert found.seat_one.value == pytest.approx(row["expected_points"], abs=1e-6)


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_entry_points_markov_states_and_bots_agree(store, objective, tmp_path, monkeypatch):
    (tmp_path / "agents_under_test.py").write_text(textwrap.dedent(AGENTS))
    monkeypatch.chdir(tmp_path)
    walked = evaluate(store, objective, "--openspiel-policy", "agents_under_test:lowest")
    markov = evaluate(store, objective, "--openspiel-policy", "agents_under_test:lowest",
                      "--markov")
    bot = evaluate(store, objective, "--openspiel-policy", "agents_under_test:lowest_bot")
    assert markov["nodes"] < walked["nodes"] == bot["nodes"]
    for found in (markov, bot):
        for key in ("as_player_one", "as_player_two", "nash_conv"):
            assert found[key] == pytest.approx(walked[key], abs=1e-12)
    # bidding the lowest card is a pure strategy: a best response wins every game it can
    assert walked["as_player_one"]["best_response_gain"] > 0.5


@pytest.mark.parametrize("options, message", [
    (["--openspiel-policy", "no_such_file"], "neither a file nor a Python entry point"),
    (["--openspiel-policy", "json:no_such_attr"], "cannot load it"),
    (["--openspiel-policy", "operator:is_"], "returned neither a policy nor a bot"),
    (["--openspiel-policy", "json:dumps"], "(game, player) failed: TypeError"),
    (["--markov"], "--markov goes with --openspiel-policy"),
    (["--openspiel-policy", "x:y", "--policy", "match"], "exclude each other"),
])
def test_bad_agents_are_refused_in_one_line(store, options, message):
    result = CliRunner().invoke(app, ["gops", "evaluate", "--cards", str(N), "--store", store,
                                      *options])
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_file_that_is_not_a_tabular_policy_is_refused(store, tmp_path):
    saved = tmp_path / "policy.txt"
    saved.write_text("not a policy")
    result = CliRunner().invoke(app, ["gops", "evaluate", "--cards", str(N), "--store", store,
                                      "--openspiel-policy", str(saved)])
    assert result.exit_code == 2 and "not an OpenSpiel tabular policy" in result.output


def test_large_n_needs_markov(store):
    result = CliRunner().invoke(app, ["gops", "evaluate", "--cards", "9", "--store", store,
                                      "--openspiel-policy", "x:y"])
    assert result.exit_code == 2 and "add --markov" in result.output
