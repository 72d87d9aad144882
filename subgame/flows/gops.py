"""GOPS as a Prefect flow: one task per level j = 1..N, deck-rank shards on Dask."""

from __future__ import annotations

from prefect import flow

from subgame.flows.runner import RunOptions, run_plan
from subgame.tasks.gops import DEFAULT_SHARD_STATES, GopsConfig, gops_plan, parse_strategies


@flow(name="gops", log_prints=True)
def gops_flow(cards: int, strategies: str = "all", shard_states: int = DEFAULT_SHARD_STATES,
              store: str | None = None, scheduler: str | None = None, workers: int | None = None,
              executor: str = "dask", progress: bool = False, max_levels: int | None = None,
              cluster: str | None = None, repair: bool = False) -> dict:
    """Values f(V,Y,P), per-upcard values and optimal mixed bids of every GOPS subgame."""
    plan = gops_plan(GopsConfig(cards, parse_strategies(strategies, cards), shard_states))
    options = RunOptions(store, scheduler, workers, executor, progress, max_levels, cluster,
                         repair)
    return run_plan(plan, options).as_dict()


if __name__ == "__main__":
    gops_flow(cards=8)
