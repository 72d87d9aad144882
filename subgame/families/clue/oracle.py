"""What `subgame web` answers about Clue beyond `query`: the posterior of one player's
view of a game (`subgame clue infer`), posted as JSON. A web request gets the counting
programme's default budget (about 2 s), a fifth of the table tool's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from subgame.errors import InvalidInput
from subgame.families.clue.game import infer_view
from subgame.families.clue.game.inference import DEFAULT_BUDGET
from subgame.family import Oracle

MAX_CARDS = 60
MAX_RECORDS = 500


def posterior(body: Any, store: str | None = None) -> dict[str, Any]:
    """P(hidden) per card, the most probable hidden set(s) and the number of consistent
    deals, by exact counting; the store is not read."""
    if isinstance(body, dict):
        if isinstance(body.get("cards"), int) and not 1 <= body["cards"] <= MAX_CARDS:
            raise InvalidInput(f"cards must be in 1..{MAX_CARDS}, got {body['cards']}")
        if isinstance(body.get("history"), list) and len(body["history"]) > MAX_RECORDS:
            raise InvalidInput(f"history holds at most {MAX_RECORDS} records, got "
                               f"{len(body['history'])}")
    return infer_view(body, DEFAULT_BUDGET)


ORACLE = Oracle(answers={"posterior": posterior}, script=str(Path(__file__).with_name("web.js")))
