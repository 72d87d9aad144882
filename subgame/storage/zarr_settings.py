"""Zarr as subgame's stores use it. Every module that opens or creates a store imports it
(directly or through `subgame.storage.location.open_root`), so the settings hold wherever
Zarr is used, and a command that opens no store (`subgame --help`) imports no Zarr."""

import warnings
from typing import Any

import zarr
import zarr.codecs

# An array's compression (`ArraySpec.compression`) -> its codecs after the bytes codec.
# crc32c is last in each, over the stored bytes, so that a corrupted chunk fails its
# checksum on read instead of decoding into silently wrong numbers.
COMPRESSIONS = {
    "zstd": (zarr.codecs.ZstdCodec(level=3), zarr.codecs.Crc32cCodec()),
    # zstd at level 1 packs GOPS's strategies and win values as tightly as level 3 (0.654
    # of the strategies' bytes against 0.650 at points N = 13) in half the time
    "zstd-fast": (zarr.codecs.ZstdCodec(level=1), zarr.codecs.Crc32cCodec()),
    # GOPS's points values (float64), which zstd shrinks to 0.95 only, at 800 MB/s
    "none": (zarr.codecs.Crc32cCodec(),),
}


def compression_of(compressors: list[Any]) -> str | None:
    """The name of the compression whose codecs these are (as an array's metadata lists
    them after its array-to-bytes codec), None where it is none of these."""
    return next((name for name, codecs in COMPRESSIONS.items()
                 if compressors == [codec.to_dict() for codec in codecs]), None)


# Every chunk a shard writes is stored, fill values included, so a chunk that a finished
# shard wrote and that is missing now is damage `subgame verify` can see.
zarr.config.set({"array.write_empty_chunks": True})
# A live run's lock file (``.lock``, `subgame.storage.lock`) sits among the arrays; it is
# ours, not a stray object, wherever a group's members are listed (status, upgrade, ...).
warnings.filterwarnings("ignore", message=r"Object at .*\.lock is not recognized")
# Likewise the files `subgame publish` adds at a store's root (`subgame.storage.publish`).
warnings.filterwarnings("ignore", message=r"Object at (CITATION\.cff|PROVENANCE\.json|"
                                          r"MANIFEST\.json) is not recognized")
