"""Read stored GOPS levels for queries and plots (no Prefect, no Dask)."""

from __future__ import annotations

from typing import Any

import numpy as np

from subgame.errors import InvalidInput, NotComputed
from subgame.families.gops import game as gops
from subgame.families.gops.plan import check_objective, group_path
from subgame.storage import ComputationStore


def opened(url: str, cards: int, objective: str) -> ComputationStore:
    """The stored computation of (cards, objective); where there is none, NotComputed
    naming the run that computes it."""
    try:
        return ComputationStore.open(url, group_path(cards, objective))
    except NotComputed as exc:
        objective_option = "" if objective == "points" else f" --objective {objective}"
        raise NotComputed(f"{exc}; `subgame run gops --cards {cards}{objective_option} "
                          f"--store {url}` computes it") from None


def _stored_answer(url: str, cards: int, objective: str, ref: gops.StateRef) -> gops.StateAnswer:
    """The state ``ref`` read from the computation of (cards, objective)."""
    path = group_path(cards, objective)
    store = opened(url, cards, objective)
    if not store.step_done(ref.level - 1):
        raise NotComputed(f"level j={ref.level} of {path} is not computed yet")
    level = f"j{ref.level}"
    with_strategies = store.has(f"{level}/strategies")
    if ref.saturated:
        return gops.saturated_answer(ref, with_strategies)
    if objective == "points":
        where = (ref.p_rank, ref.pattern)
    else:  # the difference axis holds d + diff_max
        diff_max = (store.array(f"{level}/values").shape[1] - 1) // 2
        where = (ref.p_rank, ref.diff + diff_max, ref.pattern)
    names = ["values", *(["upcard_values"] if store.has(f"{level}/upcard_values") else []),
             *(["strategies", "strategies_two"] if with_strategies else [])]
    found = dict(zip(names, store.entries([f"{level}/{name}" for name in names], where)))
    return gops.answer(ref, found.pop("values"), found.pop("upcard_values", None), **found)


def locate(cards: int, hand, opponent, prizes, objective: str = "points",
           diff: int = 0) -> gops.StateRef:
    """The state's address, with the user's errors as InvalidInput."""
    check_objective(objective)
    if objective == "points" and diff != 0:
        raise InvalidInput("--diff needs --objective win (under points the value does not "
                           "depend on the points so far)")
    try:
        return gops.locate(cards, hand, opponent, prizes, diff)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def query_state(url: str, cards: int, hand, opponent, prizes,
                upcard: int | None = None, objective: str = "points",
                diff: int = 0) -> dict[str, Any]:
    """f(V, Y, P) (win: f(V, Y, P, d)), f_k per upcard and both players' mixed bids, from
    the stored level.  A level run without f_k (--upcard-values none or top:K) answers
    upcard_values None, and refuses --upcard (NotComputed, quoting the value)."""
    ref = locate(cards, hand, opponent, prizes, objective, diff)
    if upcard is not None and upcard not in ref.upcards:
        raise InvalidInput(f"--upcard {upcard} is not in the prizes {list(ref.upcards)}")
    found = _stored_answer(url, cards, objective, ref)
    if upcard is not None and found.upcard_values is None:
        raise NotComputed(f"level j={ref.level} of {group_path(cards, objective)} stores no "
                          f"per-upcard values (its run's --upcard-values leaves them out); "
                          f"the value is f = {found.value:.12g}")
    result = {"cards": cards, "hand": sorted(hand), "opponent": sorted(opponent),
              "prizes": sorted(prizes), "value": found.value,
              "upcard_values": None if found.upcard_values is None else
              {str(k): v for k, v in found.upcard_values.items()},
              "bids": None if found.bids_one is None else {
                  str(k): {"player_one": {str(c): q for c, q in found.bids_one[k].items()},
                           "player_two": {str(c): q for c, q in found.bids_two[k].items()}}
                  for k in ref.upcards},
              "tolerance": 1e-9}
    if objective != "points":  # a points answer keeps the keys it always had
        result.update(objective=objective, diff=diff)
    if upcard is not None:
        result["upcard"] = upcard
        result["upcard_values"] = {str(upcard): result["upcard_values"][str(upcard)]}
        if result["bids"] is not None:
            result["bids"] = {str(upcard): result["bids"][str(upcard)]}
    return result


def first_move(url: str, cards: int, objective: str = "points") -> dict[str, Any]:
    """The opening: for each upcard k, the optimal probability of each bid (both hands 1..N)."""
    full = list(range(1, cards + 1))
    answer = query_state(url, cards, full, full, full, objective=objective)
    if answer["bids"] is None:
        raise NotComputed(f"{group_path(cards, objective)} was run without strategies for "
                          f"its top level")
    table = np.array([[answer["bids"][str(k)]["player_one"][str(b)] for b in full]
                      for k in full])
    result = {"cards": cards, "value": answer["value"], "upcards": full, "bids": full,
              "probability": table.round(6).tolist()}
    if objective != "points":
        result["objective"] = objective
    return result


