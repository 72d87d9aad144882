"""`subgame status`: per computation, levels finished and pending, bytes on disk."""

from __future__ import annotations

from rich.table import Table

from subgame.commands.common import JsonOption, StoreOption, console, emit, user_errors
from subgame.storage import find_computations, resolve_store


# What a level holds, when its family records it (the first one found is also shown per
# second of the level's compute time).
SIZE_COLUMNS = ("cells", "states", "matrix_games", "bytes_on_disk")


def _human(value: float) -> str:
    for unit in ("", "k", "M", "G", "T"):
        if abs(value) < 1000:
            return f"{value:.3g}{unit}"
        value /= 1000
    return f"{value:.3g}P"


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
            sizes = [key for key in SIZE_COLUMNS if any(key in lv for lv in comp["levels"])]
            rate = sizes[0] if sizes and sizes[0] != "bytes_on_disk" else None
            columns = ["level", "shards", "state", "seconds", *sizes] + (
                [f"{rate}/s"] if rate else [])
            for column in columns:
                table.add_column(column.replace("_", " ").replace("bytes on disk", "disk"),
                                 justify="right")
            for level in comp["levels"]:
                state = "done" if level["finished"] else (
                    "partial" if level["shards_done"] else "pending")
                seconds = level.get("seconds")
                row = [level["name"], f"{level['shards_done']}/{level['shards']}", state,
                       f"{seconds:.3g}" if seconds else ""]
                row += [_human(level[key]) + ("B" if key == "bytes_on_disk" else "")
                        if key in level else "" for key in sizes]
                if rate:
                    row.append(_human(level[rate] / seconds) if seconds else "")
                table.add_row(*row)
            console.print(table)

    emit(result, as_json, render)
