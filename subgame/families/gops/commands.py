"""`subgame query|plot gops`."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.table import Table

from subgame.commands.common import JsonOption, StoreOption, console, emit, user_errors
from subgame.errors import InvalidInput
from subgame.families.gops import read as stored
from subgame.families.gops.plan import CardsOption
from subgame.storage import resolve_store



def parse_cards(option: str, text: str) -> list[int]:
    """'1,5,9' -> [1, 5, 9]; anything else is a clear error."""
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InvalidInput(f"{option} must be a comma-separated list of card numbers, "
                           f"got {text!r}") from None


@user_errors
def query(cards: CardsOption,
          hand: Annotated[Optional[str], typer.Option("--hand", help="Player one's cards, e.g. 1,5,9.")] = None,
          opponent: Annotated[Optional[str], typer.Option("--opponent", help="Player two's cards.")] = None,
          prizes: Annotated[Optional[str], typer.Option("--prizes", help="Prize cards left.")] = None,
          upcard: Annotated[Optional[int], typer.Option("--upcard", help="Only this upcard.")] = None,
          first_move: Annotated[bool, typer.Option(
              "--first-move", help="The opening strategy table (upcard x bid).")] = False,
          store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Value, per-upcard values and both players' mixed bids of any subgame (V, Y, P)."""
    url = resolve_store(store)
    if first_move:
        result = stored.first_move(url, cards)
        emit(result, as_json, _render_first_move)
        return
    if hand is None or opponent is None or prizes is None:
        raise InvalidInput("give --hand, --opponent and --prizes (or --first-move)")
    result = stored.query_state(url, cards, parse_cards("--hand", hand),
                                parse_cards("--opponent", opponent),
                                parse_cards("--prizes", prizes), upcard)

    def render(r: dict) -> None:
        console.print(f"f(V={r['hand']}, Y={r['opponent']}, P={r['prizes']}) = "
                      f"{r['value']:.12g}  (tolerance {r['tolerance']:g})")
        for k, value in r["upcard_values"].items():
            console.print(f"  upcard {k}: f_k = {value:.12g}")
            if r["bids"] is not None:
                for player, bids in r["bids"][k].items():
                    mixed = ", ".join(f"{c}: {q:.4f}" for c, q in bids.items() if q > 0)
                    console.print(f"    {player} bids {mixed}")

    emit(result, as_json, render)


def _render_first_move(r: dict) -> None:
    table = Table(title=f"GOPS N={r['cards']}: opening bid probabilities (value {r['value']:.3g})")
    table.add_column("upcard")
    for bid in r["bids"]:
        table.add_column(str(bid))
    for upcard, row in zip(r["upcards"], r["probability"]):
        table.add_row(str(upcard), *(f"{q:.3f}" if q else "." for q in row))
    console.print(table)


@user_errors
def plot(cards: CardsOption,
         out: Annotated[str, typer.Option("--out", help="Folder for the PNG file.")] = "figures",
         store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Heatmap of the opening strategy (upcard x bid): the paper's parity effect shows."""
    import numpy as np

    from subgame.plotting import heatmap

    table = stored.first_move(resolve_store(store), cards)
    path = heatmap(np.array(table["probability"]), title=f"GOPS N={cards}: first-move bids",
                   xlabel="bid", ylabel="upcard", colorbar="probability",
                   path=f"{out}/gops_N{cards}_first_move.png",
                   xticks=table["bids"], yticks=table["upcards"])
    emit({"files": [path]}, as_json, lambda r: console.print(r["files"][0]))
