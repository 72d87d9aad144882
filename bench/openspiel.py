"""subgame.openspiel against OpenSpiel's own tree walks at one N, both on this run's
measurements: the numbers must agree, the times compare.

1. The stored equilibrium as a tabular policy (every information state of both players,
   read through ``subgame.openspiel.policy``): OpenSpiel's C++ ``pyspiel.nash_conv`` must
   be below 1e-6.
2. OpenSpiel's CFR after ``--iterations`` iterations: its exploitability by
   ``pyspiel.nash_conv`` / 2 and by subgame's walk (``subgame.openspiel.evaluate``),
   within 1e-9, with both walks' CPU seconds and their ratio.

    python bench/openspiel.py --store S --cards 4 [--objective points] [--iterations 3]

N = 4 takes seconds; at N = 5 OpenSpiel's nash_conv walks 1.7 million deals of bids, which
takes minutes and about 8 GB.

S must hold the equilibrium of (cards, objective) with every level's strategies
(`subgame run gops --cards N [--objective win] --store S`).
"""

from __future__ import annotations

import argparse
import resource
import time

import pyspiel

from subgame.openspiel import StoredEquilibrium, load_game, policy
from subgame.openspiel.evaluate import measure


def cpu() -> float:
    return time.process_time()


def tabular(game, agent) -> pyspiel.TabularPolicy:
    """``agent`` at every information state of both players, as OpenSpiel's C++ table."""
    table: dict = {}
    seen: set = set()

    def visit(state) -> None:
        if state.is_terminal():
            return
        if state.is_chance_node():
            for action, _ in state.chance_outcomes():
                visit(state.child(action))
            return
        key = state.information_state_string()
        # player two's subtree depends on player one's pending bid, which its key hides
        node = (key, state.history()[-1] if state.current_player() == 1 else None)
        if node in seen:
            return
        seen.add(node)
        table[key] = list(agent.action_probabilities(state).items())
        for action in state.legal_actions():
            visit(state.child(action))

    visit(game.new_initial_state())
    return pyspiel.TabularPolicy(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--cards", type=int, default=4)
    parser.add_argument("--objective", choices=("points", "win"), default="points")
    parser.add_argument("--iterations", type=int, default=3)
    args = parser.parse_args()
    game = load_game(args.cards, args.objective)
    stored = StoredEquilibrium(args.store, args.cards, args.objective)
    print(f"{game}", flush=True)

    start = cpu()
    table = tabular(game, policy(args.store, args.cards, args.objective))
    built = cpu() - start
    start = cpu()
    nash_conv = pyspiel.nash_conv(game, table)
    print(f"stored equilibrium: {table.size():,} information states (read in {built:.1f} CPU s);"
          f" OpenSpiel's nash_conv {nash_conv:.3e} in {cpu() - start:.1f} CPU s", flush=True)
    assert nash_conv < 1e-6

    solver = pyspiel.CFRSolver(game)
    start = cpu()
    for _ in range(args.iterations):
        solver.evaluate_and_update_policy()
    average = solver.tabular_average_policy()
    print(f"CFR, {args.iterations} iterations: {cpu() - start:.1f} CPU s", flush=True)
    start = cpu()
    theirs = pyspiel.nash_conv(game, average) / 2
    their_time = cpu() - start
    start = cpu()
    ours = measure(game, lambda state, player: average.action_probabilities(state), stored)
    our_time = cpu() - start
    print(f"CFR's exploitability: OpenSpiel {theirs:.12f} in {their_time:.1f} CPU s, subgame "
          f"{ours.openspiel_exploitability:.12f} in {our_time:.1f} CPU s "
          f"({their_time / our_time:.2f}x); difference "
          f"{abs(theirs - ours.openspiel_exploitability):.1e}; against the equilibrium "
          f"{ours.seat_one.value:+.6f} (seat one), {-ours.seat_two.value:+.6f} (seat two)")
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")
    assert abs(theirs - ours.openspiel_exploitability) < 1e-9


if __name__ == "__main__":
    main()
