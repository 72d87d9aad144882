"""The Python API: what `subgame query` and `subgame export` give, as Python objects.

    subgame.query(FAMILY, store=None, **options) -> dict
    subgame.table(FAMILY, store=None, **options) -> pandas.DataFrame

Options are the CLI's, as keywords (``--first-move`` is ``first_move=True``); each family's
query function is the one its CLI command calls (`Family.answer`), so the dict is the one
``--json`` prints. Nothing here starts Prefect or Dask.
"""

from __future__ import annotations

import json
from typing import Any

from subgame import families
from subgame.errors import InvalidInput


def _family_function(family: str, kind: str):
    found = getattr(families.get(family), kind)
    if found is None:
        raise InvalidInput(f"the {family} family has no {'query' if kind == 'answer' else kind}")
    return found


def query(family: str, store: str | None = None, **options: Any) -> dict[str, Any]:
    """The answer of `subgame query <family> ... --json`, as that JSON reads back (lists,
    not tuples; plain numbers)."""
    from subgame.commands.common import json_text

    return json.loads(json_text(_family_function(family, "answer")(store=store, **options)))


def table(family: str, store: str | None = None, **options: Any):
    """The pandas DataFrame `subgame export <family> ...` writes."""
    return _family_function(family, "table")(store=store, **options)
