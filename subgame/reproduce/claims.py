"""A document's claim beside subgame's value, and the verdict that compares them.

Verdicts:

* ``equal``: the same number, set or text (exact values compared exactly);
* ``equal to the shown digits``: subgame's exact or float value, rounded to the digits the
  document prints (half to even, in decimal), is the printed number; or the document prints
  a float as Python does (its shortest repr) and that float is the one nearest subgame's
  exact value;
* ``differs``: with the reason and the page that explains it;
* ``not reproduced``: the document does not define the quantity well enough to compute it
  (the reason says what is missing).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

EQUAL = "equal"
SHOWN_DIGITS = "equal to the shown digits"
DIFFERS = "differs"
NOT_REPRODUCED = "not reproduced"
VERDICTS = (EQUAL, SHOWN_DIGITS, DIFFERS, NOT_REPRODUCED)


@dataclass(frozen=True)
class Claim:
    """One table cell, figure or sentence of a document, as subgame reproduces it."""

    item: str  # what the document states, in its own words or notation
    document: str  # the document's value, as printed
    subgame: str  # subgame's value
    verdict: str
    why: str = ""  # for a difference: its reason
    page: str = ""  # the page that explains the difference

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass
class Reproduction:
    """Every claim of one document that subgame reproduces, and the figures it drew."""

    seed: str  # the subject's name: guess-who-paper, ...
    document: str  # the source document, as the seeds' README names it
    size: str  # small or full
    claims: list[Claim] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)

    def add(self, claim: Claim) -> None:
        self.claims.append(claim)

    def counts(self) -> dict[str, int]:
        return {verdict: sum(c.verdict == verdict for c in self.claims) for verdict in VERDICTS}

    def as_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "document": self.document, "size": self.size,
                "counts": self.counts(), "claims": [c.as_dict() for c in self.claims],
                "figures": self.figures}


def decimal_of(value: Fraction | float | int) -> Decimal:
    """The exact decimal of a float or an integer; a fraction to 60 significant digits."""
    if isinstance(value, Fraction):
        with localcontext() as context:
            context.prec = 60
            return Decimal(value.numerator) / Decimal(value.denominator)
    return Decimal(value)


def rounds_to(shown: str, value: Fraction | float | int) -> bool:
    """Whether ``value`` rounded to the last digit of ``shown`` is ``shown`` ("0.5595",
    "8.4e-03", "2.4e29"; a percentage "13%" is 0.13)."""
    text = shown.strip()
    percent = text.endswith("%")
    printed = Decimal(text[:-1] if percent else text)
    target = printed.scaleb(-2) if percent else printed
    digits = Decimal(1).scaleb(printed.as_tuple().exponent - (2 if percent else 0))
    with localcontext() as context:
        context.prec = 80
        return decimal_of(value).quantize(digits) == target


def same(item: str, document: Any, ours: Any, why: str = "", page: str = "",
         shown: str | None = None) -> Claim:
    """``equal`` when the values are equal, else ``differs`` with ``why`` and ``page``."""
    verdict = EQUAL if document == ours else DIFFERS
    return Claim(item, shown if shown is not None else str(document), str(ours), verdict,
                 "" if verdict == EQUAL else why, "" if verdict == EQUAL else page)


def holds(item: str, ok: bool, scope: str, failure: str = "fails", why: str = "",
          page: str = "") -> Claim:
    """A statement the document asserts: ``equal`` when it holds over ``scope``, else
    ``differs`` with ``failure`` (where it fails), ``why`` and ``page``."""
    if ok:
        return Claim(item, "holds", f"holds {scope}", EQUAL)
    return Claim(item, "holds", failure, DIFFERS, why, page)


def digits(item: str, shown: str, value: Fraction | float | int, ours: str | None = None,
           why: str = "", page: str = "") -> Claim:
    """A printed number against subgame's value: ``equal`` when the value's exact decimal is
    the printed one, ``equal to the shown digits`` when it rounds to it, else ``differs``."""
    text = ours if ours is not None else _text(value)
    if not shown.endswith("%") and decimal_of(value) == Decimal(shown):
        return Claim(item, shown, text, EQUAL)
    if rounds_to(shown, value) or _nearest_float(shown, value):
        return Claim(item, shown, text, SHOWN_DIGITS)
    return Claim(item, shown, text, DIFFERS, why or "subgame's value rounds otherwise", page)


def _nearest_float(shown: str, value: Fraction | float | int) -> bool:
    """Whether ``shown`` is a float's shortest repr (15 or more digits, as Python prints a
    float) and that float is the one nearest the value."""
    printed = Decimal(shown.rstrip("%"))
    return len(printed.as_tuple().digits) >= 15 and float(printed) == float(value)


def _text(value: Fraction | float | int) -> str:
    if isinstance(value, Fraction) and value.denominator == 1:
        return str(value.numerator)
    if isinstance(value, Fraction):
        nearest = repr(float(value))
        return f"{value} = {nearest}" if len(str(value)) <= 40 else f"{nearest} (the exact " \
            "fraction's nearest float)"
    return repr(value)
