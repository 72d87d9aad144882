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
from subgame.families.guess_who_board.game.reachable import NAMED
from subgame.families.guess_who_board.plan import POLICIES, BoardConfig, board_name
from subgame.families.guess_who_board.tables import (LowerLevels, level_path, read_pairs,
                                                      stored_family)
from subgame.storage import ComputationStore

VERIFY_ALL_UP_TO = 10  # characters: beyond this, verify checks a sample of pairs


@dataclass(frozen=True)
class StoredBoard:
    store: ComputationStore
    config: BoardConfig
    family: SetFamily
    index: PairIndex

    def finished(self, stage: str) -> bool:
        attrs = self.store.group.attrs
        steps = [s for s in attrs.get("steps", []) if s["stage"] == stage]
        return bool(steps) and all(str(s["index"]) in attrs["steps_done"] for s in steps)

    def value(self, name: str, s_id: int, t_id: int) -> int:
        return int(read_pairs(self.store, self.index, name, np.array([s_id]),
                              np.array([t_id]))[0])

    def probability(self, name: str, s_id: int, t_id: int) -> Fraction:
        sizes = self.family.sizes
        return Fraction(self.value(name, s_id, t_id), int(sizes[s_id] * sizes[t_id]))


def run_command(config: BoardConfig) -> str:
    return (f"subgame run guess-who-board --board {config.board} --max-literals "
            f"{config.max_literals} --rules {config.rules}")


def open_board(url: str, config: BoardConfig) -> StoredBoard:
    """The computation of ``config`` in the store, its pair values finished."""
    try:
        store = ComputationStore.open(url, config.group_path())
    except NotComputed:
        raise NotComputed(f"{url!r} holds no {board_name(config.board)} board computation at "
                          f"d = {config.max_literals}, {config.rules} rules; run "
                          f"`{run_command(config)}` first") from None
    family = stored_family(store, config)
    stored = StoredBoard(store, config, family, PairIndex(family))
    if not stored.finished("pairs"):
        raise NotComputed(f"{config.group_path()} is not finished; `{run_command(config)}` "
                          "resumes it")
    return stored


def standing_set(family: SetFamily, text: str | None, option: str) -> int:
    """The id of the set named by comma-separated names (None: the full board)."""
    if text is None:
        return family.full
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise InvalidInput(f"{option} names no characters")
    try:
        return family.id_of(family.mask_of(names))
    except InvalidInput as exc:
        raise InvalidInput(f"{option}: {exc}") from None


def optimal_questions(stored: StoredBoard, s_id: int, t_id: int) -> list[dict | str]:
    """Every optimal move of the mover at (S, T), as a description (variant: a name)."""
    moves = stored.family.moves(s_id)
    if not len(moves):
        return []
    named = moves[:, 1] == NAMED
    opponent = np.full(len(moves), t_id)
    answers = read_pairs(stored.store, stored.index, "a", opponent, moves[:, 0]) + np.where(
        named, 0, read_pairs(stored.store, stored.index, "a", opponent,
                             np.where(named, moves[:, 0], moves[:, 1])))
    sizes = stored.family.sizes
    value = stored.value("a", s_id, t_id)
    return [stored.family.describe_move(s_id, move)
            for move in np.flatnonzero(sizes[s_id] * sizes[t_id] - answers == value).tolist()]


def closest_to_half(family: SetFamily, s_id: int, max_literals: int) -> dict | None:
    """The seed's best_description for the standing set: potential closest to half."""
    names = set(family.names(int(family.masks[s_id])))
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
    s_id = standing_set(family, standing, "--standing")
    t_id = standing_set(family, opponent_standing, "--opponent-standing")
    p = stored.probability("a", s_id, t_id)
    return {"board": board_name(config.board), "max_literals": config.max_literals,
            "rules": config.rules,
            "standing": family.names(int(family.masks[s_id])),
            "opponent_standing": family.names(int(family.masks[t_id])),
            "a": stored.value("a", s_id, t_id), "p": fraction_text(p), "p_float": float(p),
            "optimal_questions": optimal_questions(stored, s_id, t_id),
            "final_guess_optimal": bool(stored.value("final_optimal", s_id, t_id)),
            "closest_to_half": closest_to_half(family, s_id, config.max_literals),
            "policies": policy_values(stored, s_id, t_id)}


def idealised_probabilities(size: int, rules: str) -> np.ndarray:
    """O'Neill's p_I (official) or p_II (variant) for n, m <= size, 1-based."""
    table = idealised.new_table(size)
    idealised.solve_band(table, 1, size, rules)
    return idealised.probability_table(table)


def size_grid(url: str, config: BoardConfig) -> dict[str, Any]:
    """Mean, min and max of p(S, T) over the stored pairs with |S| = n, |T| = m, and
    O'Neill's p(n, m) for the same sizes (NaN where no pair has those sizes)."""
    stored = open_board(url, config)
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
        np.add.at(total, (n, m), p)
        np.add.at(count, (n, m), 1)
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
    """Small boards: every stored pair against the plain recursion. Larger boards: a random
    sample of pairs against one step of it over the stored values of their children (which
    every pair passing would prove by induction on the level)."""
    stored = open_board(url, config)
    family, index = stored.family, stored.index
    table = LowerLevels(index, ["a"]).load_through(stored.store, max(index.levels))["a"]
    names = [frozenset(family.names(int(mask))) for mask in family.masks.tolist()]
    ids = {name: i for i, name in enumerate(names)}
    splits = plain_splits(config)

    def stored_a(standing: Names, opponent: Names) -> int:
        if standing not in ids:
            raise InvalidInput(f"the stored sets lack the reachable set {sorted(standing)}")
        return int(table[index.global_index(np.array([ids[standing]]),
                                            np.array([ids[opponent]]))[0]])

    if len(config.characters) <= VERIFY_ALL_UP_TO:
        method, positions = "every pair against the plain recursion", np.arange(index.total)

        @lru_cache(maxsize=None)
        def a(standing: Names, opponent: Names) -> int:
            return plain_value(standing, opponent, splits, config.rules, a)
    else:
        method = f"{sample} random pairs against one step of the plain recursion"
        positions, a = np.random.default_rng(seed).integers(0, index.total, sample), stored_a
    mismatches, examples = 0, []
    for position in positions.tolist():
        level = int(np.searchsorted(index.level_start, position, side="right") - 1)
        offset = position - int(index.level_start[level])
        (s_id,), (t_id,) = index.pairs(level, offset, offset + 1)
        if int(table[position]) != plain_value(names[s_id], names[t_id], splits,
                                                config.rules, a):
            mismatches += 1
            if len(examples) < 5:
                examples.append({"standing": sorted(names[s_id]),
                                 "opponent_standing": sorted(names[t_id])})
    return {"computation": config.group_path(), "method": method,
            "pairs_checked": len(positions), "mismatches": mismatches, "examples": examples}
