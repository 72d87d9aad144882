"""Guess Who on real boards as the registry sees it: `run|query|plot|verify guess-who-board`."""

from subgame.families.guess_who_board import HELP, commands
from subgame.families.guess_who_board.oracle import ORACLE
from subgame.families.guess_who_board.plan import FAMILY as NAME, BoardConfig
from subgame.family import Family

FAMILY = Family(NAME, BoardConfig, {"query": commands.query, "plot": commands.plot,
                                    "verify": commands.verify}, answer=commands.answer,
                oracle=ORACLE, sizes=("sets", "types", "pairs"), rates=("pairs",),
                summary=HELP["summary"])
