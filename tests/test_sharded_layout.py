"""GOPS's sharded arrays: small reads, the same answers as the unsharded layout of stores
written before it, which are still read and resumed in their own layout; verify and repair
find and rewrite a damaged sharded object."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import zarr

import subgame
from subgame.engine import run_computation
from subgame.families.gops import plan as gops_plan
from subgame.families.gops.plan import GopsConfig
from subgame.options import RunOptions
from subgame.plan import inner_chunks
from subgame.storage.integrity import scan
from tests.ops_helpers import corrupt_chunk
from tests.store_compare import assert_stores_equal

CARDS = 7
CONFIG = GopsConfig(CARDS, shard_states=600)  # several shards a level
UNSHARDED = 10**12  # no chunk is larger: every array one object a chunk, as before


def solve(store: str, monkeypatch, inner_bytes: int, **options) -> None:
    monkeypatch.setattr(gops_plan, "INNER_CHUNK_BYTES", inner_bytes)
    run_computation(CONFIG, RunOptions(store, executor="serial", **options))


def codecs(store: str, array: str) -> list[dict]:
    document = Path(store, CONFIG.group_path(), array, "zarr.json").read_text()
    return json.loads(document)["codecs"]


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """(sharded, unsharded): the same run in both layouts."""
    monkeypatch = pytest.MonkeyPatch()
    folder = tmp_path_factory.mktemp("layouts")
    sharded, unsharded = str(folder / "sharded.zarr"), str(folder / "unsharded.zarr")
    solve(sharded, monkeypatch, 2048)
    solve(unsharded, monkeypatch, UNSHARDED)
    monkeypatch.undo()
    return sharded, unsharded


def random_states(count: int) -> list[dict]:
    rng = random.Random(7)
    states = []
    for _ in range(count):
        j = rng.randint(1, CARDS)
        states.append({name: ",".join(map(str, sorted(rng.sample(range(1, CARDS + 1), j))))
                       for name in ("hand", "opponent", "prizes")})
    return states


def test_inner_chunks_fit_the_target_and_never_straddle_two_writers():
    # an axis split among chunks is cut by a divisor of its chunk; a whole axis evenly
    assert inner_chunks((100, 30), (10, 30), 8, 1000, 1) == (2, 30)
    assert inner_chunks((100, 30, 4), (10, 30, 4), 4, 100, 1) == (1, 6, 4)  # 5 pieces
    assert inner_chunks((100, 31, 4), (10, 31, 4), 4, 100, 1) == (1, 6, 4)  # 6 pieces: 36
    assert inner_chunks((100, 30), (10, 30), 8, 10**6, 1) is None
    shape, chunks = (100, 31, 4), (10, 31, 4)
    inner = inner_chunks(shape, chunks, 4, 100, 1)
    assert chunks[0] % inner[0] == 0 and np.prod(inner) * 4 <= 100


def test_sharded_store_answers_as_the_unsharded_one(stores):
    sharded, unsharded = stores
    for array in ("j5/upcard_values", "j5/strategies", "j5/strategies_two"):
        assert codecs(sharded, array)[0]["name"] == "sharding_indexed"
        assert codecs(unsharded, array)[0]["name"] == "bytes"
    assert_stores_equal(sharded, unsharded)  # the same numbers, bit for bit
    for state in random_states(40):
        assert subgame.query("gops", store=sharded, cards=CARDS, **state) == \
            subgame.query("gops", store=unsharded, cards=CARDS, **state)


def test_an_entry_is_read_from_an_inner_chunk_of_at_most_the_target(stores):
    sharded, unsharded = stores
    decoded = {}
    for name, store in (("sharded", sharded), ("unsharded", unsharded)):
        target = zarr.open_group(store, path=CONFIG.group_path(), mode="r")[
            f"j{CARDS - 2}/strategies"]
        decoded[name] = int(np.prod(target.chunks)) * 4  # the unit read and decoded
        np.testing.assert_array_equal(target[1, 2], zarr.open_group(
            unsharded, path=CONFIG.group_path(), mode="r")[f"j{CARDS - 2}/strategies"][1, 2])
    assert decoded["sharded"] <= 2048 < decoded["unsharded"]


def test_a_store_of_the_unsharded_layout_resumes_in_its_own_layout(tmp_path, monkeypatch,
                                                                   stores):
    _, unsharded = stores
    store = str(tmp_path / "old.zarr")
    monkeypatch.setattr(gops_plan, "INNER_CHUNK_BYTES", UNSHARDED)
    run_computation(CONFIG, RunOptions(store, executor="serial", max_steps=4))
    monkeypatch.setattr(gops_plan, "INNER_CHUNK_BYTES", 2048)  # today's plan shards
    report = run_computation(CONFIG, RunOptions(store, executor="serial"))
    assert len(report.steps_computed) == CARDS - 4  # the levels not done
    assert codecs(store, "j5/strategies")[0]["name"] == "bytes"  # kept its layout
    assert_stores_equal(store, unsharded)
    assert scan(store, CONFIG.group_path()) == []


def test_a_store_of_other_inner_chunks_resumes_in_its_own(tmp_path, monkeypatch, stores):
    sharded, _ = stores
    store = str(tmp_path / "other.zarr")
    solve(store, monkeypatch, 2048, max_steps=4)
    written = codecs(store, "j4/strategies")[0]["configuration"]["chunk_shape"]
    monkeypatch.setattr(gops_plan, "INNER_CHUNK_BYTES", 1024)  # today's plan: other ones
    report = run_computation(CONFIG, RunOptions(store, executor="serial"))
    assert len(report.steps_computed) == CARDS - 4  # level 4's strategies kept, not redone
    assert codecs(store, "j4/strategies")[0]["configuration"]["chunk_shape"] == written
    assert_stores_equal(store, sharded)
    assert scan(store, CONFIG.group_path()) == []


def test_verify_and_repair_a_damaged_sharded_object(tmp_path, monkeypatch, stores):
    sharded, _ = stores
    store = str(tmp_path / "s.zarr")
    solve(store, monkeypatch, 2048)
    array = "j5/strategies_two"  # level 5 is step 4; its shard 1 wrote chunk 1
    corrupt_chunk(store, CONFIG.group_path(), array, (1, 0, 0, 0))
    found = [(d.array, d.chunk, d.step, d.shard) for d in scan(store, CONFIG.group_path())]
    assert found == [(array, (1, 0, 0, 0), 4, 1)]
    report = run_computation(CONFIG, RunOptions(store, executor="serial", repair=True))
    assert len(report.repaired) == 1 and report.shards_computed >= 1
    assert scan(store, CONFIG.group_path()) == []
    assert_stores_equal(store, sharded)
