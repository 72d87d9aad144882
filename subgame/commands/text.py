"""Query results as plain text that a terminal of any width keeps whole: items (a state
"(23, 16)", a name, a description) are never broken across lines, and long exact numbers
are printed on one logical line (the terminal folds them; a copy gives the whole number)."""

from __future__ import annotations

import re
from typing import Iterable

from subgame.commands.common import console


def packed_lines(items: Iterable[str], width: int, separator: str = ", ",
                 indent: str = "  ") -> list[str]:
    """``items`` joined by ``separator`` into lines of at most ``width`` characters, breaking
    only between items (an item longer than a line gets a line of its own)."""
    lines, line = [], ""
    for item in items:
        candidate = f"{line}{separator}{item}" if line else f"{indent}{item}"
        if line and len(candidate) + len(separator.rstrip()) > width:
            lines.append(line + separator.rstrip())
            candidate = f"{indent}{item}"
        line = candidate
    return [*lines, line] if line else lines


def print_items(heading: str, items: Iterable[str]) -> None:
    """``heading``, then the items packed to the console's width."""
    print_paragraph(heading)
    for line in packed_lines(items, console.width):
        console.print(line, soft_wrap=True, highlight=False)


# A word, or a short parenthesis such as "(n, m)" or "(4, 3)," kept whole.
WORD = re.compile(r"\([^()\s]*\s[^()\s]*\)\S*|\S+")


def print_paragraph(text: str, indent: str = "") -> None:
    """``text`` wrapped to the console's width between words (never inside one, nor inside
    a pair such as "(4, 3)")."""
    for line in packed_lines(WORD.findall(text), console.width, " ", indent):
        console.print(line, soft_wrap=True, highlight=False)


def print_quantities(heading: str, rows: Iterable[tuple[str, str | list[str]]]) -> None:
    """``heading`` (wrapped between words), then one "name  value" line per row, the values
    aligned. A value given as a list of items (descriptions, moves) is packed into lines
    under its column, "; " between items; a text value is never wrapped by us (an exact
    fraction of thousands of digits stays one line, to copy)."""
    rows = list(rows)
    print_paragraph(heading)
    width = max((len(name) for name, _ in rows), default=0)
    for name, value in rows:
        if isinstance(value, list):
            hanging = " " * (width + 4)
            lines = packed_lines(value, console.width, "; ", hanging) or [hanging + "-"]
            value = "\n".join([lines[0].lstrip(), *lines[1:]])
        console.print(f"  {name.ljust(width)}  {value}", soft_wrap=True, highlight=False)


def print_files(result: dict) -> None:
    """A plot command's ``{"files": [...]}``, one path a line, never wrapped (to copy)."""
    for path in result["files"]:
        console.print(path, soft_wrap=True, highlight=False)
