"""Errors a user can act on: the CLI prints their message on one line and exits non-zero."""

import errno
from numbers import Integral


class SubgameError(Exception):
    """Base class of every error that is the user's to fix (bad input, clashing stores)."""


class InvalidInput(SubgameError, ValueError):
    """An argument is out of range, malformed or unknown."""


class ConfigurationClash(SubgameError):
    """A store already holds this computation with a different configuration."""


class StoreLocked(SubgameError):
    """Another live run holds the computation's lock."""


class MachineRefused(SubgameError):
    """The machine refuses, not the input: a permission, a read-only file system, a program
    that cannot start. The CLI exits with status `MACHINE`."""


class NotComputed(SubgameError):
    """A query asks for something the store does not hold (yet)."""


def integer_text(name: str, text: str) -> int:
    """A decimal integer written in ASCII digits (Python's int() also takes "٣", " 3",
    "1_000" and "+3"; a value like "8.0" is not an integer either)."""
    body = text[1:] if text[:1] == "-" else text
    if not (body.isascii() and body.isdigit()) or len(body) > 30:
        raise InvalidInput(f"{name} takes an integer in ASCII digits, got {text!r}")
    return int(text)


# A seed is what numpy's generators take whole: an unsigned 64-bit integer.
SEED_MAX = 2**64 - 1


def check_int(name: str, value: object, lower: int = 1, upper: int | None = None) -> int:
    """``value`` as an int if it is an integer in [lower, upper], else InvalidInput naming
    the option (flow parameters reach here untyped from deployments and the API)."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise InvalidInput(f"{name} must be an integer, got {value!r}")
    if value < lower or (upper is not None and value > upper):
        bounds = f"between {lower} and {upper}" if upper is not None else f"at least {lower}"
        raise InvalidInput(f"{name} must be {bounds}, got {value}")
    return int(value)


# The machine's refusals: the store's disk or permissions, not the input and not a bug. The
# run wrote nothing it did not mark (markers follow data), so the same command resumes.
MACHINE = 5
_WHAT_TO_DO = {
    errno.ENOSPC: "free space there (or use another --store)",
    errno.EDQUOT: "free space within the quota there (or use another --store)",
    errno.EROFS: "the file system is read-only: remount it writable or use another --store",
    errno.EACCES: "give this user write permission there (or use another --store)",
    errno.EPERM: "give this user write permission there (or use another --store)",
    errno.EIO: "the device reported an I/O error: check the disk",
}
MACHINE_ERRNOS = frozenset(_WHAT_TO_DO)


def machine_error(exc: BaseException, store: str) -> str | None:
    """One line naming the store and what to do, when ``exc`` (or what caused it, through
    Prefect's and Dask's wrapping) is the machine refusing: a full disk or quota, a
    read-only file system, a permission; None for anything else."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in _WHAT_TO_DO:
            where = f" ({exc.filename})" if exc.filename else ""
            return (f"the store {store!r} cannot be written: {exc.strerror}{where}; "
                    f"{_WHAT_TO_DO[exc.errno]}, then run the same command again: it resumes "
                    "where it stopped")
        exc = exc.__cause__ or exc.__context__
    return None
