"""The plan is the template: a metadata document (an array's, a later stage's array's, a
marker's, a group's, the root's) that is missing, unreadable or not the plan's is damage
(`subgame verify --store` exits 3 naming it), and `run ... --repair` writes it back from the
plan, keeping the chunks whose checksums pass, so the store ends equal to an untouched copy
(every array and every attribute): the toy family for every kind of document, and a real
array of GOPS and of both higher/lower computations (Guess Who's, the board's and clue's are
in test_operations_integrity.py, test_guess_who_board_flow.py and test_clue_flow.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable

import pytest
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.engine import run_computation
from subgame.options import RunOptions
from tests.store_compare import assert_results_equal, assert_stores_equal
from tests.toy_family.plan import ToyConfig

app = build_app()
CONFIG = ToyConfig(levels=4, shards=3)
GROUP = CONFIG.group_path()
GARBAGE = bytes(range(256)) * 3  # not UTF-8, not JSON


def verify(store: str) -> tuple[int, list[dict]]:
    result = CliRunner().invoke(app, ["verify", "--store", store, "--json"])
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout)["damaged"] if result.stdout else []


def repair(store: str, *family: str) -> dict:
    (report,) = repair_all(store, *(family or ("toy", "--levels", "4", "--shards", "3")))
    return report


def repair_all(store: str, *family: str) -> list[dict]:
    """`run FAMILY ... --repair`: one report per computation the options name."""
    result = CliRunner().invoke(app, ["run", *family, "--store", store, "--executor",
                                      "serial", "--repair", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("toy") / "ref.zarr")
    run_computation(CONFIG, RunOptions(path, executor="serial"))
    return path


def later_array(store: Path) -> Path:
    """The later stage's array, as its record in the group names it."""
    attrs = json.loads((store / GROUP / "zarr.json").read_text())["attributes"]
    (spec,) = attrs["built_stages"]["distinct"]["arrays"]
    return store / GROUP / spec["path"]


def rewrite(path: Path, change: Callable[[dict], None]) -> None:
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))


DAMAGE = {  # what is done to a store, the damaged node it is reported as, shards recomputed
    "array metadata deleted": (lambda s: (s / GROUP / "values" / "zarr.json").unlink(),
                               "values", 0),
    "array metadata not the plan's": (lambda s: rewrite(
        s / GROUP / "values" / "zarr.json",
        lambda d: d["attributes"].update(written_by={"step": 0, "shard": 0})), "values", 0),
    "array shape not the plan's": (lambda s: rewrite(
        s / GROUP / "values" / "zarr.json", lambda d: d.update(shape=[4, 8])), "values", 0),
    "later stage's array metadata garbage": (
        lambda s: (later_array(s) / "zarr.json").write_bytes(GARBAGE), "distinct", 0),
    "later stage's array deleted": (lambda s: shutil.rmtree(later_array(s)), "distinct", 1),
    "marker metadata edited": (lambda s: rewrite(
        s / GROUP / "_markers" / "00003" / "zarr.json",
        lambda d: d.update({"chunk\x7fgrid": d.pop("chunk_grid")})), "_markers/00003", 0),
    "marker metadata garbage": (
        lambda s: (s / GROUP / "_markers" / "00002" / "zarr.json").write_bytes(GARBAGE),
        "_markers/00002", 0),
    # The group's record of an array's spec, damaged: verify names the array, not a
    # traceback; the repair takes the plan's spec and records it again.
    "recorded spec's compression unknown": (lambda s: rewrite(
        s / GROUP / "zarr.json",
        lambda d: d["attributes"]["arrays"]["values"].update(compression="lz77")), "values", 0),
    "recorded spec's data type unknown": (lambda s: rewrite(
        s / GROUP / "zarr.json",
        lambda d: d["attributes"]["arrays"]["values"].update(dtype="float7")), "values", 0),
    "subgroup metadata garbage": (
        lambda s: (s / GROUP / "_markers" / "zarr.json").write_bytes(GARBAGE), "_markers", 0),
}


@pytest.mark.parametrize("case", DAMAGE)
def test_damaged_metadata_is_found_and_repaired_from_the_plan(tmp_path, reference, case):
    damage, node, recomputed = DAMAGE[case]
    store = tmp_path / "s.zarr"
    shutil.copytree(reference, store)
    damage(store)
    code, damaged = verify(str(store))
    assert code == 3 and [(d["computation"], d["array"], d["chunk"]) for d in damaged] == [
        (GROUP, node, None)], damaged
    report = repair(str(store))
    # Only what no longer passes its checks is recomputed: a document written back leaves
    # its chunks, which still pass their checksums, as they are.
    assert report["shards_computed"] == recomputed
    assert_results_equal(reference, str(store))
    assert verify(str(store)) == (0, [])


