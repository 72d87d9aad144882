"""The registry: every family the house knows, by name. The only module outside a family's
folder that names families. More families load from modules listed in $SUBGAME_FAMILIES
(comma-separated), each defining ``FAMILY``: a family can live outside the package.

``LISTED`` is what the command lines' listings (`subgame --help`, `subgame query --help`...)
show of each built-in family: its package's ``HELP``, where the family's summary (its `run`
command, its tools' group) and each verb's help (the first paragraph of the verb's command,
`subgame.family.documented`) are written once. A family's package holds nothing else that
runs, so a listing imports none of the family's modules (which bring numba and Zarr); a
family's command is built when a command line reaches it."""

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
LISTED = {name: importlib.import_module(module.rpartition(".")[0]).HELP
          for name, module in REGISTRY.items()}
PLUGINS_ENV = "SUBGAME_FAMILIES"


def plugin_modules() -> list[str]:
    return [m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip()]


def _loaded(modules: list[str]) -> dict[str, Family]:
    found = {}
    for module in modules:
        try:
            family: Family = importlib.import_module(module).FAMILY
        except (ImportError, AttributeError) as exc:  # only a listed plugin can fail here
            raise InvalidInput(f"cannot load the family module {module!r} named in "
                               f"${PLUGINS_ENV}: {exc}") from None
        found[family.name] = family
    return found


def all_families() -> dict[str, Family]:
    return _loaded([*REGISTRY.values(), *plugin_modules()])


def plugins() -> dict[str, Family]:
    """The families $SUBGAME_FAMILIES names (a command line lists them as they load)."""
    return _loaded(plugin_modules())


def get(name: str) -> Family:
    if name in REGISTRY:  # a built-in: import its module alone
        return importlib.import_module(REGISTRY[name]).FAMILY
    families = all_families()
    if name not in families:
        raise InvalidInput(f"no family {name!r}; known: {', '.join(sorted(families))}")
    return families[name]
