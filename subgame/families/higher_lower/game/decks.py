"""Higher/lower with repeated ranks: r ranks x s suits, exact by a level-by-level DP.

Only the order of ranks matters, so a state is renumbered as in the seed: the *word*
w = (w_0, ..., w_{m-1}) lists, in rank order, the face-down counts (1..s) of the ranks that
still have face-down cards, and the up card sits at position p in 0..2m: p = 2g when its
rank has no face-down card left and lies between letters g-1 and g, p = 2i+1 when it has
letter i's rank.  Level k = sum(w) = number of face-down cards.  For s = 1 this is the
seed's state (u, n) with n = m + 1, u = p/2.

W(w, p) = number of rank sequences of the face-down cards (suits indistinguishable) that
are guessed entirely right; the probability is W / multinomial(k; w).  Drawing letter i
leads to the child w - e_i (the letter dropped at 0) with the up card at letter i (or at
gap i if dropped), whatever p was.  So with X_i = W(child_i) and the prefix sums
P_j = sum_{i<j} X_i, one vector P per word serves every up position:

    lower = P_lo,  higher = P_m - P_hi,  equal = P_hi - P_lo,  lo = p // 2, hi = (p+1) // 2,
    W(w, p) = (higher if the policy guesses higher else lower) + [ties == "pass"] equal,
    W(empty word, 0) = 1.

Policies: "optimal" guesses higher iff higher >= lower (values); "majority" iff at least as
many face-down cards are higher as lower (the seed's rule, ties to "higher");
"always_higher" always.  An equal rank is a lost guess (ties="loss") or a free pass.

The whole deck's count is P_r of the full word (s, ..., s): the sum over the first up card.
Values reach multinomial(rs; s, ..., s) (~2^166 for 13 x 4), so they are stored as L limbs
of 62 bits in int64, exact.  Rank reversal maps W(w, p) to W(reversed w, 2m - p); the
optimal policy is symmetric under it (majority and always-higher break ties to "higher"
and are not), so for it only words w <= reversed(w) are solved and the mirrors copied:
P_j(w) = P_m(rev w) - P_{m-j}(rev w).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numba import njit, prange

POLICIES = ("optimal", "majority", "always_higher")
TIES = ("loss", "pass")

_BITS = 62
_MASK = (1 << _BITS) - 1


# --- exact unsigned integers as little-endian rows of 62-bit limbs --------------------------

@njit(cache=True, inline="always")
def _add(a, b, out):
    carry = 0
    for j in range(out.size):
        t = a[j] + b[j] + carry
        out[j] = t & _MASK
        carry = t >> _BITS


@njit(cache=True, inline="always")
def _sub(a, b, out):
    """out = a - b for a >= b."""
    borrow = 0
    for j in range(out.size):
        t = a[j] - b[j] - borrow
        borrow = 1 if t < 0 else 0
        out[j] = t + (borrow << _BITS)


@njit(cache=True, inline="always")
def _less(a, b):
    for j in range(a.size - 1, -1, -1):
        if a[j] != b[j]:
            return a[j] < b[j]
    return False


def _to_int(limbs) -> int:
    return sum(int(v) << (_BITS * j) for j, v in enumerate(limbs))


# --- words of a level: counted, ranked (lexicographically within a length), unranked --------

def _word_counts(ranks: int, suits: int) -> np.ndarray:
    """N[k, m]: words of length m with letters in 1..suits summing to k."""
    n = np.zeros((ranks * suits + 1, ranks + 1), dtype=np.int64)
    n[0, 0] = 1
    for k in range(1, ranks * suits + 1):
        for m in range(1, ranks + 1):
            n[k, m] = sum(n[k - a, m - 1] for a in range(1, min(suits, k) + 1))
    return n


@njit(cache=True)
def _rank(w, m, k, skip, counts):
    """Rank among words of its length and sum of w[:m] with letter ``skip`` lowered by one
    (skip = -1: w itself); a letter lowered to 0 is dropped."""
    length = m - (1 if skip >= 0 and w[skip] == 1 else 0)
    rank, rest, pos = 0, k - (1 if skip >= 0 else 0), 0
    for j in range(m):
        a = w[j] - (1 if j == skip else 0)
        if a == 0:
            continue
        tail = length - pos - 1
        for smaller in range(1, a):  # words that agree so far and have a smaller letter here
            if rest - smaller >= 0:
                rank += counts[rest - smaller, tail]
        rest -= a
        pos += 1
    return rank


@njit(cache=True)
def _unrank(rank, m, k, counts, suits, w):
    rest = k
    for j in range(m):
        tail = m - j - 1
        for a in range(1, suits + 1):
            c = counts[rest - a, tail] if rest >= a else 0
            if rank < c:
                w[j] = a
                rest -= a
                break
            rank -= c


@dataclass(frozen=True)
class _Layout:
    """Where each word's prefix-sum vector lives: entry (k, m, rank, j) of level k is row
    level_offset[k] + entry_base[k, m] + rank * (m + 1) + j of the value store."""

    counts: np.ndarray
    entry_base: np.ndarray
    level_size: np.ndarray
    level_offset: np.ndarray
    rows: int

    @classmethod
    def build(cls, ranks: int, suits: int, keep: bool) -> "_Layout":
        counts = _word_counts(ranks, suits)
        per_word = counts * np.arange(1, ranks + 2)
        entry_base = np.cumsum(per_word, axis=1) - per_word
        level_size = per_word.sum(axis=1)
        if keep:  # every level, for a policy table
            level_offset = np.cumsum(level_size) - level_size
            rows = int(level_size.sum())
        else:  # two levels in turn: level k only reads level k-1
            level_offset = (np.arange(level_size.size) % 2) * level_size.max()
            rows = 2 * int(level_size.max())
        return cls(counts, entry_base, level_size, level_offset, rows)


# --- the DP ----------------------------------------------------------------------------------

_OPTIMAL, _MAJORITY, _ALWAYS_HIGHER = range(3)


@njit(cache=True)
def _guess_higher(values, base, m, lo, hi, n_lower, n_higher, policy, tmp):
    """The policy's guess at up position (lo, hi) of a word whose P vector starts at row
    ``base`` (read by the optimal policy only); tmp = P_m - P_hi when it is read."""
    if policy == _OPTIMAL:
        _sub(values[base + m], values[base + hi], tmp)
        return not _less(tmp, values[base + lo])
    if policy == _MAJORITY:
        return n_higher >= n_lower
    return True


@njit(cache=True)
def _choose(values, base, m, lo, hi, n_lower, n_higher, policy, ties_pass, out, tmp):
    """out = W at up position (lo, hi) of the word whose P vector starts at row ``base``."""
    if m == 0:
        out[:] = 0
        out[0] = 1
        return
    if _guess_higher(values, base, m, lo, hi, n_lower, n_higher, policy, tmp):
        _sub(values[base + m], values[base + hi], out)
    else:
        out[:] = values[base + lo]
    if ties_pass and hi > lo:
        _sub(values[base + hi], values[base + lo], tmp)
        _add(out, tmp, out)


@njit(cache=True, inline="always")
def _is_after(w, rev, m):
    """w > rev lexicographically: w is the mirror image of a word solved before it."""
    for j in range(m):
        if w[j] != rev[j]:
            return w[j] > rev[j]
    return False


_CHUNK = 256  # words per parallel task


@njit(cache=True, parallel=True)
def _solve_level(k, values, counts, entry_base, level_offset, suits, policy, ties_pass,
                 symmetric):
    """Fill level k's P vectors from level k-1 (for symmetric policies: first the words
    w <= reversed(w), then their mirrors)."""
    limbs = values.shape[1]
    here, below = level_offset[k], level_offset[k - 1]
    max_len = counts.shape[1] - 1
    for mirror_pass in range(2 if symmetric else 1):
        for m in range(1, max_len + 1):
            words = counts[k, m]
            for chunk in prange((words + _CHUNK - 1) // _CHUNK):
                w = np.empty(m, dtype=np.int64)
                rev = np.empty(m, dtype=np.int64)
                x = np.empty(limbs, dtype=np.int64)
                tmp = np.empty(limbs, dtype=np.int64)
                for rank in range(chunk * _CHUNK, min(words, (chunk + 1) * _CHUNK)):
                    _unrank(rank, m, k, counts, suits, w)
                    row = here + entry_base[k, m] + rank * (m + 1)
                    if symmetric:
                        for j in range(m):
                            rev[j] = w[m - 1 - j]
                        mirrored = _is_after(w, rev, m)
                        if mirrored != (mirror_pass == 1):
                            continue
                        if mirrored:
                            src = here + entry_base[k, m] + _rank(rev, m, k, -1, counts) * (m + 1)
                            for j in range(m + 1):
                                _sub(values[src + m], values[src + m - j], values[row + j])
                            continue
                    values[row] = 0
                    below_count = 0
                    for i in range(m):
                        # Child w - e_i: the up card moves to letter i (lo = i, hi = i + 1),
                        # or to gap i (lo = hi = i) if the letter empties.
                        c_len, hi = (m - 1, i) if w[i] == 1 else (m, i + 1)
                        c_base = below + entry_base[k - 1, c_len] + \
                            _rank(w, m, k, i, counts) * (c_len + 1)
                        _choose(values, c_base, c_len, i, hi, below_count,
                                k - below_count - w[i], policy, ties_pass, x, tmp)
                        _add(values[row + i], x, values[row + i + 1])
                        below_count += w[i]


@dataclass(frozen=True)
class DeckSolution:
    """A policy's exact chance of guessing a whole r x s deck right.

    ``wins`` counts the rank sequences of the deck (suits indistinguishable) guessed entirely
    right, out of ``orders`` = (rs)! / (s!)^r; ``states[k]`` is the number of reachable
    states (word, up position) with k face-down cards, k = 0 .. rs-1.
    """

    ranks: int
    suits: int
    ties: str
    policy: str
    wins: int
    orders: int
    states: tuple[int, ...]

    @property
    def p(self) -> Fraction:
        return Fraction(self.wins, self.orders)


@dataclass(frozen=True)
class PolicyTable:
    """The optimal policy's P vectors for every level of an r x s deck (for Monte Carlo)."""

    ranks: int
    suits: int
    ties: str
    values: np.ndarray
    layout: _Layout


