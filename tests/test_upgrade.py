"""A store written by subgame 0.1 (tests/data/store_v0_1.tar.gz, made with that release's
`subgame run` for guess-who U=30, gops N=4, a higher-lower sweep and a deck grid):
`subgame upgrade` converts it in place, recomputing nothing; queries then give the answers
0.1 gave (tests/data/store_v0_1_answers.json), and runs resume and grow it."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import numpy as np
import pytest
import zarr
from typer.testing import CliRunner

from subgame.cli import build_app

DATA = Path(__file__).parent / "data"


def cli(*args: str):
    return CliRunner().invoke(build_app(), list(args))


@pytest.fixture
def old_store(tmp_path) -> str:
    with tarfile.open(DATA / "store_v0_1.tar.gz") as archive:
        archive.extractall(tmp_path, filter="data")
    return str(tmp_path / "v1.zarr")


def arrays(url: str, group: str) -> dict[str, np.ndarray]:
    root = zarr.open_group(url, mode="r")[group]
    return {path: member[...] for path, member in root.members(max_depth=None)
            if isinstance(member, zarr.Array)}


def test_upgrade_converts_in_place_and_answers_as_before(old_store):
    before = arrays(old_store, "guess-who/U30")
    refused = cli("query", "guess-who", "--n", "3", "--m", "3", "--store", old_store)
    assert refused.exit_code == 2 and "subgame upgrade" in refused.stderr
    result = cli("upgrade", "--store", old_store, "--json")
    assert result.exit_code == 0, result.output
    moved = {c["from"]: c["to"] for c in json.loads(result.stdout)["converted"]}
    assert moved == {"guess-who/U30": "guess-who/both-B16", "gops/N4": "gops/N4",
                     "higher-lower/distinct/N50": "higher-lower/distinct/B20",
                     "higher-lower/decks/r3-s2-loss-optimal.majority-G300000-seed0":
                         "higher-lower/decks/r3-s2-loss-optimal.majority-G300000-seed0"}
    after = arrays(old_store, "guess-who/both-B16")
    assert sorted(after) == sorted(before)
    for path in before:
        np.testing.assert_array_equal(after[path], before[path], err_msg=path)
    for case in json.loads((DATA / "store_v0_1_answers.json").read_text()):
        answer = cli("query", *case["query"], "--store", old_store, "--json")
        assert answer.exit_code == 0, answer.output
        assert json.loads(answer.stdout) == case["answer"], case["query"]
    assert json.loads(cli("upgrade", "--store", old_store, "--json").stdout)["converted"] == []
    assert cli("verify", "--store", old_store).exit_code == 0


def test_an_upgraded_store_resumes_without_recomputing_and_grows(old_store):
    assert cli("upgrade", "--store", old_store).exit_code == 0
    for family, options in (("guess-who", ["--max-n", "30", "--band", "16"]),
                            ("gops", ["--cards", "4"]),
                            ("higher-lower", ["--max-n", "50", "--exact-max", "30", "--block",
                                              "20", "--ranks", "3", "--suits", "2",
                                              "--games", "300000"])):
        result = cli("run", family, *options, "--store", old_store, "--executor", "serial",
                     "--json")
        assert result.exit_code == 0, result.stderr
        assert all(r["steps_computed"] == [] for r in json.loads(result.stdout)), family
    grown = cli("run", "guess-who", "--max-n", "40", "--band", "16", "--store", old_store,
                "--executor", "serial", "--json")
    (report,) = json.loads(grown.stdout)
    assert report["steps_computed"] == ["L=17..32", "L=33..40"]  # the partial band, the new
    answer = json.loads(cli("query", "guess-who", "--n", "40", "--m", "40", "--store",
                            old_store, "--json").stdout)
    assert answer["n"] == 40 and answer["a"] > 0


def test_arrays_keep_the_compression_they_were_written_with(old_store):
    """GOPS's points values are stored uncompressed since 2026-12-05; an older store's keep
    zstd.  A repair restores their metadata with zstd: on the upgraded store, which has no
    specs recorded, a document whose codecs still read (the plan's spec is held to them);
    once a run has recorded the specs (with zstd), a deleted one.  Every chunk stays
    readable as it was."""
    assert cli("upgrade", "--store", old_store).exit_code == 0
    group = Path(old_store) / "gops" / "N4"
    values = group / "j4" / "values"
    document = (values / "zarr.json").read_bytes()
    assert [codec["name"] for codec in json.loads(document)["codecs"]] == \
        ["bytes", "zstd", "crc32c"]
    assert "arrays" not in json.loads((group / "zarr.json").read_text())["attributes"]
    before = arrays(old_store, "gops/N4")
    run = ("run", "gops", "--cards", "4", "--store", old_store, "--executor", "serial")
    not_the_plans = json.loads(document)
    not_the_plans["attributes"]["written_by"] = {"step": 0, "shard": 0}
    for damage in (lambda: (values / "zarr.json").write_text(json.dumps(not_the_plans)),
                   lambda: (values / "zarr.json").unlink()):
        damage()
        repaired = cli(*run, "--repair", "--json")
        assert repaired.exit_code == 0, repaired.output
        assert (values / "zarr.json").read_bytes() == document
        recorded = json.loads((group / "zarr.json").read_text())["attributes"]["arrays"]
        assert recorded["j4/values"]["compression"] == "zstd"
    after = arrays(old_store, "gops/N4")
    for path in before:
        np.testing.assert_array_equal(after[path], before[path], err_msg=path)
    assert cli("verify", "--store", old_store).exit_code == 0
