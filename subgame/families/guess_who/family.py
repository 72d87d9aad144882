"""Guess Who tables as the registry sees them: `run|query|plot|verify guess-who`."""

from subgame.families.guess_who import HELP, commands
from subgame.families.guess_who.oracle import ORACLE
from subgame.families.guess_who.plan import FAMILY as NAME, GuessWhoConfig
from subgame.family import Family


def upgrade(old: dict) -> GuessWhoConfig:
    rules = old["rules"]
    return GuessWhoConfig(old["max_n"], rules[0] if len(rules) == 1 else "both", old["band"])


FAMILY = Family(NAME, GuessWhoConfig, {"query": commands.query, "plot": commands.plot,
                                       "verify": commands.verify}, upgrade=upgrade,
                answer=commands.answer, table=commands.table, oracle=ORACLE,
                summary=HELP["summary"],
                sizes=("cells",), rates=("cells",))
