"""`subgame upgrade --store S`: convert the computations subgame 0.1 wrote, in place."""

from __future__ import annotations

from subgame import families
from subgame.errors import InvalidInput
from subgame.commands.common import JsonOption, StoreOption, console, emit, user_errors
from subgame.storage.location import resolve_store


@user_errors
def upgrade(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Convert every computation written by subgame 0.1 to today's layout; nothing is
    recomputed and computations already converted are left as they are."""
    from subgame.storage.computation import FORMAT, computation_groups  # (Zarr: on use)
    from subgame.storage.upgrade import upgrade_group

    url = resolve_store(store)
    converted = []
    for path, group in list(computation_groups(url)):
        if group.attrs.get("format") == FORMAT:
            continue
        family = families.get(group.attrs["family"])
        if family.upgrade is None:
            raise InvalidInput(f"{path}: family {family.name} cannot convert 0.1 "
                                        "stores")
        converted.append({"from": path, "to": upgrade_group(
            url, path, family.upgrade(dict(group.attrs["config"])))})
    emit({"store": url, "converted": converted}, as_json, lambda r: console.print(
        "\n".join(f"{c['from']} -> {c['to']}" for c in r["converted"])
        or f"{url}: nothing to convert", soft_wrap=True))
