"""The `subgame` command: run / status / query / plot / verify, one sub-command per family."""

from __future__ import annotations

import typer

from subgame.commands import guess_who, status

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Exact solutions of small games, level by level, kept in a Zarr store.")
run_app = typer.Typer(no_args_is_help=True, help="Compute (or resume) a family's levels.")
query_app = typer.Typer(no_args_is_help=True, help="Read stored results; needs no cluster.")
plot_app = typer.Typer(no_args_is_help=True, help="Draw figures from a store.")
verify_app = typer.Typer(no_args_is_help=True, help="Check stored results against theory.")

app.add_typer(run_app, name="run")
app.add_typer(query_app, name="query")
app.add_typer(plot_app, name="plot")
app.add_typer(verify_app, name="verify")
app.command("status")(status.status)

run_app.command("guess-who")(guess_who.run)
query_app.command("guess-who")(guess_who.query)
plot_app.command("guess-who")(guess_who.plot)

if __name__ == "__main__":
    app()
