"""Comments and docstrings say what is: none cites a page of docs/ (pages move; the code
states its own why) and none is dated (history lives in the changelog and docs/history/).
Messages a user reads may still name a page."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

import subgame

PACKAGE_ROOT = Path(subgame.__file__).parent
DOCS_PAGE = re.compile(r"\bdocs/")
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")


def comments_and_docstrings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and every module, class and function docstring."""
    found = [(token.start[0], token.string)
             for token in tokenize.generate_tokens(io.StringIO(source).readline)
             if token.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                found.append((node.body[0].lineno, docstring))
    return found


def offences(source: str) -> list[tuple[int, str]]:
    return [(line, text) for line, text in comments_and_docstrings(source)
            if DOCS_PAGE.search(text) or DATE.search(text)]


def test_no_comment_or_docstring_cites_docs_or_a_date():
    found = [f"{path.relative_to(PACKAGE_ROOT.parent)}:{line}"
             for path in sorted(PACKAGE_ROOT.rglob("*.py"))
             for line, _ in offences(path.read_text())]
    assert not found, "cites docs/ or a date: " + ", ".join(found)


@pytest.mark.parametrize("source, lines", [
    ('"""Solved here (docs/gops.md)."""\nx = 1\n', [1]),
    ('def f():\n    """As of 2026-12-05."""\n', [2]),
    ('x = 1  # see docs/clue.md\ny = "docs/clue.md"  # a message may\n', [1]),
    ('"""Plain."""\n# the why, in the present tense\n', []),
])
def test_the_check_sees_comments_and_docstrings_not_messages(source, lines):
    assert [line for line, _ in offences(source)] == lines
