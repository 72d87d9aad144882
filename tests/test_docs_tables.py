"""The docs' tables against the commands that make them: each entry of DOCS_TABLES names a
table in a document, runs the command the document names (at the table's own small sizes)
and compares every row the command makes with the document's, cell by cell. A table that
needs a computation too large for the suite is left out here (the docs say how it was made).

To add a table: write a function (store folder -> {row key: [cells]}) that runs the
documented commands through the CLI, and a DocsTable with where the table is and how its
rows are keyed."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import pytest
from typer.testing import CliRunner

from subgame.cli import build_app

ROOT = Path(__file__).resolve().parent.parent
app = build_app()


def cli(*args: str) -> str:
    """Run one subgame command in process; its standard output (exit 0 required)."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, f"subgame {' '.join(args)}: {result.output}"
    return result.stdout


def cli_json(*args: str) -> Any:
    return json.loads(cli(*args, "--json"))


# -- reading the docs -----------------------------------------------------------------------

def section_after(doc: str, marker: str) -> list[str]:
    """The lines of ``doc`` after the first line that contains ``marker``."""
    lines = (ROOT / doc).read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if marker in line:
            return lines[i + 1:]
    raise AssertionError(f"{doc} has no line with {marker!r}")


def markdown_rows(doc: str, marker: str, keys: int) -> dict[tuple[str, ...], list[str]]:
    """The first markdown table after ``marker``: its body rows, keyed by their first
    ``keys`` cells (header and rule skipped)."""
    table = []
    for line in section_after(doc, marker):
        if line.startswith("|"):
            table.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif table:
            break
    body = [row for row in table[1:] if not set("".join(row)) <= set("-: ")]
    return {tuple(row[:keys]): row[keys:] for row in body}


def bullet_pairs(doc: str, marker: str) -> dict[str, list[tuple[int, int]]]:
    """Bullets "* Name: (a,b), **(c,d)**, .... Remarks" after ``marker`` (continued on
    indented lines), up to the first blank line after them: name -> the listed pairs (the
    list ends at its first full stop; the remarks may name other pairs)."""
    bullets: dict[str, str] = {}
    for line in section_after(doc, marker):
        start = re.match(r"\* (\w+):(.*)", line)
        if start:
            name = start.group(1)
            bullets[name] = start.group(2)
        elif line.strip() and bullets:
            bullets[name] += " " + line.strip()
        elif bullets:
            break
    return {name: [(int(a), int(b)) for a, b in re.findall(r"\((\d+),(\d+)\)",
                                                           text.split(". ")[0])]
            for name, text in bullets.items()}


# -- comparing cells ------------------------------------------------------------------------

def agrees(cell: str, value: Fraction | int) -> bool:
    """Whether a docs cell states ``value``: every part of "a/b = 1.2345e-04 (1 in N)" must
    hold, a fraction exactly, a decimal to the digits it shows, a count with its commas."""
    parts = [part.strip() for part in re.sub(r"\([^)]*\)", "", cell).split("=")]
    for part in parts:
        if re.fullmatch(r"\d+/\d+", part):
            if Fraction(part) != value:
                return False
        elif re.fullmatch(r"\d{1,3}(,\d{3})+|\d+", part):
            if int(part.replace(",", "")) != value:
                return False
        else:
            digits = len(re.sub(r"[^0-9]", "", part.split("e")[0]).lstrip("0")) or 1
            if f"{float(value):.{digits - 1}e}" != f"{float(part):.{digits - 1}e}":
                return False
    return bool(parts)


# -- the tables and their commands ----------------------------------------------------------

def higher_lower_decks(store: str) -> dict[tuple[str, ...], list[Any]]:
    """docs/higher_lower.md "Results (exact)", its 13 x 2 rows: the documented run and one
    query per cell (exact p of each policy, and the states solved)."""
    cli("run", "higher-lower", "--ranks", "13", "--suits", "2", "--ties", "loss,pass",
        "--policy", "optimal,majority,always-higher", "--executor", "serial", "--store",
        store, "-q")
    rows = {}
    for ties in ("loss", "pass"):
        exact = [cli_json("query", "higher-lower", "--ranks", "13", "--suits", "2", "--ties",
                          ties, "--policy", policy, "--store", store)["exact"]
                 for policy in ("optimal", "majority", "always-higher")]
        rows[("13 x 2", ties)] = [*(Fraction(e["p"]) for e in exact), exact[0]["states"]]
    return rows


