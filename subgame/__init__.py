"""subgame: exact solutions of small games, level by level, kept in a Zarr store."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("subgame")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
