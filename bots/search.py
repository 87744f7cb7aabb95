"""The small exact calculation a good player does late in a deal.

When few cards remain, the unseen cards can be dealt among the other seats in only a few ways
that agree with what the seat knows (hand sizes, voids, *monter* caps, the turned card: all in
``Knowledge.possible``).  Each such deal is solved with every hand open (``bots.solver``, under
the rules' legal cards ``Knowledge.facing`` and last-trick bonus): the card points the seat's team
still takes with each legal card, this trick included.
The card with the largest total over the deals wins; ties go to the caller's preference order.
Under muette-1 the deals are solved by the compiled search (``bots.native``), which gives the same
exact values (tests hold the two to each other), so expert-1's cards do not depend on it.

Bounded: at most ``MAX_DEALS`` deals are solved; when more are consistent, that many are drawn
from the decision stream, so the choice stays a pure function of (observation, stream).
"""

from __future__ import annotations

from itertools import combinations

from service.replay import HashStream, Play, Suit, Trick
from service.replay.cards import CARD_POINTS, DECK, iter_ids
from service.replay.rules import LAST_TRICK_BONUS, NO_TRUMP, legal_facing

from . import native
from .knowledge import Knowledge
from .solver import Solver

MAX_DEALS = 8
#: Up to this many unseen cards whose holder is unknown, every consistent deal is listed; beyond,
#: MAX_DEALS of them are drawn one card at a time from the decision stream.
MAX_ENUMERATE_FREE = 6
#: Draw attempts allowed per wanted deal before giving up on drawing.
DRAW_TRIES = 4
#: The compiled search's table for these few cards: 2 ** this entries (24 KiB).  A cache only; a
#: whole deal's 1.5 MiB cost more to allocate and free than three cards a hand search.
SMALL_TABLE_LOG2 = 10

def consistent_deals(k: Knowledge) -> list[tuple[int, int, int, int]] | None:
    """Every way to deal the unseen cards to the other seats that agrees with ``k`` (hands as
    masks indexed by seat, the seat's own hand in its place); None when there are too many."""
    me = k.seat
    if k.unseen.bit_count() - sum(k.sure[s].bit_count() for s in range(4) if s != me) > MAX_ENUMERATE_FREE:
        return None
    others = [s for s in range(4) if s != me]
    sure_all = 0
    for s in others:
        sure_all |= k.sure[s]
    free = k.unseen & ~sure_all
    need = [k.left[s] - k.sure[s].bit_count() for s in range(4)]
    a, b, c = others
    deals: list[tuple[int, int, int, int]] = []
    pa = list(iter_ids(free & k.possible[a]))
    if need[a] < 0 or need[b] < 0 or need[c] < 0 or len(pa) < need[a]:
        return deals
    for combo_a in combinations(pa, need[a]):
        ma = 0
        for x in combo_a:
            ma |= 1 << x
        rest = free & ~ma
        pb = list(iter_ids(rest & k.possible[b]))
        for combo_b in combinations(pb, need[b]):
            mb = 0
            for x in combo_b:
                mb |= 1 << x
            mc = rest & ~mb
            if mc & ~k.possible[c] or mc.bit_count() != need[c]:
                continue
            hands = [0, 0, 0, 0]
            hands[me] = k.hand
            hands[a] = ma | k.sure[a]
            hands[b] = mb | k.sure[b]
            hands[c] = mc | k.sure[c]
            deals.append((hands[0], hands[1], hands[2], hands[3]))
    return deals


def drawn_deals(k: Knowledge, rng: HashStream, n: int) -> list[tuple[int, int, int, int]]:
    """Up to ``n`` deals consistent with ``k`` drawn from ``rng``: the unknown cards, most
    constrained first, each to a random seat that may hold it and has room.  Not exactly uniform
    over the consistent deals, but every deal drawn is consistent."""
    me = k.seat
    others = [s for s in range(4) if s != me]
    sure_all = 0
    for s in others:
        sure_all |= k.sure[s]
    free = list(iter_ids(k.unseen & ~sure_all))
    holders = {c: [s for s in others if k.possible[s] >> c & 1] for c in free}
    free.sort(key=lambda c: (len(holders[c]), c))
    need0 = [k.left[s] - k.sure[s].bit_count() for s in range(4)]
    out: list[tuple[int, int, int, int]] = []
    for _ in range(n * DRAW_TRIES):
        hands = [0, 0, 0, 0]
        hands[me] = k.hand
        need = list(need0)
        for c in free:
            room = [s for s in holders[c] if need[s] > 0]
            if not room:
                break
            s = room[rng.uniform(len(room))] if len(room) > 1 else room[0]
            hands[s] |= 1 << c
            need[s] -= 1
        else:
            for s in others:
                hands[s] |= k.sure[s]
            out.append((hands[0], hands[1], hands[2], hands[3]))
            if len(out) == n:
                break
    return out


def best_card(k: Knowledge, legal: int, rng: HashStream, preference: list[int]) -> int | None:
    """The legal card with the most points over the consistent deals, or None when the
    calculation is not worth it (too many deals, or none: then the rules of thumb decide)."""
    deals = consistent_deals(k)
    if deals is None:
        deals = drawn_deals(k, rng, MAX_DEALS)
    if not deals:
        return None
    if len(deals) > MAX_DEALS:  # a partial Fisher-Yates draw from the decision stream
        deals = list(deals)
        for i in range(MAX_DEALS):
            j = i + rng.uniform(len(deals) - i)
            deals[i], deals[j] = deals[j], deals[i]
        deals = deals[:MAX_DEALS]
    if native.LIB is not None and k.facing is legal_facing and k.bonus == LAST_TRICK_BONUS and k.trump < 4:
        totals = compiled_totals(k, deals, preference)  # muette's duties and bonus: the C search's own
    else:
        totals = python_totals(k, deals, preference)
    top = max(totals.values())
    return next(c for c in preference if totals[c] == top)


def compiled_totals(k: Knowledge, deals, cards: list[int]) -> dict[int, int]:
    """``python_totals``'s answer from the compiled search (``bots.native``): muette-1 only (its
    legal cards and last-trick bonus are the ones written in C)."""
    search = native.NativeSearch(k.trump, SMALL_TABLE_LOG2)
    in_play = k.unseen | k.hand
    for c in k.trick_ids:
        in_play |= 1 << c
    guess = (sum(CARD_POINTS[c] for c in iter_ids(in_play)) + 1) // 2  # a first guess: any is exact
    totals = {c: 0 for c in cards}
    for deal in deals:
        values = search.card_values(deal, k.leader, k.trick_ids, guess)
        for c in cards:
            totals[c] += values[c]
    return totals


def python_totals(k: Knowledge, deals, cards: list[int]) -> dict[int, int]:
    """Card id -> the points the seat's team takes from this trick on with it, summed over
    ``deals``, for each of ``cards`` (legal ones): the Python search (``bots.solver``), under
    the rules' legal cards and last-trick bonus."""
    trump = None if k.trump == NO_TRUMP else Suit(k.trump)
    trick = Trick(k.leader, trump, tuple(Play(s, DECK[c]) for s, c in zip(k.trick_seats, k.trick_ids)))
    solver = Solver(k.trump, compiled=False, facing=k.facing, bonus=k.bonus)
    totals = {c: 0 for c in cards}
    for deal in deals:
        values = solver.card_values(deal, trick)
        for c in cards:
            totals[c] += values[c]
    return totals
