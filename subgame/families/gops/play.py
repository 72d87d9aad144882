"""`subgame gops play`: a person (player one) against the stored optimal strategy.

Each round a prize is turned at random, the person names a card of their hand (one line of
stdin, so a game can be scripted), the machine samples its bid from its stored optimal mixed
strategy (player two's bids at the state), and the round is shown: prize, both bids, score,
the value of the position for the person before and after (points: the expected point
difference still to come; win: P(win) - P(lose) given the score), and the optimal mix the
person could have played.
"""

from __future__ import annotations

from typing import Callable, TextIO

import numpy as np

from subgame.errors import InvalidInput
from subgame.families.gops.read import (query_state, refuse_without_upcard_values,
                                        strategy_levels)


def _mix(bids: dict[str, float]) -> str:
    return ", ".join(f"{card}: {q:.3f}" for card, q in bids.items() if q > 5e-4)


def play_game(url: str, cards: int, objective: str, seed: int | None, read_line: TextIO,
              say: Callable[[str], None]) -> dict:
    """Play one game; returns the final score.  Refuses (NotComputed) before the first
    round when the store lacks strategies or per-upcard values at some level."""
    strategy_levels(url, cards, objective)  # refuse now rather than mid-game
    refuse_without_upcard_values(url, cards, objective)
    rng = np.random.default_rng(seed)
    hand, machine, prizes = list(range(1, cards + 1)), list(range(1, cards + 1)), \
        list(range(1, cards + 1))
    mine = theirs = 0
    diff = lambda: (mine - theirs) if objective == "win" else 0  # noqa: E731
    say(f"GOPS with cards 1..{cards}, objective {objective}; you are player one.")
    while prizes:
        upcard = int(rng.choice(prizes))
        state = query_state(url, cards, hand, machine, prizes, upcard, objective, diff())
        say(f"Prize {upcard}.  Your hand {hand}; score {mine}:{theirs}.  Your bid?")
        while True:
            line = read_line.readline()
            if not line:
                raise InvalidInput("stdin ended before the game did")
            try:
                bid = int(line.strip())
            except ValueError:
                bid = None
            if bid in hand:
                break
            say(f"{line.strip()!r} is not a card of your hand {hand}; bid again.")
        offer = state["bids"][str(upcard)]["player_two"]
        cards_two = [int(c) for c in offer]
        weights = np.array([offer[str(c)] for c in cards_two], float)
        reply = int(rng.choice(cards_two, p=weights / weights.sum()))
        before = state["upcard_values"][str(upcard)]
        if bid > reply:
            mine += upcard
        elif reply > bid:
            theirs += upcard
        hand.remove(bid)
        machine.remove(reply)
        prizes.remove(upcard)
        if prizes:
            after = query_state(url, cards, hand, machine, prizes, None, objective,
                                diff())["value"]
        else:
            after = float(np.sign(mine - theirs)) if objective == "win" else 0.0
        say(f"  you bid {bid}, the machine bid {reply}: score {mine}:{theirs}; "
            f"value {before:+.4f} before, {after:+.4f} after; "
            f"optimal mix {_mix(state['bids'][str(upcard)]['player_one'])}")
    outcome = "you win" if mine > theirs else "you lose" if theirs > mine else "a tie"
    say(f"Final score {mine}:{theirs}: {outcome}.")
    return {"score": [mine, theirs], "outcome": outcome}
