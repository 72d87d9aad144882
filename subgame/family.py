"""What a family gives the house: its run options, the computations they ask for, its verbs.

A family lives in one folder, `subgame/families/<name>/`: its pure mathematics (`game/`,
importable without Prefect, Dask or Zarr), its configuration and plan, its readers, figures
and checks, its help texts (the package's ``HELP``), and a `family.py` whose `FAMILY` is
the one thing the registry (`subgame.families`) names. Everything else (CLI, flow, status,
verify, deployments) is built from these descriptors.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence, TypeVar

from subgame.computation import ComputationConfig
from subgame.errors import InvalidInput, integer_text


def parse_int_list(option: str, text: str, lower: int, upper: int) -> tuple[int, ...]:
    """A comma-separated option of integers in [lower, upper], e.g. '8,13' -> (8, 13), in
    the order given; anything else (an empty entry, a repeat: a grid has each value once,
    digits other than ASCII's) is refused."""
    try:
        values = tuple(integer_text(option, v) for v in str(text).split(","))
    except InvalidInput:
        values = ()
    if not values or not all(lower <= v <= upper for v in values):
        raise InvalidInput(f"{option} takes a comma-separated list of integers in "
                           f"{lower}..{upper}; got {text!r}")
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise InvalidInput(f"{option} lists {', '.join(map(str, repeated))} more than once "
                           f"(a grid has each value once); got {text!r}")
    return values


Function = TypeVar("Function", bound=Callable[..., Any])


def documented(text: str) -> Callable[[Function], Function]:
    """A function whose docstring begins with ``text``, a family's help text for the command
    it becomes (its package's ``HELP``): written once for the command's page and for the
    listings that show it without importing the family (`subgame.families.LISTED`). The
    function's own docstring, if any, follows as further paragraphs."""
    def document(function: Function) -> Function:
        more = inspect.getdoc(function)
        function.__doc__ = f"{text}\n\n{more}" if more else text
        return function

    return document


@dataclass(frozen=True)
class Oracle:
    """What `subgame web` serves of a family beyond `query` (see subgame/web/).

    ``answers``: name -> function, served at ``/api/<family>/<name>``; each takes ``store``
    (the served store, read-only) and keyword parameters of plain types (int, str, bool,
    Optional of them), checks their ranges itself (InvalidInput) and returns JSON-ready
    data; a parameter named ``body`` makes it a POST taking a JSON body. ``fixed``: query
    options a request may set only to these values (options that would name a file).
    ``script``: the family's part of the page, a JavaScript file in its folder."""

    answers: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    fixed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    script: str | None = None


@dataclass(frozen=True)
class Family:
    """One family, as the registry lists it.

    ``options`` is the dataclass of the family's own `run` options (fields annotated with
    ``typer.Option``); ``computations`` turns one instance into the computations it asks for
    (most families: the options are the one computation's configuration). ``commands`` are
    the family's other verbs (query, plot, verify), Typer command functions; ``tools`` are
    commands of its own, `subgame <name> <tool>` (e.g. `subgame clue infer`). ``upgrade``
    turns the configuration attributes of a group written by subgame 0.1 into today's
    configuration (see `subgame upgrade`). ``answer`` is the function behind `subgame query
    <name>` (its options as keywords, ``store`` among them), returning what ``--json``
    prints: the Python API (`subgame.query`) calls it. ``table`` likewise returns a
    pandas DataFrame of stored results for `subgame export <name>` and `subgame.table`.
    ``sizes`` and ``rates`` name the step metrics `subgame status` shows; ``oracle`` is
    what `subgame web` serves beyond the query."""

    name: str
    options: type
    commands: Mapping[str, Callable[..., Any]]
    computations: Callable[[Any], Sequence[ComputationConfig]] = lambda options: (options,)
    tools: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    upgrade: Callable[[Mapping[str, Any]], ComputationConfig] | None = None
    summary: str = ""
    answer: Callable[..., Mapping[str, Any]] | None = None
    table: Callable[..., Any] | None = None
    sizes: tuple[str, ...] = ()  # what a step holds (its info), as `subgame status` shows
    rates: tuple[str, ...] = ()  # what a step's run computed, shown per second
    oracle: Oracle = field(default_factory=Oracle)
