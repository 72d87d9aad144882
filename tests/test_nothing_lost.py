"""Nothing lost, ever: a repair killed at any step finishes on the next run, for every
family; a chunk or marker that vanished from a finished shard is damage; readers meeting a
store in flux say so in one line."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import pytest
import zarr
from typer.testing import CliRunner

from subgame import families, watchdog
from subgame.cli import build_app
from subgame.engine import run_computation
from subgame.options import RunOptions
from subgame.storage import integrity
from subgame.storage.integrity import scan_store
from tests.ops_helpers import finish, subgame, subprocess_env, wait_for
from tests.store_compare import assert_stores_equal

SMALL = {
    "guess-who": {"max_n": 24, "band": 8},
    "gops": {"cards": 4},
    "higher-lower": {"max_n": 30, "exact_max": 20, "block": 10, "ranks": "3", "suits": "2",
                     "games": 1000},
    "clue": {"players": "3", "cards_per_player": "2", "hidden": "1", "games": 200},
    "toy": {"levels": 3},
    # 150 pairs: the widest levels still in 2 shards (50 made 6 and a third more time).
    "guess-who-board": {"board": str(Path(__file__).parent / "data" / "seven_board.csv"),
                        "shard_pairs": 150},
}
KILL_POINTS = ("repair:scanned", "repair:reopened", "repair:deleted-one")


class Killed(BaseException):
    """Stands for SIGKILL at a failpoint: nothing after it runs, no handler catches it."""


def run(family: str, store: str, repair: bool = False) -> list:
    chosen = families.get(family)
    return [run_computation(c, RunOptions(store, executor="serial", repair=repair))
            for c in chosen.computations(chosen.options(**SMALL[family]))]


def written_chunks(store: str) -> list[Path]:
    """The chunk files of shard-written arrays, in a fixed order."""
    found = []
    for meta in sorted(Path(store).rglob("zarr.json")):
        attrs = json.loads(meta.read_text()).get("attributes", {})
        if "written_by" in attrs and (meta.parent / "c").is_dir():
            found += sorted(p for p in (meta.parent / "c").rglob("*") if p.is_file())
    return found


def corrupt(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def pending_somewhere(store: str) -> bool:
    """Some step is not recorded finished: a run will compute its unmarked shards."""
    # Not the consolidated metadata: a killed run leaves the snapshot of its start.
    root = zarr.open_group(store, mode="r", use_consolidated=False)
    return any(str(step["index"]) not in group.attrs["steps_done"]
               for _, group in root.members(max_depth=None)
               if isinstance(group, zarr.Group) and "identity" in group.attrs
               for step in group.attrs["steps"])


@pytest.fixture(scope="module")
def references(tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("references")
    stores = {family: str(base / f"{family}.zarr") for family in SMALL}
    for family, store in stores.items():
        run(family, store)
    return stores


@pytest.mark.parametrize("family", sorted(SMALL))
def test_a_repair_killed_at_any_step_is_finished_by_the_next_run(family, references,
                                                                  tmp_path, monkeypatch):
    assert set(SMALL) >= set(families.REGISTRY)  # every family
    for point in KILL_POINTS:
        store = str(tmp_path / point.replace(":", "-"))
        shutil.copytree(references[family], store)
        corrupt(written_chunks(store)[-1])

        def kill_at(name: str, point=point) -> None:
            if name == point:
                raise Killed(name)

        monkeypatch.setattr(integrity, "failpoint", kill_at)
        with pytest.raises(Killed):
            run(family, store, repair=True)
        # Nothing silent: the damage is still visible, or its shard is pending again.
        assert scan_store(store) or pending_somewhere(store), (family, point)
        monkeypatch.setattr(integrity, "failpoint", lambda name: None)
        run(family, store, repair=True)
        assert_stores_equal(references[family], store)
        assert scan_store(store) == [], (family, point)


def test_a_real_kill_between_reopening_and_deleting_loses_nothing(references, tmp_path):
    store = str(tmp_path / "s.zarr")
    shutil.copytree(references["guess-who"], store)
    corrupt(written_chunks(store)[0])
    args = ["run", "guess-who", "--max-n", "24", "--band", "8", "--store", store,
            "--executor", "serial", "--repair", "--json"]
    killed = subgame(*args, env=subprocess_env(tmp_path, SUBGAME_FAILPOINT="repair:reopened"))
    assert finish(killed)[0] == -9
    assert pending_somewhere(store)
    code, reports, err = finish(subgame(*args, env=subprocess_env(tmp_path)))
    assert code == 0, err
    assert_stores_equal(references["guess-who"], store)


def test_a_vanished_chunk_or_marker_is_damage_and_repair_recomputes_its_shard(references,
                                                                              tmp_path):
    store = str(tmp_path / "s.zarr")
    shutil.copytree(references["gops"], store)
    chunk = written_chunks(store)[0]
    chunk.unlink()
    marker = Path(store, "gops/N4/_markers/00001/c/0")
    marker.unlink()
    damaged = {(d.array, d.reason) for d in scan_store(store)}
    array = str(chunk.relative_to(Path(store, "gops/N4"))).split("/c/")[0]
    assert damaged == {(array, "missing chunk of a finished shard"),
                       ("_markers/00001", "missing marker of a finished step")}
    result = CliRunner().invoke(build_app(), ["verify", "--store", store])
    assert result.exit_code == 3
    (report,) = run("gops", store, repair=True)
    assert len(report.repaired) == 2 and report.shards_computed == 2
    assert_stores_equal(references["gops"], store)


def test_readers_of_a_store_in_flux_answer_in_one_line(references, tmp_path):
    store = str(tmp_path / "s.zarr")
    shutil.copytree(references["guess-who"], store)
    group = Path(store, "guess-who/both-B8")
    # A step recorded but its markers not made yet (a run growing the store, killed there).
    attrs = zarr.open_group(str(group), mode="r+").attrs
    attrs["steps_done"] = {k: v for k, v in attrs["steps_done"].items() if k != "2"}
    shutil.rmtree(group / "_markers" / "00002")
    app, runner = build_app(), CliRunner()
    status = runner.invoke(app, ["status", "--store", store, "--json"])
    assert status.exit_code == 0, status.output
    steps = json.loads(status.stdout)["computations"][0]["steps"]
    assert [step["state"] for step in steps] == ["done", "done", "preparing"]
    (group / "zarr.json").write_text('{"attributes": {"identity"')  # torn by a kill
    for args in (["status"], ["query", "guess-who", "--n", "3", "--m", "3"],
                 ["run", "guess-who", "--max-n", "24", "--band", "8", "--executor", "serial"]):
        result = runner.invoke(app, [*args, "--store", store])
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.exit_code == 2 and len(lines) == 1, (args, result.stderr)
        assert "cannot be read" in lines[0]
    verify = runner.invoke(app, ["verify", "--store", store])  # damage is its answer
    assert verify.exit_code == 3 and "internal error" not in verify.output


def test_an_arrays_torn_metadata_is_one_line_to_its_readers(references, tmp_path):
    """Inside a computation (which listing the store's computations does not enter): the
    reader that opens the array, and `status`, which sizes every array, say which metadata
    cannot be read."""
    store = str(tmp_path / "s.zarr")
    shutil.copytree(references["guess-who"], store)
    Path(store, "guess-who/both-B8/official/a/zarr.json").write_text('{"zarr_format": 3, "no')
    app, runner = build_app(), CliRunner()
    for args, where in ((["status"], "guess-who/both-B8 "),
                        (["query", "guess-who", "--n", "3", "--m", "3"],
                         "guess-who/both-B8/official/a ")):
        result = runner.invoke(app, [*args, "--store", store])
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.exit_code == 2 and len(lines) == 1, (args, result.stderr)
        assert "cannot be read" in lines[0] and where in lines[0], lines


def test_a_killed_run_leaves_no_server_or_worker_behind(tmp_path):
    """SIGKILL of the run's process (an OOM kill, a pre-emption): its temporary Prefect
    server and local Dask cluster end within seconds."""
    env = subprocess_env(tmp_path, own_server=True)
    store = str(tmp_path / "s.zarr")
    run = subgame("run", "toy", "--levels", "40", "--delay", "0.5", "--store", store,
                  "--workers", "1", env=env)
    # Generous: on a loaded machine the temporary server alone may take a minute or more.
    wait_for(lambda: Path(store, "toy/S3-M7/_markers/00000/c/0").exists(), timeout=600)
    children = [pid for pid in map(int, filter(str.isdigit, os.listdir("/proc")))
                if _parent(pid) == run.pid]
    tags = {_tag(pid) for pid in children} - {None}
    assert len(tags) == 1 and len(children) >= 2  # the server and the cluster, tagged
    run.send_signal(signal.SIGKILL)
    run.wait()
    (tag,) = tags
    wait_for(lambda: not watchdog.tagged(tag), timeout=20, every=0.2)


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _tag(pid: int) -> str | None:
    try:
        for item in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
            if item.startswith(f"{watchdog.RUN_ENV}=".encode()):
                return item.split(b"=", 1)[1].decode()
    except OSError:
        return None
    return None
