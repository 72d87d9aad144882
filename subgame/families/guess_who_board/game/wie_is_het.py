"""The exercise's API as the exercise names it ("Wie is het?", seed 002).

    Personage(naam, kenmerk, ...)       two or more strings, else Error "geen kenmerken"
    Spelbord(identiteit, personage, ...) the opponent's name and the characters, each an
                                         argument; a name not on the board is Error
                                         "onbekende identiteit"
    product(A, n)                        the n-ary Cartesian power A^n

with the exercise's methods: ``toString`` (the expression that builds the object again,
standing characters only), ``kenmerken``, ``voldoet``, ``vraag``, ``neerklappen``,
``isOntmaskerd``, ``potentieel`` and ``besteBeschrijving`` (also as ``is_ontmaskerd`` and
``beste_beschrijving``).  They are :class:`~.board.Character` and :class:`~.board.Board`,
which hold the rules; only the exercise's calling convention and messages are here.
"""

from __future__ import annotations

import json

from subgame.errors import InvalidInput

from .board import Board, Character, product

__all__ = ["Personage", "Spelbord", "product"]


def _expression(kind: str, parts: list[str]) -> str:
    return f"new {kind}({', '.join(parts)})"


class Personage(Character):
    """A character: its name, then its traits, each as its own argument."""

    def __init__(self, *names: str):
        if len(names) < 2:
            raise InvalidInput("geen kenmerken")
        super().__init__(names[0], names[1:])

    def toString(self) -> str:  # noqa: N802 - the exercise's name
        """'new Personage("Anne", "vrouw", "oorringen", "krulhaar")'."""
        return _expression("Personage", [json.dumps(word, ensure_ascii=False)
                                         for word in (self.name, *self.traits)])


class Spelbord(Board):
    """A board: the opponent's identity, then the characters, each as its own argument."""

    def __init__(self, identiteit: str, *personages: Personage):
        if identiteit not in [getattr(p, "name", None) for p in personages]:
            raise InvalidInput("onbekende identiteit")
        super().__init__(identiteit, personages)

    def toString(self) -> str:  # noqa: N802 - the exercise's name
        """'new Spelbord("Claire", new Personage(...), ...)', the standing characters in the
        order given."""
        return _expression("Spelbord", [json.dumps(self.identity, ensure_ascii=False),
                                        *(p.toString() for p in self.standing())])

    isOntmaskerd = Board.is_unmasked  # noqa: N815 - the exercise's names
    besteBeschrijving = Board.best_description  # noqa: N815
