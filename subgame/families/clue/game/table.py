"""The table-side tool: exact inference from one player's view of a game in progress.

Input (cards 1..N, seats 0..p-1)::

    {"cards": 12, "hidden": 2, "players": 3, "me": 0, "hand": [1, 5, 9, 11],
     "history": [{"asker": 0, "target": 1, "cards": [2, 3, 4], "shown": 3},
                 {"asker": 1, "target": 2, "cards": [1, 2], "shown": true},
                 {"asker": 2, "target": 1, "cards": [7, 8], "shown": false},
                 {"revealed": 2, "hand": [3, 6, 7, 10]}]}

``shown`` is the card when this player saw it (it asked, or it was the target), else
true or false.  When ``me`` asked, ``shown`` must be the card or false; a bystander's
``shown`` must be true or false; the target's may be the card or true/false.  A revealed
player has left the game: it may not ask or be asked afterwards, nor be revealed again.

Output: ``p_hidden`` (card as a string -> "num/den"), ``best`` (the most probable hidden
sets, each sorted), ``p_best`` ("num/den"), ``deals`` (the number of consistent deals, a
decimal string).  A malformed view, a history no deal satisfies (naming the first
record after which none does), or a view too large to count within ``budget``
transitions of the counting programme (about 10 s), raises ``InvalidInput``.
"""

from __future__ import annotations

from numbers import Integral

from subgame.errors import InvalidInput
from subgame.exact import fraction_text

from .inference import DEFAULT_BUDGET, Facts, TooLarge, best_hidden_sets, count_deals, posterior
from .rules import game_size

VIEW_KEYS = {"cards", "hidden", "players", "me", "hand", "history"}
ASK_KEYS = {"asker", "target", "cards", "shown"}
REVEAL_KEYS = {"revealed", "hand"}


def infer_view(view: object, budget: int = 5 * DEFAULT_BUDGET) -> dict:
    facts, steps = parse_view(view)
    try:
        post = posterior(facts, budget)
        if post is None:
            raise InvalidInput(_impossible(view, steps, budget))
        best, p_best = best_hidden_sets(post, budget)
    except TooLarge:
        raise InvalidInput(f"this view is too large to count exactly within {budget} "
                           "transitions of the counting programme") from None
    return {"p_hidden": {str(c): fraction_text(post.p_hidden(c)) for c in range(1, facts.cards + 1)},
            "best": [list(s) for s in best],
            "p_best": fraction_text(p_best),
            "deals": str(post.deals)}


def _impossible(view, steps, budget) -> str:
    """The first record after which no deal is consistent (counts only fall as records
    are added, so a binary search over prefixes finds it)."""
    lo, hi = 0, len(steps) - 1          # steps[i]: facts after records 0..i
    while lo < hi:
        mid = (lo + hi) // 2
        if count_deals(steps[mid], budget):
            lo = mid + 1
        else:
            hi = mid
    return (f"history[{lo}] is impossible: no deal is consistent with the hand and "
            f"records 0..{lo} ({view['history'][lo]})")


def _int(where: str, value: object, lower: int, upper: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise InvalidInput(f"{where} must be an integer, got {value!r}")
    if not lower <= value <= upper:
        raise InvalidInput(f"{where} must be between {lower} and {upper}, got {value}")
    return int(value)


def _cards(where: str, value: object, n: int, size: int | None = None) -> list[int]:
    if not isinstance(value, list) or not value:
        raise InvalidInput(f"{where} must be a non-empty list of cards, got {value!r}")
    cards = [_int(f"{where} card", c, 1, n) for c in value]
    if len(set(cards)) != len(cards):
        raise InvalidInput(f"{where} lists a card twice: {value}")
    if size is not None and len(cards) != size:
        raise InvalidInput(f"{where} must hold {size} cards, got {len(cards)}")
    return cards


def _keys(where: str, record: dict, keys: set) -> None:
    missing, extra = keys - record.keys(), record.keys() - keys
    if missing:
        raise InvalidInput(f"{where} lacks {', '.join(sorted(missing))}")
    if extra:
        raise InvalidInput(f"{where} has unknown keys {', '.join(sorted(map(str, extra)))}")


def parse_view(view: object) -> tuple[Facts, list[Facts]]:
    """The facts of the whole view, and the facts after each record (for locating an
    impossible one); InvalidInput on anything malformed."""
    if not isinstance(view, dict):
        raise InvalidInput(f"a view must be a JSON object, got {type(view).__name__}")
    _keys("the view", view, VIEW_KEYS)
    for key in ("cards", "hidden", "players"):
        _int(key, view[key], 1, 10 ** 6)
    size = game_size(view["cards"], view["hidden"], view["players"])
    n, p, k = size.cards, size.players, size.per_player
    me = _int("me", view["me"], 0, p - 1)
    hand = _cards("hand", view["hand"], n, k)
    if not isinstance(view["history"], list):
        raise InvalidInput(f"history must be a list of records, got {view['history']!r}")
    facts = Facts(n, size.hidden, p)
    facts.hand(me, hand)
    steps, left = [], set()
    for i, record in enumerate(view["history"]):
        where = f"history[{i}]"
        if not isinstance(record, dict):
            raise InvalidInput(f"{where} must be an object, got {record!r}")
        if "revealed" in record:
            _keys(where, record, REVEAL_KEYS)
            seat = _int(f"{where} revealed", record["revealed"], 0, p - 1)
            if seat in left:
                raise InvalidInput(f"{where}: seat {seat} was already revealed")
            facts.hand(seat, _cards(f"{where} hand", record["hand"], n, k))
            left.add(seat)
        else:
            _keys(where, record, ASK_KEYS)
            _interrogation(where, record, facts, me, n, p, left)
        steps.append(facts.copy())
    return facts, steps


def _interrogation(where, record, facts, me, n, p, left) -> None:
    asker = _int(f"{where} asker", record["asker"], 0, p - 1)
    target = _int(f"{where} target", record["target"], 0, p - 1)
    if asker == target:
        raise InvalidInput(f"{where}: seat {asker} cannot interrogate itself")
    for seat in (asker, target):
        if seat in left:
            raise InvalidInput(f"{where}: seat {seat} has left the game (its hand was revealed)")
    cards, shown = _cards(f"{where} cards", record["cards"], n), record["shown"]
    if isinstance(shown, bool):
        if asker == me and shown:
            raise InvalidInput(f"{where}: you asked, so shown must be the card you saw or false")
        if shown:
            facts.some_of(target, cards)
        else:
            facts.lacks(target, cards)
        return
    if me not in (asker, target):
        raise InvalidInput(f"{where}: only the asker and the target see the card; "
                           f"shown must be true or false, got {shown!r}")
    card = _int(f"{where} shown", shown, 1, n)
    if card not in cards:
        raise InvalidInput(f"{where}: the shown card {card} is not in the list {cards}")
    facts.holds(target, card)
