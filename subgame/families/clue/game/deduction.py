"""The conditional player's clauses and how it combines them.

A clause (o, S) says "player o holds at least one card of S" (a card was shown to someone
else).  One combination round, against a ``CardTable``:

* reduce each clause: drop the cards o is known not to hold; a clause with a card o is
  known to hold is satisfied and dropped; a clause left with one card says o holds it;
  a clause S' of o contained in another clause S of o makes S redundant;
* pairs and triples (the seed's combinations of two and three conditionals): j clauses of
  j different players whose cards together number j place those j cards in those players'
  hands, so they are not hidden and every other player lacks them.

Rounds repeat until nothing changes or ``max_rounds`` is reached.  The clauses are never
more than the "some card shown" answers seen, so memory is bounded by the game's length;
the cap bounds the time.  The cap, 4, was chosen by measurement: with no cap, the
round that changes nothing came by round 3 on every one of 2,950 turns of conditional
and group2 players at (p, k, h) = (5, 5, 3), (7, 3, 2), (9, 3, 3), (5, 8, 2) (20 games
each), by round 2 on 99.8% of them; 4 keeps a spare round.  (``ConditionalPlayer``
keeps the rounds of each turn in ``combination_rounds`` for such measurements.)
"""

from __future__ import annotations

from itertools import combinations

from .knowledge import HOLDS, LACKS, CardTable

MAX_ROUNDS = 4


def combine(table: CardTable, clauses: list[tuple[int, frozenset]], max_rounds: int = MAX_ROUNDS
            ) -> tuple[list[tuple[int, frozenset]], int]:
    """(clauses left, rounds run); the facts found are written into ``table``."""
    for rounds in range(1, max_rounds + 1):
        clauses, changed = _reduce(table, clauses)
        changed |= _place_groups(table, clauses)
        if not changed:
            return clauses, rounds
    return clauses, max_rounds


def _reduce(table, clauses):
    status, changed, kept = table.status, False, {}
    for owner, cards in clauses:
        left = _open_cards(status[owner], cards)
        if left is None:
            changed = True
            continue
        changed |= len(left) != len(cards)
        if len(left) == 1:
            table.holds(owner, next(iter(left)))
        elif left:
            kept.setdefault(owner, set()).add(left)
    result = []
    for owner, sets in kept.items():
        minimal = [s for s in sets if not any(t < s for t in sets)]
        changed |= len(minimal) != len(sets)
        result.extend((owner, s) for s in minimal)
    return result, changed


def _open_cards(row, cards) -> frozenset | None:
    """None when the owner is known to hold a card of the clause, else the cards it may hold."""
    left = []
    for c in cards:
        if row[c] == HOLDS:
            return None
        if row[c] != LACKS:
            left.append(c)
    return frozenset(left)


def _place_groups(table, clauses):
    small = [(o, s) for o, s in clauses if len(s) <= 3]
    changed = False
    for size in (2, 3):
        for group in combinations(small, size):
            owners = {o for o, _ in group}
            cards = frozenset().union(*(s for _, s in group))
            if len(owners) == size and len(cards) == size and not all(table.not_hidden[c] for c in cards):
                table.owned_by_someone(cards)
                for other in range(table.players):
                    if other not in owners:
                        table.lacks(other, cards)
                changed = True
    return changed
