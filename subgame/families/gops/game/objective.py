"""The two objectives, and the difference axis that the win objective adds to a level.

points    f = expected point difference; a state is (V, Y, P)
win       f = P(win) - P(lose); a state is (V, Y, P, d), d the points so far (one minus two)

Under win, T = N(N+1)/2 is the total of the prizes.  A deck P's states are computed for
|d| <= reach(P) = min(sum(P), T - sum(P)) (beyond sum(P) the game is decided, beyond
T - sum(P) it is unreachable), and level j stores d in [-diff_max, diff_max],
diff_max = max over the decks P of j cards of reach(P).
"""

from __future__ import annotations

import numpy as np

OBJECTIVES = ("points", "win")


def deck_reach(n_cards: int, decks: np.ndarray, objective: str) -> np.ndarray:
    """Per deck row, the largest |d| whose states are computed: min(sum(P), T - sum(P))
    under win (larger |d| is saturated or unreachable), 0 under points."""
    if objective == "points":
        return np.zeros(decks.shape[0], np.int64)
    sums = decks.astype(np.int64).sum(axis=1)
    return np.minimum(sums, n_cards * (n_cards + 1) // 2 - sums)


def diff_max(n_cards: int, j: int, objective: str) -> int:
    """Half-width of level j's difference axis (0 under points)."""
    if objective == "points":
        return 0
    total = n_cards * (n_cards + 1) // 2
    low = j * (j + 1) // 2  # sum(P) runs over every integer between its extremes
    high = j * (2 * n_cards - j + 1) // 2
    middle = min(max(total // 2, low), high)
    return max(min(s, total - s) for s in {low, high, middle})
