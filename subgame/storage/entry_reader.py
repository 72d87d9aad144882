"""One entry of a stored array, read straight from the file that holds it.

A query reads one entry (a row and what lies below it) of a few arrays. Through Zarr each
read is a trip into Zarr's event loop thread and back, and on a busy machine those thread
switches are most of a small read's time. Zarr 3's format is open and simple for the arrays
subgame writes, so a reader of a local folder reads it directly:

- a chunk (a shard, for a sharded array) is the file ``c/i/j/...`` under the array's folder,
  named by its position in the chunk grid;
- a shard ends with its index, an (offset, length) pair of little-endian uint64 per inner
  chunk in C order, both 2**64 - 1 for a chunk not written, then the index's CRC-32C;
- a chunk is its elements' bytes (C order, the whole chunk shape even at the array's edge),
  zstd-compressed where the array says so, then the CRC-32C of what precedes it.

`EntryReader.of` reads an array's metadata and returns None where the array uses anything
else (other codecs, a chunk key encoding other than ``default``, a chunked trailing axis) or
lives elsewhere than a local folder; `read` returns None where a file fails its checksum or is
cut short. Either way the caller reads through Zarr, which says what is wrong.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import google_crc32c
import numpy as np
from numcodecs.zstd import Zstd

UNWRITTEN = 2 ** 64 - 1
CHECKSUM = 4  # bytes of a CRC-32C


def crc32c(data: bytes) -> bytes:
    """The CRC-32C of ``data`` as Zarr's crc32c codec stores it."""
    return google_crc32c.value(data).to_bytes(CHECKSUM, "little")


@dataclass(frozen=True)
class Codecs:
    """An array-to-bytes chain: the elements' byte order, then zstd, then CRC-32C."""

    dtype: np.dtype
    zstd: Zstd | None
    crc32c: bool

    @classmethod
    def of(cls, data_type: str, codecs: list[dict[str, Any]]) -> Codecs | None:
        names = [codec["name"] for codec in codecs]
        if names not in (["bytes"], ["bytes", "crc32c"], ["bytes", "zstd"],
                         ["bytes", "zstd", "crc32c"]):
            return None
        endian = (codecs[0].get("configuration") or {}).get("endian", "little")
        try:
            dtype = np.dtype(data_type).newbyteorder("<" if endian == "little" else ">")
        except TypeError:
            return None
        settings = (codecs[1].get("configuration") or {}) if "zstd" in names else None
        zstd = None if settings is None else Zstd(level=settings.get("level", 0),
                                                  checksum=settings.get("checksum", False))
        return cls(dtype, zstd, "crc32c" in names)

    def decode(self, file, length: int, shape: tuple[int, ...]) -> np.ndarray | None:
        """The chunk of ``shape`` in the next ``length`` bytes of ``file`` (None where it
        fails its checksum or is cut short)."""
        raw = file.read(length - CHECKSUM * self.crc32c)
        if self.crc32c and crc32c(raw) != file.read(CHECKSUM):
            return None
        if self.zstd is not None:
            raw = self.zstd.decode(raw)
        if len(raw) != math.prod(shape) * self.dtype.itemsize:
            return None
        return np.frombuffer(raw, self.dtype).reshape(shape)

    def encode(self, chunk: np.ndarray) -> bytes:
        """The bytes that `decode` reads back as ``chunk`` (those Zarr writes)."""
        raw = np.ascontiguousarray(chunk, self.dtype).tobytes()
        if self.zstd is not None:
            raw = self.zstd.encode(raw)
        return raw + (crc32c(raw) if self.crc32c else b"")


