"""What every verb shares: store and cluster options, JSON output, one-line errors."""

from __future__ import annotations

import copy
import functools
import inspect
import json
import os
import select
import signal
import sys
from typing import Annotated, Any, Callable, Optional, get_args, get_origin, get_type_hints

import typer
from typer.models import OptionInfo

from subgame import interrupts
from subgame.errors import MACHINE, MachineRefused, SubgameError, integer_text, machine_error
from subgame.options import RunOptions
from subgame.storage.location import DEFAULT_STORE, STORE_ENV

# Exit statuses besides 0: 1 is a bug (an internal error), 2 a refusal (the user's to fix);
# a family's `verify` that finds stored results disagreeing with theory exits with this.
DISAGREES = 4
# The reader of the output left (`| head -1`): the status of a process SIGPIPE ends.
PIPE_CLOSED = 128 + signal.SIGPIPE


def reader_left() -> bool:
    """Whether stdout is a pipe whose reading end is closed (Linux's poll says POLLERR)."""
    try:
        poll = select.poll()
        poll.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poll.poll(0))
    except (OSError, ValueError):  # stdout closed or not a file
        return False


def output_goes_nowhere() -> None:
    """What is left to print goes to /dev/null, so that writing it (and the interpreter's
    last flush) raises nothing and prints nothing."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


@functools.lru_cache(maxsize=None)
def _results_console() -> Any:
    """rich's console for results, ending the command silently, as a process SIGPIPE ends,
    where the reader of its output left (rich's own exits with status 1, a bug's). No
    :name: emoji codes: loading their table is a good part of a short command's start."""
    from rich.console import Console

    class PipedConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            output_goes_nowhere()
            raise typer.Exit(PIPE_CLOSED)

    return PipedConsole(emoji=False)


class ResultsConsole:
    """Results go to rich's console, built where first printed to: a command that answers
    in JSON never imports rich. Errors go to stderr as one plain line."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_results_console(), name)


console = ResultsConsole()

# The same --store as every run's (declared once, in RunOptions).
StoreOption = get_type_hints(RunOptions, include_extras=True)["store"]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


def _figure_folder(out: str) -> str:
    if not out.strip():
        raise typer.BadParameter("give a folder name (an empty one would be the file system's "
                                 "root)")
    if os.path.exists(out) and not os.path.isdir(out):
        raise typer.BadParameter(f"{out!r} is a file, not a folder")
    return out


OutOption = Annotated[str, typer.Option("--out", callback=_figure_folder, metavar="<folder>",
                                        help="Folder for the PNG files.")]


def _plain(value: Any) -> Any:
    """numpy scalars read from Zarr, as JSON numbers."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def json_text(result: Any, indent: int | None = 2) -> str:
    """What --json prints (the Python API reads the same text back); with ``indent=None``
    the same JSON on one line (the web API's answers)."""
    return json.dumps(result, indent=indent, default=_plain)


