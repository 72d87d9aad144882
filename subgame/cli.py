"""The `subgame` command, built from the family registry: run / query / plot / verify take a
family sub-command, a family may add tools of its own (`subgame <family> <tool>`); status,
verify --store, upgrade and serve are the house's own."""

from __future__ import annotations

import sys

from subgame import interrupts

if sys.argv[1:2] == ["run"] and (__name__ == "__main__" or sys.argv[0].endswith("subgame")):
    interrupts.install()  # before every other import: a Ctrl-C from the first instruction on

import atexit  # noqa: E402
import functools  # noqa: E402
import inspect  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import threading  # noqa: E402
from contextlib import ExitStack  # noqa: E402
from dataclasses import MISSING, asdict, fields, replace  # noqa: E402
from typing import Annotated, Any, Callable, get_type_hints  # noqa: E402

# No network here or on many clusters: Prefect's telemetry would only log failures.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

import typer  # noqa: E402

from typer.core import TyperGroup  # noqa: E402

try:  # recent Typer vendors click; older Typer uses click itself
    import typer._click as click  # noqa: E402
    from typer._click.exceptions import NoArgsIsHelpError, UsageError  # noqa: E402
except ImportError:  # pragma: no cover
    import click  # noqa: E402
    from click.exceptions import NoArgsIsHelpError, UsageError  # noqa: E402

import subgame  # noqa: E402
from subgame import families, watchdog  # noqa: E402
from subgame.commands.common import (PIPE_CLOSED, JsonOption, command_from,  # noqa: E402
                                     console, emit, output_goes_nowhere,
                                     reader_left)
from subgame.errors import MACHINE, InvalidInput, MachineRefused, SubgameError  # noqa: E402
from subgame.computation import as_json  # noqa: E402
from subgame.exact import counted  # noqa: E402
from subgame.family import Family  # noqa: E402
from subgame.options import CLI_FIELDS, RunOptions  # noqa: E402

QuietOption = Annotated[bool, typer.Option(
    "--quiet", "-q", help="No progress display and no summary: only errors (and --json's "
                          "result).")]
VerboseOption = Annotated[bool, typer.Option(
    "--verbose", "-v", help="Also show Prefect's log lines (flow and task runs, the "
                            "temporary server).")]
WAYS = {"in process": ", in this process (no Prefect)", "Prefect flow": ", as a Prefect flow run",
        "stored": ""}  # how each run went, as its summary line says
VERBS = {"query": "Read stored results; needs no cluster.", "plot": "Draw figures from a store.",
         "verify": "Check stored results against theory.",
         "export": "Write a table of stored results as CSV, Parquet or netCDF."}


def _parameters(cls: type, names: tuple[str, ...] | None = None) -> list[inspect.Parameter]:
    """Keyword parameters for Typer from a dataclass whose fields carry typer.Option."""
    hints = get_type_hints(cls, include_extras=True)
    return [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, annotation=hints[f.name],
                              default=inspect.Parameter.empty if f.default is MISSING
                              else f.default)
            for f in fields(cls) if names is None or f.name in names]


def start_run(family: Family, options: Any, run_options: RunOptions) -> list[dict[str, Any]]:
    """The run path: every refusal once (`engine.check_run`, nothing written yet); a store
    that already holds everything answers at once; a small plan runs here, through the
    engine; else a Prefect flow run, whose server (when one must be started) starts at
    once, in a thread, while the run prepares."""
    from subgame.engine import Checked, check_run, in_process, needs_cluster

    interrupts.run_begins()
    forced = run_options.orchestrate == "prefect" or (
        run_options.orchestrate == "auto" and run_options.names_workers())
    with ExitStack() as stack:
        server = None
        if forced:  # started before anything else: it is the slowest part
            from subgame.flows.server import FlowServer

            server = FlowServer.begin()
            stack.callback(server.stop)
        runs = [check_run(computation, run_options)
                for computation in family.computations(options)]
        if all(run.finished for run in runs):
            return [run.stored_report().as_dict() for run in runs]
        listener = None
        if run_options.progress:
            from subgame.commands.progress import ProgressDisplay

            listener = ProgressDisplay()
        if in_process(runs, run_options):
            return run_here(runs, run_options, listener,
                            threads=run_options.orchestrate == "auto")
        if server is None:
            from subgame.flows.server import FlowServer

            server = FlowServer.begin()
            stack.callback(server.stop)
        executor = None
        if needs_cluster(runs, run_options):  # its workers start while Prefect imports
            from subgame.executors import DaskExecutor

            executor = DaskExecutor(run_options.cluster_profile())
            stack.callback(executor.close)  # if no run took it
        server.wait_imported()
        from prefect.settings import temporary_settings

        from subgame.flows.run import UserErrorsToCaller, run_flow

        url = server.wait(notice=run_options.progress)
        if url is None:
            print(server.fallback_warning(), file=sys.stderr, flush=True)
            return run_here(runs, run_options, listener, threads=False, executor=executor)
        stack.enter_context(temporary_settings(server.flow_settings()))
        stack.enter_context(UserErrorsToCaller())
        return run_flow(family.name, as_json(asdict(options)), run_options,
                        Checked(runs, listener, executor))