@dataclass(frozen=True)
class EntryReader:
    """Reads ``array[where]`` for a tuple of integers ``where`` (the leading axes)."""

    folder: str
    shape: tuple[int, ...]
    chunks: tuple[int, ...]        # the grid's chunk (a shard, where sharded)
    inner: tuple[int, ...] | None  # a shard's inner chunk
    codecs: Codecs
    fill_value: Any

    @classmethod
    def of(cls, array: Any) -> EntryReader | None:
        """The reader of a Zarr array, None where it does not read this array's format."""
        from zarr.storage import LocalStore

        if not isinstance(array.store, LocalStore):
            return None
        meta = array.metadata.to_dict()
        encoding = meta.get("chunk_key_encoding", {})
        if (meta.get("zarr_format") != 3 or meta["chunk_grid"]["name"] != "regular"
                or encoding.get("name") != "default"
                or (encoding.get("configuration") or {}).get("separator", "/") != "/"):
            return None
        shape = tuple(meta["shape"])
        chunks = tuple(meta["chunk_grid"]["configuration"]["chunk_shape"])
        inner, codecs = None, meta["codecs"]
        if [codec["name"] for codec in codecs] == ["sharding_indexed"]:
            sharding = codecs[0]["configuration"]
            if (sharding.get("index_location", "end") != "end"
                    or [c["name"] for c in sharding["index_codecs"]] != ["bytes", "crc32c"]):
                return None
            inner, codecs = tuple(sharding["chunk_shape"]), sharding["codecs"]
        chain = Codecs.of(meta["data_type"], codecs)
        if chain is None or chain.dtype.kind not in "biuf":
            return None
        return cls(os.path.join(str(array.store.root), array.path), shape, chunks, inner,
                   chain, np.asarray(meta["fill_value"], chain.dtype.newbyteorder("=")))

    def read(self, where: tuple[int, ...]) -> np.ndarray | None:
        """``array[where]``, or None where the files must be read through Zarr."""
        n = len(where)
        block = self.inner or self.chunks
        if any(b < s for b, s in zip(block[n:], self.shape[n:])):
            return None  # a trailing axis in several chunks
        rest = [0] * (len(self.shape) - n)
        within = [w % c for w, c in zip(where, self.chunks)]
        found = self._block([w // c for w, c in zip(where, self.chunks)] + rest,
                            [w // b for w, b in zip(within, block)] + rest)
        if found is None:
            return None
        offset = tuple(w % b for w, b in zip(within, block))
        return np.array(found[offset][tuple(slice(0, s) for s in self.shape[n:])])

    def read_points(self, points: np.ndarray) -> np.ndarray | None:
        """``array[tuple(points.T)]`` for an (n, ndim) integer array of positions, each
        block (inner chunk, or chunk) that holds some read once; None where the files must
        be read through Zarr."""
        block = np.array(self.inner or self.chunks)
        within = points % self.chunks
        keys = np.concatenate([points // self.chunks, within // block], axis=1)
        blocks, which = np.unique(keys, axis=0, return_inverse=True)
        found = np.empty(len(points), self.codecs.dtype.newbyteorder("="))
        offsets = within % block
        ndim = len(self.shape)
        for b, key in enumerate(blocks.tolist()):
            data = self._block(key[:ndim], key[ndim:])
            if data is None:
                return None
            members = np.flatnonzero(which.ravel() == b)
            found[members] = data[tuple(offsets[members].T)]
        return found

    def _block(self, position: list[int], at: list[int]) -> np.ndarray | None:
        """The chunk at ``position`` in the grid, or where sharded, its inner chunk at
        ``at`` in the shard's grid of them: the fill value where never written, None where
        it fails its checksum or is cut short."""
        path = os.path.join(self.folder, "c", *map(str, position))
        try:
            with open(path, "rb") as file:
                if self.inner is None:
                    return self.codecs.decode(file, os.fstat(file.fileno()).st_size,
                                              self.chunks)
                return self._inner_chunk(file, at)
        except FileNotFoundError:
            return np.full(self.inner or self.chunks, self.fill_value)
        except (OSError, ValueError, RuntimeError):
            return None

    def _inner_chunk(self, file, at: list[int]) -> np.ndarray | None:
        """The inner chunk ``at`` of an open shard (None where it fails its checksum)."""
        grid = [math.ceil(c / i) for c, i in zip(self.chunks, self.inner)]
        size = math.prod(grid) * 16 + CHECKSUM
        file.seek(-size, os.SEEK_END)
        index = file.read(size)
        if crc32c(index[:-CHECKSUM]) != index[-CHECKSUM:]:
            return None
        start, length = np.frombuffer(index, "<u8", count=2,
                                      offset=16 * int(np.ravel_multi_index(at, grid)))
        if start == UNWRITTEN and length == UNWRITTEN:
            return np.full(self.inner, self.fill_value)
        file.seek(int(start))
        return self.codecs.decode(file, int(length), self.inner)
