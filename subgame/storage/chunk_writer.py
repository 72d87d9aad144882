"""Whole chunks of a stored array, written straight to the files that hold them.

A GOPS shard task writes its region of each array whole: a chunk (a shard of inner chunks,
where sharded) along the first axis. Zarr encodes each inner chunk on a thread of its own,
about 0.3 ms of CPU an inner chunk beyond the compressor's work, which made small inner
chunks (small reads for a query) cost solving more. `write_rows` writes the files Zarr
writes under subgame's settings (`zarr_settings`: every chunk stored, fill values
included), in the format `entry_reader` reads (its module text): each chunk padded with the
fill value to the whole chunk shape; in a shard every inner chunk that holds some of the
array, in C order (Zarr's own order differs, which its index makes immaterial); each file
replaced at once, as Zarr's local store replaces it. Zarr reads them back as its own.
"""

from __future__ import annotations

import math
import os
import uuid
from typing import Any

import numpy as np

from subgame.storage.entry_reader import UNWRITTEN, EntryReader, crc32c


def write_rows(array: Any, start: int, data: np.ndarray) -> bool:
    """``array[start:start + len(data)] = data`` for a Zarr array, straight to its files;
    False, with nothing written, where `EntryReader` does not read the array or the rows
    are not whole chunks along the first axis (the last chunk may end at the array's end)
    spanning every other axis."""
    files = EntryReader.of(array)
    stop, rows = start + len(data), files.chunks[0] if files else 0
    if (files is None or data.shape[1:] != files.shape[1:] or start % rows
            or stop > files.shape[0] or (stop % rows and stop != files.shape[0])):
        return False
    grid = [math.ceil(s / c) for s, c in zip(files.shape[1:], files.chunks[1:])]
    for row in range(start, stop, rows):
        for position in np.ndindex(*grid):
            corner = (row - start, *(p * c for p, c in zip(position, files.chunks[1:])))
            part = data[tuple(slice(lo, lo + c) for lo, c in zip(corner, files.chunks))]
            pieces = (_shard(files, part) if files.inner else
                      [files.codecs.encode(_padded(part, files.chunks, files.fill_value))])
            _replace(os.path.join(files.folder, "c", *map(str, (row // rows, *position))),
                     pieces)
    return True


def _padded(block: np.ndarray, shape: tuple[int, ...], fill_value: Any) -> np.ndarray:
    """``block`` (the array's part of a chunk) filled out to ``shape`` with the fill value."""
    if block.shape == shape:
        return block
    whole = np.full(shape, fill_value, block.dtype)
    whole[tuple(map(slice, block.shape))] = block
    return whole


def _shard(files: EntryReader, part: np.ndarray) -> list[bytes]:
    """A shard's pieces: those of its inner chunks that hold some of ``part`` (the array's
    part of the shard), in C order, then the index of (offset, length) pairs and the index's
    CRC-32C."""
    inner = files.inner
    index = np.full((*(c // i for c, i in zip(files.chunks, inner)), 2), UNWRITTEN, "<u8")
    pieces, offset = [], 0
    for at in np.ndindex(*(math.ceil(e / i) for e, i in zip(part.shape, inner))):
        block = part[tuple(slice(a * i, (a + 1) * i) for a, i in zip(at, inner))]
        encoded = files.codecs.encode(_padded(block, inner, files.fill_value))
        index[at] = offset, len(encoded)
        pieces.append(encoded)
        offset += len(encoded)
    return [*pieces, index.tobytes(), crc32c(index.tobytes())]


def _replace(path: str, pieces: list[bytes]) -> None:
    """The file at ``path`` now holds ``pieces``, one after another, replaced at once."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    partial = f"{path}.{uuid.uuid4().hex}.partial"
    try:
        with open(partial, "wb") as file:
            file.writelines(pieces)
        os.replace(partial, path)
    except BaseException:
        try:
            os.remove(partial)
        except FileNotFoundError:
            pass
        raise
