"""The stored equilibrium of one computation at explicit states, and as an OpenSpiel policy
for both players."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from subgame.families.gops import game as gops
from subgame.families.gops import read

from .states import Seen, load_game, observe

_IN_MEMORY_BYTES = 1 << 28  # a level's strategies up to this size are read once, whole


class StoredEquilibrium:
    """Both players' stored optimal bids at (V, Y, P, d) and an upcard, from the computation
    of (cards, objective) in the store at ``url``; every level must store its strategies
    (NotComputed otherwise)."""

    def __init__(self, url: str, cards: int, objective: str):
        self.cards, self.objective = cards, objective
        self._level = read.strategy_levels(url, cards, objective)

    @lru_cache(maxsize=None)
    def _arrays(self, j: int) -> dict:
        stored = self._level(j)
        if stored.deck_bytes * stored.one.shape[0] <= _IN_MEMORY_BYTES:
            return {"strategies": np.asarray(stored.one[...]),
                    "strategies_two": np.asarray(stored.two[...])}
        return {"strategies": stored.one, "strategies_two": stored.two}

    @lru_cache(maxsize=1 << 20)
    def bids(self, seen: Seen) -> tuple[np.ndarray, np.ndarray]:
        """(player one's, player two's) probabilities over their hands, ascending."""
        v, y = seen.hands
        ref = gops.locate(self.cards, v, y, seen.prizes,
                          seen.diff if self.objective == "win" else 0)
        j = len(seen.prizes)
        if ref.saturated:  # decided whatever is bid: the stored bid is uniform
            return np.full(j, 1.0 / j), np.full(j, 1.0 / j)
        arrays = self._arrays(j)
        k = ref.upcards.index(seen.upcard)
        if self.objective == "points":
            where = (ref.p_rank, ref.pattern, k)
        else:  # the difference axis holds d + diff_max
            where = (ref.p_rank, ref.diff + (arrays["strategies"].shape[1] - 1) // 2,
                     ref.pattern, k)
        one, two = (np.asarray(arrays[name][where], np.float64)
                    for name in (ref.one_array, ref.two_array))
        return one / one.sum(), two / two.sum()  # float32 as stored: a distribution again


def policy(store: str, cards: int, objective: str = "points"):
    """An OpenSpiel policy (``open_spiel.python.policy.Policy``) over goofspiel's
    information states, both players playing the stored equilibrium of (cards,
    objective); it answers the states of goofspiel and of its turn-based form
    (``states.load_game``), whose game it carries."""
    from open_spiel.python.policy import Policy

    stored = StoredEquilibrium(store, cards, objective)

    class EquilibriumPolicy(Policy):
        """The stored equilibrium of GOPS N = cards under ``objective``."""

        def action_probabilities(self, state, player_id=None):
            player = state.current_player() if player_id is None else player_id
            seen = observe(state.information_state_string(player), cards)
            probabilities = stored.bids(seen)[player]
            return {card - 1: float(q) for card, q in zip(seen.hands[player], probabilities)}

    return EquilibriumPolicy(load_game(cards, objective), [0, 1])
