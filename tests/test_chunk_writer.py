"""write_rows writes an array's chunks straight to their files as Zarr writes them under
subgame's settings: the same files, the same inner chunks byte for byte (a shard's index may
list them in another order), read back by Zarr as its own; rows that are not whole chunks
are left to Zarr."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import zarr

import subgame.storage.zarr_settings  # noqa: F401  (every chunk stored, as in a run)
from subgame.storage.chunk_writer import write_rows
from subgame.storage.entry_reader import UNWRITTEN, EntryReader
from subgame.storage.zarr_settings import COMPRESSIONS
from tests.test_entry_reader import LAYOUTS


def created(path: Path, shape, chunks, inner, dtype, compression, fill) -> zarr.Array:
    layout = {"chunks": inner, "shards": chunks} if inner else {"chunks": chunks}
    return zarr.create_array(str(path), shape=shape, dtype=dtype, fill_value=fill,
                             compressors=COMPRESSIONS[compression], **layout)


def pieces(array: zarr.Array) -> dict[tuple, bytes]:
    """Each stored chunk's bytes, or where sharded each written inner chunk's, by position
    (chunk file, inner chunk)."""
    files = EntryReader.of(array)
    found = {}
    for path in sorted(Path(files.folder, "c").rglob("*")):
        if not path.is_file():
            continue
        key = tuple(path.relative_to(Path(files.folder, "c")).parts)
        body = path.read_bytes()
        if files.inner is None:
            found[key] = body
            continue
        grid = [c // i for c, i in zip(files.chunks, files.inner)]
        index = np.frombuffer(body[-(16 * math.prod(grid) + 4):-4], "<u8").reshape(-1, 2)
        for at, (start, length) in enumerate(index.tolist()):
            if start != UNWRITTEN:
                found[key + (at,)] = body[start:start + length]
    return found


CASES = [(layout, 3) for layout in LAYOUTS] + \
    [(layout, float("nan")) for layout in LAYOUTS if np.dtype(layout[3]).kind == "f"]


@pytest.mark.parametrize("layout, fill", CASES,
                         ids=[f"{layout[0]}-{layout[4]}-fill-{fill}" for layout, fill in CASES])
def test_whole_chunks_are_written_as_zarr_writes_them(tmp_path, layout, fill):
    shape, chunks, inner, dtype, compression = layout
    data = (np.random.default_rng(2).random(shape) * 100).astype(dtype)
    data[:chunks[0] // 2] = fill  # inner chunks of the fill value are stored too
    by_zarr = created(tmp_path / "zarr.zarr", *layout, fill)
    ours = created(tmp_path / "ours.zarr", *layout, fill)
    for start in range(0, shape[0], chunks[0]):
        by_zarr[start:start + chunks[0]] = data[start:start + chunks[0]]
        assert write_rows(ours, start, data[start:start + chunks[0]])
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "ours.zarr"), mode="r")[...],
                                  data)
    assert pieces(ours) == pieces(by_zarr)
    assert not list(tmp_path.rglob("*.partial"))


def test_rows_that_are_not_whole_chunks_are_left_to_zarr(tmp_path):
    array = created(tmp_path / "a.zarr", *LAYOUTS[2], fill=0)  # chunks of 21 rows of 41
    data = np.ones(array.shape, array.dtype)
    assert not write_rows(array, 1, data[1:21])  # not where a chunk starts
    assert not write_rows(array, 0, data[0:20])  # short of its chunk's end
    assert not write_rows(array, 0, data[0:21, :4])  # not every column
    assert not Path(tmp_path / "a.zarr" / "c").exists()
    assert write_rows(array, 21, data[21:41])  # the last chunk ends at the array's end
    in_memory = zarr.create_array(zarr.storage.MemoryStore(), shape=(4,), chunks=(2,),
                                  dtype="int32")
    assert not write_rows(in_memory, 0, np.ones(2, "int32"))
