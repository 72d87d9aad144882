"""The `subgame` command, built from the family registry: run / query / plot / verify take a
family sub-command, a family may add tools of its own (`subgame <family> <tool>`); status,
verify --store, upgrade and serve are the house's own."""

from __future__ import annotations

import inspect
import os
import sys
import urllib.request
from dataclasses import MISSING, asdict, fields
from typing import Annotated, Any, get_type_hints

# No network here or on many clusters: Prefect's telemetry would only log failures.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

import typer  # noqa: E402

try:  # recent Typer vendors click; older Typer uses click itself
    from typer._click.exceptions import UsageError  # noqa: E402
except ImportError:  # pragma: no cover
    from click import UsageError  # noqa: E402

from subgame import __version__, families, watchdog  # noqa: E402
from subgame.commands import serve, status, upgrade, verify_store  # noqa: E402
from subgame.commands.common import JsonOption, console, emit, user_errors  # noqa: E402
from subgame.errors import SubgameError  # noqa: E402
from subgame.family import Family, as_json  # noqa: E402
from subgame.options import CLI_FIELDS, RunOptions  # noqa: E402

LOCAL_PREFECT_API = "http://127.0.0.1:4200/api"
VERBS = {"query": "Read stored results; needs no cluster.", "plot": "Draw figures from a store.",
         "verify": "Check stored results against theory."}


def _parameters(cls: type, names: tuple[str, ...] | None = None) -> list[inspect.Parameter]:
    """Keyword parameters for Typer from a dataclass whose fields carry typer.Option."""
    hints = get_type_hints(cls, include_extras=True)
    return [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, annotation=hints[f.name],
                              default=inspect.Parameter.empty if f.default is MISSING
                              else f.default)
            for f in fields(cls) if names is None or f.name in names]


def start_run(family: Family, options: Any, run_options: RunOptions) -> list[dict[str, Any]]:
    """The run path: refuse what can be refused before Prefect starts; then a store that
    already holds everything answers at once, without Prefect or Dask; else the flow."""
    from subgame.engine import already_complete

    done = [already_complete(computation, run_options)
            for computation in family.computations(options)]
    if all(done):
        return [report.as_dict() for report in done]
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from subgame.flows.run import run_flow

    # A Prefect server already running here (`prefect server start`, `subgame serve`'s)
    # spares the run a temporary one, whose start-up costs seconds.
    server = None if PREFECT_API_URL.value() else running_local_server()
    with temporary_settings({PREFECT_API_URL: server} if server else {}):
        return run_flow(family.name, as_json(asdict(options)), run_options)


def running_local_server(url: str = LOCAL_PREFECT_API) -> str | None:
    """The API URL of a Prefect server answering on this machine's default port, if any."""
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=0.3) as answer:
            return url if answer.status == 200 else None
    except OSError:
        return None


def run_command(family: Family):
    """`subgame run <family>`: the family's options, then every run option."""
    own = _parameters(family.options)
    shared = _parameters(RunOptions, CLI_FIELDS)
    clash = {p.name for p in own} & {p.name for p in shared}
    assert not clash, f"{family.name} redeclares run options {clash}"
    parameters = [*own, *shared, inspect.Parameter("as_json", inspect.Parameter.KEYWORD_ONLY,
                                                   annotation=JsonOption, default=False)]

    def run(**values: Any) -> None:
        as_json_output = values.pop("as_json")
        run_options = RunOptions(**{name: values.pop(name) for name in CLI_FIELDS},
                                 progress=not as_json_output)
        reports = start_run(family, family.options(**values), run_options)
        emit(reports, as_json_output, lambda rs: [console.print(
            f"{r['computation']} in {r['store']}: computed {len(r['steps_computed'])} "
            f"steps ({r['shards_computed']} shards), {r['steps_skipped']} already stored",
            soft_wrap=True) for r in rs])

    run.__signature__ = inspect.Signature(parameters)
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    run.__doc__ = family.options.__doc__
    run.__name__ = f"run_{family.name}"
    return user_errors(run)


def _print_version(value: bool) -> None:
    if value:
        print(f"subgame {__version__}")
        raise typer.Exit()


def build_app() -> typer.Typer:
    app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                      help="Exact solutions of small games, level by level, kept in a Zarr "
                           "store.")

    @app.callback()
    def version(_: Annotated[bool, typer.Option(
            "--version", callback=_print_version, is_eager=True,
            help="Print the version and exit.")] = False) -> None:
        """Exact solutions of small games, level by level, kept in a Zarr store."""
    run_app = typer.Typer(no_args_is_help=True, help="Compute (or resume) a family's steps.")
    app.add_typer(run_app, name="run")
    verb_apps = {verb: typer.Typer(no_args_is_help=True, help=text) for verb, text in VERBS.items()}
    verb_apps["verify"].callback(invoke_without_command=True)(verify_store.verify_store)
    for verb, verb_app in verb_apps.items():
        app.add_typer(verb_app, name=verb)
    for name, family in families.all_families().items():
        run_app.command(name, help=family.summary or None)(run_command(family))
        for verb, command in family.commands.items():
            verb_apps[verb].command(name)(command)
        if family.tools:
            tools = typer.Typer(no_args_is_help=True, help=family.summary or None)
            for tool, command in family.tools.items():
                tools.command(tool)(command)
            app.add_typer(tools, name=name)
    app.command("status")(status.status)
    app.command("upgrade")(upgrade.upgrade)
    app.command("serve")(serve.serve)
    return app


def main() -> None:
    """The console script: a usage error (an unknown option, a value of the wrong type) is
    one line on stderr, as every other refusal is. Verbs that start servers or workers leave
    none behind, however the process ends (`subgame.watchdog`)."""
    if sys.argv[1:2] in (["run"], ["serve"]):
        watchdog.guard()
    try:
        status_code = build_app()(standalone_mode=False)
    except SubgameError as exc:  # the app itself cannot be built (a broken plugin family)
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except UsageError as exc:
        hint = f" (see {exc.ctx.command_path} --help)" if exc.ctx else ""
        print(f"error: {exc.format_message()}{hint}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(130)
    sys.exit(status_code if isinstance(status_code, int) else 0)


if __name__ == "__main__":
    main()
