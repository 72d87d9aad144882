"""Guess Who tables as a Prefect flow: one task per band of levels, rule sets as shards."""

from __future__ import annotations

from prefect import flow

from subgame.flows.runner import RunOptions, run_plan
from subgame.tasks.guess_who import GuessWhoConfig, guess_who_plan, parse_rules


@flow(name="guess-who", log_prints=True)
def guess_who_flow(max_n: int, rules: str = "both", band: int = 512, store: str | None = None,
                   scheduler: str | None = None, workers: int | None = None,
                   executor: str = "dask", progress: bool = False,
                   max_levels: int | None = None, cluster: str | None = None,
                   repair: bool = False) -> dict:
    """Exact tables a_I, a_II = n*m*p(n,m) for 1 <= n, m <= max_n, with optimal move sets."""
    plan = guess_who_plan(GuessWhoConfig(max_n, parse_rules(rules), band))
    options = RunOptions(store, scheduler, workers, executor, progress, max_levels, cluster,
                         repair)
    return run_plan(plan, options).as_dict()


if __name__ == "__main__":
    guess_who_flow(max_n=23)