def emit(result: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    if as_json:
        print(json_text(result))
    else:
        render(result)


def options_of(function: Callable[..., Any]) -> list[inspect.Parameter]:
    """A function's parameters (annotated with typer.Option) as keyword-only parameters
    with their annotations resolved, for a command built around it."""
    hints = get_type_hints(function, include_extras=True)
    return [parameter.replace(annotation=hints[parameter.name],
                              kind=inspect.Parameter.KEYWORD_ONLY)
            for parameter in inspect.signature(function).parameters.values()]


def _strict_integer(info: Any) -> Callable[[Any], int]:
    """The parser of an integer option: ASCII digits only, within the option's min/max.
    (Typer's own conversion is pydantic's lax one: it takes "8.0" for 8.)"""
    def parse(text: Any) -> int | None:
        if text is None or (isinstance(text, int) and not isinstance(text, bool)):
            return text  # the declared default
        try:
            value = integer_text("it", str(text))
        except SubgameError as exc:
            raise typer.BadParameter(str(exc)) from None
        if (info.min is not None and value < info.min) or \
                (info.max is not None and value > info.max):
            bounds = (f"at least {info.min}" if info.max is None else
                      f"at most {info.max}" if info.min is None else
                      f"between {info.min} and {info.max}")
            raise typer.BadParameter(f"it must be {bounds}, got {value}")
        return value

    return parse


def _integer(info: OptionInfo) -> None:
    if info.parser is None:
        info.parser = _strict_integer(info)
        info.metavar = info.metavar or "<int>"  # (else the help shows the parser's name)


def _text(info: OptionInfo) -> None:
    info.metavar = info.metavar or "<text>"  # (else the help shows Python's <str>)


def typed_options(parameters: list[inspect.Parameter]) -> list[inspect.Parameter]:
    """Every ``int`` (or optional int) option parsed by `_strict_integer` and shown in the
    help as ``<int>``; every text option without a metavar of its own shown as ``<text>``
    (each a copy of its typer.Option)."""
    changes = {int: _integer, Optional[int]: _integer, str: _text, Optional[str]: _text}
    changed = []
    for parameter in parameters:
        hint = parameter.annotation
        if get_origin(hint) is Annotated and get_args(hint)[0] in changes:
            base, *extras = get_args(hint)
            extras = [copy.copy(extra) if isinstance(extra, OptionInfo) else extra
                      for extra in extras]
            for extra in extras:
                if isinstance(extra, OptionInfo):
                    changes[base](extra)
            parameter = parameter.replace(annotation=Annotated[(base, *extras)])
        changed.append(parameter)
    return changed


def command_from(body: Callable[..., None], parameters: list[inspect.Parameter],
                 like: Callable[..., Any], name: str) -> Callable:
    """``body(**values)`` as a Typer command taking ``parameters``, documented as ``like``."""
    parameters = typed_options(parameters)
    body.__signature__ = inspect.Signature(parameters)
    body.__annotations__ = {p.name: p.annotation for p in parameters}
    body.__doc__ = like.__doc__
    body.__name__ = name
    return user_errors(body)


def result_command(answer: Callable[..., Any], render: Callable[[Any], None]) -> Callable:
    """The CLI command of a function that returns a result (its options, ``store`` among
    them, carry typer.Option): the same options plus --json, printing the result rendered
    or as JSON. The Python API (`subgame.query`) calls ``answer`` itself, so both give the
    same result."""
    parameters = [*options_of(answer), inspect.Parameter(
        "as_json", inspect.Parameter.KEYWORD_ONLY, annotation=JsonOption, default=False)]

    def command(**values: Any) -> None:
        as_json = values.pop("as_json")
        emit(answer(**values), as_json, render)

    return command_from(command, parameters, answer, answer.__name__)


def _one_line(message: str) -> None:
    print(" ".join(message.split()), file=sys.stderr, flush=True)


def user_errors(command: Callable) -> Callable:
    """Turn errors the user can act on into one line on stderr and exit status 2.

    The machine refusing (a full disk, a read-only file system, a permission: see
    `subgame.errors.machine_error`) is one line and exit status 5. Anything else is a bug:
    it still exits non-zero with one line, and SUBGAME_DEBUG=1 shows the traceback.
    """

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise  # a verb's own exit status
        except MachineRefused as exc:
            _one_line(f"error: {exc}")
            raise typer.Exit(MACHINE) from None
        except SubgameError as exc:
            _one_line(f"error: {exc}")
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            _one_line("interrupted; run the same command again to resume")
            raise typer.Exit(130) from None
        except Exception as exc:  # noqa: BLE001 - the one place that turns bugs into one line
            interruption = interrupts.signalled(exc)
            if interruption is not None:  # e.g. the Prefect server the Ctrl-C also stopped
                raise interruption from None
            if isinstance(exc, BrokenPipeError) and reader_left():  # not a connection's
                output_goes_nowhere()
                raise typer.Exit(PIPE_CLOSED) from None
            if os.environ.get("SUBGAME_DEBUG"):
                raise
            machine = machine_error(exc, kwargs.get("store") or os.environ.get(STORE_ENV)
                                    or DEFAULT_STORE)
            if machine is not None:
                _one_line(f"error: {machine}")
                raise typer.Exit(MACHINE) from None
            if isinstance(exc, ValueError) and "checksum" in str(exc):
                # (zarr's message prints the raw checksum bytes, which garble a terminal)
                _one_line("error: a stored chunk fails its checksum; `subgame verify --store "
                          "S` names it and `subgame run ... --repair` recomputes it")
                raise typer.Exit(3) from None
            _one_line(f"internal error: {type(exc).__name__}: {exc} "
                      "(set SUBGAME_DEBUG=1 for the traceback)")
            raise typer.Exit(1) from None

    return wrapper

