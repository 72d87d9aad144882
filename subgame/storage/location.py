"""Where stores live: a local directory by default, any fsspec URL otherwise."""

from __future__ import annotations

import os
import sys
import unicodedata
import warnings
import zipfile
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

import fsspec

from subgame.errors import MACHINE_ERRNOS, InvalidInput, MachineRefused, NotComputed

if TYPE_CHECKING:
    import zarr

DEFAULT_STORE = "subgame.zarr"
STORE_ENV = "SUBGAME_STORE"


def resolve_store(url: str | None) -> str:
    """The store to use: the explicit argument, else $SUBGAME_STORE, else ./subgame.zarr."""
    if url is not None and not url.strip():
        raise InvalidInput("the store path is empty")
    url = url or os.environ.get(STORE_ENV) or DEFAULT_STORE
    if any(unicodedata.category(character) == "Cc" for character in url):
        raise InvalidInput(f"the store path {url!r} holds a control character (a newline, a "
                           "tab...): a path no other tool could name safely; give one without")
    protocol = fsspec.core.split_protocol(url)[0] or "file"
    try:
        fsspec.get_filesystem_class(protocol)
    except (ValueError, ImportError) as exc:
        raise InvalidInput(f"cannot use {url!r} as a store: {exc}") from None
    return url


def nearest_existing(url: str) -> str | None:
    """The local store path itself or its nearest existing parent (where its files would
    go), or None for an object store."""
    with reaching(url):  # some filesystems connect when created (ftp, sftp)
        fs, path = fsspec.core.url_to_fs(url)
    if fs.protocol not in ("file", ("file", "local")):
        return None
    probe = os.path.abspath(path)
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    return probe


def check_store_location(url: str) -> None:
    """Refuse, before a run starts, a local store path that cannot become a directory
    (a file, or a path under a file), without creating anything."""
    probe = nearest_existing(url)
    if probe is None:
        return  # object stores have no such failure; credentials fail on first use
    if not os.path.isdir(probe):
        raise InvalidInput(f"cannot use {url!r} as a store: {probe!r} is not a directory")
    if not os.access(probe, os.W_OK):
        raise MachineRefused(f"cannot use {url!r} as a store: this user cannot write in "
                             f"{probe!r} (a permission, or a read-only file system); give "
                             "write permission there or use another --store")


def open_root(url: str, *, writable: bool) -> zarr.Group:
    """Open the root group; read-only opens of a missing store say so instead of creating one.

    Never through the consolidated metadata (`publish_metadata`): it is a snapshot for other
    readers, and a run resizes arrays and rewrites attributes after it was taken."""
    from subgame.storage.zarr_settings import zarr

    with reaching(url):
        try:
            try:
                return zarr.open_group(url, mode="a" if writable else "r",
                                       use_consolidated=False)
            except zarr.errors.ContainsGroupError:
                # Another run created the store between this one's look and its own
                # creation (runs started together on a new store): it is there now.
                return zarr.open_group(url, mode="a", use_consolidated=False)
        except FileNotFoundError as exc:
            if writable:  # e.g. under /proc: the directory cannot be created
                raise InvalidInput(f"cannot create a store at {url!r}: {exc.strerror}") \
                    from exc
            raise NotComputed(f"no subgame store at {url!r}") from exc
        except ValueError as exc:  # unparsable metadata (json errors are ValueErrors)
            raise InvalidInput(f"the store {url!r} has unreadable metadata ({exc}); "
                               "see `subgame verify --store`") from exc


@contextmanager
def reaching(url: str) -> Iterator[None]:
    """The first access to a store: what it raises when the store cannot be reached or
    used, as the user's error. That is the operating system's errors (not a folder, no
    permission, a name too long, a refused connection, an unknown host: aiohttp's are
    OSErrors too), an archive the URL names that is none (`zip://x::FILE` on a text file)
    and, where s3fs is in use, botocore's own (no credentials)."""
    try:
        yield
    except Exception as exc:
        # botocore is looked up, not imported: only a store that s3fs reaches has loaded
        # it, and its import is 10 ms of every other run's start
        botocore = sys.modules.get("botocore.exceptions")
        if not isinstance(exc, (OSError, zipfile.BadZipFile)) and not (
                botocore and isinstance(exc, botocore.BotoCoreError)):
            raise
        refusal = MachineRefused if getattr(exc, "errno", None) in MACHINE_ERRNOS \
            else InvalidInput
        raise refusal(f"cannot use {url!r} as a store: "
                      f"{getattr(exc, 'strerror', None) or exc}") from exc


def publish_metadata(url: str) -> None:
    """Driver only: consolidate every member's metadata into the root's, so that
    `xarray.open_zarr(store, group=...)` opens any group in one read and without a warning
    (xarray looks for consolidated metadata at the root only). subgame never reads it
    (`open_root`); a damaged member's metadata leaves the previous snapshot in place, and
    `subgame verify --store` names the damage."""
    from subgame.storage.zarr_settings import zarr

    with warnings.catch_warnings():
        # zarr calls consolidated metadata an extension of format 3.
        warnings.filterwarnings("ignore", message="Consolidated metadata is currently not")
        try:
            zarr.consolidate_metadata(url)
        except ValueError:
            pass
