"""OpenSpiel's goofspiel, the same game as subgame's GOPS, and its information states read
as subgame's states.

``goofspiel(num_cards=N, points_order="random", imp_info=False, returns_type=R)``: the
prizes come in random order, both bids are revealed after each round, a tied bid discards
the prize; R = "point_difference" is subgame's points objective (player one's return is
d / 2, d the final point difference) and R = "win_loss" its win objective (sign(d)).  Action a
is the card a + 1, for a bid and for the chance node's prize alike.

With imp_info=False the information state of either player (the strings of the game and
of its turn-based form, which adds a first line "Current player: p") shows the prize
sequence so far, upcard last, both hands and both scores: at a bidding node it gives
subgame's state (V, Y, P, d) and the upcard.
"""

from __future__ import annotations

from dataclasses import dataclass

RETURNS_TYPE = {"points": "point_difference", "win": "win_loss"}
# "point_difference" pays each player its points less the players' mean: player one gets
# d / 2.  "win_loss" pays sign(d).
RETURNS_PER_UNIT = {"points": 0.5, "win": 1.0}


def game_parameters(cards: int, objective: str) -> dict:
    """goofspiel's parameters for subgame's N-card game under ``objective``."""
    return {"num_cards": cards, "points_order": "random", "imp_info": False,
            "returns_type": RETURNS_TYPE[objective]}


def load_game(cards: int, objective: str):
    """The turn-based form of goofspiel (player one bids, then player two, who does not
    see that bid): the form OpenSpiel's CFR and exploitability take."""
    import pyspiel

    return pyspiel.convert_to_turn_based(
        pyspiel.load_game("goofspiel", game_parameters(cards, objective)))


@dataclass(frozen=True)
class Seen:
    """A bidding node in subgame's terms: hands (V, Y) ascending, the prizes P left (the
    upcard among them), the upcard, and d = player one's points less player two's."""

    hands: tuple[tuple[int, ...], tuple[int, ...]]
    prizes: tuple[int, ...]
    upcard: int
    diff: int


def _numbers(line: str) -> list[int]:
    return [int(word) for word in line.split(":", 1)[1].split()]


def observe(information_state: str, cards: int) -> Seen:
    """The bidding node an imp_info=False goofspiel information state string describes;
    ValueError when the string is not one (a chance node, another game)."""
    fields = {}
    for line in information_state.splitlines():
        label, _, _ = line.partition(":")
        fields[label.strip()] = line
    try:
        sequence = _numbers(fields["Point card sequence"])
        hands = (tuple(sorted(_numbers(fields["P0 hand"]))),
                 tuple(sorted(_numbers(fields["P1 hand"]))))
        one, two = _numbers(fields["Points"])
    except (KeyError, ValueError):
        raise ValueError(f"not an imp_info=False goofspiel information state: "
                         f"{information_state!r}") from None
    prizes = tuple(sorted(set(range(1, cards + 1)) - set(sequence[:-1])))
    if not sequence or not len(hands[0]) == len(hands[1]) == len(prizes):
        raise ValueError(f"not a bidding node of the {cards}-card game: "
                         f"{information_state!r}")
    return Seen(hands, prizes, sequence[-1], one - two)
