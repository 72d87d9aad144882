"""The registry: every family the house knows, by name. The only module outside a family's
folder that names families. More families load from modules listed in $SUBGAME_FAMILIES
(comma-separated), each defining ``FAMILY``: a family can live outside the package.

``LISTED`` is what the command lines' listings (`subgame --help`, `subgame query --help`...)
show of each built-in family, so that they import none of its modules (which bring numba
and Zarr): the family's summary (its `run` command and its tools' group) and each verb's
first sentence, as its command declares them (tests/test_cli_imports.py holds them equal);
a family's command is built when a command line reaches it."""

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
LISTED = {
    "guess-who": {
        "summary": "Exact Guess Who tables (O'Neill) with optimal move sets.",
        "query": "Win probability (exact), F, G and optimal moves of state (n, m); or the fair "
                 "states.",
        "plot": "Heatmaps of the win probability, first-mover and game-state advantage, both "
                "rules.",
        "verify": "Check the stored variant-rules table against the paper's Theorems 1-3 "
                  "(Theorem 3 with its erratum corrected, reported as a note), every state.",
        "export": "Every stored state (n, m): a, p exactly (p_numerator / p_denominator) and "
                  "the optimal move set, one row per state."},
    "gops": {
        "summary": "Every GOPS subgame: values and optimal mixed bids.",
        "query": "Value, per-upcard values and both players' mixed bids of any subgame (V, Y, "
                 "P), under win also of the points so far (--diff).",
        "plot": "Heatmap of the opening strategy (upcard x bid): the paper's parity effect "
                "shows.",
        "export": "A level's values f, one row per stored (deck, pattern) (and difference, "
                  "under win).",
        "tools": True},
    "higher-lower": {
        "summary": "Higher/lower: P_all(n) over deck sizes; r x s decks exactly and by Monte "
                   "Carlo.",
        "query": "P_all(n) (float and exact), the count n! P_all(n), the expected streak; or "
                 "limits; or a deck's exact and Monte Carlo odds.",
        "plot": "P_all(n) on a log scale with the fitted exponential, and the ratio against n "
                "with its limit.",
        "export": "The distinct-card sweep, one row per deck size (exact counts in decimal); "
                  "or every deck sweep's grid points (--decks).",
        "tools": True},
    "clue": {
        "summary": "Generalized Clue: tournaments of deduction strategies over a grid of "
                   "players, hand sizes and hidden cards; exact inference at the table.",
        "query": "The leaderboard of one grid point: rank counts, first places, wrong guesses, "
                 "mean guess round per strategy.",
        "plot": "First-place share per strategy over the grid (one heatmap per strategy and h), "
                "and guess round against accuracy for the history-mining players.",
        "export": "A tournament's leaderboards, one row per grid point and strategy.",
        "tools": True},
    "guess-who-board": {
        "summary": "Exact Guess Who on a real board (classic or CSV) with policies.",
        "query": "Exact win probability of the mover at (S, T), its optimal questions, the "
                 "closest-to-half question and the policies' values (default: the first move).",
        "plot": "Heatmaps of the real board's p(S, T) minus O'Neill's idealised p(|S|, |T|): "
                "the mean, the least and the largest over the reachable pairs of each pair of "
                "sizes.",
        "verify": "Check the stored values against a plain recursion over sets of names: every "
                  "pair on a small board, a random sample (one step over stored children) on a "
                  "large one."},
}
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
