"""subgame's stored GOPS equilibria for OpenSpiel (the ``openspiel`` extra): the equilibrium
as an OpenSpiel policy, and any OpenSpiel policy or bot measured exactly against it."""

from .states import game_parameters, load_game, observe
from .stored import StoredEquilibrium, policy

__all__ = ["StoredEquilibrium", "game_parameters", "load_game", "observe", "policy"]
