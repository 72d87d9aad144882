"""Read stored Clue tournaments for queries and plots (no Prefect, no Dask).

Only aggregated tournaments answer: a store whose aggregate step is not finished (a run
stopped early, or grown and not yet re-aggregated) is "not computed" until it is rerun.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from subgame.errors import InvalidInput, NotComputed
from subgame.families.clue.game.leaderboard_stats import RATES, DealMoments
from subgame.families.clue.plan import FAMILY
from subgame.intervals import CONFIDENCE
from subgame.storage import ComputationStore, find_computations


@dataclass(frozen=True)
class Tournament:
    """One aggregated tournament: its grid points, strategies and per-point tables."""

    store: ComputationStore
    lineup: str
    seed: int
    seating: str
    points: list[tuple[int, int, int]]
    strategies: list[str]

    def table(self, name: str) -> np.ndarray:
        return self.store.array(name)[...]

    def moments(self, point: int) -> DealMoments:
        if "deal_moments" not in self.store.group:
            raise NotComputed(f"{self.store.group_path} was stored by clue kernel 1, without "
                              "the per-deal moments its intervals need; run the tournament "
                              "again into a new store")
        return DealMoments(self.store.array("deal_moments")[point], self.strategies)

    def rates(self, point: int) -> dict[str, dict[str, Any]]:
        """Per strategy every rate of RATES with its 95 % interval (``<rate>_low``,
        ``<rate>_high``), from the per-deal moments."""
        moments = self.moments(point)
        return {name: {key: value for rate in RATES for key, value in
                       moments.rate(s, rate).items()}
                for s, name in enumerate(self.strategies)}


def _aggregated(store: ComputationStore) -> bool:
    built = store.built_stage("aggregate")
    return built is not None and all(store.step_done(step.index) for step in built[1])


def tournaments(url: str, lineup: str | None = None, seed: int | None = None) -> list[Tournament]:
    """Every aggregated tournament in the store, optionally of one line-up and seed."""
    found = []
    for store in find_computations(url, FAMILY):
        identity = store.identity
        if ((lineup is not None and identity["lineup"] != lineup)
                or (seed is not None and identity["seed"] != seed) or not _aggregated(store)):
            continue
        points = list(zip(*(store.array(f"point_{axis}")[:].tolist()
                            for axis in ("players", "per_player", "hidden"))))
        found.append(Tournament(store, identity["lineup"], identity["seed"],
                                identity.get("seating", "rotate"), points,
                                store.array("strategy")[:].tolist()))
    if not found:
        raise NotComputed(f"{url!r} holds no finished clue tournament"
                          f"{' with that line-up and seed' if lineup or seed is not None else ''}"
                          "; run `subgame run clue ...` first")
    return found


def only(found: list[Tournament], what: str) -> Tournament:
    if len(found) > 1:
        names = "; ".join(f"--lineup {t.lineup} --seed {t.seed}" for t in found)
        raise InvalidInput(f"several tournaments hold {what} ({names}); choose one with "
                           "--lineup and --seed")
    return found[0]


def leaderboard(url: str, players: int, per_player: int, hidden: int,
                lineup: str | None = None, seed: int | None = None) -> dict[str, Any]:
    """The tables of one grid point: games and deals played, and per strategy its rank
    counts (rank 1..p), sole first places, correct and wrong guesses, and its rates with
    95 % intervals (first share, wrong rate, mean rank, mean guess round, mean lead; None
    where undefined); the leader by first share and, per other strategy, the paired
    comparison with it."""
    point = (players, per_player, hidden)
    holding = [t for t in tournaments(url, lineup, seed) if point in t.points]
    if not holding:
        raise NotComputed(f"no finished clue tournament holds p={players}, k={per_player}, "
                          f"h={hidden}")
    chosen = only(holding, f"p={players}, k={per_player}, h={hidden}")
    i, store = chosen.points.index(point), chosen.store
    row = {name: store.array(name)[i] for name in (
        "rank_counts", "first_places", "correct_guesses", "wrong_guesses", "guesses")}
    seat_games = row["rank_counts"].sum(axis=1)
    moments = chosen.moments(i)
    rates = chosen.rates(i)
    return {"players": players, "per_player": per_player, "hidden": hidden,
            "cards": players * per_player + hidden, "lineup": chosen.lineup,
            "seed": chosen.seed, "seating": chosen.seating, "computation": store.group_path,
            "games": int(store.array("games")[i]), "deals": moments.deals,
            "confidence": CONFIDENCE,
            "intervals": "proportions: Wilson score over the effective trials; means: "
                         "Student's t; both over deals (docs/clue.md)",
            "comparison": {"rate": "first_share",
                           "test": "paired t over the same deals, Holm-adjusted",
                           **moments.against_leader()},
            "strategies": {name: {
                "seat_games": int(seat_games[s]),
                "ranks": row["rank_counts"][s, :players].tolist(),
                "first": int(row["first_places"][s]),
                "correct": int(row["correct_guesses"][s]),
                "wrong": int(row["wrong_guesses"][s]),
                **rates[name]}
                for s, name in enumerate(chosen.strategies)}}


def tournament_table(url: str, lineup: str | None = None, seed: int | None = None):
    """One tournament's leaderboards as a pandas DataFrame, one row per grid point and
    strategy: games, deals, summed counts, and the rates with their 95 % intervals
    (``<rate>_low``, ``<rate>_high``; NaN where undefined)."""
    import pandas as pd

    from subgame.families.clue.plan import BATCH_COUNTS

    chosen = only(tournaments(url, lineup, seed), "results")
    games = chosen.table("games")
    counts = {name: chosen.table(name) for name in BATCH_COUNTS if name != "games"}
    rows = []
    for i, (players, per_player, hidden) in enumerate(chosen.points):
        rates = chosen.rates(i)
        deals = chosen.moments(i).deals
        rows += [{"players": players, "per_player": per_player, "hidden": hidden,
                  "strategy": strategy, "games": int(games[i]), "deals": deals,
                  **{name: table[i, s].item() for name, table in counts.items()},
                  **{key: np.nan if value is None else value
                     for key, value in rates[strategy].items()}}
                 for s, strategy in enumerate(chosen.strategies)]
    return pd.DataFrame(rows)
