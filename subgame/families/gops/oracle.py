"""What `subgame web` answers about GOPS beyond `query`: the whole matrix game at a state.

At (V, Y, P) with upcard P_k, player one bidding V_i and player two Y_l, the value after
the bids is X[i, l] = sign(V_i - Y_l) P_k + f(V - V_i, Y - Y_l, P - P_k) (under win the
child's difference so far moves by the round's points, and X is in P(win) - P(lose)). The
stored level below gives every f of the children; the stored level itself gives both
players' optimal mixes and f_k = x^T X y. Each bid's outcome is its row (column) of X
against the other player's mix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from subgame.errors import InvalidInput, NotComputed
from subgame.families.gops import game as gops
from subgame.families.gops.commands import parse_cards
from subgame.families.gops.plan import check_objective
from subgame.families.gops.read import opened, query_state
from subgame.family import Oracle
from subgame.storage import ComputationStore, resolve_store

MAX_CARDS = 20  # a request's hands hold at most this many cards (N = 14 is the largest solved)


def child_values(store: ComputationStore, objective: str, refs: list[gops.StateRef],
                 diffs: list[int]) -> np.ndarray:
    """f of each child state (all of one level), read from the stored level in one
    coordinate selection: only the chunks holding them."""
    level = refs[0].level
    if level == 0:  # the game is over: nothing more to win (points), the score decides (win)
        return np.sign(np.array(diffs, float)) if objective == "win" else np.zeros(len(refs))
    if not store.step_done(level - 1):
        raise NotComputed(f"level j={level} of {store.group_path} is not computed yet")
    values = store.array(f"j{level}/values")
    found = np.array([float(np.sign(d)) for d in diffs])
    read = [i for i, ref in enumerate(refs) if not ref.saturated]
    if read:
        where = [[refs[i].p_rank for i in read], [refs[i].pattern for i in read]]
        if objective != "points":  # the difference axis holds d + diff_max
            diff_max = (values.shape[1] - 1) // 2
            where.insert(1, [refs[i].diff + diff_max for i in read])
        stored = values.get_coordinate_selection(tuple(np.array(w) for w in where))
        found[read] = stored * np.array([refs[i].sign for i in read])
    return found


def payoffs(store: ComputationStore, cards: int, hand: list[int], opponent: list[int],
            prizes: list[int], objective: str, diff: int) -> dict[int, np.ndarray]:
    """Per upcard, X[i, l] over the bids of the sorted hands."""
    children, rounds, moves = [], [], []
    for k in prizes:
        for v in hand:
            for y in opponent:
                won = int(np.sign(v - y)) * k
                rest = [c for c in prizes if c != k]
                child_diff = diff + won if objective == "win" else 0
                children.append(gops.locate(cards, [c for c in hand if c != v],
                                            [c for c in opponent if c != y], rest, child_diff))
                rounds.append(won)
                moves.append(child_diff)
    values = child_values(store, objective, children, moves)
    if objective == "points":
        values = values + np.array(rounds, float)
    j = len(prizes)
    return {k: values[i * j * j:(i + 1) * j * j].reshape(j, j) for i, k in enumerate(prizes)}


def matrix_game(cards: int, hand: str, opponent: str, prizes: str, objective: str = "points",
                diff: int = 0, store: str | None = None) -> dict[str, Any]:
    """Every upcard's matrix game at (V, Y, P): the value after each pair of bids, both
    players' optimal mixes (stored; solved here where the level stores none), each bid's
    outcome against the other's mix, and f_k."""
    check_objective(objective)
    if not 1 <= cards <= MAX_CARDS:
        raise InvalidInput(f"cards must be in 1..{MAX_CARDS}, got {cards}")
    sets = [sorted(parse_cards(f"--{name}", text))
            for name, text in (("hand", hand), ("opponent", opponent), ("prizes", prizes))]
    url = resolve_store(store)
    state = query_state(url, cards, *sets, None, objective, diff)
    matrices = payoffs(opened(url, cards, objective), cards,
                       *sets, objective, diff)
    rounds = []
    for k, X in matrices.items():
        if state["bids"] is not None:
            mixes = state["bids"][str(k)]
            x = np.array([mixes["player_one"][str(c)] for c in sets[0]])
            y = np.array([mixes["player_two"][str(c)] for c in sets[1]])
            source = "stored"
        else:
            _, x, y, _ = gops.solve_matrix_game(X)
            source = "solved here from the stored level below"
        rounds.append({"upcard": k, "payoffs": X.tolist(), "player_one": x.tolist(),
                       "player_two": y.tolist(), "strategies": source,
                       "value": float(x @ X @ y),
                       "player_one_outcomes": (X @ y).tolist(),
                       "player_two_outcomes": (x @ X).tolist()})
    return {"cards": cards, "hand": sets[0], "opponent": sets[1], "prizes": sets[2],
            "objective": objective, "diff": diff, "value": state["value"],
            "upcard_values": state["upcard_values"], "tolerance": state["tolerance"],
            "rounds": rounds}


ORACLE = Oracle(answers={"matrix-game": matrix_game},
                script=str(Path(__file__).with_name("web.js")))
