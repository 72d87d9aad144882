"""How exact big integers are stored: hexadecimal strings.

Exact, linear-time to convert both ways (decimal conversion is quadratic, and Python caps it
at 4300 digits by default), and readable by any Zarr reader.
"""

from __future__ import annotations

import numpy as np

HEX = {"encoding": "hexadecimal integer"}  # the attribute such arrays carry


def to_hex(values) -> np.ndarray:
    return np.array([format(v, "x") for v in values])


def from_hex(values) -> tuple[int, ...]:
    return tuple(int(str(v), 16) for v in values)
