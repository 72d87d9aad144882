"""`subgame publish` then `subgame verify --store`: a release's manifest holds every file's
size and SHA-256; a copy, local or served by a real `python -m http.server`, passes, and one
flipped byte, one missing file and one extra file are each reported (exit 3)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.engine import run_computation
from subgame.families.gops.plan import GopsConfig
from subgame.families.guess_who.plan import GuessWhoConfig
from subgame.options import RunOptions

app = build_app()


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    """A published store of two computations; tests copy it before changing anything."""
    store = tmp_path_factory.mktemp("release") / "results.zarr"
    for config in (GopsConfig(5), GuessWhoConfig(max_n=24, band=8)):
        run_computation(config, RunOptions(str(store), executor="serial"))
    code, out, _ = cli("publish", "--store", str(store), "--author", "A. Person", "--json")
    assert code == 0, out
    assert json.loads(out)["written"] == ["PROVENANCE.json", "CITATION.cff", "MANIFEST.json"]
    return store


@pytest.fixture(scope="module")
def http_root(release):
    """`python -m http.server` serving the release's folder; its address."""
    process = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "0", "--bind",
                                "127.0.0.1", "--directory", str(release.parent.parent)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    found = re.search(r"port (\d+)", process.stdout.readline())
    assert found
    yield f"http://127.0.0.1:{found.group(1)}"
    process.terminate()
    process.wait(60)


def test_the_manifest_lists_every_file_with_its_size_and_sha256(release):
    manifest = json.loads((release / "MANIFEST.json").read_text())
    on_disk = {str(path.relative_to(release)) for path in release.rglob("*")
               if path.is_file() and path.name not in ("MANIFEST.json", ".lock")}
    assert set(manifest["files"]) == on_disk
    for name in ("zarr.json", "CITATION.cff", "gops/N5/j5/values/c/0/0"):
        data = (release / name).read_bytes()
        assert manifest["files"][name] == {"size": len(data),
                                           "sha256": hashlib.sha256(data).hexdigest()}


def test_provenance_and_citation(release):
    record = json.loads((release / "PROVENANCE.json").read_text())
    assert set(record["computations"]) == {"gops/N5", GuessWhoConfig(max_n=24, band=8)
                                           .group_path()}
    gops = record["computations"]["gops/N5"]
    assert gops["options"]["cards"] == 5 and gops["kernel_version"] == 1
    assert gops["steps"] == 5 and gops["wall_seconds"] > 0 and gops["last_step_finished"]
    assert {"subgame", "commit", "machine", "kernel", "python", "date"} <= \
        set(record["published"])
    citation = yaml.safe_load((release / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0" and citation["type"] == "dataset"
    assert citation["authors"] == [{"name": "A. Person"}]
    root = json.loads((release / "zarr.json").read_text())
    assert "gops/N5/j5/values" in root["consolidated_metadata"]["metadata"]


def test_a_copy_verifies_locally_and_over_http(release, http_root, tmp_path):
    copy = tmp_path / "copy.zarr"
    shutil.copytree(release, copy)
    code, out, _ = cli("verify", "--store", str(copy))
    assert code == 0 and "every file matches MANIFEST.json" in out
    code, out, _ = cli("verify", "--store", f"{http_root}/{release.parent.name}/{release.name}",
                       "--json")
    assert code == 0 and json.loads(out)["mismatched"] == []


def damage(store: Path) -> set[tuple[str, str]]:
    """Flip one byte, delete one file, add one: the mismatches they must cause."""
    chunk = store / "gops/N5/j4/strategies/c/0/0/0/0"
    data = bytearray(chunk.read_bytes())
    data[len(data) // 2] ^= 0x01
    chunk.write_bytes(bytes(data))
    (store / "gops/N5/j3/pattern/zarr.json").unlink()
    (store / "notes.txt").write_text("not part of the release\n")
    return {("gops/N5/j4/strategies/c/0/0/0/0", "its SHA-256 is not the manifest's (same "
             "size: its bytes changed)"),
            ("gops/N5/j3/pattern/zarr.json", "missing"),
            ("notes.txt", "not in the manifest")}


def test_a_flipped_byte_a_missing_and_an_extra_file_are_each_reported(release, http_root,
                                                                     tmp_path):
    copy = tmp_path / "damaged.zarr"
    shutil.copytree(release, copy)
    expected = damage(copy)
    code, out, _ = cli("verify", "--store", str(copy))
    assert code == 3
    assert sorted(out.strip().splitlines()) == sorted(f"{p}: {why}" for p, why in expected)
    # the same copy over HTTP (served from its own folder)
    served = release.parent.parent / "served"
    shutil.copytree(copy, served / "damaged.zarr")
    code, out, _ = cli("verify", "--store", f"{http_root}/served/damaged.zarr", "--json")
    assert code == 3
    assert {(m["path"], m["problem"]) for m in json.loads(out)["mismatched"]} == expected


def test_an_unfinished_store_is_refused_in_one_line(tmp_path):
    store = str(tmp_path / "part.zarr")
    run_computation(GopsConfig(5), RunOptions(store, executor="serial", max_steps=2))
    code, out, err = cli("publish", "--store", store)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "not finished" in err
    assert not (tmp_path / "part.zarr" / "MANIFEST.json").exists()
