"""subgame: exact solutions of small games, level by level, kept in a Zarr store."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("subgame")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"


_API = ("query", "table")  # subgame.api, imported on first use: `import subgame` stays fast


def __getattr__(name: str):
    if name in _API:
        from subgame import api

        return getattr(api, name)
    raise AttributeError(f"module 'subgame' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])
