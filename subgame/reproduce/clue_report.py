"""Seed 003, the Clue report on player strategies: the core player's bound (N - k - h) p,
the weighted player against the core player, history mining's accuracy, the weight-driven
interrogation it calls the safer alternative, the least-asked idea it found wanting, and
its counts of conditional combinations."""

from __future__ import annotations

from math import comb

from subgame.reproduce.claims import NOT_REPRODUCED, Claim, Reproduction, holds, same
from subgame.reproduce.runs import ensure

DOCUMENT = "the Clue report on player strategies (seed 003)"
PAGE = "docs/clue.md"
OWN_PAGE = "docs/reproduce/clue_report.md"
HIDDEN, PER_PLAYER = 2, 3
SIZES = {"small": (3, 60), "full": (5, 300)}  # (players p, deals) of every tournament
# The report's printed combination counts: "(20 C 3) = 1140", "(60 C 3) = 34220".
COMBINATIONS = {20: 1140, 60: 34220}


def reproduce(store: str | None, out: str, size: str) -> Reproduction:
    players, deals = SIZES[size]
    result = Reproduction("clue-report", DOCUMENT, size)
    for n, printed in COMBINATIONS.items():
        result.add(same(f"({n} C 3) combinations of three conditionals", printed, comb(n, 3)))

    def table(*first: str, rest: str) -> dict[str, dict]:
        """Each strategy's row of a tournament: ``first`` in the first seats, ``rest`` in
        every other seat (the seating rotates deal by deal)."""
        from subgame import api

        seats = ",".join([*first, *[rest] * (players - len(first))])
        ensure("clue", store, players=str(players), cards_per_player=str(PER_PLAYER),
               hidden=str(HIDDEN), games=deals, lineup=seats)
        return api.query("clue", store=store, players=players, cards_per_player=PER_PLAYER,
                         hidden=HIDDEN, lineup=seats)["strategies"]

    result.add(_core_bound(players, deals))
    weighted = table("weighted-geometric", rest="core")
    result.add(holds("the weighted player guesses correctly before the core player a majority "
                     "of the time", _first(weighted["weighted-geometric"]) > 0.5,
                     _standing(weighted, "weighted-geometric", "core"),
                     _standing(weighted, "weighted-geometric", "core"),
                     "it guesses one card early, on weights the core players' asks do not "
                     "carry (the report's own doubt about its assumptions)", PAGE))
    right = {rest: 1 - table("history-1/2", rest=rest)["history-1/2"]["wrong_rate"]
             for rest in ("padded-core", "core")}
    mined = (f"right {right['padded-core']:.2f} against padded-core players, "
             f"{right['core']:.2f} against core players")
    result.add(holds("history mining at factor 1/2 guesses right about 70% of the time",
                     all(0.6 <= r <= 0.8 for r in right.values()), mined, mined,
                     "it depends wholly on the opponents' asks: padding hides the most-asked "
                     "signal, plain core asks give it away", PAGE))
    asked = table("least-asked", "history-2/3", rest="core")
    least, most = (1 - asked[name]["wrong_rate"] for name in ("least-asked", "history-2/3"))
    result.add(holds("the least-asked cards are not the ones a player holds (the idea "
                     "disappoints)", least < most,
                     f"least-asked right {least:.2f}, most-asked (history-2/3) right "
                     f"{most:.2f}, at the same tables",
                     f"least-asked right {least:.2f}, most-asked right {most:.2f}",
                     "the report's comparison is with most-asked history mining, and the order "
                     "between the two depends on the table's size", OWN_PAGE))
    asker = table("weighted-asker", rest="core")
    result.add(holds("asking by the highest weights is the safer alternative (never wrong)",
                     asker["weighted-asker"]["wrong"] == 0,
                     _standing(asker, "weighted-asker", "core"),
                     _standing(asker, "weighted-asker", "core")))
    result.add(Claim("Group2PlayerEL: 663 first places in the 9-player 8-card games, more than "
                     "three times the next player", "663", "not computed", NOT_REPRODUCED,
                     "the report's tournament table and its line-ups are not in the document",
                     OWN_PAGE))
    return result


def _first(row: dict) -> float:
    return row["first_share"]


def _standing(rows: dict[str, dict], name: str, other: str) -> str:
    return (f"first share {_first(rows[name]):.2f} against {_first(rows[other]):.2f} for "
            f"{other}; wrong {rows[name]['wrong_rate']:.2f}")


def _core_bound(players: int, deals: int) -> Claim:
    """Core players alone: every guess right, none later than round (N - k - h) p.

    Counted in the game's rounds (a turn of one player each), a core player is sure after
    at most N - k - h turns of its own and guesses on its next: by round (N - k - h + 1) p
    at the latest, wherever it sits."""
    from subgame.families.clue.game import check_point, new_player
    from subgame.families.clue.game.engine import play_game

    lineup = ["core"] * players
    size = check_point(players, PER_PLAYER, HIDDEN, lineup)
    guesses = [g for seed in range(deals)
               for g in play_game([new_player(n) for n in lineup], size, seed).guesses]
    latest, right = max(g.round for g in guesses), all(g.correct for g in guesses)
    unknown = size.cards - PER_PLAYER - HIDDEN
    bound, turns = unknown * players, (unknown + 1) * players
    seen = (f"in {deals} games of {players} core players: {len(guesses)} guesses, "
            f"{'all' if right else 'not all'} right, the latest at round {latest}")
    return holds("the core player guesses right within (N - k - h) p rounds",
                 right and latest <= bound, f"{seen} <= {bound}", f"{seen} > {bound}",
                 f"the bound counts the asking turns; the guess takes one more turn, and the "
                 f"player's first turn may come p - 1 rounds in: (N - k - h + 1) p = {turns}"
                 + ("" if right and latest <= turns else " is broken too"), OWN_PAGE)
