"""Read stored Guess Who tables for queries, plots and verification (no Prefect, no Dask)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from subgame.errors import NotComputed
from subgame.exact import fraction_text
from subgame.families.guess_who import game as guess_who
from subgame.families.guess_who.plan import FAMILY, MOVE_ARRAYS, parse_rules
from subgame.storage import ComputationStore, find_computations


@dataclass(frozen=True)
class StoredTable:
    """One rule set's table in a store, with the range 1..covered whose levels are finished."""

    store: ComputationStore
    rule: str
    covered: int

    def block(self, name: str, size: int | None = None) -> np.ndarray:
        """The top-left size x size block of array ``name`` (default: the covered range)."""
        size = self.covered if size is None else size
        return self.store.array(f"{self.rule}/{name}")[:size, :size]

    def padded(self, name: str, size: int | None = None) -> np.ndarray:
        """The block in the kernel's 1-based layout (row and column 0 unused)."""
        return np.pad(self.block(name, size), ((1, 0), (1, 0)))

    def cell(self, name: str, n: int, m: int) -> Any:
        return self.store.array(f"{self.rule}/{name}")[n - 1, m - 1].item()


def open_table(url: str, rule: str, need: int = 1) -> StoredTable:
    """The stored table of ``rule`` covering 1..need (the largest such), or a clear error."""
    best: StoredTable | None = None
    for store in find_computations(url, FAMILY):
        if rule not in parse_rules(store.identity["rules"]):
            continue
        table = StoredTable(store, rule, store.reached("last_level"))
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
    p = guess_who.win_probability(a_nm, n, m)
    first_mover = guess_who.first_mover_advantage(a_nm, a_mn, n, m)
    game_state = guess_who.game_state_advantage(a_nm, a_mn, n, m)
    return {"n": n, "m": m, "rules": rule, "a": a_nm, "p": fraction_text(p), "p_float": float(p),
            "F": fraction_text(first_mover), "F_float": float(first_mover),
            "G": fraction_text(game_state), "G_float": float(game_state),
            "optimal_moves": {"min": table.cell("s_min", n, m), "max": table.cell("s_max", n, m),
                              "count": table.cell("s_count", n, m),
                              "final_guess_optimal": bool(table.cell("final_guess", n, m))}}


def fair_states(url: str, rule: str, limit: int | None = None) -> dict[str, Any]:
    """States with p(n, m) = 1/2 exactly, i.e. 2 a(n, m) = n m, over the stored range."""
    table = open_table(url, rule, limit or 1)
    size = limit or table.covered
    fair = guess_who.fair_states(table.padded("a", size))
    return {"rules": rule, "max_n": size, "fair_states": fair.tolist()}


def probability_maps(url: str, rule: str, max_pixels: int = 1024,
                     limit: int | None = None) -> dict[str, Any]:
    """p(n,m), F and G over the stored range (or n, m <= limit) as floats, thinned to at
    most max_pixels a side."""
    table = open_table(url, rule, limit or 1)
    covered = limit or table.covered
    step = -(-covered // max_pixels)
    a = table.padded("a", covered)
    p = guess_who.probability_table(a)[1::step, 1::step]
    first_mover, game_state = (t[1::step, 1::step] for t in guess_who.advantage_tables(a))
    return {"covered": covered, "step": step, "p": p, "F": first_mover, "G": game_state}


THEOREMS = ("theorem1", "theorem2", "theorem3")
ERRATUM = ("its lower bound star(m)/2 = 3/2 in column m = 3 (n >= 4) leaves out s = 1, "
           "which is optimal there; read as max(1, floor(star(m)/2)), as Corollary 2 has it, "
           "the theorem holds (theorem3 above checks that reading)")


def _outside(block: dict[str, np.ndarray], lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Where the stored optimal guesses are not exactly the integers lower..upper."""
    return ((block["s_min"] != lower) | (block["s_max"] != upper)
            | (block["s_count"] != upper - lower + 1))


def verify_variant(url: str, rows: int = 512, examples: int = 5) -> dict[str, Any]:
    """Compare every stored variant-rules state with the paper's Theorems 1-3, Theorem 3
    corrected (`corrected_theorem3`); the states where the printed Theorem 3 gives other
    bounds are the erratum, reported and not counted as mismatches.

    Theorem 3 says the optimal s are exactly the integers in [lower, upper]: the stored
    smallest and largest optimal s and their count must agree with that set.
    """
    table = open_table(url, "variant")
    U = table.covered
    m = np.arange(1, U + 1)[None, :]
    found: dict[str, list[list[int]]] = {name: [] for name in (*THEOREMS, "erratum")}
    counts = dict.fromkeys(found, 0)
    for start in range(0, U, rows):
        n = np.arange(start + 1, min(start + rows, U) + 1)[:, None]
        block = {name: table.store.array(f"variant/{name}")[start:n[-1, 0], :U]
                 for name in ("a", "s_min", "s_max", "s_count")}
        printed_lower, printed_upper = guess_who.variant_theorem3(n, m)
        lower, upper = guess_who.corrected_theorem3(n, m)
        wrong = {"theorem1": block["a"] != guess_who.variant_theorem1(n, m),
                 "theorem2": block["a"] != guess_who.variant_theorem2(n, m),
                 "theorem3": _outside(block, lower, upper),
                 "erratum": (np.ceil(printed_lower) != lower)
                            | (np.floor(printed_upper) != upper)}
        for name, mask in wrong.items():
            counts[name] += int(mask.sum())
            for i, j in np.argwhere(mask)[:examples - len(found[name])]:
                found[name].append([int(n[i, 0]), int(j + 1)])
    return {"max_n": U, "states": U * U,
            **{name: {"mismatches": counts[name], "examples": found[name]}
               for name in THEOREMS},
            "erratum": {"note": ERRATUM, "states": counts["erratum"],
                        "examples": found["erratum"]}}


def states_table(url: str, rule: str, limit: int | None = None):
    """Every stored state (n, m), n, m <= limit (default: the stored range), as a pandas
    DataFrame row: a, p = a / (n m) exactly as the reduced fraction p_numerator /
    p_denominator, and the optimal move set."""
    import pandas as pd

    table = open_table(url, rule, limit or 1)
    size = limit or table.covered
    n, m = np.meshgrid(np.arange(1, size + 1), np.arange(1, size + 1), indexing="ij")
    a, states = table.block("a", size), n * m
    common = np.gcd(a, states)
    columns = {"n": n, "m": m, "a": a, "p_numerator": a // common,
               "p_denominator": states // common,
               **{name: table.block(name, size) for name in MOVE_ARRAYS}}
    return pd.DataFrame({name: values.ravel() for name, values in columns.items()})
