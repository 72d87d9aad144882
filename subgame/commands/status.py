"""`subgame status`: per computation, steps finished and pending, bytes on disk."""

from __future__ import annotations

from subgame import families
from subgame.commands.common import JsonOption, StoreOption, console, emit, user_errors
from subgame.errors import InvalidInput
from subgame.family import Family
from subgame.storage.location import resolve_store


LABELS = {"seconds": "s", "matrix_games": "games", "bytes_on_disk": "disk",
          "deck_sizes/s": "n/s"}


def _human(value: float) -> str:
    for unit in ("", "k", "M", "G", "T"):
        if abs(value) < 1000:
            return f"{value:.3g}{unit}"
        value /= 1000
    return f"{value:.3g}P"


def declared(name: str | None) -> Family:
    """The family's declared step metrics (what a step holds, what its run computed per
    second); none for a family this installation does not know."""
    try:
        return families.get(name)
    except InvalidInput:
        return Family(str(name), object, {})


@user_errors
def status(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Show every computation in the store: steps done and pending, shards, sizes."""
    from subgame.storage.computation import find_computations  # (Zarr: on use)

    url = resolve_store(store)
    result = {"store": url, "computations": [c.status() for c in find_computations(url)]}

    def render(r: dict) -> None:
        from rich import box  # rich is for the text output alone
        from rich.table import Table

        if not r["computations"]:
            console.print(f"{url}: no computations yet")
        for comp in r["computations"]:
            # The group name on a line of its own, never wrapped: it is what --group and
            # xarray's group= take, so it must copy whole.
            console.print(f"{comp['computation']}  ({comp['steps_finished']}/"
                          f"{comp['steps_total']} steps, "
                          f"{comp['bytes_on_disk'] / 1e6:.1f} MB)",
                          soft_wrap=True, highlight=False)
            table = Table(box=box.SIMPLE_HEAD, show_edge=False)  # room for the numbers
            family = declared(comp["family"])
            # A size is a step's information, or what its run found (a count only the run knows).
            held = [{**st.get("computed", {}), **st} for st in comp["steps"]]
            sizes = [key for key in (*family.sizes, "bytes_on_disk")
                     if any(key in st for st in held)]
            rates = [key for key in family.rates
                     if any(key in st.get("computed", {}) for st in comp["steps"])]
            for column in ("step", "shards", "state", "seconds", *sizes,
                           *(f"{key}/s" for key in rates)):
                table.add_column(LABELS.get(column, column.replace("_", " ")), justify="right",
                                 no_wrap=True)
            for step in held:
                state = step["state"]
                seconds, computed = step.get("seconds"), step.get("computed", {})
                row = [step["name"], f"{step['shards_done']}/{step['shards']}", state,
                       f"{seconds:.3g}" if seconds else ""]
                row += [_human(step[key]) + ("B" if key == "bytes_on_disk" else "")
                        if key in step else "" for key in sizes]
                row += [_human(computed[key] / seconds) if seconds and key in computed else ""
                        for key in rates]
                table.add_row(*row)
            console.print(table)

    emit(result, as_json, render)
