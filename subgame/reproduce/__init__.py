"""`subgame reproduce SEED`: every table, figure and claim of a source document beside
subgame's value, with a verdict (``claims``).

Each subject has a module with ``DOCUMENT`` (what it reproduces) and
``reproduce(store, out, size) -> Reproduction``: it computes what it needs through the run
path (``runs.ensure``: resumable, into the store), reads the results and compares them with
the document's printed values, which the module keeps as data.
"""

from __future__ import annotations

from importlib import import_module

from subgame.errors import InvalidInput
from subgame.reproduce.claims import Reproduction

SUBJECTS = {
    "guess-who-paper": ("subgame.reproduce.guess_who_paper",
                        "O'Neill (2021), seed 000: p(23, 23), Table 2, Theorems 1-3, Corollaries "
                        "1-2, the Remark's closed forms, p_II(2n, 2m), F = 1/6"),
    "gops-paper": ("subgame.reproduce.gops_paper",
                   "Rhoads & Bartholdi, seed 001: (N!)^3, 46 to win, f's symmetries, the "
                   "9-card opening's 0.7475, bidding 1 against 9, the extra chip's value"),
    "guess-who-exercise": ("subgame.reproduce.guess_who_exercise",
                           "the Dutch exercise, seed 002: its whole transcript through the "
                           "Dutch API, its two errors"),
    "clue-report": ("subgame.reproduce.clue_report",
                    "the Clue report, seed 003: the core bound (N-k-h)p, the players' standing, "
                    "history mining's accuracy, weight-driven asking, least-asked cards"),
    "higher-lower": ("subgame.reproduce.higher_lower",
                     "the higher/lower notebook, seed 004: brute force, P_all(9, 19, 99), the "
                     "ratios, the table with its Δ column, the log-scale figure, the cost"),
}
SIZES = ("small", "full")


def reproduce(subject: str, store: str | None, out: str, size: str) -> Reproduction:
    if subject not in SUBJECTS:
        raise InvalidInput(f"unknown document {subject!r}; choose one of {', '.join(SUBJECTS)} "
                           "(`subgame reproduce --list`)")
    if size not in SIZES:
        raise InvalidInput(f"--size must be small or full, got {size!r}")
    return import_module(SUBJECTS[subject][0]).reproduce(store, out, size)
