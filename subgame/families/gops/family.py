"""GOPS as the registry sees it: `run gops`, `query gops`, `plot gops`, and its tools
`subgame gops evaluate` (policies evaluated exactly) and `subgame gops play`."""

from subgame.families.gops import HELP, commands
from subgame.families.gops.oracle import ORACLE
from subgame.families.gops.plan import FAMILY as NAME, GopsConfig
from subgame.family import Family


def upgrade(old: dict) -> GopsConfig:
    levels = old["strategy_levels"]
    strategies = "all" if levels == old["cards"] else "none" if levels == 0 else f"top:{levels}"
    return GopsConfig(old["cards"], strategies, old["shard_states"])


FAMILY = Family(NAME, GopsConfig, {"query": commands.query, "plot": commands.plot},
                tools={"evaluate": commands.evaluate, "play": commands.play},
                upgrade=upgrade, answer=commands.answer, table=commands.table, oracle=ORACLE,
                summary=HELP["summary"],
                sizes=("states", "matrix_games"), rates=("states", "games"))
