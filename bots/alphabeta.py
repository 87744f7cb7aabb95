"""The double-dummy search proper: fail-soft alpha-beta over whole tricks from a trick boundary,
with its transposition table, history scores and cheap cut-offs.  ``Search`` holds one search's
state; a ``bots.solver.Solver`` owns one and asks it the questions (its docstring says how the
search goes)."""

from __future__ import annotations

from service.replay.cards import CARD_POINTS
from service.replay.rules import beats, legal_facing

from .move_order import ordered_moves, replies, rising, reduce_equivalent

#: Above any value (a deal hands out 61 points).
INF = 1 << 10
#: Above this many entries the table is emptied (it is a cache: values stay exact).
MAX_TABLE = 1_000_000


class Search:
    """The search of a deal with one trump suit (NO_TRUMP: none), under the rules' legal cards
    ``facing`` (muette-1's ``legal_facing`` by default).  ``hands`` are the four hand masks the
    search plays from (the caller sets them, and plays a card by editing them); the table and the
    history scores are caches kept from one question to the next, never changing a value.

    The last-trick point is the caller's: ``rem`` (the points still to take) counts it."""

    __slots__ = ("trump", "facing", "table", "history", "hands", "counter", "_node")

    def __init__(self, trump: int, facing=legal_facing) -> None:
        self.trump = trump
        self.facing = facing
        self.table: dict = {}
        self.history = [[0] * 32 for _ in range(4)]
        self.hands = [0, 0, 0, 0]
        self.counter = [0]  # boundary nodes searched (not found in the table)
        if facing is legal_facing:
            moves = replies  # muette's rule and the move order in one call: the hottest function
        else:
            def moves(hand, led, best, best_seat, seat, trump, u):
                return ordered_moves(facing(hand, led, best, best_seat, seat, trump), best_seat, seat, u)
        self._node = _build_node(trump, self.table, self.history, self.hands, self.counter, moves)

    @property
    def nodes(self) -> int:
        return self.counter[0]

    def start(self, hands) -> None:
        """Search from ``hands`` (the table is emptied when it has grown past MAX_TABLE)."""
        if len(self.table) > MAX_TABLE:
            self.table.clear()
        self.hands[:] = hands

    def from_boundary(self, leader: int, tl: int, rem: int, alpha: int, beta: int) -> int:
        """Team 0's points of the ``tl`` tricks left, ``leader`` to lead, ``rem`` = points in hands
        + the last-trick point."""
        if tl == 1:
            return 0 if _last_trick(self.hands, leader, self.trump) & 1 else rem
        return self._node(leader, tl, rem, alpha, beta)

    def tail(self, leader: int, n: int, w: int, ws: int, led: int, p: int, tl: int, rem: int, in_play: int,
             alpha: int, beta: int) -> int:
        """Team 0's points from a trick in progress (``n`` ≥ 1 cards played, ``w`` of seat ``ws``
        holding it, ``p`` points in it) to the end of the deal; ``rem`` = points in hands + the
        last-trick point, ``in_play`` = the hands and the trick.  Plays the rest of the trick one
        card at a time: only the trick a question is asked in goes through here, every later one
        through the search."""
        h = self.hands
        if n == 4:
            if tl == 1:  # the last trick: rem is its extra point
                return 0 if ws & 1 else p + rem
            g = 0 if ws & 1 else p
            return g + self.from_boundary(ws, tl - 1, rem, alpha - g, beta - g)
        trump = self.trump
        seat = (leader + n) & 3
        hand = h[seat]
        maximise = not seat & 1
        value = -1 if maximise else INF
        for c in ordered_moves(self.facing(hand, led, w, ws, seat, trump), ws, seat, in_play):
            h[seat] = hand ^ (1 << c)
            if beats(c, w, trump):
                v = self.tail(leader, n + 1, c, seat, led, p + CARD_POINTS[c], tl, rem - CARD_POINTS[c],
                              in_play, alpha, beta)
            else:
                v = self.tail(leader, n + 1, w, ws, led, p + CARD_POINTS[c], tl, rem - CARD_POINTS[c],
                              in_play, alpha, beta)
            if maximise:
                if v > value:
                    value = v
                    if v > alpha:
                        alpha = v
            elif v < value:
                value = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        h[seat] = hand
        return value


def _last_trick(h, leader: int, trump: int) -> int:
    """The winner of a trick where every seat has one card left (all forced)."""
    best = h[leader].bit_length() - 1
    bs = leader
    for k in (1, 2, 3):
        s = (leader + k) & 3
        c = h[s].bit_length() - 1
        if beats(c, best, trump):
            best, bs = c, s
    return bs


