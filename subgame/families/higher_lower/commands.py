"""`subgame query|plot higher-lower`."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

import typer

from subgame.commands.common import (JsonOption, OutOption, StoreOption, emit,
                                     result_command, user_errors)
from subgame.commands.text import print_files, print_paragraph, print_quantities
from subgame.exact import counted
from subgame.errors import InvalidInput
from subgame.families.higher_lower import game as hl
from subgame.families.higher_lower import HELP, read as stored
from subgame.family import documented
from subgame.storage import resolve_store

POLICY_NAMES = tuple(policy.replace("_", "-") for policy in hl.POLICIES)  # as typed


@documented(HELP["query"])
def answer(n: Annotated[Optional[int], typer.Option("--n", min=1, help="Deck size.")] = None,
           asymptotics: Annotated[bool, typer.Option(
               "--asymptotics", help="Extrapolated limits of the ratio and the streak.")] = False,
           ranks: Annotated[Optional[int], typer.Option(
               "--ranks", min=1, help="A deck's ranks (with --suits: its odds).")] = None,
           suits: Annotated[Optional[int], typer.Option(
               "--suits", min=1, help="A deck's suits: cards of each rank.")] = None,
           ties: Annotated[Literal[hl.TIES], typer.Option(
               "--ties", help="What guessing an equal rank does: lose, or pass.")] = "loss",
           policy: Annotated[Literal[POLICY_NAMES], typer.Option(
               "--policy", help="The guessing policy.")] = "optimal",
           store: StoreOption = None) -> dict:
    url = resolve_store(store)
    if asymptotics:
        return stored.asymptotics(url)
    if n is not None:
        return stored.query_n(url, n)
    if ranks is not None and suits is not None:
        return stored.query_deck(url, ranks, suits, ties, policy.replace("-", "_"))
    raise InvalidInput("give --n, --asymptotics, or --ranks and --suits")


LIMITS = {"ratio": ("P_all(n+1) / P_all(n)", "1/(2 ln 2)"),
          "streak": ("expected streak", "(3 sqrt(e) - 4) / (2 - sqrt(e))")}


def _render(r: dict) -> None:
    if "n_max" in r:
        _render_limits(r)
    elif "ranks" in r:
        _render_deck(r)
    else:
        _render_n(r)


def _render_n(r: dict) -> None:
    rows = [("P_all(n)", f"{float(r['p_all']):.12g}" if r["p_all"] else r["p_all_scientific"]),
            ("ln P_all(n)", f"{r['log_p_all']:.12g}")]
    if r["p_all_exact"] is not None:
        rows += [("P_all(n) exactly", r["p_all_exact"]),
                 ("orders guessed all right, n! P_all(n)", r["count"])]
    rows.append(("expected streak", f"{r['expected_streak']:.12g}"))
    if r["expected_streak_exact"] is not None:
        rows.append(("expected streak exactly", r["expected_streak_exact"]))
    if r["ratio"] is not None:
        rows.append(("P_all(n) / P_all(n-1)", f"{r['ratio']:.12g}"))
    print_quantities(f"higher/lower, {counted(r['n'], 'distinct card')}, majority policy "
                     "(P_all: every guess right)", rows)


def _render_limits(r: dict) -> None:
    closed = r.get("closed_form", {})
    rows = []
    for name, fit in r.items():
        if isinstance(fit, dict) and "limit" in fit and "error" in fit:
            words, formula = LIMITS.get(name, (name, None))
            rows.append((words, f"{fit['limit']:.10g} ± {fit['error']:.2g}"))
            if name in closed:
                rows.append((f"  closed form {formula}", f"{closed[name]:.10g}"))
    print_quantities(f"higher/lower limits as n grows, extrapolated from n <= {r['n_max']}",
                     rows)
    print_paragraph(f"method: {r['method']}", indent="  ")


def _render_deck(r: dict) -> None:
    rows = []
    if r["exact"] is not None:
        exact = r["exact"]
        rows += [("P(all right) exactly", f"{exact['p']} = {exact['p_float']:.10e}"),
                 ("states solved", f"{exact['states']:,}")]
    if r["monte_carlo"] is not None:
        mc = r["monte_carlo"]
        rows += [("P(all right), Monte Carlo", f"{mc['p']:.6e} in {mc['games']:,} games"),
                 (f"  {mc['confidence']:.0%} interval ({mc['interval']})",
                  f"[{mc['low']:.6e}, {mc['high']:.6e}]")]
    tie = "a tie loses" if r["ties"] == "loss" else "a tie passes"
    print_quantities(f"higher/lower, {r['ranks']} ranks x {r['suits']} suits, {tie}, "
                     f"{r['policy'].replace('_', '-')} policy", rows)


query = result_command(answer, _render)


@documented(HELP["export"])
def table(decks: Annotated[bool, typer.Option(
              "--decks", help="The deck sweeps' grid points instead of the distinct "
                              "sweep.")] = False,
          store: StoreOption = None):
    url = resolve_store(store)
    return stored.deck_table(url) if decks else stored.sweep_table(url)


@user_errors
@documented(HELP["plot"])
def plot(out: OutOption = "figures",
         store: StoreOption = None, as_json: JsonOption = False) -> None:
    from subgame.families.higher_lower.figures import sweep_figures
    from subgame.plotting import save

    figures = sweep_figures(stored.sweep(resolve_store(store)))
    files = [save(figure, out, name) for name, figure in figures.items()]
    emit({"files": files}, as_json, print_files)


def brute_force_answer(n: Annotated[int, typer.Option(
        "--n", min=1, max=hl.MAX_BRUTE_FORCE, help="Deck size (n! orders are played).")]
        ) -> dict:
    """The seed's brute force: every order of n distinct cards played with the majority
    policy; the count guessed all right, P_all(n) exactly and as a float. Needs no store."""
    from fractions import Fraction
    from math import factorial

    from subgame.exact import fraction_text

    count = hl.orders_guessed_all_right(n)
    p = Fraction(count, factorial(n))
    return {"n": n, "orders": factorial(n), "guessed_all_right": count,
            "p_all_exact": fraction_text(p), "p_all": float(p)}


brute_force = result_command(brute_force_answer, lambda r: print_quantities(
    f"higher/lower brute force, {counted(r['n'], 'distinct card')}: every order played", [
        ("orders", f"{r['orders']:,}"), ("guessed all right", f"{r['guessed_all_right']:,}"),
        ("P_all(n)", f"{r['p_all_exact']} = {r['p_all']!r}")]))
