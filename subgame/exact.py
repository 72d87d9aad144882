"""Exact numbers as text: every decimal digit of an integer, a rational as "num/den", a
count with its noun.

Pure (no I/O); families' readers and pure tools share it. Python caps int -> str at 4300
digits by default, which exact counts (n! P_all(n)) pass.
"""

from __future__ import annotations

import sys
from fractions import Fraction


def decimal(value: int) -> str:
    """All decimal digits of an exact integer, whatever its size."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return str(value)
    finally:
        sys.set_int_max_str_digits(limit)


def fraction_text(value: Fraction) -> str:
    """An exact rational as "num/den" (a whole number as "n/1")."""
    return f"{decimal(value.numerator)}/{decimal(value.denominator)}"


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """'1 step', '3 steps'; '2 mismatches' when given the plural."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