def guess_who_fair_states(store: str) -> dict[str, list[tuple[int, int]]]:
    """docs/guess_who.md "Table 2 (fair states, 1 <= n, m < 24)": both rule sets."""
    cli("run", "guess-who", "--max-n", "23", "--executor", "serial", "--store", store, "-q")
    return {name: [tuple(pair) for pair in cli_json(
                "query", "guess-who", "--fair", "--rules", name.lower(), "--store",
                store)["fair_states"]]
            for name in ("Official", "Variant")}


def gops_policies(store: str) -> dict[tuple[str, ...], list[str]]:
    """docs/gops_policies.md "Policies evaluated exactly", its N = 4, 5 rows (both
    objectives; each evaluation needs both objectives' stores, for the optimal-* policies):
    the documented runs and `gops evaluate`, figures as the command prints them."""
    rows = {}
    for cards, objective in ((4, "points"), (4, "win"), (5, "points"), (5, "win")):
        cli("run", "gops", "--cards", str(cards), "--objective", objective, "--executor",
            "serial", "--store", store, "-q")
    for cards, objective in ((4, "points"), (4, "win"), (5, "points"), (5, "win")):
        for row in cli_json("gops", "evaluate", "--cards", str(cards), "--objective",
                            objective, "--store", store)["policies"]:
            rows[(str(cards), objective, row["policy"])] = [
                f"{row['expected_points']:+.4f}",
                *(f"{row[key]:.4f}" for key in ("p_win", "p_tie", "p_lose", "exploitability"))]
    return rows


@dataclass(frozen=True)
class DocsTable:
    """A table of the docs (``read()``: row key -> cells) and the command that makes it
    (``made(store)``: row key -> values); ``same(cells, values)`` compares one row."""

    name: str
    read: Callable[[], dict]
    made: Callable[[str], dict]
    same: Callable[[Any, Any], bool]


DOCS_TABLES = [
    DocsTable("higher_lower decks",
              lambda: markdown_rows("docs/higher_lower.md", "### Results (exact)", 2),
              higher_lower_decks,
              lambda cells, values: len(cells) == len(values) and all(
                  agrees(cell, value) for cell, value in zip(cells, values))),
    DocsTable("guess_who fair states",
              lambda: bullet_pairs("docs/guess_who.md", "**Table 2 (fair states"),
              guess_who_fair_states, lambda listed, computed: listed == computed),
    DocsTable("gops policies",
              lambda: markdown_rows("docs/gops_policies.md", "**Which optimal player two.**",
                                    3),
              gops_policies, lambda cells, values: cells == values),
]


@pytest.mark.parametrize("table", DOCS_TABLES, ids=lambda table: table.name)
def test_docs_table_is_what_its_command_prints(table, tmp_path):
    documented, made = table.read(), table.made(str(tmp_path / "store.zarr"))
    assert made, f"{table.name}: the command made no rows"
    for key, values in made.items():
        assert key in documented, f"{table.name}: the docs lack the row {key}"
        assert table.same(documented[key], values), (
            f"{table.name}, row {key}: the docs say {documented[key]}, the command {values}")


def test_a_cell_agrees_only_with_its_own_value():
    value = Fraction(11648518150772828597, 24614957344153176000000)
    assert agrees("11648518150772828597/24614957344153176000000 = 4.7322926414e-04", value)
    assert not agrees("11648518150772828597/24614957344153176000000 = 4.7322926415e-04",
                      value)
    assert agrees("4.7322926414e-04", value) and not agrees("4.73229264e-04", value + 1)
    assert agrees("196,610", 196610) and not agrees("196,611", 196610)
    assert agrees("0", Fraction(0)) and agrees("1.7255311875e-06 (1 in 579,532)",
                                               Fraction(17255311875, 10 ** 16))
