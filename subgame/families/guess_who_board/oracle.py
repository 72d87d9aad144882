"""What `subgame web` answers about a real board beyond `query`: every question at a
position with the win probability it leads to, and which characters can be folded down.

At (S, T) the mover asking q leaves the opponent to move at (T, S∩q) or (T, S\\q), so it
wins with p = (|S||T| - a(T, S∩q) - a(T, S\\q)) / (|S||T|) (a variant naming move leaves
one branch won outright: it counts 0); the final guess wins with p = 1/|S| (official rules).
A request names a board as the query does; the web allows only the shipped classic board
unless its operator allows a board file (`subgame web --allow board=FILE`).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from subgame.errors import InvalidInput
from subgame.exact import fraction_text
from subgame.families.guess_who_board.commands import _config
from subgame.families.guess_who_board.game.reachable import NAMED
from subgame.families.guess_who_board.plan import CLASSIC, DEFAULT_MAX_SETS
from subgame.families.guess_who_board.read import open_board, query_pair, standing_set
from subgame.families.guess_who_board.tables import read_pairs
from subgame.family import Oracle
from subgame.storage import resolve_store


def questions(stored, s_id: int, t_id: int) -> list[dict[str, Any]]:
    """Every move of the mover at (S, T) with the probability it wins, best first."""
    family = stored.family
    sizes = family.sizes
    total = int(sizes[s_id] * sizes[t_id])
    moves = family.moves(s_id)
    found = []
    if len(moves):
        named = moves[:, 1] == NAMED
        opponent = np.full(len(moves), t_id)
        left = read_pairs(stored.store, stored.index, "a", opponent, moves[:, 0])
        right = np.where(named, 0, read_pairs(stored.store, stored.index, "a", opponent,
                                              np.where(named, moves[:, 0], moves[:, 1])))
        for move, a in enumerate((total - left - right).tolist()):
            found.append({"question": family.describe_move(s_id, move), "a": a,
                          "p": fraction_text(Fraction(a, total)), "p_float": a / total})
    if stored.config.rules == "official":
        found.append({"question": "final guess", "a": int(sizes[t_id]),
                      "p": fraction_text(Fraction(1, int(sizes[s_id]))),
                      "p_float": 1 / int(sizes[s_id])})
    return sorted(found, key=lambda q: -q["a"])


def foldable(family, set_id: int) -> list[str]:
    """The standing characters whose folding leaves a reachable set."""
    mask, found = int(family.masks[set_id]), []
    for name in family.names(mask):
        rest = mask & ~family.mask_of([name])
        try:
            if rest:
                family.id_of(rest)
                found.append(name)
        except InvalidInput:
            pass
    return found


def position(standing: str | None = None, opponent_standing: str | None = None,
             board: str = CLASSIC, max_literals: int = 1, rules: str = "official",
             max_sets: int = DEFAULT_MAX_SETS, store: str | None = None) -> dict[str, Any]:
    """The query's answer at (S, T) (default: the full board), every question with the
    probability it wins, the board's characters and the ones each side can fold down."""
    url, config = resolve_store(store), _config(board, max_literals, rules, max_sets)
    result = query_pair(url, config, standing, opponent_standing)
    stored = open_board(url, config)
    s_id = standing_set(stored, standing, "--standing")
    t_id = standing_set(stored, opponent_standing, "--opponent-standing")
    return {**result, "questions": questions(stored, s_id, t_id),
            "characters": [{"name": c.name, "traits": sorted(c.traits)}
                           for c in stored.family.characters],
            "foldable": foldable(stored.family, s_id),
            "opponent_foldable": foldable(stored.family, t_id)}


ORACLE = Oracle(answers={"position": position}, fixed={"board": (CLASSIC,)},
                script=str(Path(__file__).with_name("web.js")))
