"""`subgame query|plot|verify guess-who`."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.table import Table

from subgame.commands.common import (JsonOption, OutOption, StoreOption, console, emit,
                                     user_errors)
from subgame.errors import InvalidInput
from subgame.families.guess_who import read as stored
from subgame.storage import resolve_store

RuleOption = Annotated[str, typer.Option("--rules", help="official or variant.")]


def _rule(rules: str) -> str:
    if rules not in ("official", "variant"):
        raise InvalidInput(f"unknown rules {rules!r}; choose official or variant")
    return rules


@user_errors
def query(n: Annotated[Optional[int], typer.Option("--n", min=1, help="Moving player's count.")] = None,
          m: Annotated[Optional[int], typer.Option("--m", min=1, help="Waiting player's count.")] = None,
          rules: RuleOption = "official",
          fair: Annotated[bool, typer.Option("--fair", help="List the fair states instead.")] = False,
          store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Win probability (exact), F, G and optimal moves of state (n, m); or the fair states."""
    url, rule = resolve_store(store), _rule(rules)
    if fair:
        result = stored.fair_states(url, rule)
        emit(result, as_json, lambda r: console.print(
            f"fair states ({rule} rules, n, m <= {r['max_n']}): "
            + ", ".join(f"({a}, {b})" for a, b in r["fair_states"])))
        return
    if n is None or m is None:
        raise InvalidInput("give both --n and --m (or --fair)")
    result = stored.query_state(url, n, m, rule)

    def render(r: dict) -> None:
        table = Table(title=f"Guess Who state ({n}, {m}), {rule} rules")
        table.add_column("quantity")
        table.add_column("value")
        for key in ("a", "p", "p_float", "F", "G"):
            table.add_row(key, str(r[key]))
        moves = r["optimal_moves"]
        table.add_row("optimal s", f"{moves['min']}..{moves['max']} ({moves['count']} moves)")
        table.add_row("final guess optimal", str(moves["final_guess_optimal"]))
        console.print(table)

    emit(result, as_json, render)


@user_errors
def plot(out: OutOption = "figures",
         store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Heatmaps of the win probability, first-mover and game-state advantage, both rules."""
    from subgame.plotting import heatmap

    url, written = resolve_store(store), []
    titles = {"p": ("win probability p(n, m)", False), "F": ("first-mover advantage F", True),
              "G": ("game-state advantage G", True)}
    for rule in ("official", "variant"):
        maps = stored.probability_maps(url, rule)
        edge = maps["covered"] + 0.5
        for key, (title, diverging) in titles.items():
            written.append(heatmap(
                maps[key], title=f"Guess Who, {rule} rules: {title}",
                xlabel="m (waiting player's characters)", ylabel="n (moving player's characters)",
                colorbar=key, path=f"{out}/guess_who_{rule}_{key}.png",
                extent=(0.5, edge, 0.5, edge), diverging=diverging))
    emit({"files": written}, as_json, lambda r: console.print("\n".join(r["files"])))


@user_errors
def verify(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Check the stored variant-rules table against the paper's Theorems 1-3, every state.

    Exits with status 1 when a theorem disagrees with the table somewhere."""
    result = stored.verify_variant(resolve_store(store))

    def render(r: dict) -> None:
        for name in ("theorem1", "theorem2", "theorem3"):
            check = r[name]
            verdict = "holds" if not check["mismatches"] else (
                f"{check['mismatches']} mismatches, e.g. (n, m) = "
                + ", ".join(f"({a}, {b})" for a, b in check["examples"]))
            console.print(f"{name} over {r['states']} states (n, m <= {r['max_n']}): {verdict}",
                          soft_wrap=True)

    emit(result, as_json, render)
    if any(result[name]["mismatches"] for name in ("theorem1", "theorem2", "theorem3")):
        raise typer.Exit(1)