@pytest.mark.parametrize("node", ["", "toy", GROUP])
def test_a_group_or_root_document_lost_is_damage_and_repaired(tmp_path, reference, node):
    store = tmp_path / "s.zarr"
    shutil.copytree(reference, store)
    (store / node / "zarr.json").write_bytes(GARBAGE)
    code, damaged = verify(str(store))
    assert code == 3 and [d["computation"] for d in damaged] == [node]
    result = CliRunner().invoke(app, ["verify", "--store", str(store)])
    assert "--repair" in result.output and "Traceback" not in result.output
    repair(str(store))
    assert_results_equal(reference, str(store))
    assert verify(str(store)) == (0, [])


def test_an_array_lost_from_a_store_that_recorded_no_specs(tmp_path, reference):
    """A store prepared before the driver recorded its arrays' specs (the previous
    release's: no `arrays` attribute) loses an array's document: the root's consolidated
    snapshot still lists the array, so verify reports it (exit 3); --repair writes it back
    from the plan, records the specs (the later stage's stay in `built_stages` only, so
    the record is compared as what verify holds the store to), and recomputes nothing."""
    from subgame.storage.template import recorded_specs

    store = tmp_path / "s.zarr"
    shutil.copytree(reference, store)
    rewrite(store / GROUP / "zarr.json", lambda d: d["attributes"].pop("arrays"))
    (store / GROUP / "values" / "zarr.json").unlink()
    code, damaged = verify(str(store))
    assert code == 3 and [(d["array"], d["reason"]) for d in damaged] == [
        ("values", "missing metadata (zarr.json)")], damaged
    assert repair(str(store))["shards_computed"] == 0
    assert_stores_equal(reference, str(store))
    held_to = [recorded_specs(json.loads((Path(path) / GROUP / "zarr.json").read_text())[
        "attributes"]) for path in (reference, store)]
    assert held_to[0] == held_to[1] and "values" in held_to[1]
    assert verify(str(store)) == (0, [])


def test_a_store_that_cannot_be_read_says_so_in_one_line(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    # Nothing to verify is not a success: exit 2, as for a store that does not exist.
    for store in (str(empty), str(tmp_path / "missing")):
        result = CliRunner().invoke(app, ["verify", "--store", store])
        assert result.exit_code == 2 and "no subgame store" in result.output
        assert len(result.output.strip().splitlines()) == 1


HIGHER_LOWER = ("higher-lower", "--max-n", "40", "--exact-max", "10", "--block", "20",
                "--ranks", "2", "--suits", "2", "--ties", "loss", "--policy", "optimal",
                "--games", "1000")  # both computations: the distinct sweep and a deck's
REAL = {  # the options of a run, what is done to its store, the array named, shards redone
    # The case: `rm S/gops/N<cards>/j<level>/values/zarr.json`.
    "gops: an array's document deleted": (
        ("gops", "--cards", "4"), lambda s: (s / "gops/N4/j3/values/zarr.json").unlink(),
        "j3/values", 0),
    "higher-lower: a nested array's document garbage": (
        HIGHER_LOWER,
        lambda s: (s / "higher-lower/distinct/B20/state/0/exact_wins/zarr.json").write_bytes(
            GARBAGE), "state/0/exact_wins", 0),
    # Document and chunks gone: the Monte Carlo shards that wrote them are recomputed (the
    # same seeds, the same games).
    "higher-lower: a deck's array deleted": (
        HIGHER_LOWER,
        lambda s: shutil.rmtree(s / "higher-lower/decks/r2-s2-loss-optimal-G1000-seed0/mc_wins"),
        "mc_wins", 1),
}


@pytest.fixture(scope="module")
def real_references(tmp_path_factory) -> dict[tuple[str, ...], str]:
    """One untouched store per family's options, made by `subgame run`."""
    folder = tmp_path_factory.mktemp("real")
    references = {}
    for index, args in enumerate(dict.fromkeys(args for args, *_ in REAL.values())):
        references[args] = str(folder / f"{index}.zarr")
        result = CliRunner().invoke(app, ["run", *args, "--store", references[args],
                                          "--executor", "serial", "-q"])
        assert result.exit_code == 0, result.output
    return references


@pytest.mark.parametrize("case", REAL)
def test_a_real_family_array_metadata_lost(tmp_path, real_references, case):
    args, damage, array, recomputed = REAL[case]
    store = tmp_path / "s.zarr"
    shutil.copytree(real_references[args], store)
    damage(store)
    code, damaged = verify(str(store))
    assert code == 3 and [d["array"] for d in damaged] == [array]
    assert sum(r["shards_computed"] for r in repair_all(str(store), *args)) == recomputed
    assert_results_equal(real_references[args], str(store))
    assert verify(str(store)) == (0, [])
