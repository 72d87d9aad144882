"""Higher/lower sweeps as one Prefect flow: the distinct-card sweep and/or a deck grid."""

from __future__ import annotations

from prefect import flow

from subgame.errors import InvalidInput
from subgame.flows.runner import RunOptions, run_plan
from subgame.games.higher_lower import POLICIES, TIES
from subgame.tasks.higher_lower import (DeckConfig, DistinctConfig, deck_plan, distinct_plan,
                                        parse_choices, parse_sizes)


def plans(max_n: int | None, exact_max: int, block: int, ranks: str | None, suits: str | None,
          ties: str, policy: str, games: int, seed: int) -> list:
    """The plans one invocation asks for: the distinct sweep (max_n), a deck grid (ranks and
    suits), or both."""
    chosen = []
    if max_n is not None:
        chosen.append(distinct_plan(DistinctConfig(max_n, min(exact_max, max_n), block)))
    if (ranks is None) != (suits is None):
        raise InvalidInput("give both --ranks and --suits for a deck sweep")
    if ranks is not None:
        chosen.append(deck_plan(DeckConfig(
            parse_sizes("--ranks", ranks, 52), parse_sizes("--suits", suits, 8),
            parse_choices("--ties", ties, TIES), parse_choices("--policy", policy, POLICIES),
            games, seed)))
    if not chosen:
        raise InvalidInput("give --max-n for the distinct-card sweep and/or --ranks and "
                           "--suits for a deck sweep")
    return chosen


@flow(name="higher-lower", log_prints=True)
def higher_lower_flow(max_n: int | None = None, exact_max: int = 2000, block: int = 10_000,
                      ranks: str | None = None, suits: str | None = None, ties: str = "loss",
                      policy: str = "optimal,majority", games: int = 0, seed: int = 0,
                      store: str | None = None, scheduler: str | None = None,
                      workers: int | None = None, executor: str = "dask",
                      progress: bool = False, max_levels: int | None = None,
                      cluster: str | None = None, repair: bool = False) -> list[dict]:
    """P_all(n) and streaks for distinct cards; exact/Monte Carlo odds for r x s decks."""
    options = RunOptions(store, scheduler, workers, executor, progress, max_levels, cluster,
                         repair)
    return [run_plan(plan, options).as_dict()
            for plan in plans(max_n, exact_max, block, ranks, suits, ties, policy, games, seed)]


if __name__ == "__main__":
    higher_lower_flow(max_n=2000)
