"""`subgame query|plot|verify guess-who`."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

import typer

from subgame.commands.common import (DISAGREES, JsonOption, OutOption, StoreOption, emit,
                                     result_command, user_errors)
from subgame.commands.text import (print_files, print_items, print_paragraph,
                                   print_quantities)
from subgame.errors import InvalidInput
from subgame.exact import counted
from subgame.families.guess_who import HELP, read as stored
from subgame.families.guess_who.game import RULES
from subgame.family import documented
from subgame.storage import resolve_store

RuleOption = Annotated[Literal[RULES], typer.Option(
    "--rules", help="official (naming is the final guess) or variant (naming is a question).")]


def _rule(rules: str) -> str:
    if rules not in RULES:  # the Python API passes strings typer has not checked
        raise InvalidInput(f"unknown rules {rules!r}; choose official or variant")
    return rules


@documented(HELP["query"])
def answer(n: Annotated[Optional[int], typer.Option(
               "--n", min=1, help="Moving player's count.")] = None,
           m: Annotated[Optional[int], typer.Option(
               "--m", min=1, help="Waiting player's count.")] = None,
           rules: RuleOption = "official",
           fair: Annotated[bool, typer.Option(
               "--fair", help="List the fair states instead.")] = False,
           store: StoreOption = None) -> dict:
    url, rule = resolve_store(store), _rule(rules)
    if fair:
        return stored.fair_states(url, rule)
    if n is None or m is None:
        raise InvalidInput("give both --n and --m (or --fair)")
    return stored.query_state(url, n, m, rule)


def _render(r: dict) -> None:
    if "fair_states" in r:
        print_items(f"fair states, p(n, m) = 1/2 ({r['rules']} rules, n, m <= {r['max_n']}; "
                    f"{len(r['fair_states'])}):",
                    (f"({a}, {b})" for a, b in r["fair_states"]))
        return
    moves = r["optimal_moves"]
    print_quantities(f"Guess Who ({r['rules']} rules), n = {r['n']} standing for the mover, "
                     f"m = {r['m']} for the other", [
        ("a = n m p", str(r["a"])),
        ("p, the mover wins", f"{r['p']} = {r['p_float']:.6f}"),
        ("F, first-mover advantage", f"{r['F']} = {r['F_float']:+.6f}"),
        ("G, game-state advantage", f"{r['G']} = {r['G_float']:+.6f}"),
        ("optimal questions s", f"{moves['min']}..{moves['max']} "
                                f"({counted(moves['count'], 'move')})"),
        ("final guess optimal", "yes" if moves["final_guess_optimal"] else "no")])


query = result_command(answer, _render)


@documented(HELP["export"])
def table(rules: RuleOption = "official",
          max_n: Annotated[Optional[int], typer.Option(
              "--max-n", min=1, help="Only n, m <= this (default: the stored range).")] = None,
          store: StoreOption = None):
    return stored.states_table(resolve_store(store), _rule(rules), max_n)


@user_errors
@documented(HELP["plot"])
def plot(out: OutOption = "figures",
         store: StoreOption = None, as_json: JsonOption = False) -> None:
    from subgame.families.guess_who.figures import rule_figures
    from subgame.plotting import save

    url = resolve_store(store)
    written = [save(figure, out, name) for rule in ("official", "variant")
               for name, figure in rule_figures(stored.probability_maps(url, rule),
                                                rule).items()]
    emit({"files": written}, as_json, print_files)


@user_errors
@documented(HELP["verify"])
def verify(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Exits with status 4 when a theorem disagrees with the table somewhere."""
    result = stored.verify_variant(resolve_store(store))

    def render(r: dict) -> None:
        for name in stored.THEOREMS:
            check = r[name]
            verdict = "holds" if not check["mismatches"] else (
                f"{counted(check['mismatches'], 'mismatch', 'mismatches')}, e.g. (n, m) = "
                + ", ".join(f"({a}, {b})" for a, b in check["examples"]))
            print_paragraph(f"{name} over {counted(r['states'], 'state')} "
                            f"(n, m <= {r['max_n']}): {verdict}")
        erratum = r["erratum"]
        if erratum["states"]:
            print_paragraph("erratum (a note, not a mismatch): the paper's Theorem 3 as "
                            f"printed is wrong at {counted(erratum['states'], 'state')}, e.g. "
                            "(n, m) = " + ", ".join(f"({a}, {b})" for a, b in
                                                    erratum["examples"])
                            + f": {erratum['note']}")

    emit(result, as_json, render)
    if any(result[name]["mismatches"] for name in stored.THEOREMS):
        raise typer.Exit(DISAGREES)