def strategy_levels(url: str, cards: int, objective: str):
    """j -> the stored optimal strategies of level j (``game.evaluate.StoredStrategies``);
    refuses when a level lacks them (a run with --strategies top:K or none)."""
    from subgame.families.gops.game.evaluate import StoredStrategies

    path = group_path(cards, objective)
    store = opened(url, cards, objective)
    missing = [j for j in range(1, cards + 1)
               if not store.step_done(j - 1) or f"j{j}/strategies" not in store.group]
    if missing:
        raise NotComputed(f"{path} lacks finished strategies at levels j={missing}: run "
                          f"`subgame run gops --cards {cards} --objective {objective} "
                          f"--strategies all`")

    def level(j: int) -> StoredStrategies:  # read lazily, block by block
        return StoredStrategies(objective, store.array(f"j{j}/strategies"),
                                store.array(f"j{j}/strategies_two"))

    return level


def refuse_without_upcard_values(url: str, cards: int, objective: str) -> None:
    """NotComputed unless every level stores its f_k (a run with --upcard-values all)."""
    path = group_path(cards, objective)
    group = opened(url, cards, objective).group
    missing = [j for j in range(1, cards + 1) if f"j{j}/upcard_values" not in group]
    if missing:
        raise NotComputed(f"{path} lacks per-upcard values at levels j={missing}: run "
                          f"`subgame run gops --cards {cards} --objective {objective} "
                          f"--upcard-values all`")


def evaluate_policies(url: str, cards: int, objective: str, policies) -> dict[str, Any]:
    """Each policy of player one against the stored optimal strategy of ``objective``."""
    from subgame.families.gops.game.evaluate import POLICIES, evaluate

    check_objective(objective)
    unknown = [p for p in policies if p not in POLICIES]
    if unknown:
        raise InvalidInput(f"--policy must be among {', '.join(POLICIES)}, got {unknown}")
    opponent = strategy_levels(url, cards, objective)
    rows, done = [], {}
    for policy in policies:
        # greedy-rank bids V_k and match P_k: the same card on every path (V = P), one pass
        same = "match" if policy == "greedy-rank" else policy
        if same not in done:
            own = (strategy_levels(url, cards, policy.split("-", 1)[1])
                   if policy.startswith("optimal-") else None)
            done[same] = evaluate(cards, same, objective, opponent, own)
        found = done[same]
        rows.append({"policy": policy, "expected_points": found.expected_points,
                     "p_win": found.p_win, "p_tie": found.p_tie, "p_lose": found.p_lose,
                     "exploitability": found.exploitability})
    return {"cards": cards, "objective": objective,
            "opponent": f"optimal ({objective}) as player two",
            "equilibrium": "player two's optimal strategy as the store's solver returned it: "
                           "it is not unique, so the values against it depend on the "
                           "solver, the exploitabilities of fixed policies do not "
                           "(docs/gops.md)",
            "exploitability_in": "expected points" if objective == "points"
            else "P(win) - P(lose)", "policies": rows}


def level_table(url: str, cards: int, objective: str = "points", cards_left: int | None = None):
    """Level j's values (default: the top level, j = cards) as a pandas DataFrame, one row
    per stored (deck, [diff,] pattern), labelled as the store's coordinates label them:
    f(V, Y, P) for hands of that pattern, or -f for hands of the swapped pattern."""
    import pandas as pd

    from subgame.families.gops.game.cards import deck_labels
    from subgame.families.gops.game.patterns import pattern_labels

    check_objective(objective)
    j = cards if cards_left is None else cards_left
    if not 1 <= j <= cards:
        raise InvalidInput(f"--cards-left must be in 1..{cards}, got {j}")
    path = group_path(cards, objective)
    store = ComputationStore.open(url, path)
    if not store.step_done(j - 1):
        raise NotComputed(f"level j={j} of {path} is not computed yet")
    values = store.array(f"j{j}/values")[...]
    axes = [("deck", deck_labels(cards, j))]
    if objective != "points":  # the difference axis holds d + diff_max
        reach = (values.shape[1] - 1) // 2
        axes.append(("diff", np.arange(-reach, reach + 1)))
    axes.append(("pattern", pattern_labels(cards, j)))
    index = pd.MultiIndex.from_product([labels for _, labels in axes],
                                       names=[name for name, _ in axes])
    return pd.DataFrame({"value": values.ravel()}, index=index).reset_index()
