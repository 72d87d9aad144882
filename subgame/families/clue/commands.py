"""`subgame query|plot clue` and the table tool `subgame clue infer`."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer
from rich import box
from rich.table import Table

from subgame.commands.common import (JsonOption, OutOption, StoreOption, console, emit,
                                     result_command, user_errors)
from subgame.errors import SEED_MAX
from subgame.exact import counted
from subgame.families.clue import HELP, read as stored
from subgame.families.clue.game import infer_view
from subgame.families.clue.plan import joined, parse_lineup
from subgame.family import documented
from subgame.inputs import read_json
from subgame.storage import resolve_store

LineupOption = Annotated[Optional[str], typer.Option(
    "--lineup", metavar="<text>", help="The tournament's line-up, when the store holds several.")]
SeedOption = Annotated[Optional[int], typer.Option(
    "--seed", min=0, max=SEED_MAX, metavar="<int>", help="The tournament's seed, when the store holds several.")]


def _lineup(text: str | None) -> str | None:
    return None if text is None else joined(parse_lineup(text))


@documented(HELP["query"])
def answer(players: Annotated[int, typer.Option("--players", help="Players p.")],
           cards_per_player: Annotated[int, typer.Option("--cards-per-player",
                                                         help="Cards k per hand.")],
           hidden: Annotated[int, typer.Option("--hidden", help="Hidden cards h.")],
           lineup: LineupOption = None, seed: SeedOption = None,
           store: StoreOption = None) -> dict[str, Any]:
    return stored.leaderboard(resolve_store(store), players, cards_per_player, hidden,
                              _lineup(lineup), seed)


def _interval(row: dict[str, Any], rate: str, digits: int) -> str:
    """'0.633 (0.588-0.676)': the rate and its 95 % interval (Wilson: not symmetric)."""
    if row[rate] is None:
        return "-"
    low, high = row[f"{rate}_low"], row[f"{rate}_high"]
    spread = "" if low is None else f" ({low:.{digits}f}-{high:.{digits}f})"
    return f"{row[rate]:.{digits}f}{spread}"


def _plus_minus(row: dict[str, Any], rate: str) -> str:
    """'1.48±0.07': a mean and the half-width of its (symmetric) t interval."""
    if row[rate] is None:
        return "-"
    low = row[f"{rate}_low"]
    return f"{row[rate]:.2f}" + ("" if low is None else f"±{row[rate] - low:.2f}")


def _versus(name: str, comparison: dict[str, Any]) -> str:
    if name == comparison["leader"]:
        return "leader"
    other = comparison["others"].get(name)
    if other is None or other["p_holm"] is None:
        return "-"
    return f"{other['p_holm']:.1g} {'<' if other['distinguishable'] else '='}"


def _render_leaderboard(r: dict[str, Any]) -> None:
    """Strategies by first share, best first, every rate with its 95 % interval, and the
    Holm-adjusted p-value of the paired comparison with the leader; 80 columns hold it
    with the longest strategy name whole."""
    table = Table(title=f"Clue p={r['players']}, k={r['per_player']}, h={r['hidden']} "
                        f"(N={r['cards']}): {counted(r['deals'], 'deal')}, "
                        f"{counted(r['games'], 'game')} ({r['seating']} seating), line-up "
                        f"{r['lineup']}, seed {r['seed']}",
                  box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1, 0, 0))
    for column in ("strategy", "first share (95 %)", "vs leader", "mean rank",
                   "wrong (95 %)"):
        table.add_column(column, no_wrap=True)
    for name, row in sorted(r["strategies"].items(),
                            key=lambda item: -(item[1]["first_share"] or 0)):
        table.add_row(name, _interval(row, "first_share", 3), _versus(name, r["comparison"]),
                      _plus_minus(row, "mean_rank"), _interval(row, "wrong_rate", 2))
    console.print(table)
    console.print("vs leader: Holm-adjusted p of a paired t test of the first shares over "
                  "the same deals; < below the leader at 95 %, = not distinguishable.")


query = result_command(answer, _render_leaderboard)


@documented(HELP["export"])
def table(lineup: LineupOption = None, seed: SeedOption = None, store: StoreOption = None):
    return stored.tournament_table(resolve_store(store), _lineup(lineup), seed)


@user_errors
@documented(HELP["plot"])
def plot(out: OutOption = "figures",
         lineup: LineupOption = None, seed: SeedOption = None,
         store: StoreOption = None, as_json: JsonOption = False) -> None:
    from subgame.families.clue.figures import first_share_maps, guess_accuracy

    tournament = stored.only(stored.tournaments(resolve_store(store), _lineup(lineup), seed),
                             "a finished tournament")
    files = [*first_share_maps(tournament, out), guess_accuracy(tournament, out)]
    emit({"files": files}, as_json, lambda r: console.print("\n".join(r["files"])))


@user_errors
def infer_command(game: Annotated[str, typer.Option(
                      "--game", metavar="<json>", help="One player's view of a game, as JSON (see docs/clue.md).")],
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
