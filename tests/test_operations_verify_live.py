"""`subgame verify --store` while runs write: it reads each computation's state (its steps,
its markers) before the list of stored chunks, so "not written yet" is never taken for
"finished and lost", and it confirms what it finds while a live run holds the lock. A verify
loop polling a store that three real runs of three families are writing finds no damage."""

from __future__ import annotations

import time

from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.storage.integrity import scan_store
from tests.ops_helpers import finish, subgame, subprocess_env

RUNS = (("gops", "--cards", "6"),
        ("guess-who", "--max-n", "40", "--band", "8"),
        ("clue", "--players", "2,3", "--cards-per-player", "2", "--hidden", "1",
         "--games", "600"))


def test_verify_during_runs_of_three_families_reports_no_damage(tmp_path):
    store = str(tmp_path / "s.zarr")
    env = subprocess_env(tmp_path)
    runs = [subgame("run", *args, "--store", store, "--executor", "serial", "-q", env=env)
            for args in RUNS]
    app, polls, false_alarms = build_app(), 0, []
    while any(run.poll() is None for run in runs):
        verified = CliRunner().invoke(app, ["verify", "--store", store])  # the verb itself
        if verified.exit_code == 2 and not polls:  # before the first run created the store
            time.sleep(0.05)
            continue
        polls += 1
        if verified.exit_code != 0:  # damage (3), or a store it could not read (2)
            false_alarms.append(verified.output)
    for run in runs:
        code, _, err = finish(run, timeout=300)
        assert code == 0, err
    assert polls >= 3  # it did read the store while the runs wrote it
    assert false_alarms == []
    assert scan_store(store) == []
