"""EntryReader reads an entry straight from its chunk file exactly as Zarr reads it: every
layout subgame writes (sharded or not, each compression, edge chunks, chunks never written),
and it leaves to Zarr what it does not read (a damaged chunk, other codecs)."""

from __future__ import annotations

import random

import numpy as np
import pytest
import zarr
import zarr.codecs

from subgame.storage.entry_reader import EntryReader
from subgame.storage.zarr_settings import COMPRESSIONS

LAYOUTS = [  # (shape, chunks, inner chunks or None, dtype, compression)
    ((23, 7), (10, 7), None, "float64", "none"),
    ((23, 7), (10, 7), None, "int16", "zstd"),
    ((41, 9, 3, 3), (21, 9, 3, 3), (3, 9, 3, 3), "float32", "zstd-fast"),
    ((41, 5, 9), (15, 5, 9), (5, 5, 9), "int8", "zstd"),
    ((30, 11), (30, 11), (6, 11), "uint8", "none"),
]


def stored(tmp_path, shape, chunks, inner, dtype, compression, fill=True) -> zarr.Array:
    """An array of the layout, its values random, its last shard left unwritten unless
    ``fill``; opened afresh read-only, as a query opens it."""
    layout = {"chunks": inner, "shards": chunks} if inner else {"chunks": chunks}
    path = str(tmp_path / "a.zarr")
    array = zarr.create_array(path, shape=shape, dtype=dtype, fill_value=3,
                              compressors=COMPRESSIONS[compression], **layout)
    rng = np.random.default_rng(1)
    data = (rng.random(shape) * 100).astype(dtype)
    written = shape[0] if fill else (shape[0] - 1) // chunks[0] * chunks[0]
    array[:written] = data[:written]
    return zarr.open_array(path, mode="r")


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: f"{layout[0]}-{layout[4]}")
def test_every_entry_reads_as_zarr_reads_it(tmp_path, layout):
    array = stored(tmp_path, *layout, fill=False)
    reader = EntryReader.of(array)
    assert reader is not None
    rng = random.Random(5)
    for _ in range(60):
        depth = rng.randint(1, 2)
        where = tuple(rng.randrange(n) for n in array.shape[:depth])
        found = reader.read(where)
        assert found is not None and found.dtype == array.dtype
        np.testing.assert_array_equal(found, array[where])


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: f"{layout[0]}-{layout[4]}")
def test_scattered_points_read_as_zarr_reads_them(tmp_path, layout):
    array = stored(tmp_path, *layout, fill=False)
    rng = np.random.default_rng(7)
    points = np.stack([rng.integers(0, n, 300) for n in array.shape], axis=1)
    found = EntryReader.of(array).read_points(points)
    assert found is not None and found.dtype == array.dtype
    np.testing.assert_array_equal(found, array.get_coordinate_selection(tuple(points.T)))


def test_a_damaged_chunk_is_left_to_zarr_which_names_it(tmp_path):
    array = stored(tmp_path, *LAYOUTS[2])
    reader = EntryReader.of(array)
    shard = tmp_path / "a.zarr" / "c" / "1" / "0" / "0" / "0"
    raw = bytearray(shard.read_bytes())
    raw[5] ^= 0xFF  # inside the first inner chunk of the shard holding rows 21..41
    shard.write_bytes(bytes(raw))
    assert reader.read((21,)) is None
    assert reader.read_points(np.array([[0, 0, 0, 0], [21, 0, 0, 0]])) is None
    with pytest.raises(ValueError, match="checksum"):
        zarr.open_array(str(tmp_path / "a.zarr"), mode="r")[21]
    np.testing.assert_array_equal(reader.read((0,)), array[0])  # other shards still read


def test_arrays_of_other_formats_are_left_to_zarr(tmp_path):
    gzip = zarr.create_array(str(tmp_path / "g.zarr"), shape=(4,), chunks=(2,), dtype="int32",
                             compressors=zarr.codecs.GzipCodec())
    v2 = zarr.create_array(str(tmp_path / "v2.zarr"), shape=(4,), chunks=(2,), dtype="int32",
                           zarr_format=2)
    in_memory = zarr.create_array(zarr.storage.MemoryStore(), shape=(4,), chunks=(2,),
                                  dtype="int32")
    assert [EntryReader.of(a) for a in (gzip, v2, in_memory)] == [None, None, None]


def test_inner_chunks_never_written_read_as_the_fill_value(tmp_path):
    path = str(tmp_path / "a.zarr")
    with zarr.config.set({"array.write_empty_chunks": False}):  # subgame's stores write all
        array = zarr.create_array(path, shape=(12, 4), chunks=(3, 4), shards=(12, 4),
                                  dtype="int16", fill_value=3)
        array[0:3] = 7
        array[6:9] = 3  # the fill value: not written
    array = zarr.open_array(path, mode="r")
    reader = EntryReader.of(array)
    assert [int(reader.read((i,))[0]) for i in range(12)] == [7] * 3 + [3] * 9
    assert all(np.array_equal(reader.read((i,)), array[i]) for i in range(12))
