"""GOPS, the Game of Pure Strategy (Rhoads & Bartholdi), solved level by level.

cards        prize decks as ranks in the combinatorial number system
patterns     interleaving patterns of the two hands, swaps, children
matrix_game  compiled value and optimal strategies of a small matrix game
level        a level's layout, its shards and the compiled shard kernel (points and win)
lanes        the shard kernel on numpy, games side by side (small runs: no numba)
query        explicit card sets <-> stored entries
evaluate     policies evaluated exactly against a stored strategy, and their best response
"""

from .level import (OBJECTIVES, LevelLayout, ShardResult, level_layout, level_zero,
                    new_bases, payoff_matrices, previous_rows, shard_ranges, shard_rows,
                    solve_levels, solve_shard)
from .matrix_game import solve_matrix_game, solve_matrix_games
from .query import StateAnswer, StateRef, answer, locate, saturated_answer

__all__ = [
    "OBJECTIVES", "LevelLayout", "ShardResult", "StateAnswer", "StateRef", "answer",
    "level_layout", "level_zero", "locate", "new_bases", "payoff_matrices", "previous_rows",
    "saturated_answer",
    "shard_ranges", "shard_rows", "solve_levels", "solve_matrix_game", "solve_matrix_games",
    "solve_shard",
]
