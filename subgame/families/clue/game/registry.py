"""Strategy names -> new players: each game needs fresh player objects."""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from subgame.errors import InvalidInput

from .engine import Player
from .exact_player import ExactPlayer
from .players import (ConditionalPlayer, CorePlayer, Group2Player, HistoryPlayer,
                      LeastAskedPlayer, PaddedCorePlayer, RandomPlayer, WeightedAsker,
                      WeightedPlayer)

STRATEGIES: dict[str, Callable[[], Player]] = {
    "core": CorePlayer,
    "padded-core": PaddedCorePlayer,
    "weighted-uniform": lambda: WeightedPlayer("uniform"),
    "weighted-geometric": lambda: WeightedPlayer("geometric"),
    "weighted-inverse": lambda: WeightedPlayer("inverse"),
    "weighted-asker": WeightedAsker,
    "conditional": ConditionalPlayer,
    "history-1/2": lambda: HistoryPlayer(Fraction(1, 2)),
    "history-2/3": lambda: HistoryPlayer(Fraction(2, 3)),
    "least-asked": LeastAskedPlayer,
    "group2": Group2Player,
    "random": RandomPlayer,
    "exact": ExactPlayer,
    "exact-0.9": lambda: ExactPlayer(threshold=Fraction(9, 10)),
}


def new_player(name: str) -> Player:
    try:
        return STRATEGIES[name]()
    except KeyError:
        raise InvalidInput(f"unknown strategy {name!r}; known: {', '.join(STRATEGIES)}") from None
