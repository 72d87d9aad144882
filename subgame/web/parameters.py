"""A family function's keyword parameters as a web request's query parameters, bounded.

The functions behind `subgame query` and each family's oracle take plain types (int, str,
bool, a Literal of choices, Optional of these), most of them annotated with the CLI's
typer.Option (whose help and bounds are kept here). A request names them without the
CLI's leading dashes (``cards_per_player`` or ``cards-per-player``). Every string is
bounded in length and every integer in range; options that would name a file take only
the values the family's oracle allows (``Oracle.fixed``, grown by `subgame web --allow`).
"""

from __future__ import annotations

import inspect
import types
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Literal, Mapping, Union, get_args, get_origin, \
    get_type_hints

from subgame.errors import InvalidInput

MAX_TEXT = 2_000  # characters of one parameter
MAX_INT = 10**12  # |an integer parameter|; each function narrows its own range
SERVED_BY_THE_SERVER = ("store",)  # never a request's to choose


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: Any  # int, str, bool or a tuple of allowed strings
    default: Any
    help: str
    lower: int = -MAX_INT
    upper: int = MAX_INT

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty

    def describe(self) -> dict[str, Any]:
        """The parameter as the page and /openapi.json see it."""
        kind = self.kind if isinstance(self.kind, tuple) else self.kind.__name__
        return {"name": self.name, "type": "choice" if isinstance(kind, tuple) else kind,
                **({"choices": list(kind)} if isinstance(kind, tuple) else {}),
                "required": self.required, "help": self.help,
                **({} if self.required else {"default": self.default})}

    def parse(self, text: str) -> Any:
        if len(text) > MAX_TEXT:
            raise InvalidInput(f"{self.name} is longer than {MAX_TEXT} characters")
        if isinstance(self.kind, tuple):
            if text not in self.kind:
                raise InvalidInput(f"{self.name} must be one of {', '.join(self.kind)}, got "
                                   f"{text!r}")
            return text
        if self.kind is bool:
            if text.lower() not in ("true", "false", "1", "0"):
                raise InvalidInput(f"{self.name} must be true or false, got {text!r}")
            return text.lower() in ("true", "1")
        if self.kind is int:
            stripped = text.removeprefix("-")
            if not stripped.isdigit() or not stripped.isascii() or len(stripped) > 13:
                raise InvalidInput(f"{self.name} must be an integer, got {text!r}")
            value = int(text)
            if not self.lower <= value <= self.upper:
                raise InvalidInput(f"{self.name} must be between {self.lower} and "
                                   f"{self.upper}, got {value}")
            return value
        return text


def _plain(annotation: Any) -> tuple[Any, Any]:
    """(the bare type, its typer.Option or None) of an annotation."""
    option = None
    if get_origin(annotation) is Annotated:
        annotation, *extras = get_args(annotation)
        option = next((e for e in extras if hasattr(e, "help")), None)
    if get_origin(annotation) in (Union, types.UnionType):  # Optional[T], T | None
        annotation = next(a for a in get_args(annotation) if a is not type(None))
    if get_origin(annotation) is Literal:
        annotation = tuple(str(a) for a in get_args(annotation))
    return annotation, option


def parameters_of(function: Callable[..., Any], fixed: Mapping[str, tuple[str, ...]]
                  ) -> list[Parameter]:
    """The request parameters of ``function`` (``store`` and ``body`` left out)."""
    hints = get_type_hints(function, include_extras=True)
    found = []
    for name, parameter in inspect.signature(function).parameters.items():
        if name in (*SERVED_BY_THE_SERVER, "body"):
            continue
        kind, option = _plain(hints.get(name, str))
        if name in fixed:
            kind = tuple(fixed[name])
        if kind not in (int, str, bool) and not isinstance(kind, tuple):
            raise TypeError(f"{function.__qualname__}: parameter {name} has the type {kind}, "
                            "which a web request cannot give")
        bounds = {}
        if option is not None and kind is int:
            bounds = {key: value for key, value in (("lower", option.min),
                                                    ("upper", option.max)) if value is not None}
        found.append(Parameter(name, kind, parameter.default,
                               getattr(option, "help", None) or "", **bounds))
    return found


def parse_request(parameters: list[Parameter], given: list[tuple[str, str]]) -> dict[str, Any]:
    """The keyword arguments a request's query string gives; InvalidInput on an unknown,
    repeated, missing or malformed one."""
    known = {p.name: p for p in parameters}
    values: dict[str, Any] = {}
    for raw, text in given:
        name = raw.replace("-", "_")
        if name in SERVED_BY_THE_SERVER:
            raise InvalidInput(f"{raw}: the server serves one store; a request cannot name "
                               "another")
        if name not in known:
            raise InvalidInput(f"unknown parameter {raw[:40]!r}; known: "
                               f"{', '.join(known) or 'none'}")
        if name in values:
            raise InvalidInput(f"{name} is given twice")
        values[name] = known[name].parse(text)
    missing = [p.name for p in parameters if p.required and p.name not in values]
    if missing:
        raise InvalidInput(f"give {', '.join(missing)}")
    return values
