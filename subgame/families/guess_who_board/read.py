"""Read a stored board computation (no Prefect, no Dask): one pair's value, optimal
questions and policies; the value by set sizes against O'Neill's idealised table; and the
check of the stored values against a plain recursion over frozensets of names."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, product
from typing import Any, Callable

import numpy as np

from subgame.errors import InvalidInput, NotComputed
from subgame.exact import fraction_text
from subgame.families.guess_who import game as idealised
from subgame.families.guess_who_board.game import Board, PairIndex, SetFamily
from subgame.families.guess_who_board.game.reachable import NAMED, describe_split
from subgame.families.guess_who_board.game.types import TypeFamily, concrete_moves
from subgame.families.guess_who_board.plan import POLICIES, BoardConfig, board_name
from subgame.families.guess_who_board.tables import (LowerLevels, level_path, read_pairs,
                                                      solved_family)
from subgame.storage import ComputationStore

VERIFY_ALL_UP_TO = 10  # characters: beyond this, verify checks a sample of pairs


@dataclass(frozen=True)
class StoredBoard:
    """A finished computation: its pairs are of sets, or of types (``family`` is then a
    TypeFamily and the ids below are type ids)."""

    store: ComputationStore
    config: BoardConfig
    family: SetFamily | TypeFamily
    index: PairIndex

    def solved_id(self, mask: int) -> int:
        """The id of the reachable set ``mask`` in the pairs' numbering (its set id, or its
        type); InvalidInput if it is not reachable."""
        if isinstance(self.family, TypeFamily):
            return self.family.type_of(mask)
        return self.family.id_of(mask)

    @property
    def sets_per_id(self) -> np.ndarray:
        """How many reachable sets each id stands for (1 each on sets)."""
        if isinstance(self.family, TypeFamily):
            return np.bincount(self.family.set_type, minlength=len(self.family))
        return np.ones(len(self.family), np.int64)

    def finished(self, stage: str) -> bool:
        return stage_finished(self.store, stage)

    def value(self, name: str, s_id: int, t_id: int) -> int:
        return int(read_pairs(self.store, self.index, name, np.array([s_id]),
                              np.array([t_id]))[0])

    def probability(self, name: str, s_id: int, t_id: int) -> Fraction:
        sizes = self.family.sizes
        return Fraction(self.value(name, s_id, t_id), int(sizes[s_id] * sizes[t_id]))


def stage_finished(store: ComputationStore, stage: str) -> bool:
    attrs = store.group.attrs
    steps = [s for s in attrs.get("steps", []) if s["stage"] == stage]
    return bool(steps) and all(str(s["index"]) in attrs["steps_done"] for s in steps)


def run_command(config: BoardConfig) -> str:
    return (f"subgame run guess-who-board --board {config.board} --max-literals "
            f"{config.max_literals} --rules {config.rules}"
            + (f" --types {config.types}" if config.on_types else ""))


def open_board(url: str, config: BoardConfig) -> StoredBoard:
    """The computation of ``config`` in the store, its pair values finished."""
    try:
        store = ComputationStore.open(url, config.group_path())
    except NotComputed:
        raise NotComputed(f"{url!r} holds no {board_name(config.board)} board computation at "
                          f"d = {config.max_literals}, {config.rules} rules; run "
                          f"`{run_command(config)}` first") from None
    if not stage_finished(store, "pairs"):
        raise NotComputed(f"{config.group_path()} is not finished; `{run_command(config)}` "
                          "resumes it")
    family = solved_family(store, config)
    return StoredBoard(store, config, family, PairIndex(family))


def standing_mask(family: SetFamily | TypeFamily, text: str | None, option: str) -> int:
    """The set named by comma-separated names (None: the full board), as a mask."""
    if text is None:
        return family.full_mask
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise InvalidInput(f"{option} names no characters")
    try:
        return family.mask_of(names)
    except InvalidInput as exc:
        raise InvalidInput(f"{option}: {exc}") from None


def standing_set(stored: StoredBoard, text: str | None, option: str) -> int:
    """The id (set id, or type) of the set named by comma-separated names (None: the full
    board); InvalidInput when it is not reachable."""
    try:
        return stored.solved_id(standing_mask(stored.family, text, option))
    except InvalidInput as exc:
        raise InvalidInput(f"{option}: {exc}") from None


def optimal_questions(stored: StoredBoard, standing: int, opponent: int) -> list[dict | str]:
    """Every optimal move of the mover holding the set ``standing`` against ``opponent``
    (masks), as a description (variant: a name): the concrete moves of the set, each
    valued by the stored a of the opponent against its children (on types, their types)."""
    family = stored.family
    moves = concrete_moves(family, standing)
    if not moves:
        return []
    t_id = stored.solved_id(opponent)
    first = np.array([stored.solved_id(inside) for inside, _ in moves])
    named = np.array([outside == NAMED for _, outside in moves])
    second = np.array([first[i] if outside == NAMED else stored.solved_id(outside)
                       for i, (_, outside) in enumerate(moves)])
    against = np.full(len(moves), t_id)
    answers = read_pairs(stored.store, stored.index, "a", against, first) + np.where(
        named, 0, read_pairs(stored.store, stored.index, "a", against, second))
    value = stored.value("a", stored.solved_id(standing), t_id)
    best = standing.bit_count() * opponent.bit_count() - answers == value
    return [family.names(standing & ~inside)[0] if outside == NAMED
            else describe_split(family.characters, family.max_literals, standing, inside)
            for (inside, outside), chosen in zip(moves, best.tolist()) if chosen]


def closest_to_half(family: SetFamily | TypeFamily, mask: int, max_literals: int
                    ) -> dict | None:
    """The seed's best_description for the standing set: potential closest to half."""
    names = set(family.names(mask))
    standing = [c for c in family.characters if c.name in names]
    if len(standing) < 2:
        return None
    board = Board(standing[0].name, standing)
    return board.best_description(board.traits(), max_literals)


