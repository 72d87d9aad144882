"""Every example in the README and the documentation runs: each ```bash and ```python block
of a page, in order, in one fresh temporary directory per page, with `subgame` on PATH
importing this tree. A block that must not run there (a cluster, a server that runs until
stopped, a long solve) is preceded by ``<!-- not run: REASON -->``; a block preceded by
``<!-- output -->`` is a ```text block that must equal what the code block before it
printed (trailing spaces and blank lines aside). docs/history/ keeps records, not examples.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNNABLE = ("bash", "python")
NOT_RUN = re.compile(r"<!-- not run: \S.* -->")
OUTPUT = "<!-- output -->"
FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass(frozen=True)
class Block:
    """A fenced block of a page: its language, text, first line number and the comment
    line just above it (or "")."""

    language: str
    text: str
    line: int
    marker: str


@dataclass
class Example:
    """A runnable block and the output the page shows for it (None: not shown)."""

    block: Block
    shown: str | None = None


def blocks(text: str) -> list[Block]:
    found, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        before = next((line.strip() for line in reversed(lines[:i]) if line.strip()), "")
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        marker = before if before.startswith("<!--") else ""
        found.append(Block(opening.group(1), "\n".join(lines[i + 1:end]) + "\n", i + 1,
                           marker))
        i = end + 1
    return found


def examples(text: str) -> list[Example]:
    """The page's runnable blocks, in order, each with the output shown for it."""
    found: list[Example] = []
    for block in blocks(text):
        if block.marker == OUTPUT:
            assert block.language == "text" and found and found[-1].shown is None, (
                f"line {block.line}: {OUTPUT} must mark a ```text block after a code block")
            found[-1].shown = block.text
        elif block.language in RUNNABLE:
            if block.marker:
                assert NOT_RUN.fullmatch(block.marker), (
                    f"line {block.line}: a block is run, or marked `<!-- not run: REASON -->`")
                continue
            found.append(Example(block))
    return found


def pages() -> list[Path]:
    docs = sorted(path for path in (ROOT / "docs").rglob("*.md")
                  if "history" not in path.relative_to(ROOT / "docs").parts)
    return [ROOT / "README.md", *docs]


def normalized(output: str) -> str:
    return "\n".join(line.rstrip() for line in output.strip("\n").split("\n"))


def run_bash(code: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80"}
    env.pop("SUBGAME_STORE", None)
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"exit status {done.returncode}:\n{done.stdout}{done.stderr}"
    return done.stdout


def run_python(code: str, namespace: dict, name: str) -> str:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, name, "exec"), namespace)
    return printed.getvalue()


@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_every_example_runs_and_prints_what_the_page_shows(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    namespace: dict = {"__name__": "__main__"}
    for example in examples(page.read_text(encoding="utf-8")):
        where = f"{page.relative_to(ROOT)}:{example.block.line}"
        if example.block.language == "bash":
            printed = run_bash(example.block.text, tmp_path)
        else:
            printed = run_python(example.block.text, namespace, where)
        if example.shown is not None:
            assert normalized(printed) == normalized(example.shown), (
                f"{where}: the page shows\n{example.shown}\nthe block printed\n{printed}")


def test_the_reader_finds_blocks_markers_and_outputs():
    page = "\n".join([
        "```bash", "echo one", "```", "<!-- output -->", "```text", "one", "```",
        "<!-- not run: a server -->", "```bash", "subgame web", "```",
        "```python", "print(2)", "```", "```text", "not compared", "```"])
    found = examples(page)
    assert [(e.block.language, e.block.text, e.shown) for e in found] == [
        ("bash", "echo one\n", "one\n"), ("python", "print(2)\n", None)]
    with pytest.raises(AssertionError, match="not run: REASON"):
        examples("<!-- not run -->\n```bash\ntrue\n```")
