"""The server's role of the Speed Clue protocol: matches between launched agents.

The launch file is the contest's (core/entries.txt): one command a line, the agent's
identifier in braces (the braces are dropped when launching), ``%%`` for the server's port,
the words split at spaces.  Every agent is launched, then must connect to 127.0.0.1 on the
port and say ``{identifier} alive`` within ``timeout`` seconds; it answers each message
within ``timeout`` seconds too (by default the contest's 10 s).

With p agents (3..6) the seat orders (``seat_order``) cycle so that every p games in a
row seat each agent once in each seat, and p! games give every seat order once; it deals game g from ``random.Random(f"deal {seed} {g}")``.  An agent that
breaks the rules or the protocol is disqualified: the game in progress does not count and
the tournament stops (``Disqualified``, naming it), keeping the games recorded before.

Results go to a ``ResultFile`` (``results``): one line a game, written as it ends, so a
stopped tournament resumes where it stopped.
"""

from __future__ import annotations

import random
import re
import socket
import subprocess
from dataclasses import dataclass
from itertools import permutations
from pathlib import Path
from typing import Callable

from subgame.errors import InvalidInput
from subgame.families.clue.game.standard import Accused, Rules, Suggested, standard_rules
from subgame.families.clue.game.standard_match import RuleBroken, play_match

from . import grammar as g
from .wire import Wire

TIMEOUT = 10.0
_IDENTIFIER = re.compile(r"\{([^}]+)\}")


@dataclass(frozen=True)
class Agent:
    identifier: str
    command: str

    def argv(self, port: int) -> list[str]:
        return _IDENTIFIER.sub(self.identifier, self.command).replace("%%", str(port)).split(" ")


def read_agents(path: str) -> list[Agent]:
    """The agents of a launch file: 3 to 6 lines, each with a distinct {identifier}."""
    try:
        lines = [line.strip() for line in Path(path).read_text().splitlines()]
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read the agents file {path!r}: {exc}") from None
    agents = []
    for number, line in enumerate(lines, 1):
        if not line:
            continue
        m = _IDENTIFIER.search(line)
        if not m or "%%" not in line:
            raise InvalidInput(f"{path}:{number}: a launch line needs an {{identifier}} and %% "
                               f"for the port: {line!r}")
        if any(a.identifier == m[1] for a in agents):
            raise InvalidInput(f"{path}:{number}: identifier {m[1]!r} is used twice")
        if not re.fullmatch(r"[!-~]+", m[1]):
            raise InvalidInput(f"{path}:{number}: identifier {m[1]!r} must be printable ASCII "
                               "without spaces")
        agents.append(Agent(m[1], line))
    if not 3 <= len(agents) <= 6:
        raise InvalidInput(f"{path}: {len(agents)} agents; a game has 3 to 6 players")
    return agents


class Disqualified(InvalidInput):
    def __init__(self, identifier: str, reason: str):
        self.identifier, self.reason = identifier, reason
        super().__init__(f"agent {identifier!r} is disqualified: {reason}")


class RemoteSeat:
    """An agent as a ``standard_match.Seat``: every answer checked against the grammar."""

    def __init__(self, identifier: str, wire: Wire):
        self.name, self.wire = identifier, wire
        self.seat = -1

    def ask(self, text: str, parse: Callable[[str], object]):
        try:
            self.wire.send(text)
            return parse(self.wire.receive())
        except InvalidInput as exc:     # ProtocolError, PeerGone
            raise RuleBroken(self.seat, str(exc)) from None

    def reset(self, rules: Rules, seat: int, hand: tuple[int, ...]) -> None:
        self.seat = seat
        self.ask(g.reset_text(g.Reset(rules.players, seat, hand)), lambda t: g.parse_word(t, "ok"))

    def suggest(self) -> tuple[int, ...]:
        return self.ask("suggest", g.parse_suggest)

    def disprove(self, suggester: int, cards: tuple[int, ...]) -> int:
        return self.ask(f"disprove {suggester} {g.triple(cards)}", g.parse_show)

    def suggestion(self, event: Suggested) -> None:
        self.ask(g.suggestion_text(g.Suggestion(event.suggester, event.cards, event.disprover,
                                                event.card)), lambda t: g.parse_word(t, "ok"))

    def accuse(self) -> tuple[int, ...] | None:
        return self.ask("accuse", g.parse_accuse)

    def accusation(self, event: Accused) -> None:
        self.ask(g.accusation_text(g.Accusation(event.seat, event.cards, event.correct)),
                 lambda t: g.parse_word(t, "ok"))


class Table:
    """The launched agents, connected; ``close`` says ``done`` and ends the processes."""

    def __init__(self, agents: list[Agent], port: int, timeout: float = TIMEOUT):
        self.agents, self.processes, self.seats = agents, [], {}
        try:
            self.listener = socket.create_server(("127.0.0.1", port))
        except OSError as exc:
            raise InvalidInput(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
        self.port = self.listener.getsockname()[1]
        self.listener.settimeout(timeout)
        try:
            for agent in agents:
                try:
                    self.processes.append(subprocess.Popen(
                        agent.argv(self.port), stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                except OSError as exc:
                    raise InvalidInput(f"cannot launch agent {agent.identifier!r}: "
                                       f"{exc.strerror or exc}") from None
            names = [a.identifier for a in agents]
            while len(self.seats) < len(agents):
                try:
                    conn, _ = self.listener.accept()
                except TimeoutError:
                    missing = [n for n in names if n not in self.seats]
                    raise InvalidInput(f"agent(s) {', '.join(map(repr, missing))} did not "
                                       f"connect within {timeout:g} s") from None
                conn.settimeout(timeout)
                wire = Wire(conn)
                try:
                    identifier = g.parse_alive(wire.receive(), names)
                except InvalidInput as exc:
                    wire.close()
                    raise InvalidInput(f"a connection did not introduce itself: {exc}") from None
                if identifier in self.seats:
                    raise Disqualified(identifier, "connected twice")
                self.seats[identifier] = RemoteSeat(identifier, wire)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        for seat in self.seats.values():
            try:
                seat.ask("done", lambda t: g.parse_word(t, "dead"))
            except RuleBroken:
                pass    # closing: an agent that does not say "dead" is ended below anyway
            seat.wire.close()
        self.listener.close()
        for process in self.processes:
            try:
                process.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@dataclass(frozen=True)
class GameRecord:
    game: int
    order: tuple[str, ...]
    winner: int
    rounds: int


def seat_order(agents: list[str], game: int) -> tuple[str, ...]:
    """Game g: the (g // p mod (p-1)!)-th order of the agents with the first agent in seat 0
    (lexicographic), turned g mod p seats round.  Each p games in a row seat every agent
    once in every seat, and p! games play every seat order once."""
    p = len(agents)
    bases = list(permutations(agents[1:]))
    base = (agents[0], *bases[game // p % len(bases)])
    turn = game % p
    return base[turn:] + base[:turn]


def deal_rng(seed: int, game: int) -> random.Random:
    return random.Random(f"deal {seed} {game}")


def play_games(table: Table, first: int, games: int, seed: int,
               record: Callable[[GameRecord], None]) -> None:
    """Games first..games-1, each recorded as it ends."""
    names = [a.identifier for a in table.agents]
    rules = standard_rules(len(names))
    for game in range(first, games):
        order = seat_order(names, game)
        seats = [table.seats[n] for n in order]
        try:
            result = play_match(seats, rules, deal_rng(seed, game))
        except RuleBroken as exc:
            raise Disqualified(order[exc.seat], exc.reason) from None
        record(GameRecord(game, order, result.winner, result.rounds))
