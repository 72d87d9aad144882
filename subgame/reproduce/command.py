"""`subgame reproduce SEED [--store S] [--out DIR] [--size small|full] [--json]`, and
`subgame reproduce --list`."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

import typer

from subgame.commands.common import JsonOption, OutOption, StoreOption, console, emit, user_errors
from subgame.commands.text import print_files
from subgame.errors import InvalidInput
from subgame.reproduce import SIZES, SUBJECTS
from subgame.reproduce.claims import EQUAL, SHOWN_DIGITS


def _render(result: dict) -> None:
    console.print(f"{result['document']} ({result['size']} size)", highlight=False,
                  soft_wrap=True)
    for claim in result["claims"]:
        mark = "=" if claim["verdict"] in (EQUAL, SHOWN_DIGITS) else "!"
        console.print(f"{mark} {claim['item']}: document {claim['document']}, subgame "
                      f"{claim['subgame']}: {claim['verdict']}", highlight=False, soft_wrap=True)
        if claim["why"]:
            console.print(f"    why: {claim['why']}" +
                          (f" ({claim['page']})" if claim["page"] else ""),
                          highlight=False, soft_wrap=True)
    counts = ", ".join(f"{count} {verdict}" for verdict, count in result["counts"].items()
                       if count)
    console.print(f"{len(result['claims'])} claims: {counts}", highlight=False, soft_wrap=True)
    print_files({"files": result["figures"]})


@user_errors
def reproduce(subject: Annotated[Optional[str], typer.Argument(
                  metavar="SEED", help=f"The document: {', '.join(SUBJECTS)}.",
                  show_default=False)] = None,
              listing: Annotated[bool, typer.Option(
                  "--list", help="Name each document and what its reproduction covers.")
              ] = False,
              size: Annotated[Literal[SIZES], typer.Option(
                  "--size", help="small: the sizes the test suite runs (seconds); full: the "
                                 "document's own sizes.")] = "full",
              out: OutOption = "figures", store: StoreOption = None,
              as_json: JsonOption = False) -> None:
    """Every table, figure and claim of a source document beside subgame's value, with a
    verdict (equal, equal to the shown digits, differs: why, and the page that explains
    it); computes what it needs into the store (resumably) and writes the figures to
    --out."""
    from subgame.reproduce import reproduce as run

    if listing:
        emit({name: covers for name, (_, covers) in SUBJECTS.items()}, as_json,
             lambda listed: [console.print(f"{name}: {covers}", highlight=False, soft_wrap=True)
                             for name, covers in listed.items()])
        return
    if subject is None:
        raise InvalidInput(f"name a document ({', '.join(SUBJECTS)}) or give --list")
    emit(run(subject, store, out, size).as_dict(), as_json, _render)
