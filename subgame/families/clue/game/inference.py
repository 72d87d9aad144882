"""Exact posterior over the deals consistent with what one player has seen.

A deal gives each card 1..N an owner: a player 0..p-1 (k cards each) or the hidden pile,
owner p (h cards).  What a player has seen reduces to ``Facts``:

* ``holds(o, c)``: its own hand, a card shown to it, a revealed hand;
* ``lacks(o, cards)``: a "none" answer;
* ``some_of(o, cards)``: a clause, "o holds at least one of these" (a card shown to
  someone else).

The owners and their sizes are ``Facts.sizes``: the p hands and the hidden pile here; the
standard game's facts (``standard``) replace the pile by one hidden slot per category.

The posterior is uniform over the consistent deals (it conditions on these facts only, not
on the strategies that produced them).  ``count_deals`` and ``posterior`` count them
exactly, with Python integers, without listing deals:

1. ``reduce`` closes the facts under unit rules: a card with one possible owner is that
   owner's; an owner whose fixed cards fill its size may take no other card; an owner
   whose possible cards equal its remaining capacity takes them all; a clause loses the
   cards its owner cannot hold, is dropped once satisfied, fixes its card when one is
   left; a clause contained in another of the same owner makes that one redundant.
2. The free cards are grouped: same possible owners and same clauses.  Cards of a group are
   interchangeable, so giving n_o of its m cards to each owner o can be done in
   m! / prod n_o! ways.
3. A dynamic programme over the groups, in an order that keeps few clauses open, with
   state (remaining capacity of every owner, which of the open clauses are satisfied):

       W_g+1(cap - n, mask | bits(n)) += W_g(cap, mask) * m! / prod_o n_o!

   where bits(n) are the clauses of owners o with n_o > 0 that contain the group.  When a
   group is the last one of a clause, states in which the clause is unsatisfied are
   dropped.  A capacity that the later groups cannot fill is pruned at once.  The count
   is W at (all capacities 0).  A backward pass gives the completions B_g of every state,
   hence the exact marginals P(owner o holds card c) and exact uniform sampling of deals.

The programme's size depends on the capacities and on the clauses open at once; past
``budget`` transitions it raises ``TooLarge`` and the caller may use
``importance_sample``: sequential importance sampling (each free card goes to a uniformly
drawn owner that can still be completed; weight = product of the numbers of choices, zero
if a clause ends unsatisfied): an unbiased estimate of the count, self-normalised
estimates of the marginals, and their standard errors (delta method) returned with them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from math import factorial

import numpy as np

DEFAULT_BUDGET = 400_000


class TooLarge(Exception):
    """The counting programme would exceed its budget of transitions."""


@dataclass
class Facts:
    cards: int
    hidden: int
    players: int
    fixed: list[tuple[int, int]] = field(default_factory=list)   # (owner, card)
    excluded: set[tuple[int, int]] = field(default_factory=set)  # (owner, card)
    clauses: list[tuple[int, frozenset]] = field(default_factory=list)

    @property
    def hidden_owner(self) -> int:
        return self.players

    @property
    def sizes(self) -> list[int]:
        return [(self.cards - self.hidden) // self.players] * self.players + [self.hidden]

    def holds(self, owner: int, card: int) -> None:
        self.fixed.append((owner, card))

    def hand(self, owner: int, cards) -> None:
        for c in cards:
            self.holds(owner, c)

    def lacks(self, owner: int, cards) -> None:
        self.excluded.update((owner, c) for c in cards)

    def some_of(self, owner: int, cards) -> None:
        self.clauses.append((owner, frozenset(cards)))

    def copy(self) -> "Facts":
        return Facts(self.cards, self.hidden, self.players, list(self.fixed), set(self.excluded),
                     list(self.clauses))


@dataclass
class Reduced:
    """Facts after ``reduce``: possible owners of each card as a bit mask (index 0 unused),
    the capacities left after the fixed cards, the clauses still open."""

    allowed: list[int]
    caps: list[int]
    clauses: list[tuple[int, frozenset]]

    def free_cards(self) -> list[int]:
        return [c for c in range(1, len(self.allowed)) if self.allowed[c] & (self.allowed[c] - 1)]

    def owner_of(self, card: int) -> int | None:
        a = self.allowed[card]
        return a.bit_length() - 1 if a and not a & (a - 1) else None


def reduce(facts: Facts) -> Reduced | None:
    """The unit-rule closure of the module docstring; None when no deal is consistent."""
    sizes = facts.sizes
    owners = len(sizes)
    allowed = [0] + [(1 << owners) - 1] * facts.cards
    for owner, card in facts.fixed:
        allowed[card] &= 1 << owner
    for owner, card in facts.excluded:
        allowed[card] &= ~(1 << owner)
    clauses = list(dict.fromkeys(facts.clauses))
    cards = range(1, facts.cards + 1)
    while True:
        if not all(allowed[c] for c in cards):
            return None
        changed = False
        for o in range(owners):
            bit = 1 << o
            fixed = sum(1 for c in cards if allowed[c] == bit)
            free = [c for c in cards if allowed[c] & bit and allowed[c] != bit]
            cap = sizes[o] - fixed
            if cap < 0 or len(free) < cap:
                return None
            if free and cap == 0:
                for c in free:
                    allowed[c] &= ~bit
                changed = True
            elif free and len(free) == cap:
                for c in free:
                    allowed[c] = bit
                changed = True
        if changed:
            continue
        kept: dict[int, set] = {}
        for owner, clause in clauses:
            bit = 1 << owner
            if any(allowed[c] == bit for c in clause):
                continue
            left = frozenset(c for c in clause if allowed[c] & bit)
            if not left:
                return None
            if len(left) == 1:
                allowed[next(iter(left))] = bit
                changed = True
            kept.setdefault(owner, set()).add(left)
        clauses = [(o, s) for o, sets in kept.items() for s in sets
                   if not any(t < s for t in sets) and len(s) > 1]
        if not changed:
            caps = [sizes[o] - sum(1 for c in cards if allowed[c] == 1 << o) for o in range(owners)]
            return Reduced(allowed, caps, sorted(clauses, key=lambda x: (x[0], sorted(x[1]))))


@dataclass
class _Group:
    cards: list[int]
    owners: list[int]
    bits: list[int]          # per owner: clauses it satisfies by taking a card of the group
    closes: int              # clauses whose last group this is
    supply_after: list[int]  # per owner: free cards of the later groups it may take


def _groups(red: Reduced) -> list[_Group]:
    """Free cards grouped by (possible owners, clauses), ordered to keep few clauses open."""
    owners = len(red.caps)
    member = {}
    for c in red.free_cards():
        key = (red.allowed[c], frozenset(i for i, (_, s) in enumerate(red.clauses) if c in s))
        member.setdefault(key, []).append(c)
    keys = sorted(member, key=lambda k: (not k[1], min(member[k])))
    todo = [k for k in keys if k[1]]
    order, opened, left = [], set(), {i: sum(1 for k in todo if i in k[1]) for i in range(len(red.clauses))}
    while todo:
        def score(k):
            new = len(k[1] - opened)
            closing = sum(1 for i in k[1] if left[i] == 1)
            return (new - closing, min(member[k]))
        k = min(todo, key=score)
        todo.remove(k)
        order.append(k)
        opened |= k[1]
        for i in k[1]:
            left[i] -= 1
    order += [k for k in keys if not k[1]]
    groups, supply = [], [0] * owners
    for allowed, clause_ids in reversed(order):
        owner_list = [o for o in range(owners) if allowed >> o & 1]
        bits = [sum(1 << i for i in clause_ids if red.clauses[i][0] == o) for o in owner_list]
        groups.append(_Group(member[(allowed, clause_ids)], owner_list, bits, 0, list(supply)))
        for o in owner_list:
            supply[o] += len(member[(allowed, clause_ids)])
    groups.reverse()
    seen = 0
    for g in reversed(groups):
        ids = {i for b in g.bits for i in range(len(red.clauses)) if b >> i & 1}
        mask = sum(1 << i for i in ids)
        g.closes = mask & ~seen
        seen |= mask
    return groups


def _transitions(group: _Group, caps: tuple, mask: int):
    """(ways, next caps, next mask, n) for every split n of the group among its owners."""
    m, owners = len(group.cards), group.owners
    lo = [max(0, caps[o] - group.supply_after[o]) for o in owners]
    hi = [min(caps[o], m) for o in owners]
    if sum(lo) > m or sum(hi) < m:
        return
    rest_hi = [sum(hi[i:]) for i in range(len(owners))] + [0]
    rest_lo = [sum(lo[i:]) for i in range(len(owners))] + [0]
    n = [0] * len(owners)

    def split(i, left):
        if i == len(owners) - 1:
            if lo[i] <= left <= hi[i]:
                n[i] = left
                yield tuple(n)
            return
        for v in range(max(lo[i], left - rest_hi[i + 1]), min(hi[i], left - rest_lo[i + 1]) + 1):
            n[i] = v
            yield from split(i + 1, left - v)

    fm = factorial(m)
    for split_n in split(0, m):
        new_caps, new_mask, ways = list(caps), mask, fm
        for o, v, b in zip(owners, split_n, group.bits):
            if v:
                new_caps[o] -= v
                new_mask |= b
                ways //= factorial(v)
        if new_mask & group.closes != group.closes:
            continue
        yield ways, tuple(new_caps), new_mask & ~group.closes, split_n


class Counter:
    """The forward and backward passes of the programme for one ``Reduced``."""

    def __init__(self, red: Reduced, budget: int = DEFAULT_BUDGET, keep: bool = True):
        self.red, self.groups = red, _groups(red)
        start = (tuple(red.caps), 0)
        self.forward = [{start: 1}]
        self.steps: list[dict] = []   # per group: state -> [(ways, next state, n)]
        spent = 0
        for g in self.groups:
            layer, step = {}, {}
            for state, w in self.forward[-1].items():
                out = []
                for ways, caps, mask, n in _transitions(g, *state):
                    nxt = (caps, mask)
                    layer[nxt] = layer.get(nxt, 0) + w * ways
                    out.append((ways, nxt, n))
                spent += len(out) + 1
                if spent > budget:
                    raise TooLarge(f"more than {budget} transitions")
                if keep:
                    step[state] = out
            self.forward.append(layer)
            self.steps.append(step)
        self.total = self.forward[-1].get((tuple([0] * len(red.caps)), 0), 0)
        if keep:
            self._backward()

    def _backward(self):
        end = (tuple([0] * len(self.red.caps)), 0)
        self.backward = [None] * len(self.groups) + [{end: 1}]
        for i in range(len(self.groups) - 1, -1, -1):
            after = self.backward[i + 1]
            self.backward[i] = {s: sum(ways * after.get(nxt, 0) for ways, nxt, _ in out)
                                for s, out in self.steps[i].items()}

    def owner_counts(self) -> dict[int, list[int]]:
        """card -> [number of consistent deals giving it to owner o, for each owner]."""
        owners = len(self.red.caps)
        counts = {}
        for c in range(1, len(self.red.allowed)):
            fixed = self.red.owner_of(c)
            if fixed is not None:
                counts[c] = [self.total if o == fixed else 0 for o in range(owners)]
        for i, g in enumerate(self.groups):
            per_owner = [0] * owners
            after = self.backward[i + 1]
            for state, out in self.steps[i].items():
                w = self.forward[i][state]
                for ways, nxt, n in out:
                    x = w * ways * after.get(nxt, 0)
                    if x:
                        for o, v in zip(g.owners, n):
                            per_owner[o] += x * v
            m = len(g.cards)
            for c in g.cards:
                counts[c] = [x // m for x in per_owner]
        return counts

    def sample(self, rng: random.Random) -> list[int]:
        """One consistent deal, uniformly: owner of each card (index 0 unused)."""
        owner = [-1] + [self.red.owner_of(c) if self.red.owner_of(c) is not None else -1
                        for c in range(1, len(self.red.allowed))]
        state = (tuple(self.red.caps), 0)
        for i, g in enumerate(self.groups):
            after = self.backward[i + 1]
            r = rng.randrange(self.backward[i][state])
            for ways, nxt, n in self.steps[i][state]:
                r -= ways * after.get(nxt, 0)
                if r < 0:
                    break
            cards = list(g.cards)
            rng.shuffle(cards)
            at = 0
            for o, v in zip(g.owners, n):
                for c in cards[at:at + v]:
                    owner[c] = o
                at += v
            state = nxt
        return owner


def count_deals(facts: Facts, budget: int = DEFAULT_BUDGET) -> int:
    red = reduce(facts)
    return 0 if red is None else Counter(red, budget, keep=False).total


@dataclass
class Posterior:
    """Exact: ``deals`` consistent deals; ``holds[c][o]`` of them give card c to owner o
    (owner p is the hidden pile)."""

    facts: Facts
    deals: int
    holds: dict[int, list[int]]
    counter: Counter | None

    def p_hidden(self, card: int) -> Fraction:
        return Fraction(self.holds[card][self.facts.hidden_owner], self.deals)

    def possible_hidden(self) -> list[int]:
        return [c for c in sorted(self.holds) if self.holds[c][self.facts.hidden_owner]]

    def certain(self) -> bool:
        return len(self.possible_hidden()) == self.facts.hidden


def posterior(facts: Facts, budget: int = DEFAULT_BUDGET) -> Posterior | None:
    """The exact posterior, or None when no deal is consistent; TooLarge past ``budget``."""
    red = reduce(facts)
    if red is None:
        return None
    counter = Counter(red, budget)
    if counter.total == 0:
        return None
    return Posterior(facts, counter.total, counter.owner_counts(), counter)


def best_hidden_sets(post: Posterior, budget: int = DEFAULT_BUDGET, at_least: Fraction = Fraction(0)
                     ) -> tuple[list[tuple[int, ...]], Fraction]:
    """The most probable hidden sets and their probability, exactly, by branch and bound:
    P(H) <= min over c in H of P(c hidden), so once a set of probability q is known only
    sets of cards with P(c hidden) >= q can beat it.  Sets below ``at_least`` are not
    looked for: ([], 0) when none reaches it."""
    h, hid = post.facts.hidden, post.facts.hidden_owner
    hidden_count = {c: post.holds[c][hid] for c in post.possible_hidden()}
    floor = max(at_least * post.deals, 0)
    pool = sorted((c for c in hidden_count if hidden_count[c] >= floor),
                  key=lambda c: (-hidden_count[c], c))
    if len(pool) < h:
        return [], Fraction(0)

    def deals_with(cards):
        f = post.facts.copy()
        for c in cards:
            f.holds(hid, c)
        return count_deals(f, budget)

    best = max(floor, 1)
    sets: list[tuple[int, ...]] = []
    first = tuple(sorted(pool[:h]))
    n = deals_with(first)
    if n >= best:
        best, sets = n, [first]
    pool = [c for c in pool if hidden_count[c] >= best]
    for combo in combinations(sorted(pool), h):
        if combo == first or min(hidden_count[c] for c in combo) < best:
            continue
        n = deals_with(combo)
        if n > best:
            best, sets = n, [combo]
        elif n == best:
            sets.append(combo)
    return sorted(sets), (Fraction(best, post.deals) if sets else Fraction(0))


@dataclass
class Estimate:
    """Importance-sampling estimates: P(card hidden) and its standard error per card, the
    estimated number of deals, the effective sample size, and the weighted samples."""

    p_hidden: dict[int, float]
    std_error: dict[int, float]
    deals: float
    effective_samples: float
    owners: np.ndarray      # samples x (N + 1): owner of each card
    weights: np.ndarray     # normalised to sum 1


def importance_sample(facts: Facts, samples: int, rng: np.random.Generator) -> Estimate | None:
    """Sequential importance sampling (module docstring); None when the facts are
    contradictory or no sample satisfied them (then the estimate says nothing)."""
    red = reduce(facts)
    if red is None:
        return None
    owners, n_cards = len(red.caps), len(red.allowed) - 1
    free = red.free_cards()
    base = np.array([-1] + [red.owner_of(c) if red.owner_of(c) is not None else -1
                            for c in range(1, n_cards + 1)])
    allowed = {c: [o for o in range(owners) if red.allowed[c] >> o & 1] for c in free}
    out = np.empty((samples, n_cards + 1), dtype=np.int64)
    logw = np.full(samples, -np.inf)
    for s in range(samples):
        owner, caps = base.copy(), list(red.caps)
        supply = [sum(1 for c in free if o in allowed[c]) for o in range(owners)]
        lw, order = 0.0, [free[i] for i in rng.permutation(len(free))]
        for c in order:
            options = allowed[c]
            for o in options:
                supply[o] -= 1
            tight = [o for o in options if caps[o] > supply[o]]
            choices = tight if tight else [o for o in options if caps[o] > 0]
            if len(tight) > 1 or not choices:
                lw = -np.inf
                break
            o = choices[int(rng.integers(len(choices)))]
            lw += np.log(len(choices))
            owner[c] = o
            caps[o] -= 1
        if lw > -np.inf and all(any(owner[c] == o for c in s_) for o, s_ in red.clauses):
            logw[s] = lw
        out[s] = owner
    if not np.isfinite(logw).any():
        return None
    top = logw.max()
    w = np.exp(logw - top)
    total = w.sum()
    deals = float(np.exp(top + np.log(total / samples)))
    w /= total
    hidden = out == owners - 1
    p = w @ hidden
    se = np.sqrt((w ** 2) @ ((hidden - p) ** 2))
    cards = range(1, n_cards + 1)
    return Estimate({c: float(p[c]) for c in cards}, {c: float(se[c]) for c in cards}, deals,
                    float(1.0 / (w ** 2).sum()), out, w)
