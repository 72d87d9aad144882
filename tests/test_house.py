"""The house's rules, checked on every registered family: pure mathematics stays pure, and
every verb the CLI offers comes from the registry."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from subgame import families
from subgame.cli import build_app
from subgame.errors import InvalidInput

HEAVY = ("prefect", "dask", "distributed", "zarr")


@pytest.mark.parametrize("name", sorted(families.REGISTRY))
def test_game_package_imports_no_orchestration_or_storage(name):
    package = families.REGISTRY[name].rsplit(".", 1)[0] + ".game"
    loaded = subprocess.run(
        [sys.executable, "-c", f"import sys, {package}; print(' '.join(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True).stdout.split()
    assert not [m for m in loaded if m.split(".")[0] in HEAVY], package


def test_every_registered_family_has_a_run_command_and_its_verbs():
    app, runner = build_app(), CliRunner()
    for name, family in families.all_families().items():
        assert runner.invoke(app, ["run", name, "--help"]).exit_code == 0, name
        for verb in family.commands:
            assert runner.invoke(app, [verb, name, "--help"]).exit_code == 0, (verb, name)


def test_an_unknown_family_is_a_user_error():
    with pytest.raises(InvalidInput, match="no family 'chess'"):
        families.get("chess")