def _build_node(trump: int, table: dict, history: list, h: list, counter: list, replies):
    """The search from a trick boundary, as a closure over its tables (locals are the fastest
    names in CPython); ``replies`` lists a follower's legal cards in the order they are tried.
    ``node(leader, tl, rem, alpha, beta)``: team 0's points of the ``tl`` ≥ 2 tricks left with
    the hands in ``h`` and ``leader`` to lead; ``rem`` = points in hands + the last-trick point.
    Fail-soft: a result ≤ alpha is an upper bound, ≥ beta a lower bound, between them exact."""
    get = table.get
    PTS = CARD_POINTS
    up = rising

    def node(leader, tl, rem, alpha, beta):
        h0, h1, h2, h3 = h
        key = (h0, h1, h2, h3, leader)
        e = get(key)
        if e is None:
            if beta <= 0:
                return 0
            if alpha >= rem:
                return rem
            lo, hi, mv = 0, rem, -1
        else:
            lo, hi, mv = e
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi
        a0 = alpha if alpha > lo else lo
        b0 = beta if beta < hi else hi
        wa, wb = a0, b0
        u = h0 | h1 | h2 | h3
        s0 = leader
        s1 = (leader + 1) & 3
        s2 = (leader + 2) & 3
        s3 = (leader + 3) & 3
        max0 = not s0 & 1
        max1 = not max0
        last = tl == 2  # after this trick, one card each: played out, no search
        hand0 = h[s0]
        hist = history[s0]
        moves0 = up(reduce_equivalent(hand0, u))
        if len(moves0) > 1:
            moves0 = sorted(moves0, key=hist.__getitem__, reverse=True)  # stable: rising points first
            if mv >= 0 and moves0[0] != mv:
                moves0.remove(mv)
                moves0.insert(0, mv)
        v0 = -1 if max0 else INF
        bm = -1
        for c0 in moves0:
            h[s0] = hand0 ^ (1 << c0)
            led = c0 >> 3
            p0 = PTS[c0]
            a1, b1 = a0, b0
            v1 = -1 if max1 else INF
            hand1 = h[s1]
            for c1 in replies(hand1, led, c0, s0, s1, trump, u):
                h[s1] = hand1 ^ (1 << c1)
                if beats(c1, c0, trump):
                    w1, ws1 = c1, s1
                else:
                    w1, ws1 = c0, s0
                p1 = p0 + PTS[c1]
                a2, b2 = a1, b1
                v2 = -1 if max0 else INF
                hand2 = h[s2]
                for c2 in replies(hand2, led, w1, ws1, s2, trump, u):
                    h[s2] = hand2 ^ (1 << c2)
                    if beats(c2, w1, trump):
                        w2, ws2 = c2, s2
                    else:
                        w2, ws2 = w1, ws1
                    p2 = p1 + PTS[c2]
                    a3, b3 = a2, b2
                    v3 = -1 if max1 else INF
                    hand3 = h[s3]
                    for c3 in replies(hand3, led, w2, ws2, s3, trump, u):
                        if beats(c3, w2, trump):
                            ws = s3
                        else:
                            ws = ws2
                        p = p2 + PTS[c3]
                        g = 0 if ws & 1 else p
                        r = rem - p
                        if last:  # the last trick is forced: play it out
                            x = hand3 ^ (1 << c3)
                            b = (x if ws == s3 else h[ws]).bit_length() - 1
                            bs = ws
                            for k in (1, 2, 3):
                                sk = (ws + k) & 3
                                c = (x if sk == s3 else h[sk]).bit_length() - 1
                                if beats(c, b, trump):
                                    b, bs = c, sk
                            v = g if bs & 1 else g + r
                        elif g >= b3:  # the rest is worth 0 to r: the window is out of reach
                            v = g
                        elif g + r <= a3:
                            v = g + r
                        else:
                            h[s3] = hand3 ^ (1 << c3)
                            v = g + node(ws, tl - 1, r, a3 - g, b3 - g)
                        if max1:
                            if v > v3:
                                v3 = v
                                if v > a3:
                                    a3 = v
                                    if a3 >= b3:
                                        break
                        elif v < v3:
                            v3 = v
                            if v < b3:
                                b3 = v
                                if a3 >= b3:
                                    break
                    h[s3] = hand3
                    if max0:
                        if v3 > v2:
                            v2 = v3
                            if v3 > a2:
                                a2 = v3
                                if a2 >= b2:
                                    break
                    elif v3 < v2:
                        v2 = v3
                        if v3 < b2:
                            b2 = v3
                            if a2 >= b2:
                                break
                h[s2] = hand2
                if max1:
                    if v2 > v1:
                        v1 = v2
                        if v2 > a1:
                            a1 = v2
                            if a1 >= b1:
                                break
                elif v2 < v1:
                    v1 = v2
                    if v2 < b1:
                        b1 = v2
                        if a1 >= b1:
                            break
            h[s1] = hand1
            if max0:
                if v1 > v0:
                    v0 = v1
                    bm = c0
                    if v1 > a0:
                        a0 = v1
                        if a0 >= b0:
                            hist[c0] += 1 << tl
                            break
            elif v1 < v0:
                v0 = v1
                bm = c0
                if v1 < b0:
                    b0 = v1
                    if a0 >= b0:
                        hist[c0] += 1 << tl
                        break
        h[s0] = hand0
        # What the search proved, with the table's previous bounds kept.
        if v0 <= wa:
            if v0 < hi:
                hi = v0
        elif v0 >= wb:
            if v0 > lo:
                lo = v0
        else:
            lo = hi = v0
        table[key] = (lo, hi, bm)
        counter[0] += 1
        return v0

    return node
