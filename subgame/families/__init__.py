"""The registry: every family the house knows, by name. The only module outside a family's
folder that names families. More families load from modules listed in $SUBGAME_FAMILIES
(comma-separated), each defining ``FAMILY``: a family can live outside the package."""

from __future__ import annotations

import importlib
import os

from subgame.errors import InvalidInput
from subgame.family import Family

REGISTRY = {
    "guess-who": "subgame.families.guess_who.family",
    "gops": "subgame.families.gops.family",
    "higher-lower": "subgame.families.higher_lower.family",
    "clue": "subgame.families.clue.family",
    "guess-who-board": "subgame.families.guess_who_board.family",
}
PLUGINS_ENV = "SUBGAME_FAMILIES"


def modules() -> list[str]:
    extra = [m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip()]
    return [*REGISTRY.values(), *extra]


def all_families() -> dict[str, Family]:
    found = {}
    for module in modules():
        try:
            family: Family = importlib.import_module(module).FAMILY
        except (ImportError, AttributeError) as exc:  # only a listed plugin can fail here
            raise InvalidInput(f"cannot load the family module {module!r} named in "
                               f"${PLUGINS_ENV}: {exc}") from None
        found[family.name] = family
    return found


def get(name: str) -> Family:
    if name in REGISTRY:  # a built-in: import its module alone
        return importlib.import_module(REGISTRY[name]).FAMILY
    families = all_families()
    if name not in families:
        raise InvalidInput(f"no family {name!r}; known: {', '.join(sorted(families))}")
    return families[name]
