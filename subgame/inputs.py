"""Files a user hands in (a JSON view of a game), read within bounds: a size, and a nesting
depth checked before parsing (Python's json recurses once per level: 100 000 "[" would
end in a RecursionError, not in a message)."""

from __future__ import annotations

import json
import os
from typing import Any

from subgame.errors import InvalidInput

MAX_JSON_BYTES = 10 * 2**20
MAX_JSON_DEPTH = 64


def nesting_depth(text: str) -> int:
    """The deepest nesting of [ and { in JSON text, strings skipped."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def read_json(path: str, max_bytes: int = MAX_JSON_BYTES,
              max_depth: int = MAX_JSON_DEPTH) -> Any:
    """A JSON file's value, or InvalidInput naming what is wrong with it."""
    try:
        size = os.path.getsize(path)
        if size > max_bytes:
            raise InvalidInput(f"{path} holds {size:,} bytes; a JSON input is at most "
                               f"{max_bytes:,}")
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path} is not valid JSON: {exc}") from None
    if nesting_depth(text) > max_depth:
        raise InvalidInput(f"{path} nests deeper than {max_depth} levels; a JSON input is "
                           "a flat description (see the command's --help)")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise InvalidInput(f"{path} is not valid JSON: {exc}") from None
