"""The one Prefect flow: run a family's computations, one Prefect task per step.

Deployments (deploy/prefect.yaml) and the CLI both call it with the family's name, its
options as a mapping, and the typed run options; the CLI adds the runs it checked.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from typing import Any

from prefect import flow

from subgame import families, interrupts
from subgame.engine import Checked, check_run
from subgame.errors import MACHINE_ERRNOS, InvalidInput, SubgameError, machine_error
from subgame.options import RunOptions
from subgame.tasks.step import solve_step_task


_FAILED_ON_ERRNO = re.compile(r"Finished in state Failed\(.*\[Errno (\d+)\]")


class _UserErrorsWithoutTraceback(logging.Filter):
    """A flow run failed by the user's mistake (bad input, a clash, a live lock) logs the
    message, not a traceback: the traceback would only bury the one line that matters. A
    run the machine stopped (a full disk: `machine_error`) logs nothing here: the CLI, or
    the flow run's failed state, says it in one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is not None and machine_error(error, "") is not None:
            return False
        if isinstance(error, SubgameError):
            record.exc_info, record.exc_text = None, None
        failed = _FAILED_ON_ERRNO.search(record.getMessage())  # the task's state, in words
        return not (failed and int(failed[1]) in MACHINE_ERRNOS)


for _logger in ("prefect.flow_runs", "prefect.task_runs"):
    logging.getLogger(_logger).addFilter(_UserErrorsWithoutTraceback())


class UserErrorsToCaller(logging.Filter):
    """While the CLI runs the flow, a user's mistake met inside it (a lock another run took
    meanwhile) is the CLI's one line to say: Prefect's log lines about it are dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], SubgameError))

    def __enter__(self) -> "UserErrorsToCaller":
        # First: the filter above would strip the error it looks for.
        logging.getLogger("prefect.flow_runs").filters.insert(0, self)
        return self

    def __exit__(self, *_exc) -> None:
        logging.getLogger("prefect.flow_runs").removeFilter(self)


def family_options(family: str, config: dict[str, Any]):
    """The family's typed options from a mapping (a deployment's parameters, the CLI's)."""
    chosen = families.get(family)
    try:
        return chosen.options(**config)
    except TypeError as exc:  # an unknown or missing option
        raise InvalidInput(f"{family}: {exc}") from None


@flow(name="subgame-run", flow_run_name="{family}")
def run_flow(family: str, config: dict[str, Any], options: RunOptions = RunOptions(),
             checked: Any = None) -> list[dict[str, Any]]:
    """Compute (or resume) every computation a family's options ask for. A deployment
    gives the options as mappings and each computation is checked here; the CLI, which
    has checked them already, also passes its `engine.Checked` (runs and listener)."""
    if checked is None:
        checked = Checked([check_run(computation, options) for computation in
                           families.get(family).computations(family_options(family, config))])
    else:
        interrupts.reclaim_sigterm()
    return checked.run_all(options, solve_step_task, "Prefect flow")


if __name__ == "__main__":  # python -m subgame.flows.run FAMILY '{"option": value, ...}'
    run_flow(sys.argv[1], json.loads(sys.argv[2]))
