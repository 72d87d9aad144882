"""Clue as the registry sees it: `run|query|plot clue`, the table tool `clue infer`,
the Speed Clue protocol's `clue connect` and `clue host`."""

from subgame.families.clue import HELP, commands, field_commands
from subgame.families.clue.oracle import ORACLE
from subgame.families.clue.plan import FAMILY as NAME, ClueConfig
from subgame.family import Family

FAMILY = Family(NAME, ClueConfig, {"query": commands.query, "plot": commands.plot},
                tools={"infer": commands.infer_command,
                       "connect": field_commands.connect_command,
                       "host": field_commands.host_command}, answer=commands.answer,
                table=commands.table, oracle=ORACLE,
                summary=HELP["summary"],
                rates=("games",))
