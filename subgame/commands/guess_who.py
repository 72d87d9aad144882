"""`subgame run|query|plot|verify guess-who`."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.table import Table

from subgame.commands.common import (ExecutorOption, JsonOption, MaxLevelsOption,
                                     SchedulerOption, StoreOption, WorkersOption, console,
                                     emit, user_errors)
from subgame.errors import InvalidInput
from subgame.storage import resolve_store
from subgame.storage import guess_who as stored

RulesOption = Annotated[str, typer.Option("--rules", help="official, variant or both.")]


@user_errors
def run(max_n: Annotated[int, typer.Option("--max-n", help="Largest n and m (U).")],
        rules: RulesOption = "both",
        band: Annotated[int, typer.Option(
            "--band", help="Levels per Prefect task = chunk edge of the stored tables.")] = 512,
        store: StoreOption = None, scheduler: SchedulerOption = None,
        workers: WorkersOption = None, executor: ExecutorOption = "dask",
        max_levels: MaxLevelsOption = None, as_json: JsonOption = False) -> None:
    """Compute exact Guess Who tables a(n,m) = n*m*p(n,m) and optimal move sets, n, m <= U."""
    from subgame.flows.guess_who import guess_who_flow
    from subgame.tasks.guess_who import GuessWhoConfig, parse_rules

    GuessWhoConfig(max_n, parse_rules(rules), band)  # refuse bad input before Prefect starts
    report = guess_who_flow(max_n=max_n, rules=rules, band=band, store=store,
                            scheduler=scheduler, workers=workers, executor=executor,
                            progress=not as_json, max_levels=max_levels)
    emit(report, as_json, lambda r: console.print(
        f"{r['computation']} in {r['store']}: computed {len(r['levels_computed'])} level bands "
        f"({r['shards_computed']} shards), {r['levels_skipped']} already stored"))


def _rule(rules: str) -> str:
    if rules not in ("official", "variant"):
        raise InvalidInput(f"unknown rules {rules!r}; choose official or variant")
    return rules


@user_errors
def query(n: Annotated[Optional[int], typer.Option("--n", min=1, help="Moving player's count.")] = None,
          m: Annotated[Optional[int], typer.Option("--m", min=1, help="Waiting player's count.")] = None,
          rules: RulesOption = "official",
          fair: Annotated[bool, typer.Option("--fair", help="List the fair states instead.")] = False,
          store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Win probability (exact), F, G and optimal moves of state (n, m); or the fair states."""
    url, rule = resolve_store(store), _rule(rules)
    if fair:
        result = stored.fair_states(url, rule)
        emit(result, as_json, lambda r: console.print(
            f"fair states ({rule} rules, n, m <= {r['max_n']}): "
            + ", ".join(f"({a}, {b})" for a, b in r["fair_states"])))
        return
    if n is None or m is None:
        raise InvalidInput("give both --n and --m (or --fair)")
    result = stored.query_state(url, n, m, rule)

    def render(r: dict) -> None:
        table = Table(title=f"Guess Who state ({n}, {m}), {rule} rules")
        table.add_column("quantity")
        table.add_column("value")
        for key in ("a", "p", "p_float", "F", "G"):
            table.add_row(key, str(r[key]))
        moves = r["optimal_moves"]
        table.add_row("optimal s", f"{moves['min']}..{moves['max']} ({moves['count']} moves)")
        table.add_row("final guess optimal", str(moves["final_guess_optimal"]))
        console.print(table)

    emit(result, as_json, render)
