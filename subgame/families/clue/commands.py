"""`subgame query|plot clue` and the table tool `subgame clue infer`."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer
from rich.table import Table

from subgame.commands.common import (JsonOption, OutOption, StoreOption, console, emit,
                                     result_command, user_errors)
from subgame.errors import InvalidInput
from subgame.exact import counted
from subgame.families.clue import read as stored
from subgame.families.clue.game import infer_view
from subgame.families.clue.plan import joined, parse_lineup
from subgame.inputs import read_json
from subgame.storage import resolve_store

LineupOption = Annotated[Optional[str], typer.Option(
    "--lineup", help="The tournament's line-up, when the store holds several.")]
SeedOption = Annotated[Optional[int], typer.Option(
    "--seed", help="The tournament's seed, when the store holds several.")]


def _lineup(text: str | None) -> str | None:
    return None if text is None else joined(parse_lineup(text))


def answer(players: Annotated[int, typer.Option("--players", help="Players p.")],
           cards_per_player: Annotated[int, typer.Option("--cards-per-player",
                                                         help="Cards k per hand.")],
           hidden: Annotated[int, typer.Option("--hidden", help="Hidden cards h.")],
           lineup: LineupOption = None, seed: SeedOption = None,
           store: StoreOption = None) -> dict[str, Any]:
    """The leaderboard of one grid point: rank counts, first places, wrong guesses, mean
    guess round per strategy."""
    return stored.leaderboard(resolve_store(store), players, cards_per_player, hidden,
                              _lineup(lineup), seed)


def _render_leaderboard(r: dict[str, Any]) -> None:
    table = Table(title=f"Clue p={r['players']}, k={r['per_player']}, h={r['hidden']} "
                        f"(N={r['cards']}): {counted(r['games'], 'game')}, line-up {r['lineup']}, "
                        f"seed {r['seed']}")
    for column in ("strategy", "first", "first share", "wrong", "mean guess round",
                   "ranks 1..p"):
        table.add_column(column)
    for name, row in sorted(r["strategies"].items(), key=lambda item: -item[1]["first"]):
        share, rounds = row["first_share"], row["mean_guess_round"]
        table.add_row(name, str(row["first"]), "-" if share is None else f"{share:.3f}",
                      str(row["wrong"]), "-" if rounds is None else f"{rounds:.1f}",
                      " ".join(map(str, row["ranks"])))
    console.print(table)


query = result_command(answer, _render_leaderboard)


def table(lineup: LineupOption = None, seed: SeedOption = None, store: StoreOption = None):
    """A tournament's leaderboards, one row per grid point and strategy."""
    return stored.tournament_table(resolve_store(store), _lineup(lineup), seed)


@user_errors
def plot(out: OutOption = "figures",
         lineup: LineupOption = None, seed: SeedOption = None,
         store: StoreOption = None, as_json: JsonOption = False) -> None:
    """First-place share per strategy over the grid (one heatmap per strategy and h), and
    guess round against accuracy for the history-mining players."""
    from subgame.families.clue.figures import first_share_maps, guess_accuracy

    tournament = stored.only(stored.tournaments(resolve_store(store), _lineup(lineup), seed),
                             "a finished tournament")
    files = [*first_share_maps(tournament, out), guess_accuracy(tournament, out)]
    emit({"files": files}, as_json, lambda r: console.print("\n".join(r["files"])))


@user_errors
def infer_command(game: Annotated[str, typer.Option(
                      "--game", help="One player's view of a game, as JSON (see docs/clue.md).")],
                  as_json: JsonOption = False) -> None:
    """P(hidden) per card and the most probable hidden set(s), by exact counting of the
    deals consistent with the view."""
    result = infer_view(read_json(game))

    def render(r: dict[str, Any]) -> None:
        table = Table(title=f"{r['deals']} consistent deals")
        table.add_column("card")
        table.add_column("P(hidden)")
        for card, p in r["p_hidden"].items():
            table.add_row(card, p)
        console.print(table)
        sets = ", ".join("{" + ", ".join(map(str, s)) + "}" for s in r["best"])
        console.print(f"most probable hidden set(s): {sets} with probability {r['p_best']}")

    emit(result, as_json, render)
