"""Computing what a reproduction needs: a family's run, through the same path as
`subgame run` (resumable: a finished store answers at once, a stopped one resumes)."""

from __future__ import annotations

from typing import Any

from subgame.options import RunOptions


def ensure(family_name: str, store: str | None, **options: Any) -> None:
    """Run ``family_name`` with ``options`` into ``store`` unless it is stored already."""
    from subgame import families
    from subgame.cli import start_run

    family = families.get(family_name)
    start_run(family, family.options(**options), RunOptions(store=store))