def policy_values(stored: StoredBoard, s_id: int, t_id: int) -> dict[str, Any]:
    """Each finished policy at (S, T): the policy moving against the optimal player, the
    optimal player moving against it, self-play, and what moving with it costs."""
    optimal = stored.probability("a", s_id, t_id)
    found = {}
    for policy in stored.config.policies:
        if not stored.finished(POLICIES[policy][0]):
            continue
        values = {name: stored.probability(f"{policy}/{name}", s_id, t_id)
                  for name in ("vs_optimal", "optimal_vs", "vs_self")}
        move = int(stored.store.array(f"sets/{policy}_move")[s_id])
        found[policy] = {**{name: fraction_text(p) for name, p in values.items()},
                         "loss_vs_optimal": fraction_text(optimal - values["vs_optimal"]),
                         "question": (stored.family.describe_move(s_id, move) if move >= 0
                                      else None)}
    return found


def query_pair(url: str, config: BoardConfig, standing: str | None,
               opponent_standing: str | None) -> dict[str, Any]:
    """Everything stored about the mover holding S against T (default: the full board)."""
    stored = open_board(url, config)
    family = stored.family
    s_id = standing_set(stored, standing, "--standing")
    t_id = standing_set(stored, opponent_standing, "--opponent-standing")
    s_mask = standing_mask(family, standing, "--standing")
    t_mask = standing_mask(family, opponent_standing, "--opponent-standing")
    p = stored.probability("a", s_id, t_id)
    types = ({"types": config.types, "standing_type": s_id, "opponent_type": t_id}
             if config.on_types else {})
    return {"board": board_name(config.board), "max_literals": config.max_literals,
            "rules": config.rules, **types,
            "standing": family.names(s_mask), "opponent_standing": family.names(t_mask),
            "a": stored.value("a", s_id, t_id), "p": fraction_text(p), "p_float": float(p),
            "optimal_questions": optimal_questions(stored, s_mask, t_mask),
            "final_guess_optimal": bool(stored.value("final_optimal", s_id, t_id)),
            "closest_to_half": closest_to_half(family, s_mask, config.max_literals),
            "policies": policy_values(stored, s_id, t_id)}


def idealised_probabilities(size: int, rules: str) -> np.ndarray:
    """O'Neill's p_I (official) or p_II (variant) for n, m <= size, 1-based."""
    table = idealised.new_table(size)
    idealised.solve_band(table, 1, size, rules)
    return idealised.probability_table(table)


def size_grid(url: str, config: BoardConfig) -> dict[str, Any]:
    """Mean, min and max of p(S, T) over the reachable pairs with |S| = n, |T| = m, and
    O'Neill's p(n, m) for the same sizes (NaN where no pair has those sizes); a stored
    pair of types counts once for each pair of sets it stands for."""
    stored = open_board(url, config)
    weight = stored.sets_per_id
    size = int(stored.family.sizes.max())
    total = np.zeros((size + 1, size + 1))
    low, high = np.full_like(total, np.inf), np.full_like(total, -np.inf)
    count = np.zeros_like(total)
    for level in stored.index.levels:
        pairs = stored.index.level_size(level)
        if not pairs:
            continue
        s_ids, t_ids = stored.index.pairs(level, 0, pairs)
        n, m = stored.family.sizes[s_ids], stored.family.sizes[t_ids]
        p = stored.store.array(level_path(level, "a"))[...] / (n * m)
        pairs = weight[s_ids] * weight[t_ids]
        np.add.at(total, (n, m), p * pairs)
        np.add.at(count, (n, m), pairs)
        np.minimum.at(low, (n, m), p)
        np.maximum.at(high, (n, m), p)
    empty = count == 0
    with np.errstate(invalid="ignore"):
        mean = np.where(empty, np.nan, total / np.maximum(count, 1))
    return {"size": size, "pairs": count[1:, 1:], "mean": mean[1:, 1:],
            "min": np.where(empty, np.nan, low)[1:, 1:],
            "max": np.where(empty, np.nan, high)[1:, 1:],
            "idealised": idealised_probabilities(size, config.rules)[1:, 1:]}


