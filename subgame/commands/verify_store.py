"""`subgame verify --store S`: read every stored chunk and name the work that rewrites the
damaged ones (`subgame run <family> ... --repair` recomputes it)."""

from __future__ import annotations

import typer

from subgame.commands.common import JsonOption, StoreOption, console, emit, user_errors
from subgame.storage.location import resolve_store

DAMAGE_FOUND = 3  # distinct from bad input (2) and internal errors (1)


def verify_store(ctx: typer.Context, store: StoreOption = None,
                 as_json: JsonOption = False) -> None:
    """Check stored results: with --store alone, every file against the store's manifest
    where `subgame publish` wrote one, else every chunk's checksum; with a family
    sub-command, the family's results against theory."""
    if ctx.invoked_subcommand is None and _report_damage(store=store, as_json=as_json):
        raise typer.Exit(DAMAGE_FOUND)


@user_errors
def _report_damage(store: str | None, as_json: bool) -> bool:
    from subgame.storage.integrity import scan_store  # (Zarr: on use)
    from subgame.storage.publish import MANIFEST, check_manifest, read_manifest

    url = resolve_store(store)
    manifest = read_manifest(url)
    if manifest is not None:  # a published store: every file against its manifest
        mismatches = check_manifest(url, manifest)
        emit({"store": url, "manifest": MANIFEST,
              "mismatched": [{"path": m.path, "problem": m.problem} for m in mismatches]},
             as_json, lambda r: console.print(
                 "\n".join(m.describe() for m in mismatches) if mismatches else
                 f"{url}: every file matches {MANIFEST} ({len(manifest['files'])} files)",
                 soft_wrap=True, highlight=False))
        return bool(mismatches)
    damages = scan_store(url)
    result = {"store": url, "damaged": [damage.as_dict() for damage in damages]}
    emit(result, as_json, lambda r: console.print(
        "\n".join(damage.describe() for damage in damages) if damages
        else f"{url}: every stored chunk passes its checksum", soft_wrap=True, highlight=False))
    return bool(damages)
