"""`subgame query|plot gops`."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from subgame.commands.common import (JsonOption, OutOption, StoreOption, console, emit,
                                     result_command, user_errors)
from subgame.commands.text import print_files
from subgame.errors import SEED_MAX, InvalidInput, integer_text
from subgame.families.gops import HELP, read as stored
from subgame.families.gops.plan import CardsOption, ObjectiveOption
from subgame.family import documented
from subgame.storage import resolve_store

DiffOption = Annotated[int, typer.Option(
    "--diff", help="Win objective: points so far, player one minus player two.")]

def parse_cards(option: str, text: str) -> list[int]:
    """'1,5,9' -> [1, 5, 9]; anything else is a clear error."""
    try:
        return [integer_text(option, part.strip()) for part in text.split(",") if part.strip()]
    except InvalidInput:
        raise InvalidInput(f"{option} must be a comma-separated list of card numbers, "
                           f"got {text!r}") from None


@documented(HELP["query"])
def answer(cards: CardsOption,
           hand: Annotated[Optional[str], typer.Option(
               "--hand", help="Player one's cards, e.g. 1,5,9.")] = None,
           opponent: Annotated[Optional[str], typer.Option(
               "--opponent", help="Player two's cards.")] = None,
           prizes: Annotated[Optional[str], typer.Option(
               "--prizes", help="Prize cards left.")] = None,
           upcard: Annotated[Optional[int], typer.Option(
               "--upcard", help="Only this upcard.")] = None,
           first_move: Annotated[bool, typer.Option(
               "--first-move", help="The opening strategy table (upcard x bid).")] = False,
           objective: ObjectiveOption = "points", diff: DiffOption = 0,
           store: StoreOption = None) -> dict:
    url = resolve_store(store)
    if first_move:
        return stored.first_move(url, cards, objective)
    if hand is None or opponent is None or prizes is None:
        raise InvalidInput("give --hand, --opponent and --prizes (or --first-move)")
    return stored.query_state(url, cards, parse_cards("--hand", hand),
                              parse_cards("--opponent", opponent),
                              parse_cards("--prizes", prizes), upcard, objective, diff)


def _render(r: dict) -> None:
    if "probability" in r:
        _render_first_move(r)
        return
    d = f", d={r['diff']}" if "diff" in r else ""
    console.print(f"f(V={r['hand']}, Y={r['opponent']}, P={r['prizes']}{d}) = "
                  f"{r['value']:.12g}  (tolerance {r['tolerance']:g})")
    upcard_values = r["upcard_values"]
    if upcard_values is None:
        console.print("  f_k per upcard: not stored at this level (--upcard-values)")
    for k in upcard_values or r["bids"] or {}:
        console.print(f"  upcard {k}" +
                      (f": f_k = {upcard_values[k]:.12g}" if upcard_values else ":"))
        if r["bids"] is not None:
            for player, bids in r["bids"][k].items():
                mixed = ", ".join(f"{c}: {q:.4f}" for c, q in bids.items() if q > 0)
                console.print(f"    {player.replace('_', ' ')} bids {mixed}")


def probability_cell(q: float) -> str:
    """A bid probability in four characters: ".440", "1", "." for a bid never made and
    "+" for one below 0.0005 (so it is not read as never)."""
    if q == 0:
        return "."
    if q >= 0.9995:
        return "1"
    return f"{q:.3f}"[1:] if q >= 0.0005 else "+"


def _render_first_move(r: dict) -> None:
    objective = r.get("objective", "points")
    console.print(f"GOPS N={r['cards']}, {objective} objective: player one's opening bid "
                  f"probabilities, value {r['value']:.3g}", soft_wrap=True, highlight=False)
    console.print("(rows: the upcard; columns: the bid; '.': never, '+': below 0.0005)",
                  highlight=False)
    lines = ["upcard |" + "".join(f"{bid:>5}" for bid in r["bids"])]
    for upcard, row in zip(r["upcards"], r["probability"]):
        lines.append(f"{upcard:>6} |" + "".join(f"{probability_cell(q):>5}" for q in row))
    for line in lines:
        console.print(line, soft_wrap=True, highlight=False)


query = result_command(answer, _render)


@documented(HELP["export"])
def table(cards: CardsOption, objective: ObjectiveOption = "points",
          cards_left: Annotated[Optional[int], typer.Option(
              "--cards-left", help="The level j (default: N, the opening).")] = None,
          store: StoreOption = None):
    return stored.level_table(resolve_store(store), cards, objective, cards_left)


@user_errors
@documented(HELP["plot"])
def plot(cards: CardsOption,
         out: OutOption = "figures",
         objective: ObjectiveOption = "points",
         both: Annotated[bool, typer.Option(
             "--both-objectives", help="Points and win side by side in one figure (needs "
                                       "both stores; --objective is then not used).")] = False,
         store: StoreOption = None, as_json: JsonOption = False) -> None:
    from subgame.families.gops.figures import first_move_figure
    from subgame.plotting import save

    url = resolve_store(store)
    if both:
        from subgame.families.gops.game import OBJECTIVES

        tables = {name: stored.first_move(url, cards, name) for name in OBJECTIVES}
        name = f"gops_first_move_N{cards}.png"
    else:
        tables = {objective: stored.first_move(url, cards, objective)}
        suffix = "" if objective == "points" else f"_{objective}"
        name = f"gops_N{cards}{suffix}_first_move.png"
    path = save(first_move_figure(tables), out, name)
    emit({"files": [path]}, as_json, print_files)


@user_errors
def evaluate(cards: CardsOption, objective: ObjectiveOption = "points",
             policy: Annotated[Optional[list[str]], typer.Option(
                 "--policy", metavar="<policy>", help="match, random, upcard+1, greedy-rank, optimal-points, "
                                  "optimal-win (repeat; default: all)")] = None,
             openspiel_policy: Annotated[Optional[str], typer.Option(
                 "--openspiel-policy", metavar="<file or module:attr>", help="An OpenSpiel agent instead: a tabular policy "
                                            "file (TabularPolicy.serialize()) or a Python "
                                            "entry point module:attr naming a policy or a "
                                            "bot (docs/openspiel.md).")] = None,
             markov: Annotated[bool, typer.Option(
                 "--markov", help="With --openspiel-policy: the agent looks only at the "
                                  "hands, prizes, upcard (and d under win), so the walk "
                                  "visits each such state once.")] = False,
             store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Policies of player one evaluated exactly against the stored optimal player two:
    expected points, P(win/tie/lose), exploitability (a best response's gain)."""
    from subgame.families.gops.game.evaluate import POLICIES

    if openspiel_policy is not None:
        _evaluate_openspiel(resolve_store(store), cards, objective, openspiel_policy, markov,
                            policy, as_json)
        return
    if markov:
        raise InvalidInput("--markov goes with --openspiel-policy")
    result = stored.evaluate_policies(resolve_store(store), cards, objective,
                                      list(policy or POLICIES))

    def render(r: dict) -> None:
        from rich.table import Table  # rich is for the text output alone

        table = Table(title=f"GOPS N={r['cards']}: policies against the {r['objective']}-"
                            f"optimal player two (exploitability in {r['exploitability_in']})")
        for column in ("policy", "E\\[points]", "P(win)", "P(tie)", "P(lose)", "exploitability"):
            table.add_column(column)
        for row in r["policies"]:
            table.add_row(row["policy"], f"{row['expected_points']:+.4f}",
                          *(f"{row[key]:.4f}" for key in ("p_win", "p_tie", "p_lose")),
                          f"{row['exploitability']:.4f}")
        console.print(table)
        console.print(f"Against {r['equilibrium']}.")

    emit(result, as_json, render)


