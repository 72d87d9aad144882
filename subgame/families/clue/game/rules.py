"""Sizes of a Generalized Clue game and the checks on them.

N cards numbered 1..N; h of them are set aside hidden, the other N - h are dealt evenly to
p players, k = (N - h) / p each.  A grid point is given as (p, k, h), so N = p k + h.

The core player's bound: it learns the owner of one more card on each of its own turns,
and there are N - k - h cards outside its hand and the hidden pile, so it knows the hidden
cards after (N - k - h) of its turns, that is after (N - k - h) p rounds at most (a round
is one turn of one player, the seed's usage).  The default round limit is twice that.
"""

from __future__ import annotations

from dataclasses import dataclass

from subgame.errors import InvalidInput, check_int


@dataclass(frozen=True)
class GameSize:
    """N cards, h hidden, p players holding k cards each."""

    cards: int
    hidden: int
    players: int

    @property
    def per_player(self) -> int:
        return (self.cards - self.hidden) // self.players

    @property
    def core_bound(self) -> int:
        """Rounds after which the core player is sure of the hidden cards: (N - k - h) p."""
        return (self.cards - self.per_player - self.hidden) * self.players

    @property
    def default_round_limit(self) -> int:
        return 2 * self.core_bound


def game_size(cards: int, hidden: int, players: int) -> GameSize:
    """The size (N, h, p) after checking that N - h splits into p non-empty hands."""
    cards = check_int("cards", cards, 2)
    hidden = check_int("hidden", hidden, 1, cards - 1)
    players = check_int("players", players, 2)
    if (cards - hidden) % players:
        raise InvalidInput(f"{cards} cards less {hidden} hidden do not split evenly "
                           f"into {players} hands")
    if cards - hidden < players:
        raise InvalidInput(f"{cards - hidden} cards cannot give each of {players} players a card")
    return GameSize(cards, hidden, players)


def grid_point(players: int, per_player: int, hidden: int) -> GameSize:
    """The size of grid point (p, k, h): N = p k + h, with p >= 2, k >= 1, h >= 1."""
    players = check_int("players", players, 2)
    per_player = check_int("cards per player", per_player, 1)
    hidden = check_int("hidden cards", hidden, 1)
    return GameSize(players * per_player + hidden, hidden, players)
