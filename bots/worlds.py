"""The deals of the hidden cards that agree with what one seat knows, counted exactly and drawn
uniformly.

A seat's knowledge (``bots.knowledge.Knowledge``) leaves each unseen card a set of possible
holders (voids shown, *monter* caps, the turned card with the dealer) and each other seat a number
of cards in hand.  Every assignment of the unseen cards to holders that respects both is a
*consistent deal* (a "world"); before any play all deals were equally likely, so these are equally
likely too as far as the rules alone tell.

Cards with the same set of possible holders are interchangeable for counting: there are at most
seven such groups (the non-empty subsets of three seats), and the number of deals is a sum over
how many cards of each group go to each seat, a product of multinomials (``count``).  A draw
(``draw``) picks those splits group by group with probability proportional to the deals they
leave, then deals each group's cards by a seeded shuffle: exactly uniform over the consistent
deals, with no rejection, however tight the constraints.  ``every`` lists them all when few.

Everything is a pure function of the knowledge and the stream (no global random state, ints
only), so the same question gives the same deals on any machine, forever.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from itertools import combinations
from math import comb

from service.replay import HashStream
from service.replay.cards import iter_ids

from .knowledge import Knowledge

World = tuple[int, int, int, int]


class Constraints:
    """The unseen cards grouped by who may hold them, and how many cards each seat still needs."""

    __slots__ = ("seat", "hand", "others", "groups", "need", "_shape", "_bits", "_count", "_steps")

    def __init__(self, k: Knowledge) -> None:
        me = self.seat = k.seat
        self.hand = k.hand
        others = self.others = tuple(s for s in range(4) if s != me)
        by_holders: dict[int, list[int]] = {}
        for c in iter_ids(k.unseen):
            holders = 0
            for i, s in enumerate(others):
                if k.possible[s] >> c & 1:
                    holders |= 1 << i
            by_holders.setdefault(holders, []).append(c)
        # Fixed order (by holder set): the draw reads the stream in this order.
        self.groups = tuple((h, tuple(cards)) for h, cards in sorted(by_holders.items()))
        self.need = tuple(k.left[s] for s in others)
        self._shape = tuple((h, len(cards)) for h, cards in self.groups)  # what the counts depend on
        self._bits = tuple(tuple(1 << c for c in cards) for _, cards in self.groups)  # each group's cards as masks
        self._count: int | None = None
        self._steps: dict = {}  # (group, caps) -> its splits and their running weights: draws repeat them

    @property
    def count(self) -> int:
        """How many consistent deals there are (0 when the knowledge contradicts itself)."""
        if self._count is None:
            self._count = _completions(self._shape, 0, self.need)
        return self._count

    def _world(self, placed: list[int]) -> World:
        hands = [0, 0, 0, 0]
        hands[self.seat] = self.hand
        for i, s in enumerate(self.others):
            hands[s] = placed[i]
        return hands[0], hands[1], hands[2], hands[3]

    def draw(self, rng: HashStream) -> World:
        """One consistent deal, uniformly; raises ValueError when there is none."""
        if not self.count:
            raise ValueError("no deal agrees with this knowledge")
        shape = self._shape
        caps = self.need
        placed = [0, 0, 0]
        steps = self._steps
        for g, (holders, cards) in enumerate(self.groups):
            step = steps.get((g, caps))
            if step is None:
                splits, running = [], []
                total = 0
                for split in _splits(holders, len(cards), caps):
                    w = _multinomial(split) * _completions(shape, g + 1, _minus(caps, split))
                    if w:
                        total += w
                        splits.append(split)
                        running.append(total)
                step = steps[(g, caps)] = (splits, running, total)
            splits, running, total = step
            # the split whose share of the deals holds the pick
            split = splits[bisect_right(running, uniform_big(rng, total))]
            order = list(self._bits[g])  # the cards' masks: the shuffle's order depends only on how many
            rng.shuffle(order)
            a, b = split[0], split[0] + split[1]
            placed[0] |= sum(order[:a])  # distinct bits: their sum is their union
            placed[1] |= sum(order[a:b])
            placed[2] |= sum(order[b:])
            caps = _minus(caps, split)
        return self._world(placed)

    def every(self) -> list[World]:
        """Every consistent deal, in one fixed order (meant for small counts: see ``count``)."""
        out: list[World] = []

        def place(g: int, caps: tuple[int, int, int], placed: list[int]) -> None:
            if g == len(self.groups):
                if caps == (0, 0, 0):
                    out.append(self._world(placed))
                return
            holders, cards = self.groups[g]
            for split in _splits(holders, len(cards), caps):
                rest = _minus(caps, split)
                if not _completions(shape, g + 1, rest):
                    continue  # a dead end: without this, listing costs far more than the deals listed
                for first in combinations(cards, split[0]):
                    left = [c for c in cards if c not in first]
                    for second in combinations(left, split[1]):
                        third = [c for c in left if c not in second]
                        new = list(placed)
                        for i, part in enumerate((first, second, third)):
                            for c in part:
                                new[i] |= 1 << c
                        place(g + 1, rest, new)

        shape = self._shape
        place(0, self.need, [0, 0, 0])
        return out


def uniform_big(rng: HashStream, n: int) -> int:
    """A uniform integer in [0, n) for any n ≥ 1, from as many 32-bit values as it takes, by
    rejection (so exact, as ``HashStream.uniform`` is for n ≤ 2**32)."""
    if n <= 1 << 32:
        return rng.uniform(n)
    words = (n.bit_length() + 31) // 32
    span = 1 << (32 * words)
    limit = span - span % n
    while True:
        u = 0
        for _ in range(words):
            u = (u << 32) | rng.next_u32()
        if u < limit:
            return u % n


def _splits(holders: int, n: int, caps: tuple[int, int, int]):
    """How ``n`` cards may go to the seats of ``holders`` (bits over the three other seats) within
    ``caps``: tuples (to seat 0, 1, 2 of the three), in one fixed order."""
    c0 = caps[0] if holders & 1 else 0
    c1 = caps[1] if holders & 2 else 0
    c2 = caps[2] if holders & 4 else 0
    for x0 in range(min(n, c0) + 1):
        for x1 in range(min(n - x0, c1) + 1):
            x2 = n - x0 - x1
            if x2 <= c2:
                yield x0, x1, x2


def _minus(caps: tuple[int, int, int], split: tuple[int, int, int]) -> tuple[int, int, int]:
    return caps[0] - split[0], caps[1] - split[1], caps[2] - split[2]


def _multinomial(split: tuple[int, int, int]) -> int:
    a, b, c = split
    return comb(a + b + c, a) * comb(b + c, b)


@lru_cache(maxsize=1 << 16)
def _completions(shape: tuple[tuple[int, int], ...], g: int, caps: tuple[int, int, int]) -> int:
    """Deals of groups ``g``… (``shape``: holder set and size of each) filling ``caps`` exactly."""
    if g == len(shape):
        return 1 if caps == (0, 0, 0) else 0
    if sum(caps) != sum(n for _, n in shape[g:]):
        return 0
    holders, n = shape[g]
    total = 0
    for split in _splits(holders, n, caps):
        total += _multinomial(split) * _completions(shape, g + 1, _minus(caps, split))
    return total
