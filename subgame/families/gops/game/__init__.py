"""GOPS, the Game of Pure Strategy (Rhoads & Bartholdi), solved level by level.

cards        prize decks as ranks in the combinatorial number system
patterns     interleaving patterns of the two hands, swaps, children
matrix_game  compiled value and optimal strategies of a small matrix game
level        a level's layout, its shards and the compiled shard kernel
query        explicit card sets <-> stored entries
"""

from .level import (LevelLayout, ShardResult, level_layout, payoff_matrices, shard_ranges,
                    shard_rows, solve_levels, solve_shard)
from .matrix_game import solve_matrix_game, solve_matrix_games
from .query import StateAnswer, StateRef, answer, locate

__all__ = [
    "LevelLayout", "ShardResult", "StateAnswer", "StateRef", "answer", "level_layout",
    "locate", "payoff_matrices", "shard_ranges", "shard_rows", "solve_levels", "solve_matrix_game",
    "solve_matrix_games", "solve_shard",
]
