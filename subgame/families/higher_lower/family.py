"""Higher/lower as the registry sees it: `run|query|plot higher-lower`."""

from subgame.computation import ComputationConfig
from subgame.families.higher_lower import HELP, commands
from subgame.families.higher_lower.oracle import ORACLE
from subgame.families.higher_lower.plan import (FAMILY as NAME, DeckConfig, DistinctConfig,
                                                HigherLowerRun, computations)
from subgame.family import Family


def upgrade(old: dict) -> ComputationConfig:
    if old.get("deck") == "distinct":
        return DistinctConfig(old["max_n"], old["exact_max"], old["block"])
    return DeckConfig(tuple(old["ranks"]), tuple(old["suits"]), tuple(old["ties"]),
                      tuple(old["policies"]), old["games"], old["seed"])


FAMILY = Family(NAME, HigherLowerRun, {"query": commands.query, "plot": commands.plot},
                computations=computations, upgrade=upgrade, answer=commands.answer,
                table=commands.table, oracle=ORACLE,
                tools={"brute-force": commands.brute_force},
                summary=HELP["summary"],
                rates=("deck_sizes", "states", "games"))