def _reachable_states(counts: np.ndarray, ranks: int, suits: int) -> tuple[int, ...]:
    """Per level k < rs: words with m <= ranks letters and an up card in a gap (a rank of its
    own, so m < ranks) or on a letter below s (its rank has one card more)."""
    states = []
    for k in range(ranks * suits):
        total = 0
        for m in range(ranks + 1):
            full_letters = m * counts[k - suits, m - 1] if k >= suits and m >= 1 else 0
            gaps = (m + 1) * counts[k, m] if m < ranks else 0
            total += gaps + m * counts[k, m] - full_letters
        states.append(int(total))
    return tuple(states)


def _run(ranks: int, suits: int, ties: str, policy: str, keep: bool):
    if ranks < 1 or suits < 1:
        raise ValueError("a deck needs at least one rank and one suit")
    if ties not in TIES or policy not in POLICIES:
        raise ValueError(f"ties must be one of {TIES}, policy one of {POLICIES}")
    orders = math.factorial(ranks * suits) // math.factorial(suits) ** ranks
    limbs = -(-orders.bit_length() // _BITS)
    layout = _Layout.build(ranks, suits, keep)
    values = np.zeros((layout.rows, limbs), dtype=np.int64)
    code = POLICIES.index(policy)
    for k in range(1, ranks * suits + 1):
        _solve_level(k, values, layout.counts, layout.entry_base, layout.level_offset,
                     suits, code, ties == "pass", code == _OPTIMAL)
    full = layout.level_offset[-1] + layout.entry_base[-1, ranks]  # the one word (s, .., s)
    wins = _to_int(values[full + ranks])
    solution = DeckSolution(ranks, suits, ties, policy, wins, orders,
                            _reachable_states(layout.counts, ranks, suits))
    return solution, values, layout


def solve(ranks: int, suits: int, ties: str = "loss", policy: str = "optimal") -> DeckSolution:
    """Exact probability that ``policy`` guesses a shuffled r x s deck entirely right.

    Memory: two levels of P vectors, sum_m N[k, m] (m + 1) rows of L limbs each.
    """
    return _run(ranks, suits, ties, policy, keep=False)[0]


def policy_table(ranks: int, suits: int, ties: str = "loss") -> PolicyTable:
    """Every level of the optimal DP, kept so that Monte Carlo can ask for its decisions."""
    _, values, layout = _run(ranks, suits, ties, "optimal", keep=True)
    return PolicyTable(ranks, suits, ties, values, layout)