def _evaluate_openspiel(url: str, cards: int, objective: str, source: str, markov: bool,
                        policy: Optional[list[str]], as_json: bool) -> None:
    from subgame.openspiel.report import measure_agent

    if policy:
        raise InvalidInput("--policy and --openspiel-policy exclude each other")
    result = measure_agent(url, cards, objective, source, markov)

    def render(r: dict) -> None:
        from rich.table import Table  # rich is for the text output alone

        table = Table(title=f"GOPS N={r['cards']}: {r['policy']} against the stored "
                            f"{r['objective']} equilibrium (in {r['units']})")
        for column in ("seat", "value", "best response's gain"):
            table.add_column(column)
        for seat in ("as_player_one", "as_player_two"):
            table.add_row(seat.replace("_", " "), f"{r[seat]['value']:+.6f}",
                          f"{r[seat]['best_response_gain']:.6f}")
        console.print(table)
        console.print(f"NashConv {r['nash_conv']:.9g}, exploitability {r['exploitability']:.9g}; "
                      f"in OpenSpiel's returns {r['openspiel_exploitability']:.9g}. "
                      f"{r['nodes']:,} {r['walk']} walked a seat.")

    emit(result, as_json, render)


@user_errors
def play(cards: CardsOption, objective: ObjectiveOption = "points",
         seed: Annotated[Optional[int], typer.Option("--seed", min=0, max=SEED_MAX, metavar="<int>",
                                                     help="Seed of the prizes and "
                                                     "the machine's bids.")] = None,
         store: StoreOption = None) -> None:
    """Play against the stored optimal strategy: one bid per line on stdin (q quits, n
    starts a new game)."""
    import sys

    from subgame.families.gops.plan import check_objective
    from subgame.families.gops.play import InputEnded, play_session

    check_objective(objective)
    try:
        play_session(resolve_store(store), cards, objective, seed, sys.stdin,
                     lambda text: console.print(text, highlight=False, soft_wrap=True))
    except InputEnded as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        typer.echo("interrupted: the game is abandoned and cannot be resumed (nothing is "
                   "stored); `subgame gops play` starts a new one", err=True)
        raise typer.Exit(130) from None
