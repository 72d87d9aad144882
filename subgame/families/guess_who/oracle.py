"""What `subgame web` answers about the Guess Who tables beyond `query`: a corner of the
table, p(n, m) = a(n, m) / (n m) exactly for every n, m up to a size, for the page's
heatmap."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from subgame.errors import InvalidInput
from subgame.exact import fraction_text
from subgame.families.guess_who.commands import _rule
from subgame.families.guess_who.read import open_table
from subgame.family import Oracle
from subgame.storage import resolve_store

MAX_SIZE = 128  # a request's corner: 128 x 128 exact fractions


def corner(size: int = 32, rules: str = "official", store: str | None = None) -> dict[str, Any]:
    """a(n, m) and p(n, m) as exact fractions for n, m <= size (rows n, columns m)."""
    if not 1 <= size <= MAX_SIZE:
        raise InvalidInput(f"size must be in 1..{MAX_SIZE}, got {size}")
    table = open_table(resolve_store(store), _rule(rules), size)
    a = table.block("a", size).tolist()
    return {"rules": rules, "size": size, "covered": table.covered, "a": a,
            "p": [[fraction_text(Fraction(a[n - 1][m - 1], n * m)) for m in range(1, size + 1)]
                  for n in range(1, size + 1)]}


ORACLE = Oracle(answers={"table": corner}, script=str(Path(__file__).with_name("web.js")))
