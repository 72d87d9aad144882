"""GOPS, the Game of Pure Strategy (Rhoads & Bartholdi), solved level by level.

cards        prize decks as ranks in the combinatorial number system
patterns     interleaving patterns of the two hands, swaps, children
matrix_game  compiled value and optimal strategies of a small matrix game
objective    the two objectives, and the difference axis that win adds to a level
level        a level's layout, its shards and the compiled shard kernel (points and win)
lanes        the shard kernel on numpy, games side by side (small runs: no numba)
query        explicit card sets <-> stored entries
evaluate     policies evaluated exactly against a stored strategy, and their best response
"""

from importlib import import_module

# Each name's module, imported where the name is first used: a query reads `query` alone,
# without the kernel's modules, which bring numba.
_MODULE = {
    **dict.fromkeys(("OBJECTIVES", "deck_reach", "diff_max"), "objective"),
    **dict.fromkeys(("WARM_SLOTS", "LevelLayout", "ShardResult", "level_layout", "level_zero",
                     "new_bases", "payoff_matrices", "previous_rows", "shard_ranges",
                     "shard_rows", "solve_levels", "solve_shard"), "level"),
    **dict.fromkeys(("solve_matrix_game", "solve_matrix_games"), "matrix_game"),
    **dict.fromkeys(("Children", "StateAnswer", "StateRef", "answer", "children", "locate",
                     "saturated_answer"), "query"),
}

__all__ = sorted(_MODULE)


def __getattr__(name: str):
    if name in _MODULE:
        value = globals()[name] = getattr(import_module(f".{_MODULE[name]}", __name__), name)
        return value  # kept as the module's own: the next look-up is an ordinary one
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_MODULE])
