"""`subgame publish --store S`: a finished store as a release another person can check
(`subgame verify --store COPY`) and read without recomputing (`subgame.storage.publish`)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from subgame.commands.common import JsonOption, StoreOption, console, emit, user_errors
from subgame.storage.location import resolve_store


@user_errors
def publish(store: StoreOption = None,
            title: Annotated[Optional[str], typer.Option(
                "--title", metavar="<text>", help="The citation's title [default: the computations' names].")
            ] = None,
            authors: Annotated[Optional[list[str]], typer.Option(
                "--author", metavar="<text>", help="An author for CITATION.cff (repeat for several).")] = None,
            as_json: JsonOption = False) -> None:
    """Write PROVENANCE.json, CITATION.cff, consolidated metadata and MANIFEST.json (size and
    SHA-256 of every file) into a finished store."""
    from subgame.storage.publish import publish as write_release  # (Zarr: on use)

    result = write_release(resolve_store(store), title, list(authors or []))
    emit(result, as_json, lambda r: console.print(
        f"{r['store']}: published {r['files']} files, {r['bytes']:,} bytes, in "
        f"{', '.join(r['written'])}", soft_wrap=True, highlight=False))
