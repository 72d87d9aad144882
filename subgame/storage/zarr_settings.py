"""Zarr as subgame's stores use it. Every module that opens or creates a store imports it
(directly or through `subgame.storage.location.open_root`), so the settings hold wherever
Zarr is used, and a command that opens no store (`subgame --help`) imports no Zarr."""

import warnings

import zarr
import zarr.codecs

# Zstd for size; crc32c last, over the compressed bytes, so that a corrupted chunk fails
# its checksum on read instead of decoding into silently wrong numbers.
COMPRESSORS = (zarr.codecs.ZstdCodec(level=3), zarr.codecs.Crc32cCodec())
# Every chunk a shard writes is stored, fill values included, so a chunk that a finished
# shard wrote and that is missing now is damage `subgame verify` can see.
zarr.config.set({"array.write_empty_chunks": True})
# A live run's lock file (``.lock``, `subgame.storage.lock`) sits among the arrays; it is
# ours, not a stray object, wherever a group's members are listed (status, upgrade, ...).
warnings.filterwarnings("ignore", message=r"Object at .*\.lock is not recognized")
