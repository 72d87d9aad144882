"""Guess Who (O'Neill, "Optimal guessing in Guess Who"): exact solution of every state.

State (n, m): the player to move has n characters left on his board, the waiting player m.
p(n, m) is the mover's win probability under optimal play by both, a(n, m) = n m p(n, m)
is an integer.  Official rules (I): the final guess s = 0 wins if right and loses if
wrong; any other question keeps s of the n characters or the other n - s.  Variant rules
(II): naming one character (s = 1) wins if right and otherwise only removes it.

``kernel`` fills the int64 table a band of levels at a time and reports the optimal-move
sets; ``analysis`` turns the table into probabilities, first-mover and game-state
advantages and fair states; ``closed_forms`` holds the paper's Theorems 1-3 for the variant
rules.  Pure: no I/O, no Prefect, Dask or Zarr.
"""

from subgame.families.guess_who.game.analysis import (
    advantage_tables,
    fair_states,
    first_mover_advantage,
    game_state_advantage,
    probability_table,
    win_probability,
)
from subgame.families.guess_who.game.closed_forms import (
    corollary1,
    corollary2,
    corrected_theorem3,
    remark_a,
    remark_powers_of_two,
    remark_win_probability,
    star,
    variant_theorem1,
    variant_theorem2,
    variant_theorem3,
    white_star,
)
from subgame.families.guess_who.game.kernel import MAX_N, RULES, BandMoves, new_table, solve_band

__all__ = [
    "MAX_N",
    "RULES",
    "BandMoves",
    "advantage_tables",
    "corollary1",
    "corollary2",
    "corrected_theorem3",
    "fair_states",
    "first_mover_advantage",
    "game_state_advantage",
    "new_table",
    "probability_table",
    "remark_a",
    "remark_powers_of_two",
    "remark_win_probability",
    "solve_band",
    "star",
    "variant_theorem1",
    "variant_theorem2",
    "variant_theorem3",
    "white_star",
    "win_probability",
]