def run_here(runs: list, run_options: RunOptions, listener: Any, threads: bool,
             executor: Any = None) -> list[dict[str, Any]]:
    """The checked runs through the engine in this process, without Prefect: on a thread
    per core (a small plan; a stage whose solver holds the GIL runs serially), or with the
    executor the options name (``executor``, when the CLI has started it)."""
    from subgame.engine import Checked

    options = replace(run_options, executor="threads") if threads else run_options
    return Checked(runs, listener, executor).run_all(options)


def third_party_logs(verbose: bool, quiet: bool) -> None:
    """A run shows one progress display and its result; Prefect's and Dask's INFO lines
    only with --verbose. Settled before Prefect is imported, which reads its logging level
    once."""
    if verbose and quiet:
        raise InvalidInput("--quiet and --verbose contradict each other; give one")
    if not verbose:
        os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
        # Prefect's background senders say, at exit, that they are still draining (after a
        # refusal's one line, say): nothing for the user to act on.
        for sender in ("EventsWorker", "APILogWorker"):
            logging.getLogger(sender).setLevel(logging.ERROR)
        # A local cluster's nanny kills a worker slow to exit at close ("still alive after
        # 4.0 seconds, killing"): every shard was marked by then, so it is no news.
        logging.getLogger("distributed.nanny").setLevel(logging.ERROR)


def run_command(family: Family):
    """`subgame run <family>`: the family's options, then every run option."""
    own = _parameters(family.options)
    shared = _parameters(RunOptions, CLI_FIELDS)
    clash = {p.name for p in own} & {p.name for p in shared}
    assert not clash, f"{family.name} redeclares run options {clash}"
    parameters = [*own, *shared, *(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                                     annotation=annotation, default=False)
                                   for name, annotation in (("as_json", JsonOption),
                                                            ("quiet", QuietOption),
                                                            ("verbose", VerboseOption)))]

    def run(**values: Any) -> None:
        as_json_output, quiet = values.pop("as_json"), values.pop("quiet")
        third_party_logs(values.pop("verbose"), quiet)
        run_options = RunOptions(**{name: values.pop(name) for name in CLI_FIELDS},
                                 progress=not (as_json_output or quiet))
        if run_options.dry_run:
            from subgame.engine import dry_run

            estimates = [dry_run(computation, run_options)
                         for computation in family.computations(family.options(**values))]
            emit([e.as_dict() for e in estimates], as_json_output, lambda _: [
                console.print(line, soft_wrap=True) for e in estimates for line in e.lines()])
            return
        reports = start_run(family, family.options(**values), run_options)
        if quiet and not as_json_output:
            return
        emit(reports, as_json_output, lambda rs: [console.print(
            f"{r['computation']} in {r['store']}: computed "
            f"{counted(len(r['steps_computed']), 'step')} "
            f"({counted(r['shards_computed'], 'shard')}), {r['steps_skipped']} already stored"
            f"{WAYS[r['orchestration']]}", soft_wrap=True) for r in rs])

    command = command_from(run, parameters, family.options, f"run_{family.name}")
    command.__doc__ = family.summary or command.__doc__  # the help's text
    return command


