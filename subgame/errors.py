"""Errors a user can act on: the CLI prints their message on one line and exits non-zero."""

from numbers import Integral


class SubgameError(Exception):
    """Base class of every error that is the user's to fix (bad input, clashing stores)."""


class InvalidInput(SubgameError, ValueError):
    """An argument is out of range, malformed or unknown."""


class ConfigurationClash(SubgameError):
    """A store already holds this computation with a different configuration."""


class StoreLocked(SubgameError):
    """Another live run holds the computation's lock."""


class NotComputed(SubgameError):
    """A query asks for something the store does not hold (yet)."""


def check_int(name: str, value: object, lower: int = 1, upper: int | None = None) -> int:
    """``value`` as an int if it is an integer in [lower, upper], else InvalidInput naming
    the option (flow parameters reach here untyped from deployments and the API)."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise InvalidInput(f"{name} must be an integer, got {value!r}")
    if value < lower or (upper is not None and value > upper):
        bounds = f"between {lower} and {upper}" if upper is not None else f"at least {lower}"
        raise InvalidInput(f"{name} must be {bounds}, got {value}")
    return int(value)
