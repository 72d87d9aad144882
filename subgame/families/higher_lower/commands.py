"""`subgame query|plot higher-lower`."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

import typer

from subgame.commands.common import (JsonOption, OutOption, StoreOption, console, emit,
                                     result_command, user_errors)
from subgame.errors import InvalidInput
from subgame.families.higher_lower import game as hl
from subgame.families.higher_lower import read as stored
from subgame.storage import resolve_store

POLICY_NAMES = tuple(policy.replace("_", "-") for policy in hl.POLICIES)  # as typed


def answer(n: Annotated[Optional[int], typer.Option("--n", min=1, help="Deck size.")] = None,
           asymptotics: Annotated[bool, typer.Option(
               "--asymptotics", help="Extrapolated limits of the ratio and the streak.")] = False,
           ranks: Annotated[Optional[int], typer.Option(
               "--ranks", min=1, help="A deck's ranks (with --suits: its odds).")] = None,
           suits: Annotated[Optional[int], typer.Option(
               "--suits", min=1, help="A deck's suits: cards of each rank.")] = None,
           ties: Annotated[Literal[hl.TIES], typer.Option(
               "--ties", help="What guessing an equal rank does: lose, or pass.")] = "loss",
           policy: Annotated[Literal[POLICY_NAMES], typer.Option(
               "--policy", help="The guessing policy.")] = "optimal",
           store: StoreOption = None) -> dict:
    """P_all(n) (float and exact), the count n! P_all(n), the expected streak; or limits;
    or a deck's exact and Monte Carlo odds."""
    url = resolve_store(store)
    if asymptotics:
        return stored.asymptotics(url)
    if n is not None:
        return stored.query_n(url, n)
    if ranks is not None and suits is not None:
        return stored.query_deck(url, ranks, suits, ties, policy.replace("-", "_"))
    raise InvalidInput("give --n, --asymptotics, or --ranks and --suits")


query = result_command(answer, lambda r: console.print_json(data=r))


def table(decks: Annotated[bool, typer.Option(
              "--decks", help="The deck sweeps' grid points instead of the distinct "
                              "sweep.")] = False,
          store: StoreOption = None):
    """The distinct-card sweep, one row per deck size (exact counts in decimal); or every
    deck sweep's grid points (--decks)."""
    url = resolve_store(store)
    return stored.deck_table(url) if decks else stored.sweep_table(url)


@user_errors
def plot(out: OutOption = "figures",
         store: StoreOption = None, as_json: JsonOption = False) -> None:
    """P_all(n) on a log scale with the fitted exponential, and the ratio against n."""
    from subgame.families.higher_lower.figures import sweep_figures

    table = stored.sweep(resolve_store(store))
    files = sweep_figures(table, out)
    emit({"files": files}, as_json, lambda r: console.print("\n".join(r["files"])))
