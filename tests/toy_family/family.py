"""The toy as the registry sees it: `run toy` (its own options) and `query toy`."""

from __future__ import annotations

from typing import Annotated

import typer

from subgame.commands.common import JsonOption, StoreOption, console, emit, user_errors
from subgame.errors import InvalidInput
from subgame.family import Family
from subgame.storage import ComputationStore, resolve_store
from tests.toy_family.plan import ToyConfig


@user_errors
def query(level: Annotated[int, typer.Option("--level", min=0, help="Level (step) index.")],
          state: Annotated[int, typer.Option("--state", min=0, help="State index.")],
          shards: Annotated[int, typer.Option("--shards", help="The run's --shards.")] = 3,
          modulus: Annotated[int, typer.Option("--modulus", help="The run's --modulus.")] = 7,
          store: StoreOption = None, as_json: JsonOption = False) -> None:
    """One stored partial sum."""
    url = resolve_store(store)
    computation = ComputationStore.open(url, ToyConfig(shards=shards,
                                                       modulus=modulus).group_path())
    values = computation.array("values")
    if level >= values.shape[0] or state >= values.shape[1]:
        raise InvalidInput(f"the store holds levels below {values.shape[0]} and states below "
                           f"{values.shape[1]}")
    value = int(values[level, state])
    emit({"level": level, "state": state, "value": value}, as_json,
         lambda r: console.print(f"values[{level}, {state}] = {value}"))


FAMILY = Family("toy", ToyConfig, {"query": query}, summary="A toy for testing the house.")
