"""What a player knows for certain about who holds which card.

``status[o][c]`` is +1 when player o is known to hold card c, -1 when it is known not to,
0 when unknown (index 0 is unused: cards are 1..N).  ``not_hidden[c]`` marks cards known to
be held by some player whose identity may be unknown.  Every new fact is closed at once
under:

* a card held by one player is held by no other;
* a player known to hold k cards holds nothing else;
* a player with exactly k cards it may hold holds all of them;
* a card known not to be hidden that only one player may hold is that player's.

Counters per player and per card make each rule a constant-time check; a row or column
is scanned only when its rule fires.
"""

from __future__ import annotations

HOLDS, LACKS = 1, -1


class CardTable:
    def __init__(self, cards: int, hidden: int, players: int, per_player: int):
        self.cards, self.hidden, self.players, self.per_player = cards, hidden, players, per_player
        self.status = [[LACKS] + [0] * cards for _ in range(players)]
        self.held_count = [0] * players
        self.possible_count = [cards] * players         # cards the player may hold
        self.possible_holders = [0] + [players] * cards  # players that may hold the card
        self.holder = [None] * (cards + 1)
        self.not_hidden = [True] + [False] * cards
        self._rows: list[int] = []
        self._columns: list[int] = []

    # facts
    def holds(self, player: int, card: int) -> None:
        if self.status[player][card] == 0:
            self._set(player, card, HOLDS)
            self._settle()

    def lacks(self, player: int, cards) -> None:
        row = self.status[player]
        for c in cards:
            if row[c] == 0:
                self._set(player, c, LACKS)
        self._settle()

    def reveal(self, player: int, hand) -> None:
        for c in hand:
            self.holds(player, c)
        self.lacks(player, range(1, self.cards + 1))

    def owned_by_someone(self, cards) -> None:
        for c in cards:
            if not self.not_hidden[c]:
                self.not_hidden[c] = True
                self._columns.append(c)
        self._settle()

    def _set(self, player: int, card: int, value: int) -> None:
        self.status[player][card] = value
        if value == HOLDS:
            self.held_count[player] += 1
            self.holder[card] = player
            self.not_hidden[card] = True
        else:
            self.possible_count[player] -= 1
            self.possible_holders[card] -= 1
        self._rows.append(player)
        self._columns.append(card)

    def _settle(self) -> None:
        k, status = self.per_player, self.status
        while self._rows or self._columns:
            while self._rows:
                o = self._rows.pop()
                row = status[o]
                if self.possible_count[o] > self.held_count[o]:
                    if self.held_count[o] == k:
                        for c in range(1, self.cards + 1):
                            if row[c] == 0:
                                self._set(o, c, LACKS)
                    elif self.possible_count[o] == k:
                        for c in range(1, self.cards + 1):
                            if row[c] == 0:
                                self._set(o, c, HOLDS)
            while self._columns:
                c = self._columns.pop()
                if self.holder[c] is not None:
                    if self.possible_holders[c] > 1:
                        for o in range(self.players):
                            if status[o][c] == 0:
                                self._set(o, c, LACKS)
                elif self.not_hidden[c] and self.possible_holders[c] == 1:
                    o = next(o for o in range(self.players) if status[o][c] == 0)
                    self._set(o, c, HOLDS)

    # queries
    def unknown_for(self, player: int) -> list[int]:
        row = self.status[player]
        return [c for c in range(1, self.cards + 1) if row[c] == 0]

    def held_by(self, player: int) -> list[int]:
        row = self.status[player]
        return [c for c in range(1, self.cards + 1) if row[c] == HOLDS]

    def fully_known(self, player: int) -> bool:
        return self.possible_count[player] == self.held_count[player]

    def candidates(self) -> list[int]:
        """Cards that may be hidden: not known to be anyone's."""
        return [c for c in range(1, self.cards + 1) if not self.not_hidden[c]]

    def known_hidden(self) -> list[int]:
        """Cards every player is known not to hold."""
        return [c for c in range(1, self.cards + 1) if self.possible_holders[c] == 0]
