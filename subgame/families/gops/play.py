"""`subgame gops play`: a person (player one) against the stored optimal strategy.

Each round a prize is turned at random, the person names a card of their hand (one line of
stdin, so a game can be scripted), the machine samples its bid from its stored optimal mixed
strategy (player two's bids at the state), and the round is shown: prize, both bids, both
hands, the score, and the optimal mix the person could have played.  The last round plays
itself (one card each is left).  ``q`` quits, ``n`` abandons the game for a new one.

The value shown is always the value of the whole game from here, points already won
included, for the person under optimal play of both from now on:

* points: score difference so far + f (expected difference still to come), so a round
  that wins the prize moves it by the prize and the rest by the continuation;
* win: P(win) - P(lose), which already depends on the score (f(V, Y, P, d)).

Each round shows it three times: before the prize is turned (f), once the prize is known
(f_k), and after the bids (the next position's f).  The value after a round is the next
round's "before"; the mean of "with prize k" over the prizes is "before".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, TextIO

import numpy as np

from subgame.families.gops.read import (query_state, refuse_without_upcard_values,
                                        strategy_levels)

QUIT, NEW = "q", "n"


class InputEnded(Exception):
    """stdin ended (Ctrl-D, or the end of a script) while a game was being played."""

    def __init__(self, game: "Game"):
        self.game = game
        super().__init__(f"input ended in round {game.round} of {game.cards} at score "
                         f"{game.mine}:{game.theirs}; the game is abandoned (nothing is "
                         "stored: a game cannot be resumed)")


def _mix(bids: dict[str, float]) -> str:
    return ", ".join(f"{card}: {q:.3f}" for card, q in bids.items() if q > 5e-4)


def _cards(cards: list[int]) -> str:
    return " ".join(map(str, cards)) or "-"


@dataclass
class Game:
    """One game's position: both hands, the prizes left and the score."""

    cards: int
    objective: str
    hand: list[int] = field(init=False)
    machine: list[int] = field(init=False)
    prizes: list[int] = field(init=False)
    mine: int = 0
    theirs: int = 0

    def __post_init__(self) -> None:
        self.hand, self.machine, self.prizes = ([*range(1, self.cards + 1)] for _ in range(3))

    @property
    def round(self) -> int:
        return self.cards - len(self.prizes) + 1

    @property
    def diff(self) -> int:
        return self.mine - self.theirs

    def whole(self, value: float) -> float:
        """The stored value (points: still to come) as the value of the whole game."""
        return self.diff + value if self.objective == "points" else value

    def final_value(self) -> float:
        return float(self.diff if self.objective == "points" else np.sign(self.diff))

    def state(self, url: str, upcard: int | None = None) -> dict:
        return query_state(url, self.cards, self.hand, self.machine, self.prizes, upcard,
                           self.objective, self.diff if self.objective == "win" else 0)

    def position(self) -> str:
        return (f"your hand {_cards(self.hand)}; the machine's {_cards(self.machine)}; "
                f"prizes left {_cards(self.prizes)}; score {self.mine}:{self.theirs}")


def value_label(objective: str) -> str:
    return ("value = expected final score difference (you minus the machine)"
            if objective == "points" else "value = P(you win) - P(you lose)")


def _read_bid(game: Game, read_line: TextIO, say: Callable[[str], None]) -> int | str:
    while True:
        line = read_line.readline()
        if not line:
            raise InputEnded(game)
        text = line.strip().lower()
        if text in (QUIT, NEW):
            return text
        try:
            bid = int(text)
        except ValueError:
            bid = None
        if bid in game.hand:
            return bid
        say(f"{line.strip()!r} is not a card of your hand {_cards(game.hand)}; bid again "
            f"({QUIT} quits, {NEW} starts a new game).")


def play_game(url: str, game: Game, rng: np.random.Generator, read_line: TextIO,
              say: Callable[[str], None]) -> str | None:
    """Play ``game`` to its end; returns None when it ended, else the key that stopped it."""
    before = game.whole(game.state(url)["value"])
    while game.prizes:
        upcard = int(rng.choice(game.prizes))
        state = game.state(url, upcard)
        with_prize = game.whole(state["upcard_values"][str(upcard)])
        say(f"Round {game.round} of {game.cards}: prize {upcard}.  {game.position()}.")
        say(f"  value {before:+.4f} before the prize, {with_prize:+.4f} with prize {upcard}.")
        if len(game.hand) == 1:
            bid = game.hand[0]
            say(f"  Your last card {bid} is played.")
        else:
            say("  Your bid?")
            bid = _read_bid(game, read_line, say)
            if not isinstance(bid, int):
                return bid
        offer = state["bids"][str(upcard)]["player_two"]
        cards_two = [int(c) for c in offer]
        weights = np.array([offer[str(c)] for c in cards_two], float)
        reply = int(rng.choice(cards_two, p=weights / weights.sum()))
        won = "you win it" if bid > reply else "the machine wins it" if reply > bid else \
            "a tie: nobody wins it"
        game.mine += upcard if bid > reply else 0
        game.theirs += upcard if reply > bid else 0
        game.hand.remove(bid)
        game.machine.remove(reply)
        game.prizes.remove(upcard)
        after = game.whole(game.state(url)["value"]) if game.prizes else game.final_value()
        say(f"  you bid {bid}, the machine bid {reply}: {won}; score "
            f"{game.mine}:{game.theirs}; value {after:+.4f} after the round "
            f"(optimal mix was {_mix(state['bids'][str(upcard)]['player_one'])})")
        before = after
    return None


def play_session(url: str, cards: int, objective: str, seed: int | None, read_line: TextIO,
                 say: Callable[[str], None]) -> list[dict]:
    """Games until the person quits or input ends between games; returns each finished
    game's score.  Refuses (NotComputed) before the first round when the store lacks
    strategies or per-upcard values at some level; raises InputEnded mid-game."""
    strategy_levels(url, cards, objective)  # refuse now rather than mid-game
    refuse_without_upcard_values(url, cards, objective)
    rng = np.random.default_rng(seed)
    say(f"GOPS with cards 1..{cards}, objective {objective}; you are player one.  Type a "
        f"card to bid it, {QUIT} to quit, {NEW} for a new game.  "
        f"{value_label(objective)}, from the position on, under optimal play of both.")
    finished = []
    while True:
        game = Game(cards, objective)
        stopped = play_game(url, game, rng, read_line, say)
        if stopped == QUIT:
            say(f"Quit in round {game.round} at score {game.mine}:{game.theirs}.")
            return finished
        if stopped == NEW:
            say(f"Game abandoned in round {game.round}; a new game.")
            continue
        outcome = ("you win" if game.mine > game.theirs else
                   "you lose" if game.theirs > game.mine else "a tie")
        finished.append({"score": [game.mine, game.theirs], "outcome": outcome})
        say(f"Final score {game.mine}:{game.theirs}: {outcome}.  {NEW} for a new game, "
            f"{QUIT} (or the end of input) to quit.")
        line = read_line.readline()
        if line.strip().lower() != NEW:
            return finished
