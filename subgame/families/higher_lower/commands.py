"""`subgame query|plot higher-lower`."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from subgame.commands.common import (JsonOption, OutOption, StoreOption, console, emit,
                                     user_errors)
from subgame.errors import InvalidInput
from subgame.families.higher_lower import read as stored
from subgame.storage import resolve_store


@user_errors
def query(n: Annotated[Optional[int], typer.Option("--n", min=1, help="Deck size.")] = None,
          asymptotics: Annotated[bool, typer.Option(
              "--asymptotics", help="Extrapolated limits of the ratio and the streak.")] = False,
          ranks: Annotated[Optional[int], typer.Option("--ranks", min=1)] = None,
          suits: Annotated[Optional[int], typer.Option("--suits", min=1)] = None,
          ties: Annotated[str, typer.Option("--ties")] = "loss",
          policy: Annotated[str, typer.Option("--policy")] = "optimal",
          store: StoreOption = None, as_json: JsonOption = False) -> None:
    """P_all(n) (float and exact), the count n! P_all(n), the expected streak; or limits;
    or a deck's exact and Monte Carlo odds."""
    url = resolve_store(store)
    if asymptotics:
        result = stored.asymptotics(url)
    elif n is not None:
        result = stored.query_n(url, n)
    elif ranks is not None and suits is not None:
        result = stored.query_deck(url, ranks, suits, ties, policy.replace("-", "_"))
    else:
        raise InvalidInput("give --n, --asymptotics, or --ranks and --suits")
    emit(result, as_json, lambda r: console.print_json(data=r))


@user_errors
def plot(out: OutOption = "figures",
         store: StoreOption = None, as_json: JsonOption = False) -> None:
    """P_all(n) on a log scale with the fitted exponential, and the ratio against n."""
    from subgame.families.higher_lower.figures import sweep_figures

    table = stored.sweep(resolve_store(store))
    files = sweep_figures(table, out)
    emit({"files": files}, as_json, lambda r: console.print("\n".join(r["files"])))
