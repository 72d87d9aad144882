"""Damaged stores: `subgame verify --store` finds every corrupted chunk (crc32c) and names
the work that rewrites it; `--repair` recomputes exactly that work."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import zarr
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.engine import run_computation
from subgame.families.guess_who.plan import GuessWhoConfig
from subgame.flows.run import run_flow
from subgame.options import RunOptions
from subgame.storage.integrity import scan
from tests.ops_helpers import corrupt_chunk, finish, subgame, subprocess_env
from tests.store_compare import assert_results_equal
from tests.toy_family.plan import ToyConfig, expected

app = build_app()
U, BAND = 40, 8
GROUP = GuessWhoConfig(max_n=U, band=BAND).group_path()


def verify(store: str) -> tuple[int, list[dict]]:
    result = CliRunner().invoke(app, ["verify", "--store", store, "--json"])
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout)["damaged"]


def test_declared_writers_repair_exactly_the_damaged_shards(tmp_path):
    config = ToyConfig(levels=4, shards=3)
    reference, store = str(tmp_path / "ref.zarr"), str(tmp_path / "s.zarr")
    for path in (reference, store):
        run_computation(config, RunOptions(path, executor="serial"))
    corrupt_chunk(store, config.group_path(), "values", (1, 2))
    corrupt_chunk(store, config.group_path(), "_markers/00003", (0,))
    found = {(d.array, d.chunk, d.step, d.shard) for d in scan(store, config.group_path())}
    assert found == {("values", (1, 2), 1, 2), ("_markers/00003", (0,), 3, 0)}
    code, damaged = verify(store)
    assert code == 3 and {tuple(d["region"][1]) for d in damaged if d["array"] == "values"} \
        == {(16, 24)}
    report = run_computation(config, RunOptions(store, executor="serial", repair=True))
    assert len(report.repaired) == 2
    # The later stage "distinct" read none of the damage (it is deterministic and was
    # finished before): only the two damaged shards are recomputed.
    assert report.steps_computed == ["k=1", "k=3"] and report.shards_computed == 2
    np.testing.assert_array_equal(
        zarr.open_group(store, mode="r")[f"{config.group_path()}/values"][:], expected(4, 3))
    assert_results_equal(reference, store)
    assert verify(store) == (0, [])


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("ref") / "store.zarr")
    run_flow("guess-who", {"max_n": U, "band": BAND}, RunOptions(path, executor="serial"))
    return path


def run_repair(store: str) -> dict:
    result = CliRunner().invoke(app, ["run", "guess-who", "--max-n", str(U), "--band", str(BAND),
                                      "--store", store, "--executor", "serial", "--repair",
                                      "--json"])
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.stdout)  # one computation
    return report


def test_cli_verify_and_repair_guess_who_store(tmp_path, reference):
    store = str(tmp_path / "s.zarr")
    run_flow("guess-who", {"max_n": U, "band": BAND}, RunOptions(store, executor="serial"))
    corrupt_chunk(store, GROUP, "official/a", (2, 1))
    # The array's metadata lost as well: repair writes it back from the plan, and its
    # chunks, passing their checksums under it, are kept.
    Path(store, GROUP, "variant", "s_max", "zarr.json").write_text("{not json")
    code, damaged = verify(store)
    assert code == 3
    assert {(d["array"], tuple(d["chunk"]) if d["chunk"] else None) for d in damaged} == {
        ("official/a", (2, 1)), ("variant/s_max", None)}
    region = next(d["region"] for d in damaged if d["array"] == "official/a")
    assert region == [[16, 24], [8, 16]]
    report = run_repair(store)
    # Guess Who declares its chunks' writers: the official shard of band 2 rewrites the
    # chunk; nothing else is recomputed.
    assert report["shards_computed"] == 1 and len(report["repaired"]) == 2
    assert_results_equal(reference, store)
    assert verify(store) == (0, [])


def test_repair_of_a_lost_group_rewrites_it_and_keeps_the_arrays_below(tmp_path, reference):
    """The metadata of the group holding every official-rules array is lost: verify reports
    it; repair writes it back (a plain group) and the arrays below, whose documents and
    chunks pass their checks, are kept: nothing is recomputed."""
    store = str(tmp_path / "s.zarr")
    run_flow("guess-who", {"max_n": U, "band": BAND}, RunOptions(store, executor="serial"))
    Path(store, GROUP, "official", "zarr.json").write_text("")
    code, damaged = verify(store)
    assert code == 3 and "official" in {d["array"] for d in damaged}
    report = run_repair(store)
    assert report["shards_computed"] == 0
    assert_results_equal(reference, store)
    assert verify(store) == (0, [])


def test_repair_rewrites_constant_coordinates_without_recomputing(tmp_path, reference):
    store = str(tmp_path / "s.zarr")
    run_flow("guess-who", {"max_n": U, "band": BAND}, RunOptions(store, executor="serial"))
    corrupt_chunk(store, GROUP, "official/n", (0,))
    assert verify(store)[0] == 3
    report = run_repair(store)
    assert report["shards_computed"] == 0 and report["steps_skipped"] == 5
    assert_results_equal(reference, store)


def test_clean_store_verifies_and_repair_changes_nothing(tmp_path, reference):
    code, damaged = verify(reference)
    assert (code, damaged) == (0, [])
    result = CliRunner().invoke(app, ["verify", "--store", str(tmp_path / "missing.zarr")])
    assert result.exit_code == 2 and "no subgame store" in result.output


def mount_tmpfs(folder: Path, size: str) -> None:
    import subprocess

    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                              str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")


@pytest.fixture
def small_disk(tmp_path, request):
    """A 400 kB tmpfs (the store needs about 1.6 MB; an indirect parameter gives another
    size), grown to 64 MB by ``grow()``."""
    import subprocess

    folder = tmp_path / "disk"
    mount_tmpfs(folder, getattr(request, "param", "400k"))

    def grow() -> None:
        subprocess.run(["mount", "-o", "remount,size=64m", str(folder)], check=True)

    yield folder, grow
    subprocess.run(["umount", str(folder)], check=True)


def test_a_full_disk_is_one_line_and_the_same_command_resumes(small_disk, reference):
    folder, grow = small_disk
    store = str(folder / "s.zarr")
    args = ["run", "guess-who", "--max-n", str(U), "--band", str(BAND), "--store", store,
            "--executor", "serial", "-q", "--force"]  # --force: past the estimate's refusal
    full = CliRunner().invoke(app, args)
    lines = [line for line in full.output.splitlines() if line.strip()]
    assert full.exit_code == 5, full.output  # the machine's refusal: not 1, not a bug
    assert len(lines) == 1 and "No space left on device" in lines[0] and store in lines[0]
    assert "run the same command again" in lines[0]
    grow()  # space freed
    resumed = CliRunner().invoke(app, args)
    assert resumed.exit_code == 0, resumed.output
    assert_results_equal(reference, store)
    assert verify(store) == (0, [])


@pytest.mark.parametrize("small_disk", ["800k"], indirect=True)  # room for 3 of 5 steps
def test_a_disk_full_under_a_workers_write_in_a_flow_run_is_one_line(small_disk, reference,
                                                                    tmp_path):
    """The disk fills while a Dask worker writes a shard, inside a Prefect flow run (the
    issue's case: a Prefect traceback, then `internal error: OSError`): one line, exit 5;
    after space is freed the finished steps stand and the rest is computed."""
    folder, grow = small_disk
    store = str(folder / "s.zarr")
    run = subgame("run", "guess-who", "--max-n", str(U), "--band", str(BAND), "--store", store,
                  "--workers", "1", "-q", "--force", env=subprocess_env(tmp_path))
    code, _, err = finish(run, timeout=300)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 5 and len(lines) == 1, err
    assert "No space left on device" in lines[0] and store in lines[0]
    finished = zarr.open_group(store, mode="r", use_consolidated=False)[GROUP].attrs[
        "steps_done"]
    assert finished  # it failed in a later step, in a worker, not while preparing
    grow()
    resumed = CliRunner().invoke(app, ["run", "guess-who", "--max-n", str(U), "--band",
                                       str(BAND), "--store", store, "--executor", "serial",
                                       "--json"])  # the same run, in process
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)[0]["steps_skipped"] == len(finished)
    assert_results_equal(reference, store)
    assert verify(store) == (0, [])


def test_a_large_export_says_its_size_before_writing(reference, tmp_path, monkeypatch):
    """Past the threshold (lowered here from 100 MiB) the export says, on stderr, what it is
    about to write: its rows, and its size from a sample of them (100 here, of 1600)
    within 25% of the file it then writes."""
    from dask.utils import parse_bytes

    from subgame.commands import export

    monkeypatch.setattr(export, "ANNOUNCE_BYTES", 1)
    monkeypatch.setattr(export, "SAMPLE_ROWS", 100)
    out = tmp_path / "table.csv"
    result = CliRunner().invoke(app, ["export", "guess-who", "--store", reference, "--out",
                                      str(out)])
    assert result.exit_code == 0, result.output
    (line,) = result.stderr.splitlines()
    rows = len(out.read_text().splitlines()) - 1  # less the header
    size, counted = line.removeprefix(f"writing {out} (about ").removesuffix(" rows)").split(", ")
    assert int(counted.replace(",", "")) == rows > 100
    assert 0.8 < parse_bytes(size) / out.stat().st_size < 1.25


def test_an_export_that_will_not_fit_is_refused_before_writing(small_disk, reference):
    folder, _ = small_disk
    (folder / "ballast").write_bytes(bytes(380 * 1024))  # leaves under the table's 45 kB
    out = folder / "table.csv"
    result = CliRunner().invoke(app, ["export", "guess-who", "--store", reference, "--out",
                                      str(out)])
    assert result.exit_code == 2 and "would take about" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not out.exists()
