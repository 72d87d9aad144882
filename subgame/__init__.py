"""subgame: exact solutions of small games, level by level, kept in a Zarr store."""

_API = ("query", "table")  # subgame.api, imported on first use: `import subgame` stays fast


def _version() -> str:
    # importlib.metadata is slow to import: the version is read where it is asked for
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("subgame")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str):
    if name == "__version__":
        value = globals()[name] = _version()  # read once
        return value
    if name in _API:
        from subgame import api

        return getattr(api, name)
    raise AttributeError(f"module 'subgame' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), "__version__", *_API])
