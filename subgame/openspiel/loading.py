"""An agent to measure, from what ``--openspiel-policy`` names: a tabular policy file as
OpenSpiel writes it (``pyspiel.TabularPolicy.serialize()``), or a Python entry point
``module:attr`` naming a policy (``open_spiel.python.policy.Policy``, ``pyspiel.Policy``)
or a callable ``attr(game, player)`` that returns a policy or a bot for that seat."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

from subgame.errors import InvalidInput

from .evaluate import Bids

_DELIMITER = "<~>"  # OpenSpiel's TabularPolicy::Serialize default
_HEADER = "TabularPolicy:"


def _probability(text: str) -> float:
    """A probability as OpenSpiel writes it: a hexadecimal float, or a decimal one."""
    try:
        return float.fromhex(text)
    except ValueError:
        return float(text)


def read_tabular(text: str) -> dict[str, dict[int, float]]:
    """information state -> {action: probability} from ``TabularPolicy.serialize()``."""
    if not text.startswith(_HEADER):
        raise InvalidInput(f"not an OpenSpiel tabular policy (it does not start with "
                           f"{_HEADER!r})")
    parts = text[len(_HEADER):].split(_DELIMITER)
    if len(parts) % 2:
        raise InvalidInput("a truncated OpenSpiel tabular policy: an information state "
                           "without its actions")
    table = {}
    try:
        for key, actions in zip(parts[::2], parts[1::2]):
            table[key] = {int(a): _probability(q) for a, q in
                          (pair.split("=") for pair in actions.split(","))}
    except ValueError:
        raise InvalidInput(f"unreadable actions in the tabular policy at {key!r}") from None
    return table


def _tabular_bids(table: dict[str, dict[int, float]]) -> Bids:
    def bids(state, player: int) -> dict:
        key = state.information_state_string(player)
        if key not in table:
            raise InvalidInput(f"the tabular policy has no entry for the information state "
                               f"{key!r}")
        return table[key]

    return bids


def _agent_bids(agent) -> Bids | None:
    """Bids of a policy or bot object, None for anything else."""
    import pyspiel
    from open_spiel.python.policy import Policy

    if isinstance(agent, Policy):
        return agent.action_probabilities
    if isinstance(agent, pyspiel.Policy):
        return lambda state, player: dict(agent.action_probabilities(state))
    if callable(getattr(agent, "step", None)):  # a bot: its policy when it gives one, else its action
        if getattr(agent, "provides_policy", lambda: False)():
            return lambda state, player: dict(agent.step_with_policy(state)[0])
        return lambda state, player: {agent.step(state): 1.0}
    return None


def _entry_point(name: str, game) -> Bids:
    module_name, _, attr = name.partition(":")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # modules beside the user, as `python -m` finds them
    try:
        target = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise InvalidInput(f"--openspiel-policy {name}: cannot load it ({exc})") from None
    found = _agent_bids(target)
    if found is not None:
        return found
    if not callable(target):
        raise InvalidInput(f"--openspiel-policy {name} is neither a policy, a bot nor a "
                           f"callable (game, player) returning one")
    try:
        seats = [_agent_bids(target(game, player)) for player in (0, 1)]
    except Exception as exc:  # the user's code: its failure is the user's to fix
        raise InvalidInput(f"--openspiel-policy {name}(game, player) failed: {exc!r}") from None
    if None in seats:
        raise InvalidInput(f"--openspiel-policy {name}(game, player) returned neither a "
                           f"policy nor a bot")
    return lambda state, player: seats[player](state, player)


def _guarded(bids: Bids) -> Bids:
    """``bids`` with the agent's own failures reported as the user's, with the state."""
    def guarded(state, player: int) -> dict:
        try:
            return bids(state, player)
        except InvalidInput:
            raise
        except Exception as exc:
            raise InvalidInput(f"the agent failed at the information state "
                               f"{state.information_state_string(player)!r}: {exc!r}") from None

    return guarded


def load_bids(source: str, game) -> Bids:
    """The agent ``source`` names, as bids per (state, player) of ``game``."""
    path = Path(source)
    if path.is_file():
        return _tabular_bids(read_tabular(path.read_text()))
    if ":" in source:
        return _guarded(_entry_point(source, game))
    raise InvalidInput(f"--openspiel-policy {source!r} is neither a file nor a Python entry "
                       f"point module:attr")
