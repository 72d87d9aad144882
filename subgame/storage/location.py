"""Where stores live: a local directory by default, any fsspec URL otherwise."""

from __future__ import annotations

import os

import fsspec
import zarr
import zarr.codecs

from subgame.errors import InvalidInput, NotComputed

DEFAULT_STORE = "subgame.zarr"
STORE_ENV = "SUBGAME_STORE"

# Zstd for size; crc32c last, over the compressed bytes, so that a corrupted chunk fails
# its checksum on read instead of decoding into silently wrong numbers.
COMPRESSORS = (zarr.codecs.ZstdCodec(level=3), zarr.codecs.Crc32cCodec())
# Every chunk a shard writes is stored, fill values included, so a chunk that a finished
# shard wrote and that is missing now is damage `subgame verify` can see.
zarr.config.set({"array.write_empty_chunks": True})


def resolve_store(url: str | None) -> str:
    """The store to use: the explicit argument, else $SUBGAME_STORE, else ./subgame.zarr."""
    if url is not None and not url.strip():
        raise InvalidInput("the store path is empty")
    url = url or os.environ.get(STORE_ENV) or DEFAULT_STORE
    protocol = fsspec.core.split_protocol(url)[0] or "file"
    try:
        fsspec.get_filesystem_class(protocol)
    except (ValueError, ImportError) as exc:
        raise InvalidInput(f"cannot use {url!r} as a store: {exc}") from None
    return url


def check_store_location(url: str) -> None:
    """Refuse, before a run starts, a local store path that cannot become a directory
    (a file, or a path under a file), without creating anything."""
    fs, path = fsspec.core.url_to_fs(url)
    if fs.protocol not in ("file", ("file", "local")):
        return  # object stores have no such failure; credentials fail on first use
    probe = os.path.abspath(path)
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe) or not os.access(probe, os.W_OK):
        raise InvalidInput(f"cannot use {url!r} as a store: {probe!r} is not a writable "
                           "directory")


def open_root(url: str, *, writable: bool) -> zarr.Group:
    """Open the root group; read-only opens of a missing store say so instead of creating one."""
    try:
        if writable:
            return zarr.open_group(url, mode="a")
        return zarr.open_group(url, mode="r")
    except FileNotFoundError as exc:
        if writable:  # e.g. under /proc: the directory cannot be created
            raise InvalidInput(f"cannot create a store at {url!r}: {exc.strerror}") from exc
        raise NotComputed(f"no subgame store at {url!r}") from exc
    except (PermissionError, NotADirectoryError, IsADirectoryError) as exc:
        raise InvalidInput(f"cannot use {url!r} as a store: {exc.strerror or exc}") from exc
    except ValueError as exc:  # unparsable metadata (json errors are ValueErrors)
        raise InvalidInput(f"the store {url!r} has unreadable metadata ({exc}); "
                           "see `subgame verify --store`") from exc
