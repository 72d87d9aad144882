"""A subgame player in a Speed Clue server's game (the player's side of protocol.md).

``play(wire, identifier, player)`` says ``{identifier} alive``, then answers the server's
messages until ``done``.  Besides the grammar it checks that each message comes in turn:
``suggest`` and ``accuse`` only to the active seat, ``disprove`` only about the active
seat's suggestion to a seat holding more than one of its cards, a ``suggestion`` or an
``accusation`` only from the active seat, nothing but ``reset`` or ``done`` outside a
game.  A message out of turn or outside the grammar raises ``ProtocolError``.
"""

from __future__ import annotations

from typing import Callable

from subgame.families.clue.game.standard import Accused, Suggested, standard_rules
from subgame.families.clue.game.standard_match import Seat

from . import grammar as g
from .wire import Wire


class _Game:
    """One game's turn order as this seat follows it."""

    def __init__(self, message: g.Reset):
        self.players, self.seat, self.hand = message.players, message.seat, set(message.hand)
        self.active, self.out, self.phase = 0, set(), "suggest"
        self.suggested: tuple[int, ...] = ()

    def advance(self) -> None:
        """After the active seat's suggestion (and accusation), the turn moves on."""
        if self.phase in ("accuse", "accused"):
            following = (self.active + 1) % self.players
            while following in self.out and following != self.active:
                following = (following + 1) % self.players
            self.active, self.phase = following, "suggest"


def play(wire: Wire, identifier: str, new_player: Callable[[], Seat]) -> int:
    """Play until ``done``; the number of games played."""
    wire.send(f"{identifier} alive")
    game, player, games = None, None, 0
    while True:
        text = wire.receive()
        message = g.parse_server(text)
        if isinstance(message, g.Bare) and message.word == "done":
            wire.send("dead")
            return games
        if isinstance(message, g.Reset):
            if message.seat >= message.players or len(message.hand) != \
                    standard_rules(message.players).hand_sizes[message.seat]:
                raise g.ProtocolError(text, "a seat of the game and a hand of its size")
            game, player, games = _Game(message), new_player(), games + 1
            player.reset(standard_rules(message.players), message.seat, message.hand)
            wire.send("ok")
            continue
        if game is None:
            raise g.ProtocolError(text, "'reset' or 'done' before a game")
        wire.send(_answer(game, player, message, text))


def _answer(game: _Game, player: Seat, message, text: str) -> str:
    if isinstance(message, g.Bare) and message.word == "suggest":
        game.advance()
        if game.active != game.seat or game.phase != "suggest":
            raise g.ProtocolError(text, "'suggest' on this seat's turn only")
        game.phase, game.suggested = "suggested", player.suggest()
        return f"suggest {g.triple(game.suggested)}"
    if isinstance(message, g.Disprove):
        game.advance()
        held = game.hand.intersection(message.cards)
        if message.suggester != game.active or game.phase not in ("suggest", "suggested") \
                or len(held) < 2 or message.suggester == game.seat:
            raise g.ProtocolError(text, "'disprove' of the active seat's suggestion to a "
                                        "seat holding two of its cards or more")
        return f"show {g.code(player.disprove(message.suggester, message.cards))}"
    if isinstance(message, g.Suggestion):
        game.advance()
        mine = game.seat in (message.suggester, message.disprover)
        if message.suggester != game.active or message.disprover == message.suggester \
                or (message.disprover is not None and message.disprover >= game.players) \
                or (message.card is not None) != (mine and message.disprover is not None) \
                or (game.phase != "suggested") == (message.suggester == game.seat) \
                or (message.suggester == game.seat and message.cards != game.suggested):
            raise g.ProtocolError(text, "the active seat's 'suggestion' (this seat's as it "
                                        "made it), with the card shown to or by this seat only")
        game.phase = "accuse"
        player.suggestion(Suggested(message.suggester, message.cards, message.disprover,
                                    message.card))
        return "ok"
    if isinstance(message, g.Bare) and message.word == "accuse":
        if game.active != game.seat or game.phase != "accuse":
            raise g.ProtocolError(text, "'accuse' after this seat's suggestion only")
        game.phase = "accused"
        cards = player.accuse()
        return "-" if cards is None else f"accuse {g.triple(cards)}"
    if isinstance(message, g.Accusation):
        if message.seat != game.active or game.phase not in ("accuse", "accused"):
            raise g.ProtocolError(text, "an 'accusation' of the active seat after its "
                                        "suggestion")
        if not message.correct:
            game.out.add(message.seat)
        game.phase = "accused"
        player.accusation(Accused(message.seat, message.cards, message.correct))
        return "ok"
    raise g.ProtocolError(text, "a message in turn")
