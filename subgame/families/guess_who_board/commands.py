"""`subgame query|plot|verify guess-who-board`: each names its computation with the run's
own board options (--board, --max-literals, --rules, --max-sets)."""

from __future__ import annotations

from typing import Annotated, Optional, get_type_hints

import typer
from rich.table import Table

from subgame.commands.common import (DISAGREES, JsonOption, OutOption, StoreOption, console,
                                     emit, result_command, user_errors)
from subgame.commands.text import print_files, print_paragraph, print_quantities
from subgame.exact import counted
from subgame.families.guess_who_board import HELP, read as stored
from subgame.families.guess_who_board.plan import (CLASSIC, DEFAULT_MAX_SETS, BoardConfig,
                                                 board_name)
from subgame.family import documented
from subgame.storage import resolve_store

_RUN_OPTIONS = get_type_hints(BoardConfig, include_extras=True)
BoardOption, LiteralsOption = _RUN_OPTIONS["board"], _RUN_OPTIONS["max_literals"]
RulesOption, MaxSetsOption = _RUN_OPTIONS["rules"], _RUN_OPTIONS["max_sets"]
TypesOption = _RUN_OPTIONS["types"]


def _config(board: str, max_literals: int, rules: str, max_sets: int,
            types: str = "none") -> BoardConfig:
    return BoardConfig(board=board, max_literals=max_literals, rules=rules, types=types,
                       max_sets=max_sets)


@documented(HELP["query"])
def answer(standing: Annotated[Optional[str], typer.Option(
               "--standing", help="The mover's standing characters, comma-separated "
                                  "(default: the full board).")] = None,
           opponent_standing: Annotated[Optional[str], typer.Option(
               "--opponent-standing", help="The opponent's standing characters "
                                           "(default: the full board).")] = None,
           board: BoardOption = CLASSIC, max_literals: LiteralsOption = 1,
           rules: RulesOption = "official", types: TypesOption = "none",
           max_sets: MaxSetsOption = DEFAULT_MAX_SETS, store: StoreOption = None) -> dict:
    return stored.query_pair(resolve_store(store), _config(board, max_literals, rules,
                                                           max_sets, types),
                             standing, opponent_standing)


def question_text(question: dict | str | None) -> str:
    """A description in words: {"hat": True, "glasses": False} -> "hat and not glasses";
    a character's name (a naming move) -> "naming <name>"."""
    if question is None:
        return "-"
    if isinstance(question, str):
        return f"naming {question}"
    return " and ".join(trait if has else f"not {trait}" for trait, has in question.items())


POLICY_COLUMNS = {"vs_optimal": "vs optimal", "optimal_vs": "optimal vs it",
                  "vs_self": "self-play", "loss_vs_optimal": "loss"}
POLICY_NOTE = ("the mover's exact win probability: the policy moving against the optimal "
               "player, the optimal player moving against it, the policy against itself; "
               "loss = p - vs optimal")


def _render(r: dict) -> None:
    named = "the classic board" if r["board"] == CLASSIC else f"board {r['board']}"
    print_quantities(f"{named}, d = {r['max_literals']}, {r['rules']} rules: "
                     f"{len(r['standing'])} standing vs {len(r['opponent_standing'])}", [
        ("p, the mover wins", f"{r['p']} = {r['p_float']:.6f}"),
        ("optimal questions", [question_text(q) for q in r["optimal_questions"]]),
        ("final guess optimal", "yes" if r["final_guess_optimal"] else "no"),
        ("closest to half", question_text(r["closest_to_half"])),
        *([("solved on types", f"{r['types']}: the mover's set is type "
                               f"{r['standing_type']}, the opponent's {r['opponent_type']}")]
          if "types" in r else [])])
    if not r["policies"]:
        return
    table = Table(box=None, pad_edge=False)
    names = [policy.replace("_", "-") for policy in r["policies"]]
    table.add_column("policy", no_wrap=True, min_width=max(map(len, names)))
    for heading in POLICY_COLUMNS.values():  # a narrow terminal folds numbers, never cuts
        table.add_column(heading, justify="right", overflow="fold")
    for name, values in zip(names, r["policies"].values()):
        table.add_row(name, *(values[key] for key in POLICY_COLUMNS))
    print_paragraph(f"policies ({POLICY_NOTE}):")
    console.print(table)


query = result_command(answer, _render)


@user_errors
@documented(HELP["plot"])
def plot(out: OutOption = "figures",
         board: BoardOption = CLASSIC, max_literals: LiteralsOption = 1,
         rules: RulesOption = "official", types: TypesOption = "none",
         max_sets: MaxSetsOption = DEFAULT_MAX_SETS,
         store: StoreOption = None, as_json: JsonOption = False) -> None:
    from subgame.families.guess_who_board.figures import size_difference_figures
    from subgame.plotting import save

    config = _config(board, max_literals, rules, max_sets, types)
    figures = size_difference_figures(stored.size_grid(resolve_store(store), config),
                                      board_name(config.board), max_literals, rules)
    name = f"guess_who_board_{config.group_path().split('/', 1)[1]}"
    written = [save(figure, out, f"{name}_{kind}.png") for kind, figure in figures.items()]
    emit({"files": written}, as_json, print_files)


@user_errors
@documented(HELP["verify"])
def verify(board: BoardOption = CLASSIC, max_literals: LiteralsOption = 1,
           rules: RulesOption = "official", types: TypesOption = "none",
           max_sets: MaxSetsOption = DEFAULT_MAX_SETS,
           sample: Annotated[int, typer.Option(
               "--sample", min=1, metavar="<int>", help="Pairs checked on boards of more than "
                                       f"{stored.VERIFY_ALL_UP_TO} characters.")] = 2000,
           store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Exits with status 4 on any mismatch."""
    result = stored.verify_values(resolve_store(store),
                                  _config(board, max_literals, rules, max_sets, types),
                                  sample)
    emit(result, as_json, lambda r: print_paragraph(
        f"{r['computation']}: {r['method']}: {counted(r['pairs_checked'], 'pair')}, "
        f"{counted(r['mismatches'], 'mismatch', 'mismatches')}"
        + (f", e.g. {r['examples'][0]}" if r["examples"] else "")))
    if result["mismatches"]:
        raise typer.Exit(DISAGREES)
