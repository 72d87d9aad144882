"""`subgame serve`: run the deployments of deploy/prefect.yaml, schedules included, in this
process, for users without a work pool (Prefect's `serve`; it needs a Prefect server).

The file is package data, subgame/flows/prefect.yaml (deploy/prefect.yaml links to it), read
with importlib.resources so that a wheel install finds it too; --file takes another."""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
import yaml

from subgame.commands.common import console, user_errors
from subgame.errors import InvalidInput

PACKAGED_DEPLOYMENTS = files("subgame.flows") / "prefect.yaml"


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
        from prefect.deployments.runner import EntrypointType
        from prefect.schedules import Cron

        path, _, function = self.entrypoint.partition(":")
        module = path.removesuffix(".py").replace("/", ".")
        try:
            flow = getattr(importlib.import_module(module), function)
        except (ImportError, AttributeError) as exc:
            raise InvalidInput(f"deployment {self.name!r}: cannot load {self.entrypoint!r} "
                               f"({exc})") from None
        # By module (subgame.flows.run.run_flow), not by file: a file entrypoint needs the
        # deployment's `path` to find it, which `serve` leaves as it finds it when it updates a
        # deployment that `prefect deploy` registered (path None: every flow run crashed with
        # FileNotFoundError '.../None'), and a module is found wherever subgame is installed.
        return flow.to_deployment(name=self.name, parameters=self.parameters,
                                  entrypoint_type=EntrypointType.MODULE_PATH,
                                  description=self.description, tags=list(self.tags),
                                  schedules=[Cron(cron, timezone=zone)
                                             for cron, zone in self.crons])

    def summary(self) -> str:
        when = "; ".join(f"{cron} {zone}" for cron, zone in self.crons) or "no schedule"
        return f"{self.name}  [{when}]  {json.dumps(self.parameters, sort_keys=True)}"


def read_deployments(path: Path | Traversable) -> list[ServedDeployment]:
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
          file: Annotated[Optional[Path], typer.Option(
              "--file", help="Prefect deployments file (default: the one subgame ships, "
                             "deploy/prefect.yaml).")] = None,
          limit: Annotated[Optional[int], typer.Option(
              "--limit", min=1, metavar="<int>", help="Flow runs at the same time (default: no limit).")] = None,
          list_only: Annotated[bool, typer.Option(
              "--list", help="Print the file and the deployments it would serve (name, "
                             "schedules, parameters), then stop; needs no server.")] = False
          ) -> None:
    """Serve the deployments of deploy/prefect.yaml with their schedules until stopped."""
    source = file or PACKAGED_DEPLOYMENTS
    deployments = read_deployments(source)
    known = [d.name for d in deployments]
    unknown = sorted(set(names or ()) - set(known))
    if unknown:
        raise InvalidInput(f"no deployment {unknown} in {str(source)!r}; it has {known}")
    chosen = [d for d in deployments if not names or d.name in names]
    if list_only:
        print(source)
        for deployment in chosen:
            print(deployment.summary())
        return
    from prefect import serve as prefect_serve

    console.print(f"serving {', '.join(d.name for d in chosen)}; stop with Ctrl-C")
    prefect_serve(*(d.to_runner_deployment() for d in chosen), limit=limit,
                  print_starting_message=False)
