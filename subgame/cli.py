"""The `subgame` command: run / status / query / plot / verify, one sub-command per family."""

from __future__ import annotations

import os
import sys

# No network here or on many clusters: Prefect's telemetry would only log failures.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

import typer  # noqa: E402

try:  # recent Typer vendors click; older Typer uses click itself
    from typer._click.exceptions import UsageError  # noqa: E402
except ImportError:  # pragma: no cover
    from click import UsageError  # noqa: E402

from subgame.commands import (gops, guess_who, higher_lower, serve, status,  # noqa: E402
                              verify_store)

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Exact solutions of small games, level by level, kept in a Zarr store.")
run_app = typer.Typer(no_args_is_help=True, help="Compute (or resume) a family's levels.")
query_app = typer.Typer(no_args_is_help=True, help="Read stored results; needs no cluster.")
plot_app = typer.Typer(no_args_is_help=True, help="Draw figures from a store.")
verify_app = typer.Typer(no_args_is_help=True, help="Check stored results against theory.")
verify_app.callback(invoke_without_command=True)(verify_store.verify_store)

app.add_typer(run_app, name="run")
app.add_typer(query_app, name="query")
app.add_typer(plot_app, name="plot")
app.add_typer(verify_app, name="verify")
app.command("status")(status.status)
app.command("serve")(serve.serve)

# Every family answers run, query and plot; verify where the family has theory to check.
for family, verbs in {"guess-who": guess_who, "gops": gops, "higher-lower": higher_lower}.items():
    for verb_app, verb in ((run_app, "run"), (query_app, "query"), (plot_app, "plot"),
                           (verify_app, "verify")):
        if hasattr(verbs, verb):
            verb_app.command(family)(getattr(verbs, verb))


def main() -> None:
    """The console script: like ``app()``, but a usage error (an unknown option, a value of
    the wrong type) is one line on stderr, as every other refusal is."""
    try:
        status = app(standalone_mode=False)
    except UsageError as exc:
        hint = f" (see {exc.ctx.command_path} --help)" if exc.ctx else ""
        print(f"error: {exc.format_message()}{hint}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(130)
    sys.exit(status if isinstance(status, int) else 0)


if __name__ == "__main__":
    main()
