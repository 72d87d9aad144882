"""`subgame status`: per computation, levels finished and pending, bytes on disk."""

from __future__ import annotations

from rich.table import Table

from subgame.commands.common import JsonOption, StoreOption, console, emit, user_errors
from subgame.storage import find_computations, resolve_store


@user_errors
def status(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Show every computation in the store: levels done and pending, shards, sizes."""
    url = resolve_store(store)
    result = {"store": url, "computations": [c.status() for c in find_computations(url)]}

    def render(r: dict) -> None:
        if not r["computations"]:
            console.print(f"{url}: no computations yet")
        for comp in r["computations"]:
            table = Table(title=f"{comp['computation']}  ({comp['levels_finished']}/"
                                f"{comp['levels_total']} levels, "
                                f"{comp['bytes_on_disk'] / 1e6:.1f} MB)")
            for column in ("level", "shards", "state", "seconds"):
                table.add_column(column)
            for level in comp["levels"]:
                state = "done" if level["finished"] else (
                    "partial" if level["shards_done"] else "pending")
                table.add_row(level["name"], f"{level['shards_done']}/{level['shards']}", state,
                              str(level.get("seconds", "")))
            console.print(table)

    emit(result, as_json, render)
