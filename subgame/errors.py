"""Errors a user can act on: the CLI prints their message on one line and exits non-zero."""


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
