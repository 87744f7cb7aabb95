"""The small exact calculation a good player does late in a deal.

When few cards remain, the unseen cards can be dealt among the other seats in only a few ways
that agree with what the seat knows (hand sizes, voids, *monter* caps, the turned card: all in
``Knowledge.possible``).  For each such deal, a tiny alpha-beta minimax plays out the rest of the
deal with every hand open, under the rules' legal cards (``Knowledge.facing``), and scores the
card points (and the rules' last-trick bonus) the seat's team still takes, this trick included.
The card with the largest total over the deals wins; ties go to the caller's preference order.
Under muette-1 the deals are solved by the compiled search (``bots.native``), which gives the same
exact values (tests hold the two to each other), so expert-1's cards do not depend on it.

Bounded: at most ``MAX_DEALS`` deals are solved; when more are consistent, that many are drawn
from the decision stream, so the choice stays a pure function of (observation, stream).
"""

from __future__ import annotations

from itertools import combinations

from service.replay import HashStream
from service.replay.cards import CARD_POINTS, iter_ids
from service.replay.rules import LAST_TRICK_BONUS, legal_facing

from . import native
from .knowledge import Knowledge

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
    ``deals``, for each of ``cards`` (legal ones)."""
    totals = {c: 0 for c in cards}
    solver = _Solver(k.trump, k.seat & 1, k.facing, k.bonus)
    trick_ids, leader = k.trick_ids, k.leader
    n = len(trick_ids)
    pts0 = 0
    for c in trick_ids:
        pts0 += CARD_POINTS[c]
    tricks_left = k.hand.bit_count()
    for deal in deals:
        hands = list(deal)
        for c in cards:
            hands[k.seat] ^= 1 << c
            best, best_seat = (k.win_id, k.win_seat) if n else (c, k.seat)
            if n:
                if (c >> 3 == best >> 3 and c > best) or (c >> 3 == k.trump and best >> 3 != k.trump):
                    best, best_seat = c, k.seat
                led = trick_ids[0] >> 3
            else:
                led = c >> 3
            totals[c] += solver.play(hands, leader, n + 1, best, best_seat, led, pts0 + CARD_POINTS[c],
                                     tricks_left, -1, 1 << 10)
            hands[k.seat] ^= 1 << c
    return totals


class _Solver:
    """Open-hand alpha-beta over the rest of the deal; values are the points the team still takes
    (``facing``: the rules' legal-card function; ``bonus``: their last-trick point)."""

    __slots__ = ("trump", "team", "facing", "bonus", "table")

    def __init__(self, trump: int, team: int, facing=legal_facing, bonus: int = LAST_TRICK_BONUS) -> None:
        self.trump = trump
        self.team = team
        self.facing = facing
        self.bonus = bonus
        #: Bounds (low, high) on the value of the tricks left from a trick boundary, keyed on the
        #: four hands and the leader; shared by the candidate cards of one deal.  A cache only:
        #: the values it returns are the exact minimax ones, whatever it holds.
        self.table: dict = {}

    def _boundary(self, hands, leader, tricks_left, alpha, beta) -> int:
        key = (hands[0], hands[1], hands[2], hands[3], leader)
        entry = self.table.get(key)
        if entry is None:
            low, high = -1, 1 << 10
        else:
            low, high = entry
            if low >= beta or low == high:
                return low
            if high <= alpha:
                return high
            if low > alpha:
                alpha = low
            if high < beta:
                beta = high
        v = self.play(hands, leader, 0, -1, -1, -1, 0, tricks_left, alpha, beta)
        if v <= alpha:
            high = v if v < high else high
        elif v >= beta:
            low = v if v > low else low
        else:
            low = high = v
        self.table[key] = (low, high)
        return v

    def play(self, hands, leader, n, best, best_seat, led, pts, tricks_left, alpha, beta) -> int:
        if n == 4:
            last = tricks_left == 1
            gain = pts + self.bonus if last else pts
            if best_seat & 1 != self.team:
                gain = 0
            if last:
                return gain
            return gain + self._boundary(hands, best_seat, tricks_left - 1, alpha - gain, beta - gain)
        trump = self.trump
        if tricks_left == 1:  # one card each: the rest of the last trick is forced
            for i in range(n, 4):
                c = hands[(leader + i) & 3].bit_length() - 1
                pts += CARD_POINTS[c]
                if (c >> 3 == best >> 3 and c > best) or (c >> 3 == trump and best >> 3 != trump) or i == 0:
                    best, best_seat = c, (leader + i) & 3
            return pts + self.bonus if best_seat & 1 == self.team else 0
        seat = (leader + n) & 3
        hand = hands[seat]
        legal = hand if n == 0 else self.facing(hand, led, best, best_seat, seat, trump)
        maximize = (seat & 1) == self.team
        value = -1 if maximize else 1 << 10
        while legal:
            low = legal & -legal
            legal ^= low
            c = low.bit_length() - 1
            hands[seat] = hand ^ low
            if n == 0:
                v = self.play(hands, leader, 1, c, seat, c >> 3, CARD_POINTS[c], tricks_left, alpha, beta)
            else:
                nb, ns = best, best_seat
                if (c >> 3 == best >> 3 and c > best) or (c >> 3 == trump and best >> 3 != trump):
                    nb, ns = c, seat
                if n == 3:  # the trick is complete: score it and go on from its winner
                    gain = pts + CARD_POINTS[c] if ns & 1 == self.team else 0
                    v = gain + self._boundary(hands, ns, tricks_left - 1, alpha - gain, beta - gain)
                else:
                    v = self.play(hands, leader, n + 1, nb, ns, led, pts + CARD_POINTS[c], tricks_left,
                                  alpha, beta)
            if maximize:
                if v > value:
                    value = v
                    if v > alpha:
                        alpha = v
            else:
                if v < value:
                    value = v
                    if v < beta:
                        beta = v
            if alpha >= beta:
                break
        hands[seat] = hand
        return value
