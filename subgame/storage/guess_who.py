"""Read stored Guess Who tables for queries, plots and verification (no Prefect, no Dask)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from subgame.errors import NotComputed
from subgame.storage.level_store import LevelStore, find_computations

FAMILY = "guess-who"


@dataclass(frozen=True)
class StoredTable:
    """One rule set's table in a store, with the range 1..covered whose levels are finished."""

    store: LevelStore
    rule: str
    covered: int

    def block(self, name: str, size: int | None = None) -> np.ndarray:
        """The top-left size x size block of array ``name`` (default: the covered range)."""
        size = self.covered if size is None else size
        return self.store.array(f"{self.rule}/{name}")[:size, :size]

    def cell(self, name: str, n: int, m: int) -> Any:
        return self.store.array(f"{self.rule}/{name}")[n - 1, m - 1].item()


def _covered(store: LevelStore) -> int:
    """Largest L such that every level band up to L is finished (bands finish in order)."""
    covered = 0
    for level in store.status()["levels"]:
        if not level["finished"]:
            break
        covered = level["last_level"]
    return covered


def open_table(url: str, rule: str, need: int = 1) -> StoredTable:
    """The stored table of ``rule`` covering 1..need (the largest such), or a clear error."""
    best: StoredTable | None = None
    for store in find_computations(url):
        if store.status()["family"] != FAMILY or rule not in store.config["rules"]:
            continue
        table = StoredTable(store, rule, _covered(store))
        if best is None or table.covered > best.covered:
            best = table
    if best is None or best.covered == 0:
        raise NotComputed(f"{url!r} holds no finished Guess Who table for the {rule} rules; "
                          f"run `subgame run guess-who --max-n U --rules {rule}` first")
    if best.covered < need:
        raise NotComputed(f"the stored {rule} table covers n, m <= {best.covered}; "
                          f"{need} is outside the stored range")
    return best


def query_state(url: str, n: int, m: int, rule: str) -> dict[str, Any]:
    """Everything stored about state (n, m): a, exact p, F, G and the optimal move set."""
    table = open_table(url, rule, max(n, m))
    a_nm, a_mn = table.cell("a", n, m), table.cell("a", m, n)
    p_nm, p_mn = Fraction(a_nm, n * m), Fraction(a_mn, n * m)
    first_mover, game_state = (p_nm + p_mn - 1) / 2, (p_nm - p_mn) / 2
    return {"n": n, "m": m, "rules": rule, "a": a_nm,
            "p": f"{p_nm.numerator}/{p_nm.denominator}", "p_float": float(p_nm),
            "F": f"{first_mover.numerator}/{first_mover.denominator}",
            "F_float": float(first_mover),
            "G": f"{game_state.numerator}/{game_state.denominator}",
            "G_float": float(game_state),
            "optimal_moves": {"min": table.cell("s_min", n, m), "max": table.cell("s_max", n, m),
                              "count": table.cell("s_count", n, m),
                              "final_guess_optimal": bool(table.cell("final_guess", n, m))}}


def fair_states(url: str, rule: str, limit: int | None = None) -> dict[str, Any]:
    """States with p(n, m) = 1/2 exactly, i.e. 2 a(n, m) = n m, over the stored range."""
    table = open_table(url, rule, limit or 1)
    size = limit or table.covered
    a = table.block("a", size)
    n, m = np.meshgrid(np.arange(1, size + 1), np.arange(1, size + 1), indexing="ij")
    fair = np.argwhere(2 * a == n * m) + 1
    return {"rules": rule, "max_n": size, "fair_states": fair.tolist()}


def probability_maps(url: str, rule: str, max_pixels: int = 1024) -> dict[str, Any]:
    """p(n,m), F and G over the stored range as floats, thinned to at most max_pixels a side."""
    table = open_table(url, rule)
    step = -(-table.covered // max_pixels)
    a = table.block("a")[::step, ::step].astype(np.float64)
    states = np.arange(1, table.covered + 1, step, dtype=np.float64)
    p = a / np.outer(states, states)
    return {"covered": table.covered, "step": step, "p": p,
            "F": (p + p.T - 1) / 2, "G": (p - p.T) / 2}