def _print_version(value: bool) -> None:
    if value:
        print(f"subgame {subgame.__version__}")
        raise typer.Exit()


class ListedFamilies(TyperGroup):
    """A command group (the top level, or a verb's) where the built-in families' commands
    are stand-ins carrying the registry's help texts (`families.LISTED`): listing them
    (`subgame --help`, `subgame run --help`) imports no family (their modules bring numba
    and Zarr). Where a command line reaches one, the family is built and its command takes
    the stand-in's place: `subgame run gops` imports GOPS alone."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self.listing = False  # while the help lists the commands: the stand-ins as they are
        self.built: set[str] = set()

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if not self.listing and name in families.LISTED and name in self.commands \
                and name not in self.built:
            self.commands[name] = _built(self.name or "", name)  # ("" at the top)
            self.built.add(name)
        return self.commands.get(name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self.listing = False


@functools.lru_cache(maxsize=None)
def _built(group: str, name: str) -> click.Command:
    """`subgame GROUP NAME` of a family, built alone ("" group: the family's tools)."""
    command = _places(families.get(name))[group]
    app = _group()
    if isinstance(command, typer.Typer):  # in a group above it: alone, a group of one
        app.add_typer(command, name=name)  # command would become that command
        return typer.main.get_command(app).commands[name]
    app.command(name)(command)
    return typer.main.get_command(app)


def _stand_in() -> None:
    """Never runs: `ListedFamilies` puts the family's command in its place first."""


def _group(cls: type[TyperGroup] = TyperGroup, **settings: Any) -> typer.Typer:
    """A command group. Plain help text: it names each option's choices and type, shows no
    type for a flag, and pastes into a script or an issue as it reads."""
    return typer.Typer(no_args_is_help=True, rich_markup_mode=None, cls=cls, **settings)


def build_app(*, listed: bool = False) -> typer.Typer:
    """The whole command tree: with every family built, or (`listed`, the console script's)
    with the built-in families' stand-ins, each built where a command line reaches it
    (`ListedFamilies`)."""
    from subgame.commands import serve, server, status, upgrade, verify_store

    cls = ListedFamilies if listed else TyperGroup
    app = _group(cls, pretty_exceptions_enable=False,  # `subgame --install-completion` sets up
                 help="Exact solutions of small games, level by level, kept in a Zarr "
                      "store.")

    @app.callback()
    def version(_: Annotated[bool, typer.Option(
            "--version", callback=_print_version, is_eager=True,
            help="Print the version and exit.")] = False) -> None:
        """Exact solutions of small games, level by level, kept in a Zarr store."""
    run_app = _group(cls, help="Compute (or resume) a family's steps.")
    app.add_typer(run_app, name="run")
    verb_apps = {verb: _group(cls, help=text) for verb, text in VERBS.items()}
    verb_apps["verify"].callback(invoke_without_command=True)(verify_store.verify_store)
    for verb, verb_app in verb_apps.items():
        app.add_typer(verb_app, name=verb)
    app.add_typer(server.app, name="server")
    for name, texts in families.LISTED.items() if listed else ():
        run_app.command(name, help=texts["summary"])(_stand_in)
        for verb in VERBS.keys() & texts.keys():
            verb_apps[verb].command(name, help=texts[verb])(_stand_in)
        if texts.get("tools"):
            app.add_typer(_group(help=texts["summary"]), name=name)
    built = families.plugins() if listed else families.all_families()
    groups = {"run": run_app, **verb_apps}
    for name, family in built.items():
        for place, command in _places(family).items():
            if place:
                groups[place].command(name)(command)
            else:
                app.add_typer(command, name=name)
    app.command("status")(status.status)
    app.command("upgrade")(upgrade.upgrade)
    app.command("publish")(__import__("subgame.commands.publish", fromlist=["publish"]).publish)
    app.command("serve")(serve.serve)
    app.command("web")(__import__("subgame.web.command", fromlist=["web"]).web)
    app.command("reproduce")(__import__("subgame.reproduce.command",
                                        fromlist=["reproduce"]).reproduce)
    return app


def _places(family: Family) -> dict[str, Callable[..., Any] | typer.Typer]:
    """Where a family's commands go: "run", each verb's, "export" where it has a table, and
    "" (the top) for its tools, a group of their own."""
    from subgame.commands import export

    places: dict[str, Callable[..., Any] | typer.Typer] = {"run": run_command(family),
                                                           **family.commands}
    if family.table is not None:
        places["export"] = export.export_command(family.table)
    if family.tools:
        places[""] = tools = _group(help=family.summary or None)
        for tool, command in family.tools.items():
            tools.command(tool)(command)
    return places


def _read_elsewhere(record: logging.LogRecord) -> bool:
    """Zarr reads a store's metadata documents side by side; where the store refuses them
    all (no permission), the first refusal is the user's one line, and asyncio would report
    each other one, dropped unread, with a traceback (as a future's or a task's, whichever
    the read had reached). Other reports stay."""
    refused = record.exc_info is not None and isinstance(record.exc_info[1], OSError)
    return not (refused and record.getMessage().startswith(
        ("Future exception was never retrieved", "Task exception was never retrieved")))


def _main() -> None:
    """The console script: a usage error (an unknown option, a value of the wrong type) is
    one line on stderr, as every other refusal is. Verbs that start servers or workers leave
    none behind, however the process ends (`subgame.watchdog`); a run stops cleanly on
    Ctrl-C or SIGTERM (`subgame.interrupts`)."""
    logging.getLogger("asyncio").addFilter(_read_elsewhere)
    try:
        if sys.argv[1:2] in (["run"], ["serve"]):
            watchdog.guard()
        if sys.argv[1:2] == ["run"]:
            interrupts.install()  # (done already where this module is the program)
        if sys.argv[1:] == ["--version"]:
            _print_version(True)
        status_code = build_app(listed=True)(standalone_mode=False)
    except interrupts.RunInterrupted as exc:
        interrupts.exit_now(exc.exit_status)
    except MachineRefused as exc:  # the watchdog cannot start
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(MACHINE)
    except SubgameError as exc:  # the app itself cannot be built (a broken plugin family)
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except NoArgsIsHelpError:  # `subgame run`, `subgame verify`: not a mistake, a question
        build_app(listed=True)([*sys.argv[1:], "--help"], standalone_mode=False)
        sys.exit(0)
    except UsageError as exc:
        hint = f" (see {exc.ctx.command_path} --help)" if exc.ctx else ""
        print(f"error: {exc.format_message()}{hint}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(130)
    except typer.Exit as exc:  # --version, answered before the app is built
        sys.exit(exc.exit_code)
    sys.exit(status_code if isinstance(status_code, int) else 0)


def main() -> None:
    """The console script (`_main`), silent where the reader of its output leaves early
    (`| head -1`, `| true`): it ends as a process SIGPIPE ends, status 141, where click's
    help would exit 1 and the interpreter's last flush would print a traceback."""
    try:
        _main()
    except BrokenPipeError:
        status = PIPE_CLOSED
    except SystemExit as exc:
        status = exc.code
    try:  # the last of the output, here rather than in the interpreter's exit
        sys.stdout.flush()
    except BrokenPipeError:
        status = PIPE_CLOSED
    if status == 1 and reader_left():  # click's and rich's exit where the reader left
        status = PIPE_CLOSED
    if status == PIPE_CLOSED:
        output_goes_nowhere()
    sys.exit(status)


def program() -> None:
    """The `subgame` program: `main`, then the interpreter's exit without its teardown.
    The exit does what Python's does first (wait for the threads that are not daemons,
    run the exit handlers: Prefect's and Zarr's flushes, logging's, temporary folders'),
    flushes the output, and ends the process there: freeing every module and object one
    by one would only add to its time (about 2 s after a flow run on a local cluster,
    whose process holds Prefect, Dask, numba and Zarr)."""
    try:
        main()
    except SystemExit as exc:
        if not (exc.code is None or isinstance(exc.code, int)):
            raise
        status = exc.code or 0
    try:
        threading._shutdown()  # what the interpreter's exit calls first
        atexit._run_exitfuncs()
    except KeyboardInterrupt:  # a Ctrl-C while a thread or an exit handler finishes
        status = 130
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # the reader left; a stream closed
            pass
    os._exit(status)


if __name__ == "__main__":
    program()
