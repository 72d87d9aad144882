"""Read stored GOPS levels for queries and plots (no Prefect, no Dask)."""

from __future__ import annotations

from typing import Any

import numpy as np

from subgame.errors import InvalidInput, NotComputed
from subgame.families.gops import game as gops
from subgame.storage import ComputationStore


def query_state(url: str, cards: int, hand, opponent, prizes,
                upcard: int | None = None) -> dict[str, Any]:
    """f(V, Y, P), f_k per upcard and both players' mixed bids, from the stored level."""
    try:
        ref = gops.locate(cards, hand, opponent, prizes)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc
    if upcard is not None and upcard not in ref.upcards:
        raise InvalidInput(f"--upcard {upcard} is not in the prizes {list(ref.upcards)}")
    store = ComputationStore.open(url, f"gops/N{cards}")
    if not store.step_done(ref.level - 1):
        raise NotComputed(f"level j={ref.level} of gops/N{cards} is not computed yet")
    where = (ref.p_rank, ref.pattern)
    level = f"j{ref.level}"
    with_strategies = f"{level}/strategies" in store.group
    strategies = ({name: store.array(f"{level}/{name}")[where]
                   for name in ("strategies", "strategies_two")} if with_strategies else {})
    found = gops.answer(ref, store.array(f"{level}/values")[where],
                        store.array(f"{level}/upcard_values")[where], **strategies)
    result = {"cards": cards, "hand": sorted(hand), "opponent": sorted(opponent),
              "prizes": sorted(prizes), "value": found.value,
              "upcard_values": {str(k): v for k, v in found.upcard_values.items()},
              "bids": None if found.bids_one is None else {
                  str(k): {"player_one": {str(c): q for c, q in found.bids_one[k].items()},
                           "player_two": {str(c): q for c, q in found.bids_two[k].items()}}
                  for k in found.upcard_values},
              "tolerance": 1e-9}
    if upcard is not None:
        result["upcard"] = upcard
        result["upcard_values"] = {str(upcard): result["upcard_values"][str(upcard)]}
        if result["bids"] is not None:
            result["bids"] = {str(upcard): result["bids"][str(upcard)]}
    return result


def first_move(url: str, cards: int) -> dict[str, Any]:
    """The opening: for each upcard k, the optimal probability of each bid (both hands 1..N)."""
    full = list(range(1, cards + 1))
    answer = query_state(url, cards, full, full, full)
    if answer["bids"] is None:
        raise NotComputed(f"gops/N{cards} was run without strategies for its top level")
    table = np.array([[answer["bids"][str(k)]["player_one"][str(b)] for b in full]
                      for k in full])
    return {"cards": cards, "value": answer["value"], "upcards": full, "bids": full,
            "probability": table.round(6).tolist()}
