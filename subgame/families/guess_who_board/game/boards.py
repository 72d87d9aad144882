"""Boards as data: the classic 24-character board and boards read from CSV files.

A board file has a header row with a ``name`` column; every other column is one of

- a 0/1 column: the column's name is a trait, present where the cell is 1;
- a categorical column: every cell is non-empty text, not all cells are numbers; each value
  is a trait ``column=value`` (``hair`` with values black, blonde, ... gives the traits
  ``hair=black``, ``hair=blonde``, ...).

Any other column has an *unknown column type*: a column with an empty cell (the trait is
unknown for that character), or a numeric column with values other than 0 and 1 (a count
or a measurement is not a trait).

``sex`` is an ordinary categorical column: it gives the two traits ``sex=female`` and
``sex=male``, as the seed's board has both "vrouw" and "man".  They are complementary, so
each splits any set of characters the same way, and the solver counts that split once.

The classic board is the majority vote of three public datasets; two cells are disputed
(DISPUTED_CELLS), and ``long_hair`` and ``big_mouth`` are subjective traits some rule sets
leave out.
"""

from __future__ import annotations

import csv
import io
from importlib import resources
from pathlib import Path
from typing import NamedTuple

from subgame.errors import InvalidInput
from subgame.exact import counted

from .board import Character

NAME_COLUMN = "name"
CLASSIC_BOARD = "classic.csv"


class DisputedCell(NamedTuple):
    name: str
    trait: str
    majority: int
    note: str


DISPUTED_CELLS = (
    DisputedCell("Richard", "moustache", 1, "sources disagree; the majority says he has one"),
    DisputedCell("Anne", "big_nose", 0, "sources disagree; the majority says she has none"),
)


def classic_characters() -> tuple[Character, ...]:
    """The 24 characters of the classic board, from the copy shipped in this package."""
    text = resources.files(__package__).joinpath(CLASSIC_BOARD).read_text(encoding="utf-8")
    return parse_board(text, "the classic board")


def load_board(path: str | Path) -> tuple[Character, ...]:
    """The characters of a board CSV file (see the module docstring for the format)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInput(f"cannot read board file {str(path)!r}: {error}") from None
    return parse_board(text, str(path))


def parse_board(text: str, source: str) -> tuple[Character, ...]:
    """The characters of CSV text; ``source`` names it in error messages."""
    try:
        rows = [row for row in csv.reader(io.StringIO(text)) if any(c.strip() for c in row)]
    except csv.Error as error:
        raise InvalidInput(f"cannot read board {source}: {error}") from None
    if not rows:
        raise InvalidInput(f"board {source} is empty: no header and no characters")
    header = [cell.strip() for cell in rows[0]]
    if NAME_COLUMN not in header:
        raise InvalidInput(f"board {source} has no {NAME_COLUMN!r} column (header: {header})")
    if len(set(header)) != len(header) or "" in header:
        raise InvalidInput(f"board {source}: column names must be non-empty and distinct, "
                           f"got {header}")
    body = rows[1:]
    if not body:
        raise InvalidInput(f"board {source} is empty: it has a header but no characters")
    for line, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise InvalidInput(f"board {source}, row {line}: {counted(len(row), 'cell')} for "
                               f"{counted(len(header), 'column')}")
    columns = {column: [row[i].strip() for row in body] for i, column in enumerate(header)}
    names = columns.pop(NAME_COLUMN)
    _check_names(names, source)

    traits_of: list[list[str]] = [[] for _ in names]
    for column, cells in columns.items():
        for row_traits, trait in zip(traits_of, _column_traits(column, cells, source)):
            if trait is not None:
                row_traits.append(trait)
    characters = []
    for name, traits in zip(names, traits_of):
        if not traits:
            raise InvalidInput(f"board {source}: character {name!r} has no traits")
        characters.append(Character(name, traits))
    _check_distinguishable(characters, source)
    return tuple(characters)


def _check_names(names: list[str], source: str) -> None:
    if "" in names:
        raise InvalidInput(f"board {source}: a character has an empty name")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InvalidInput(f"board {source}: duplicate name {name!r}")
        seen.add(name)


def _column_traits(column: str, cells: list[str], source: str) -> list[str | None]:
    """Per character, the trait this column gives it (None: none)."""
    if "" in cells:
        raise InvalidInput(f"board {source}: unknown column type for {column!r}: it has an "
                           f"empty cell (every cell must be 0/1, or every cell a category)")
    if set(cells) <= {"0", "1"}:
        return [column if cell == "1" else None for cell in cells]
    if all(_is_number(cell) for cell in cells):
        raise InvalidInput(f"board {source}: unknown column type for {column!r}: numbers "
                           f"other than 0 and 1 are neither a 0/1 trait nor a category")
    return [f"{column}={cell}" for cell in cells]


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _check_distinguishable(characters: list[Character], source: str) -> None:
    seen: dict[frozenset[str], str] = {}
    for character in characters:
        key = frozenset(character.traits)
        if key in seen:
            raise InvalidInput(f"board {source}: {seen[key]!r} and {character.name!r} have "
                               f"identical traits, so no question can tell them apart")
        seen[key] = character.name
