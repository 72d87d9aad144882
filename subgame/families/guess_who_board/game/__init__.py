"""Guess Who on real boards: the pure mathematics, no Prefect, Dask or Zarr.

- board: characters, descriptions {trait: bool}, one player's board (the seed exercise);
- wie_is_het: the exercise's own API, Personage, Spelbord and product, as it names them;
- boards: the classic board and board CSV files;
- reachable (stage 1): the reachable sets of standing characters and their moves, for
  questions of at most d literals;
- solve (stage 2): a(S, T) = |S||T| p(S, T) for every pair of reachable sets, level by level
  in |S| + |T|, shardable by ranges of positions within a level;
- policies: the seed's "closest to half" rule and binary search on single traits, evaluated
  exactly against the optimal player and against themselves.
"""

from .board import Board, Character, cartesian_power, description, product, satisfies
from .boards import DISPUTED_CELLS, classic_characters, load_board, parse_board
from .policies import (OPPONENTS, PolicyValues, closest_to_half_moves, evaluate_policy,
                       most_balanced_trait_moves, policy_pairs)
from .reachable import (RULES, UNLIMITED, SetFamily, identifiable_characters,
                        question_sets, reachable_sets)
from .solve import PairIndex, PairValues, Solution, solve_all, solve_pairs
from .wie_is_het import Personage, Spelbord

__all__ = [
    "Board", "Character", "cartesian_power", "description", "product", "satisfies",
    "DISPUTED_CELLS", "classic_characters", "load_board", "parse_board",
    "OPPONENTS", "PolicyValues", "closest_to_half_moves", "evaluate_policy",
    "most_balanced_trait_moves", "policy_pairs",
    "RULES", "UNLIMITED", "SetFamily", "identifiable_characters", "question_sets",
    "reachable_sets",
    "PairIndex", "PairValues", "Solution", "solve_all", "solve_pairs",
    "Personage", "Spelbord",
]
