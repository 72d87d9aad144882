"""Guess Who on real boards solved on types through the pipeline (`--types`): the stored
answers of random boards of 8-10 characters (both reductions, both rule sets, d = 1-3)
against the plain recursion over sets of tests/test_guess_who_board_types.py, a stopped
run resumed from the stored types, the plan foreseen before the run (dry run, progress),
and the restore of stored types against computing them."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.engine import RunListener, run_computation
from subgame.families.guess_who_board.game.reachable import described_mask, literal_masks
from subgame.families.guess_who_board.game.types import TypeLevels, set_types
from subgame.families.guess_who_board.plan import BoardConfig
from subgame.families.guess_who_board.read import query_pair, verify_values
from subgame.options import RunOptions
from subgame.plan import PlanSize
from subgame.storage import ComputationStore
from tests.test_guess_who_board_types import (NAMED, plain_questions, plain_reachable,
                                              plain_solver, random_board)

# (seed, characters, traits, d, rules, types): 8 characters at d >= 2, where the plain
# recursion over every pair (verify) stays within seconds.
CASES = [(0, 8, 5, 2, "official", "dominance"), (1, 8, 5, 3, "official", "bisimulation"),
         (2, 8, 4, 1, "variant", "dominance"), (3, 10, 5, 1, "official", "bisimulation")]


def write_board(path, board) -> str:
    traits = sorted({t for c in board for t in c.traits})
    rows = ["name," + ",".join(traits)]
    rows += [c.name + "," + ",".join("1" if t in c.traits else "0" for t in traits)
             for c in board]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


class Counting(RunListener):
    """The totals a run announces and the steps it runs."""

    def __init__(self):
        self.totals, self.ran = [], 0

    def run_started(self, computation, steps, steps_done):
        self.totals.append(steps)

    def steps_known(self, steps):
        self.totals.append(max(steps, self.totals[-1]))

    def step_finished(self, step, result):
        self.ran += 1


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """Each case run to the end through the engine into one store, with its listener."""
    folder = tmp_path_factory.mktemp("types")
    store = str(folder / "store.zarr")
    runs = {}
    for seed, characters, traits, d, rules, types in CASES:
        rng = random.Random(seed)
        board = write_board(folder / f"board{seed}.csv", random_board(rng, characters, traits))
        config = BoardConfig(board=board, max_literals=d, rules=rules, types=types,
                             shard_pairs=500)
        listener = Counting()
        run_computation(config, RunOptions(store, executor="serial"), listener=listener)
        runs[seed] = (config, listener)
    return store, runs


def as_split(standing: int, question, config: BoardConfig) -> tuple[int, int]:
    """The move a stored answer names: a description's split, or a name's (S - c, NAMED)."""
    if isinstance(question, str):
        return standing & ~(1 << [c.name for c in config.characters].index(question)), NAMED
    traits = sorted({t for c in config.characters for t in c.traits})
    inside = standing & described_mask(question, literal_masks(config.characters, traits),
                                       (1 << len(config.characters)) - 1)
    return min(inside, standing ^ inside), max(inside, standing ^ inside)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[1]}-d{c[3]}-{c[4]}-{c[5]}" for c in CASES])
def test_stored_type_solve_against_plain_recursion(solved, case):
    store, runs = solved
    config, listener = runs[case[0]]
    questions = plain_questions(list(config.characters), config.max_literals)
    full = (1 << len(config.characters)) - 1
    solve = plain_solver(questions, config.rules)
    reachable = sorted(plain_reachable(questions, config.rules, full))
    rng = random.Random(case[0])
    names = lambda mask: ",".join(c.name for i, c in enumerate(config.characters)  # noqa
                                  if mask >> i & 1)
    for standing, opponent in [(full, full)] + [(rng.choice(reachable), rng.choice(reachable))
                                                for _ in range(15)]:
        value, best = solve(standing, opponent)
        answer = query_pair(store, config, names(standing), names(opponent))
        sizes = standing.bit_count() * opponent.bit_count()
        assert Fraction(answer["p"]) == Fraction(value, sizes)
        assert {as_split(standing, q, config) for q in answer["optimal_questions"]} == best
        assert answer["final_guess_optimal"] == (standing.bit_count() == 1 or (
            config.rules == "official" and value == opponent.bit_count()))
        assert answer["policies"] == {}  # no policy stages on types
    if case[3] == 1 and case[4] == "official":  # every pair in frozensets: seconds here
        checked = verify_values(store, config)
        assert checked["mismatches"] == 0 and checked["pairs_checked"] == len(reachable) ** 2
    # The progress total: the reachable stage and one types step per size from the start,
    # the pairs' levels once the types are known; every step counted, none twice.
    assert listener.totals[0] == 1 + len(config.characters)
    assert listener.totals[-1] == listener.ran
    status = ComputationStore.open(store, config.group_path()).status()
    per_size = [step["computed"]["types"] for step in status["steps"]
                if step["stage"] == "types"]
    expected = set_types(config.characters, config.max_literals, config.rules, config.types)
    assert per_size == expected.types_per_size[1:].tolist()


def test_stopped_run_resumes_from_stored_types(tmp_path, solved):
    """Stopped inside the types stage, then resumed in this process with the worker's kept
    types dropped (as a new process starts): the same stored tables as an unbroken run."""
    from subgame.storage import cache

    store, runs = solved
    config, _ = runs[0]
    path = str(tmp_path / "resumed.zarr")
    run_computation(config, RunOptions(path, executor="serial", max_steps=5))
    cache._entries.clear()  # what a fresh worker process holds: nothing
    run_computation(config, RunOptions(path, executor="serial"))
    done, again = (ComputationStore.open(url, config.group_path()) for url in (store, path))
    for spec in done.group.attrs["built_stages"]["pairs"]["arrays"]:
        assert np.array_equal(done.array(spec["path"])[...], again.array(spec["path"])[...])


def test_restored_types_equal_computed(solved):
    """TypeLevels.restore from each size's stored types rebuilds the representatives,
    pruned moves and preorders that add computed."""
    _, runs = solved
    for config, _ in runs.values():
        computed = set_types(config.characters, config.max_literals, config.rules,
                             config.types)
        levels = TypeLevels(config.characters, config.max_literals, config.rules,
                            config.types, computed.masks)
        for k in range(1, len(config.characters) + 1):
            lo, hi = levels.level(k)
            levels.restore(k, computed.set_type[lo:hi])
        restored = levels.family()
        for name in ("set_type", "sizes", "representative", "move_ptr", "move_children"):
            assert np.array_equal(getattr(restored, name), getattr(computed, name)), name
        with pytest.raises(ValueError, match="not the next"):
            levels.restore(1, computed.set_type[:1])


def test_dry_run_plans_the_later_stages(solved):
    """On sets every stage is foreseen (1 + 3 x non-empty levels under the official rules);
    on types the reachable and types stages, the pairs left to the run."""
    _, runs = solved
    config, _ = runs[0]
    on_sets = BoardConfig(board=config.board, max_literals=1)
    size = PlanSize.of(on_sets.plan())
    levels = len({int(a + b) for a in on_sets.set_family().sizes
                  for b in on_sets.set_family().sizes})
    assert size.later_stages == () and size.steps == 1 + 3 * levels and size.bytes > 0
    size = PlanSize.of(config.plan())
    assert size.steps == 1 + len(config.characters) and size.later_stages == ("pairs",)
    result = CliRunner().invoke(build_app(), [
        "run", "guess-who-board", "--board", config.board, "--max-literals", "1",
        "--dry-run", "--store", "unused.zarr"])
    assert result.exit_code == 0, result.output
    assert f"steps {1 + 3 * levels}," in result.output and "unknown" not in result.output


def test_too_many_types_refused_then_resumed(tmp_path, solved):
    """--max-sets on types bounds the types, known once the types stage has run: the pairs
    stage is refused in one message, the types stay, and a larger --max-sets resumes."""
    from dataclasses import replace

    from subgame.errors import InvalidInput

    store, runs = solved
    config, _ = runs[1]
    path = str(tmp_path / "refused.zarr")
    with pytest.raises(InvalidInput, match="types, more than --max-sets 3 "):
        run_computation(replace(config, max_sets=3), RunOptions(path, executor="serial"))
    report = run_computation(config, RunOptions(path, executor="serial"))
    assert report.steps_skipped == 1 + len(config.characters)  # reachable and types kept
    done, again = (ComputationStore.open(url, config.group_path()) for url in (store, path))
    for spec in done.group.attrs["built_stages"]["pairs"]["arrays"]:
        assert np.array_equal(done.array(spec["path"])[...], again.array(spec["path"])[...])
