"""`subgame clue connect` and `subgame clue host`: the Speed Clue contest's protocol."""

from __future__ import annotations

import re
import socket
from typing import Annotated, Any, Optional

import typer
from rich import box
from rich.table import Table

from subgame.commands.common import JsonOption, console, emit, user_errors
from subgame.errors import InvalidInput, check_int
from subgame.families.clue.game.standard_players import PLAYERS

PortOption = Annotated[int, typer.Option("--port", help="The server's TCP port on 127.0.0.1.")]


def _player_factory(name: str, seed: int):
    if name not in PLAYERS:
        raise InvalidInput(f"unknown player {name!r}; known: {', '.join(PLAYERS)}")
    games = iter(range(seed, 2 ** 62))
    return lambda: PLAYERS[name](seed=next(games))


@user_errors
def connect_command(identifier: Annotated[str, typer.Option(
                        "--identifier", metavar="<text>", help="The identifier the server launched this agent with.")],
                    port: PortOption,
                    player: Annotated[str, typer.Option(
                        "--player", metavar="<name>", help="The subgame player: core, exact, random, exact-0.5.")] = "exact",
                    seed: Annotated[int, typer.Option(
                        "--seed", help="Seed of the player's draws (game i uses seed + i).")] = 0) -> None:
    """Play a subgame player in a Speed Clue server's games until it says done."""
    from subgame.families.clue.speedclue.client import play
    from subgame.families.clue.speedclue.wire import Wire

    if not re.fullmatch(r"[!-~]+", identifier):
        raise InvalidInput(f"identifier {identifier!r} must be printable ASCII without spaces")
    port = check_int("port", port, 1, 65535)
    new_player = _player_factory(player, seed)
    try:
        sock = socket.create_connection(("127.0.0.1", port))
    except OSError as exc:
        raise InvalidInput(f"no Speed Clue server on 127.0.0.1:{port}: "
                           f"{exc.strerror or exc}") from None
    wire = Wire(sock)
    try:
        play(wire, identifier, new_player)
    finally:
        wire.close()


def _render(r: dict[str, Any]) -> None:
    table = Table(title=f"Speed Clue: {r['games']} games", box=box.SIMPLE_HEAD, show_edge=False)
    for column in ("agent", "games", "wins", "win share (95 %)"):
        table.add_column(column, no_wrap=True)
    for name, row in sorted(r["agents"].items(), key=lambda item: -(item[1]["share"] or 0)):
        share = "-" if row["share"] is None else \
            f"{row['share']:.3f} ({row['share_low']:.3f}-{row['share_high']:.3f})"
        table.add_row(name, str(row["games"]), str(row["wins"]), share)
    console.print(table)


@user_errors
def host_command(port: PortOption,
                 agents: Annotated[str, typer.Option(
                     "--agents", metavar="<file>", help="The contest's launch file: one command a line, the "
                                      "identifier in braces, %% for the port.")],
                 games: Annotated[int, typer.Option("--games", help="Games to play in all.")],
                 seed: Annotated[int, typer.Option("--seed", help="Seed of the deals.")] = 0,
                 timeout: Annotated[float, typer.Option(
                     "--timeout", help="Seconds an agent has to connect and to answer each "
                                       "message (the contest's: 10).")] = 10.0,
                 store: Annotated[Optional[str], typer.Option(
                     "--store", metavar="<file>", help="Results file (JSON lines); a rerun resumes it.")] = None,
                 as_json: JsonOption = False) -> None:
    """Host Speed Clue games between the agents of a launch file (the server's role) and
    print every agent's win share with its 95 % interval."""
    from subgame.families.clue.speedclue.host import Table as AgentTable, play_games, read_agents
    from subgame.families.clue.speedclue.results import ResultFile, win_shares

    port = check_int("port", port, 0, 65535)
    games = check_int("games", games, 1)
    seed = check_int("seed", seed, 0)
    if not 0 < timeout < float("inf"):
        raise InvalidInput(f"--timeout must be positive seconds, not {timeout}")
    lineup = read_agents(agents)
    results = ResultFile(store, lineup, seed)
    if len(results.records) < games:
        results.start()
        table = AgentTable(lineup, port, timeout)
        try:
            play_games(table, len(results.records), games, seed, results.append)
        finally:
            table.close()
    emit(win_shares(results.records[:games]), as_json, _render)
