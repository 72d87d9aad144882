"""One player's Guess Who board: characters with traits, descriptions, folding down.

A *description* is a mapping {trait: bool}: True means the character must have the trait,
False that it must not.  The empty description describes every character; a trait nobody
has is simply unsatisfied when mapped to True ({"man": True} does not describe a character
without the trait "man").

The names follow the seed exercise ("Wie is het?"): English names, with the seed's Dutch
method names kept as aliases (``kenmerken``, ``voldoet``, ``vraag``, ``neerklappen``,
``is_ontmaskerd``, ``potentieel``, ``beste_beschrijving``) and its ``product``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

from subgame.errors import InvalidInput

# The order in which the seed enumerates one trait's options; it fixes the tie rule of
# best_description (the first description in this order wins).
DESCRIPTION_OPTIONS = (None, True, False)


def description(pairs: Mapping[str, bool] | Iterable[tuple[str, bool]]) -> dict[str, bool]:
    """A checked description built from a mapping or from (trait, bool) pairs.

    Pairs may name a trait twice, which a mapping cannot express; that and non-boolean
    values are errors rather than a silent last-one-wins.
    """
    items = pairs.items() if isinstance(pairs, Mapping) else pairs
    checked: dict[str, bool] = {}
    for trait, wanted in items:
        if not isinstance(trait, str):
            raise InvalidInput(f"a description's traits are strings, got {trait!r}")
        if not isinstance(wanted, bool):
            raise InvalidInput(f"trait {trait!r} must map to True or False, got {wanted!r}")
        if trait in checked:
            raise InvalidInput(f"the description names trait {trait!r} twice")
        checked[trait] = wanted
    return checked


def product(values: Sequence, n: int) -> list[tuple]:
    """The n-ary Cartesian power A^n as tuples, the last position varying fastest.

    A^0 = {()} and A^n = {(a', a) | a' in A^(n-1), a in A}, as the seed defines it.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidInput(f"the power of a Cartesian product is a natural number, got {n!r}")
    power: list[tuple] = [()]
    for _ in range(n):
        power = [prefix + (value,) for prefix in power for value in values]
    return power


cartesian_power = product


def _listing(words: Sequence[str], conjunction: str) -> str:
    """'a, b and c' (the last two joined by the conjunction)."""
    if len(words) == 1:
        return words[0]
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


class Character:
    """A character: a unique name and one or more traits, in the order given."""

    def __init__(self, name: str, traits: Iterable[str]):
        if isinstance(traits, str):
            raise InvalidInput(f"character {name!r}: give the traits as a list of strings, "
                               f"not the single string {traits!r}")
        traits = tuple(traits)
        if not traits:
            raise InvalidInput(f"character {name!r} has no traits")
        for value in (name, *traits):
            if not isinstance(value, str) or not value:
                raise InvalidInput(f"character names and traits are non-empty strings, "
                                   f"got {value!r}")
        if len(set(traits)) != len(traits):
            raise InvalidInput(f"character {name!r} lists a trait twice: {traits!r}")
        self.name = name
        self.traits = traits
        self._trait_set = frozenset(traits)

    def __repr__(self) -> str:
        return f"Character({self.name!r}, {list(self.traits)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Character):
            return NotImplemented
        return (self.name, self.traits) == (other.name, other.traits)

    def __hash__(self) -> int:
        return hash((self.name, self.traits))

    def has(self, trait: str) -> bool:
        return trait in self._trait_set

    def satisfies(self, wanted: Mapping[str, bool]) -> bool:
        """Whether the character has every trait mapped to True and none mapped to False."""
        return all(self.has(trait) == value for trait, value in description(wanted).items())

    voldoet = satisfies

    def describe(self) -> str:
        """'Anne has the traits vrouw, oorringen and krulhaar'."""
        return f"{self.name} has the traits {_listing(self.traits, 'and')}"

    def kenmerken(self) -> str:
        """The seed's sentence: 'Anne heeft als kenmerken: vrouw, oorringen en krulhaar'."""
        return f"{self.name} heeft als kenmerken: {_listing(self.traits, 'en')}"


def satisfies(character: Character, wanted: Mapping[str, bool]) -> bool:
    """Whether ``character`` satisfies the description ``wanted``."""
    return character.satisfies(wanted)


def descriptions_up_to(traits: Sequence[str], max_literals: int | None = None
                       ) -> list[dict[str, bool]]:
    """Every description over ``traits`` with at most ``max_literals`` entries (None: any),
    in the seed's order: that of product([None, True, False], len(traits)).

    A description's position in that order is its tuple of option ranks (None 0, True 1,
    False 2) read lexicographically; enumerating subsets of traits first keeps the number
    of descriptions polynomial when ``max_literals`` is small.
    """
    count = len(traits) if max_literals is None else min(max_literals, len(traits))
    ranked = []
    for size in range(count + 1):
        for chosen in combinations(range(len(traits)), size):
            for signs in product((True, False), size):
                ranks = [0] * len(traits)
                for position, sign in zip(chosen, signs):
                    ranks[position] = DESCRIPTION_OPTIONS.index(sign)
                ranked.append((ranks, {traits[i]: s for i, s in zip(chosen, signs)}))
    ranked.sort(key=lambda pair: pair[0])
    return [wanted for _, wanted in ranked]


class Board:
    """A player's board: the opponent's identity and the characters still standing.

    Folding down is the only change; the board remembers the original order, in which
    ``repr`` lists the standing characters.
    """

    def __init__(self, identity: str, characters: Iterable[Character]):
        characters = tuple(characters)
        for character in characters:
            if not isinstance(character, Character):
                raise InvalidInput(f"a board holds Character objects, got {character!r}")
        names = [character.name for character in characters]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise InvalidInput(f"the board has two characters named {duplicates[0]!r}")
        if identity not in names:
            raise InvalidInput(f"unknown identity {identity!r}: no character on the board "
                               f"has that name")
        self.identity = identity
        self.characters = characters
        self._opponent = characters[names.index(identity)]
        self._standing = [True] * len(characters)

    def standing(self) -> list[Character]:
        return [c for c, up in zip(self.characters, self._standing) if up]

    def __repr__(self) -> str:
        listed = ", ".join(repr(c) for c in self.standing())
        return f"Board({self.identity!r}, [{listed}])"

    def traits(self) -> list[str]:
        """The traits of the standing characters, sorted, each once."""
        return sorted({trait for c in self.standing() for trait in c.traits})

    def ask(self, wanted: Mapping[str, bool]) -> bool:
        """The opponent's answer: whether their identity satisfies the description."""
        return self._opponent.satisfies(wanted)

    def fold_down(self, wanted: Mapping[str, bool]) -> Board:
        """Fold down every standing character whose satisfaction disagrees with the answer."""
        answer = self.ask(wanted)
        for index, character in enumerate(self.characters):
            if self._standing[index] and character.satisfies(wanted) != answer:
                self._standing[index] = False
        return self

    def is_unmasked(self) -> bool:
        """Whether exactly one character still stands."""
        return sum(self._standing) == 1

    def potential(self, wanted: Mapping[str, bool]) -> int:
        """How many standing characters satisfy the description."""
        return sum(c.satisfies(wanted) for c in self.standing())

    def best_description(self, traits: Sequence[str], max_literals: int | None = None
                         ) -> dict[str, bool]:
        """The description over ``traits`` (at most ``max_literals`` of them) whose potential
        is closest to half the standing count.

        Ties go to the description that comes first in the seed's enumeration,
        product([None, True, False], len(traits)) with None meaning "trait unused": the
        first position varies slowest, and None < True < False.
        """
        half_twice = len(self.standing())
        return min(descriptions_up_to(traits, max_literals),
                   key=lambda wanted: abs(2 * self.potential(wanted) - half_twice))

    kenmerken = traits
    vraag = ask
    neerklappen = fold_down
    is_ontmaskerd = is_unmasked
    potentieel = potential
    beste_beschrijving = best_description
