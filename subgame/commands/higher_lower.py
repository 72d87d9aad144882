"""`subgame run|query|plot higher-lower`."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from subgame.commands.common import (ClusterOption, ExecutorOption, JsonOption,
                                     MaxLevelsOption, RepairOption, SchedulerOption,
                                     StoreOption, WorkersOption, console, emit, preflight,
                                     user_errors)
from subgame.errors import InvalidInput
from subgame.storage import higher_lower as stored
from subgame.storage import resolve_store

TiesOption = Annotated[str, typer.Option("--ties", help="loss and/or pass (comma-separated): "
                                                        "what an equal rank does.")]
PolicyOption = Annotated[str, typer.Option(
    "--policy", help="optimal, majority, always-higher (comma-separated).")]


@user_errors
def run(max_n: Annotated[Optional[int], typer.Option(
            "--max-n", help="Distinct-card sweep over deck sizes n <= N.")] = None,
        exact_max: Annotated[int, typer.Option(
            "--exact-max", help="Exact counts n! P_all(n) for n <= this.")] = 2000,
        block: Annotated[int, typer.Option("--block", help="Deck sizes per level.")] = 10_000,
        ranks: Annotated[Optional[str], typer.Option(
            "--ranks", help="Deck sweep: ranks per deck, e.g. 8,13.")] = None,
        suits: Annotated[Optional[str], typer.Option(
            "--suits", help="Deck sweep: suits per deck, e.g. 2,4.")] = None,
        ties: TiesOption = "loss", policy: PolicyOption = "optimal,majority",
        games: Annotated[int, typer.Option("--games", help="Monte Carlo games per grid point "
                                                           "(0: exact DP only).")] = 0,
        seed: Annotated[int, typer.Option("--seed", help="Root of the random streams.")] = 0,
        store: StoreOption = None, scheduler: SchedulerOption = None,
        workers: WorkersOption = None, executor: ExecutorOption = "dask",
        max_levels: MaxLevelsOption = None, cluster: ClusterOption = None,
        repair: RepairOption = False, as_json: JsonOption = False) -> None:
    """Sweep the higher/lower card-guessing problem: distinct cards and/or r x s decks."""
    from subgame.flows.higher_lower import higher_lower_flow, plans
    from subgame.flows.runner import RunOptions

    RunOptions(store, scheduler, workers, executor, cluster=cluster).probe()
    for plan in plans(max_n, exact_max, block, ranks, suits, ties, policy, games, seed):
        preflight(plan, store)
    reports = higher_lower_flow(max_n=max_n, exact_max=exact_max, block=block, ranks=ranks,
                                suits=suits, ties=ties, policy=policy, games=games, seed=seed,
                                store=store, scheduler=scheduler, workers=workers,
                                executor=executor, progress=not as_json,
                                max_levels=max_levels, cluster=cluster, repair=repair)
    emit(reports, as_json, lambda rs: [console.print(
        f"{r['computation']} in {r['store']}: computed {len(r['levels_computed'])} levels "
        f"({r['shards_computed']} shards), {r['levels_skipped']} already stored",
        soft_wrap=True) for r in rs])


@user_errors
def query(n: Annotated[Optional[int], typer.Option("--n", min=1, help="Deck size.")] = None,
          asymptotics: Annotated[bool, typer.Option(
              "--asymptotics", help="Extrapolated limits of the ratio and the streak.")] = False,
          ranks: Annotated[Optional[int], typer.Option("--ranks", min=1)] = None,
          suits: Annotated[Optional[int], typer.Option("--suits", min=1)] = None,
          ties: Annotated[str, typer.Option("--ties")] = "loss",
          policy: Annotated[str, typer.Option("--policy")] = "optimal",
          store: StoreOption = None, as_json: JsonOption = False) -> None:
    """P_all(n) (float and exact), the count n! P_all(n), the expected streak; or limits;
    or a deck's exact and Monte Carlo odds."""
    url = resolve_store(store)
    if asymptotics:
        result = stored.asymptotics(url)
    elif n is not None:
        result = stored.query_n(url, n)
    elif ranks is not None and suits is not None:
        result = stored.query_deck(url, ranks, suits, ties, policy.replace("-", "_"))
    else:
        raise InvalidInput("give --n, --asymptotics, or --ranks and --suits")
    emit(result, as_json, lambda r: console.print_json(data=r))


@user_errors
def plot(out: Annotated[str, typer.Option("--out", help="Folder for the PNG files.")] = "figures",
         store: StoreOption = None, as_json: JsonOption = False) -> None:
    """P_all(n) on a log scale with the fitted exponential, and the ratio against n."""
    from subgame.plotting import sweep_figures

    table = stored.sweep(resolve_store(store))
    files = sweep_figures(table, out)
    emit({"files": files}, as_json, lambda r: console.print("\n".join(r["files"])))
