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


def child_values(store: ComputationStore, objective: str, child: gops.Children,
                 after: np.ndarray) -> np.ndarray:
    """f of every child [k, i, l] (see `gops.Children`), under win at the differences
    ``after`` [k, i, l]: read from the stored level below in one selection, each block
    that holds some read once."""
    if child.level == 0:  # the game is over: nothing more to win (points), the score decides
        return np.sign(after).astype(float) if objective == "win" else np.zeros(after.shape)
    if not store.step_done(child.level - 1):
        raise NotComputed(f"level j={child.level + 1} of {store.group_path} is not computed "
                          f"yet")
    path = f"j{child.level}/values"
    rows = np.broadcast_to(child.p_rank[:, None, None], after.shape)
    patterns = np.broadcast_to(child.pattern, after.shape)
    sign = np.broadcast_to(child.sign, after.shape)
    if objective == "points":
        return sign * store.points(path, np.stack([rows, patterns], -1).reshape(-1, 2)
                                   ).reshape(after.shape)
    found = np.sign(after).astype(float)  # a saturated child: |d'| > sum(P - P_k)
    read = np.abs(after) <= child.left[:, None, None]
    diff_max = (store.array(path).shape[1] - 1) // 2  # the difference axis holds d + diff_max
    where = np.stack([rows[read], sign[read] * after[read] + diff_max, patterns[read]], -1)
    found[read] = sign[read] * store.points(path, where)
    return found


def payoffs(store: ComputationStore, cards: int, hand: list[int], opponent: list[int],
            prizes: list[int], objective: str, diff: int) -> dict[int, np.ndarray]:
    """Per upcard, X[i, l] over the bids of the sorted hands."""
    child = gops.children(cards, hand, opponent, prizes)
    won = child.duel[None, :, :] * np.array(prizes)[:, None, None]  # [k, i, l]
    if objective == "win":
        return dict(zip(prizes, child_values(store, objective, child, diff + won)))
    return dict(zip(prizes, won + child_values(store, objective, child, np.zeros_like(won))))


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