# -- verify: the stored table against a plain recursion ----------------------------------------
Names = frozenset


def plain_splits(config: BoardConfig) -> Callable[[Names], set[tuple[Names, Names]]]:
    """The moves of a standing set of names, straight from the descriptions of at most d
    literals (and, under the variant rules, naming a character: the (S - c, {}) move)."""
    characters = config.characters
    traits = sorted({t for c in characters for t in c.traits})
    described = set()
    for size in range(1, min(config.max_literals, len(traits)) + 1):
        for chosen in combinations(traits, size):
            for signs in product((True, False), repeat=size):
                described.add(frozenset(c.name for c in characters if all(
                    (t in c.traits) == s for t, s in zip(chosen, signs))))

    def splits(standing: Names) -> set[tuple[Names, Names]]:
        moves = {tuple(sorted((standing & q, standing - q), key=sorted)) for q in described
                 if standing & q and standing - q}
        if config.rules == "variant":
            moves |= {(standing - {name}, frozenset()) for name in standing}
        return moves

    return splits


def plain_value(standing: Names, opponent: Names, splits: Callable, rules: str,
                a: Callable[[Names, Names], int]) -> int:
    """a(S, T) = |T| if |S| = 1, else the best of the final guess (official: |T|) and each
    move, |S||T| minus what the opponent makes of each branch (nothing of an empty one)."""
    if len(standing) == 1:
        return len(opponent)
    best = len(opponent) if rules == "official" else None
    for inside, outside in splits(standing):
        value = len(standing) * len(opponent) - a(opponent, inside) - (
            a(opponent, outside) if outside else 0)
        best = value if best is None else max(best, value)
    return best


def verify_values(url: str, config: BoardConfig, sample: int = 2000, seed: int = 0
                  ) -> dict[str, Any]:
    """Small boards: every reachable pair of sets against the plain recursion. Larger
    boards: a random sample of pairs against one step of it over the stored values of their
    children (which every pair passing would prove by induction on the level). On types a
    pair of sets reads the stored value of its pair of types."""
    stored = open_board(url, config)
    family, index = stored.family, stored.index
    table = LowerLevels(index, ["a"]).load_through(stored.store, max(index.levels))["a"]
    splits = plain_splits(config)

    def stored_a(standing: Names, opponent: Names) -> int:
        try:
            ids = [stored.solved_id(family.mask_of(sorted(side)))
                   for side in (standing, opponent)]
        except InvalidInput:
            raise InvalidInput(f"the stored sets lack the reachable set {sorted(standing)}"
                               ) from None
        return int(table[index.global_index(np.array(ids[:1]), np.array(ids[1:]))[0]])

    def names(set_index: int) -> Names:
        return frozenset(family.names(int(family.masks[set_index])))

    sets = len(family.masks)
    if len(config.characters) <= VERIFY_ALL_UP_TO:
        method = "every pair against the plain recursion"
        pairs = [(s, t) for s in range(sets) for t in range(sets)]

        @lru_cache(maxsize=None)
        def a(standing: Names, opponent: Names) -> int:
            return plain_value(standing, opponent, splits, config.rules, a)
    else:
        method = f"{sample} random pairs against one step of the plain recursion"
        pairs = np.random.default_rng(seed).integers(0, sets, (sample, 2)).tolist()
        a = stored_a
    mismatches, examples = 0, []
    for s_set, t_set in pairs:
        standing, opponent = names(s_set), names(t_set)
        if stored_a(standing, opponent) != plain_value(standing, opponent, splits,
                                                       config.rules, a):
            mismatches += 1
            if len(examples) < 5:
                examples.append({"standing": sorted(standing),
                                 "opponent_standing": sorted(opponent)})
    return {"computation": config.group_path(), "method": method,
            "pairs_checked": len(pairs), "mismatches": mismatches, "examples": examples}
