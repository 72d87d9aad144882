"""What every verb shares: store and cluster options, JSON output, one-line errors."""

from __future__ import annotations

import functools
import json
import os
import sys
from typing import Annotated, Any, Callable, Optional

import typer
from rich.console import Console

from subgame.errors import SubgameError

console = Console()  # results; errors go to stderr as one plain line

StoreOption = Annotated[Optional[str], typer.Option(
    "--store",
    help="Zarr store path or fsspec URL (default: $SUBGAME_STORE, else ./subgame.zarr).")]
SchedulerOption = Annotated[Optional[str], typer.Option(
    "--scheduler", help="Address of a running Dask scheduler, e.g. tcp://host:8786 "
                        "(default: start a local cluster).")]
WorkersOption = Annotated[Optional[int], typer.Option(
    "--workers", min=1, help="Worker processes of the local cluster [default: one per core].")]
ClusterOption = Annotated[Optional[str], typer.Option(
    "--cluster", help="Dask cluster profile: local, slurm, pbs, kubernetes, scheduler "
                      "(bundled, see deploy/clusters) or a profile YAML file.")]
RepairOption = Annotated[bool, typer.Option(
    "--repair", help="First recompute the shards whose stored chunks fail their checksums "
                     "(see `subgame verify --store`).")]
ExecutorOption = Annotated[str, typer.Option(
    "--executor", help="dask (default) or serial (in-process, for debugging).")]
MaxLevelsOption = Annotated[Optional[int], typer.Option(
    "--max-levels", min=1, help="Stop after this many levels; run again to continue.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


def _plain(value: Any) -> Any:
    """numpy scalars read from Zarr, as JSON numbers."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def emit(result: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    if as_json:
        print(json.dumps(result, indent=2, default=_plain))
    else:
        render(result)


def _one_line(message: str) -> None:
    print(" ".join(message.split()), file=sys.stderr, flush=True)


def preflight(plan, store: str | None) -> None:
    """Refuse a clashing configuration or a live lock before Prefect starts a flow run,
    so the user gets one line instead of a failed run's log."""
    from subgame.storage import LevelStore, resolve_store
    from subgame.storage.lock import StoreLock

    url = resolve_store(store)
    LevelStore.check(url, plan)
    StoreLock(url, plan.group_path).check()


def user_errors(command: Callable) -> Callable:
    """Turn errors the user can act on into one line on stderr and exit status 2.

    Anything else is a bug: it still exits non-zero with one line, and SUBGAME_DEBUG=1
    shows the traceback.
    """

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise  # a verb's own exit status
        except SubgameError as exc:
            _one_line(f"error: {exc}")
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            _one_line("interrupted; run the same command again to resume")
            raise typer.Exit(130) from None
        except Exception as exc:  # noqa: BLE001 - the one place that turns bugs into one line
            if os.environ.get("SUBGAME_DEBUG"):
                raise
            if isinstance(exc, ValueError) and "checksum" in str(exc):
                _one_line(f"error: a stored chunk is damaged ({exc}); `subgame verify --store "
                          "S` names it and `subgame run ... --repair` recomputes it")
                raise typer.Exit(3) from None
            _one_line(f"internal error: {type(exc).__name__}: {exc} "
                      "(set SUBGAME_DEBUG=1 for the traceback)")
            raise typer.Exit(1) from None

    return wrapper

