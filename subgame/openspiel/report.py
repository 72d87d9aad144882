"""`subgame gops evaluate --openspiel-policy`: an OpenSpiel agent measured against a store."""

from __future__ import annotations

from typing import Any

from subgame.errors import InvalidInput
from subgame.families.gops.plan import check_objective

WALK_LIMIT = 5  # the information-state walk's largest N (N = 5: 173,905 states a seat; N = 6: ~1e7)


def measure_agent(url: str, cards: int, objective: str, source: str,
                  markov: bool = False) -> dict[str, Any]:
    """The agent ``source`` (``loading.load_bids``) in both seats against the stored
    equilibrium of (cards, objective): its expected result and what a best response gains
    against it, in the objective's units."""
    check_objective(objective)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        raise InvalidInput("--openspiel-policy needs OpenSpiel: pip install "
                           "'subgame[openspiel]'") from None
    if not markov and cards > WALK_LIMIT:
        raise InvalidInput(f"--openspiel-policy walks every information state, which stops "
                           f"at N = {WALK_LIMIT}; for a policy of the hands, prizes, upcard "
                           f"(and d under win) alone, add --markov")
    from .evaluate import measure
    from .loading import load_bids
    from .states import load_game
    from .stored import StoredEquilibrium

    stored = StoredEquilibrium(url, cards, objective)
    game = load_game(cards, objective)
    found = measure(game, load_bids(source, game), stored, markov)
    seats = {"as_player_one": {"value": found.seat_one.value,
                               "best_response_gain": -found.seat_one.best_response},
             "as_player_two": {"value": -found.seat_two.value,
                               "best_response_gain": found.seat_two.best_response}}
    return {"cards": cards, "objective": objective, "policy": source,
            "game": str(game), "walk": "markov states" if markov else "information states",
            "nodes": found.nodes, **seats, "nash_conv": found.nash_conv,
            "exploitability": found.exploitability,
            "units": "expected points" if objective == "points" else "P(win) - P(lose)",
            "openspiel_exploitability": found.openspiel_exploitability,
            "against": "the stored equilibrium in the other seat (float32 strategies: "
                       "values within about 1e-6)"}
