"""`subgame serve`: run the deployments of deploy/prefect.yaml, schedules included, in this
process, for users without a work pool (Prefect's `serve`; it needs a Prefect server).

The default file is the source tree's deploy/prefect.yaml, else the copy a wheel installs
under <prefix>/share/subgame/ (pyproject's data-files); --file takes another."""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
import yaml

from subgame.commands.common import console, user_errors
from subgame.errors import InvalidInput

SOURCE_DEPLOYMENTS = Path(__file__).resolve().parents[2] / "deploy" / "prefect.yaml"
INSTALLED_DEPLOYMENTS = Path(sys.prefix) / "share" / "subgame" / "prefect.yaml"


def default_deployments(candidates: tuple[Path, ...] = (SOURCE_DEPLOYMENTS,
                                                         INSTALLED_DEPLOYMENTS)) -> Path:
    """The first deployments file that exists (the last candidate names the failure)."""
    return next((path for path in candidates if path.is_file()), candidates[-1])


DEPLOYMENTS_FILE = default_deployments()


@dataclass(frozen=True)
class ServedDeployment:
    """The part of a prefect.yaml deployment that `serve` honours."""

    name: str
    entrypoint: str  # module path:flow function, e.g. subgame/flows/run.py:run_flow
    parameters: dict[str, Any]
    crons: tuple[tuple[str, str], ...]  # (cron, timezone)
    description: str | None = None
    tags: tuple[str, ...] = ()

    def to_runner_deployment(self):
        from prefect.schedules import Cron

        path, _, function = self.entrypoint.partition(":")
        module = path.removesuffix(".py").replace("/", ".")
        try:
            flow = getattr(importlib.import_module(module), function)
        except (ImportError, AttributeError) as exc:
            raise InvalidInput(f"deployment {self.name!r}: cannot load {self.entrypoint!r} "
                               f"({exc})") from None
        return flow.to_deployment(name=self.name, parameters=self.parameters,
                                  description=self.description, tags=list(self.tags),
                                  schedules=[Cron(cron, timezone=zone)
                                             for cron, zone in self.crons])


def read_deployments(path: Path) -> list[ServedDeployment]:
    try:
        spec = yaml.safe_load(path.read_text())
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise InvalidInput(f"cannot read {str(path)!r}: {' '.join(str(exc).split())}") \
            from None
    if not isinstance(spec, dict) or not isinstance(spec.get("deployments"), list):
        raise InvalidInput(f"{str(path)!r} has no list of deployments")
    served = []
    for entry in spec["deployments"]:
        if not isinstance(entry, dict) or not {"name", "entrypoint"} <= set(entry):
            raise InvalidInput(f"{str(path)!r}: every deployment needs a name and an "
                               f"entrypoint, got {entry!r}")
        crons = tuple((s["cron"], s.get("timezone", "UTC"))
                      for s in entry.get("schedules") or [] if isinstance(s, dict) and "cron" in s)
        served.append(ServedDeployment(entry["name"], entry["entrypoint"],
                                       dict(entry.get("parameters") or {}), crons,
                                       entry.get("description"), tuple(entry.get("tags") or ())))
    return served


@user_errors
def serve(names: Annotated[Optional[list[str]], typer.Argument(
              help="Deployments to serve (default: all in the file).")] = None,
          file: Annotated[Path, typer.Option(
              "--file", help="Prefect deployments file.")] = DEPLOYMENTS_FILE,
          limit: Annotated[Optional[int], typer.Option(
              "--limit", min=1, help="Flow runs at the same time (default: no limit).")] = None
          ) -> None:
    """Serve the deployments of deploy/prefect.yaml with their schedules until stopped."""
    from prefect import serve as prefect_serve

    deployments = read_deployments(file)
    known = [d.name for d in deployments]
    unknown = sorted(set(names or ()) - set(known))
    if unknown:
        raise InvalidInput(f"no deployment {unknown} in {str(file)!r}; it has {known}")
    chosen = [d for d in deployments if not names or d.name in names]
    console.print(f"serving {', '.join(d.name for d in chosen)}; stop with Ctrl-C")
    prefect_serve(*(d.to_runner_deployment() for d in chosen), limit=limit,
                  print_starting_message=False)
