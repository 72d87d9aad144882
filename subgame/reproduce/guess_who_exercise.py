"""Seed 002, the Dutch exercise "Wie is het?": its whole example session ("Voorbeeld"), each
line run through the exported Dutch API (``Personage``, ``Spelbord``, ``product``) and
printed as the exercise prints it, and the two errors its text asks for."""

from __future__ import annotations

import json
import re
from typing import Any

from subgame.errors import InvalidInput
from subgame.reproduce.claims import Reproduction, same

DOCUMENT = "the Dutch programming exercise Wie is het? (seed 002)"
PAGE = "docs/reproduce/guess_who_exercise.md"
# The exercise's session, line by line: what is typed, and what it prints (None: nothing).
TRANSCRIPT = [
    ('const anne = new Personage("Anne", "vrouw", "oorringen", "krulhaar");', None),
    ("anne.toString()", """'new Personage("Anne", "vrouw", "oorringen", "krulhaar")'"""),
    ("anne.kenmerken()", '"Anne heeft als kenmerken: vrouw, oorringen en krulhaar"'),
    ("anne.voldoet({})", "true"),
    ('anne.voldoet({"vrouw": true})', "true"),
    ('anne.voldoet({"vrouw": false})', "false"),
    ('anne.voldoet({"man": true})', "false"),
    ('anne.voldoet({"vrouw": true, "baard": false})', "true"),
    ('anne.voldoet({"krulhaar": true, "vrouw": true, "oorringen": true})', "true"),
    ('const bernard = new Personage("Bernard", "man");', None),
    ("bernard.toString()", """'new Personage("Bernard", "man")'"""),
    ("bernard.kenmerken()", '"Bernard heeft als kenmerken: man"'),
    ('bernard.voldoet({"man": true})', "true"),
    ('bernard.voldoet({"vrouw": false, "hoed": false, "oorringen": false, "baard": false})',
     "true"),
    ('product(["Anne", "Bernard", "Claire", "David"], 1)',
     '[["Anne"], ["Bernard"], ["Claire"], ["David"]]'),
    ("product([1, 2, 3], 2)",
     "[[1, 1], [1, 2], [1, 3], [2, 1], [2, 2], [2, 3], [3, 1], [3, 2], [3, 3]]"),
    ("product([true, false], 3)",
     "[[true, true, true], [true, true, false], [true, false, true], [true, false, false], "
     "[false, true, true], [false, true, false], [false, false, true], [false, false, false]]"),
    ('const claire = new Personage("Claire", "vrouw", "hoed");', None),
    ('const david = new Personage("David", "man", "baard");', None),
    ('const spelbord = new Spelbord("Claire", anne, bernard, claire, david);', None),
    ("spelbord.toString()",
     """'new Spelbord("Claire", new Personage("Anne", "vrouw", "oorringen", "krulhaar"), """
     """new Personage("Bernard", "man"), new Personage("Claire", "vrouw", "hoed"), """
     """new Personage("David", "man", "baard"))'"""),
    ("spelbord.kenmerken()", '["baard", "hoed", "krulhaar", "man", "oorringen", "vrouw"]'),
    ("spelbord.isOntmaskerd()", "false"),
    ('spelbord.potentieel({"man": true})', "2"),
    ('spelbord.potentieel({"baard": false, "oorringen": false})', "2"),
    ('spelbord.besteBeschrijving(["man", "oorringen"])', '{"man": true}'),
    ('spelbord.besteBeschrijving(["baard", "oorringen"])', '{"baard": false, "oorringen": false}'),
    ('spelbord.vraag({"man": true})', "false"),
    ('spelbord.vraag({"baard": false, "oorringen": false})', "true"),
    ('spelbord.neerklappen({"man": true}).toString()',
     """'new Spelbord("Claire", new Personage("Anne", "vrouw", "oorringen", "krulhaar"), """
     """new Personage("Claire", "vrouw", "hoed"))'"""),
    ("spelbord.isOntmaskerd()", "false"),
    ("spelbord.kenmerken()", '["hoed", "krulhaar", "oorringen", "vrouw"]'),
    ('spelbord.potentieel({"oorringen": true})', "1"),
    ('spelbord.besteBeschrijving(["hoed", "krulhaar", "oorringen", "vrouw"])',
     '{"oorringen": true}'),
    ('spelbord.vraag({"oorringen": true})', "false"),
    ('spelbord.neerklappen({"oorringen": true}).toString()',
     """'new Spelbord("Claire", new Personage("Claire", "vrouw", "hoed"))'"""),
    ("spelbord.isOntmaskerd()", "true"),
]
# The errors the exercise's text asks for (it shows no session for them): the rule, a line
# that breaks it, and the message.
ERRORS = [("a Personage given fewer than two arguments", 'new Personage("Bernard")',
           "geen kenmerken"),
          ("a Spelbord whose identity names no character on it",
           'new Spelbord("Zoë", new Personage("Anne", "vrouw"))', "onbekende identiteit")]


def as_python(line: str) -> str:
    """A line of the session in Python: ``const x = new C(...)`` is ``x = C(...)``;
    true, false and null are True, False and None (outside strings: the session's strings
    hold none of these words)."""
    line = re.sub(r"^const (\w+) = ", r"\1 = ", line.rstrip(";"))
    line = line.replace("new ", "")
    return re.sub(r"\b(true|false|null)\b",
                  lambda word: {"true": "True", "false": "False", "null": "None"}[word[1]], line)


def printed(value: Any) -> str:
    """A value as the session prints it: JSON for booleans, numbers, arrays and objects; a
    string in double quotes, or single quotes when it holds double quotes."""
    if isinstance(value, str):
        return f"'{value}'" if '"' in value else json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False)


def run_session(lines: list[str]) -> list[str | None]:
    """Each line of the session through the Dutch API: what it prints (None for a
    declaration)."""
    from subgame.families.guess_who_board.game import Personage, Spelbord, product

    names: dict[str, Any] = {"Personage": Personage, "Spelbord": Spelbord, "product": product}
    shown: list[str | None] = []
    for line in lines:
        code = as_python(line)
        if line.startswith("const "):
            exec(code, names)  # noqa: S102 - the exercise's own lines, kept above
            shown.append(None)
        else:
            shown.append(printed(eval(code, names)))  # noqa: S307
    return shown


def reproduce(store: str | None, out: str, size: str) -> Reproduction:
    """The session needs no store, no figures and has one size."""
    result = Reproduction("guess-who-exercise", DOCUMENT, size)
    for (line, expected), got in zip(TRANSCRIPT, run_session([typed for typed, _ in TRANSCRIPT])):
        if expected is not None:
            result.add(same(f"> {line}", expected, got,
                            "the Dutch API prints otherwise", PAGE))
    for rule, line, message in ERRORS:
        try:
            run_session([line])
            raised = "no error"
        except InvalidInput as error:
            raised = str(error)
        result.add(same(f"{rule}: > {line}", f"Error: {message}", f"Error: {raised}",
                        "the Dutch API's message differs", PAGE))
    return result
