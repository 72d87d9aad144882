"""Where stores live: a local directory by default, any fsspec URL otherwise."""

from __future__ import annotations

import os

import zarr
import zarr.codecs

from subgame.errors import InvalidInput, NotComputed

DEFAULT_STORE = "subgame.zarr"
STORE_ENV = "SUBGAME_STORE"

# Zstd for size; crc32c last, over the compressed bytes, so that a corrupted chunk fails
# its checksum on read instead of decoding into silently wrong numbers.
COMPRESSORS = (zarr.codecs.ZstdCodec(level=3), zarr.codecs.Crc32cCodec())


def resolve_store(url: str | None) -> str:
    """The store to use: the explicit argument, else $SUBGAME_STORE, else ./subgame.zarr."""
    url = url or os.environ.get(STORE_ENV) or DEFAULT_STORE
    if not url.strip():
        raise InvalidInput("the store path is empty")
    return url


def open_root(url: str, *, writable: bool) -> zarr.Group:
    """Open the root group; read-only opens of a missing store say so instead of creating one."""
    try:
        if writable:
            return zarr.open_group(url, mode="a")
        return zarr.open_group(url, mode="r")
    except FileNotFoundError as exc:
        raise NotComputed(f"no subgame store at {url!r}") from exc
    except (PermissionError, NotADirectoryError, IsADirectoryError) as exc:
        raise InvalidInput(f"cannot use {url!r} as a store: {exc.strerror or exc}") from exc
