"""A double-dummy solver for the rest of a deal, and ``oracle-1``, the bot that plays by it.

**What it computes.**  With all four hands open, the exact number of card points (the +1 of the
last trick included) that the team of the seat to move takes from the trick in progress (the
cards already in it included) to the end of the *current* deal, when both teams play perfectly.
A deal is scored from its own points only and the next deal is new hands, so the deal is the
whole game tree.  ``solve`` gives that value for each legal card of the seat to move,
``best_cards`` the set of cards that reach the best one, ``value`` the best value.

**How.**  Team minimax (seats 0 and 2 maximise the points of team 0, seats 1 and 3 minimise
them; the seat to move changes irregularly, so it is max/min by team, not negamax by seat), with
fail-soft alpha-beta on the points:

- one call of the search per trick boundary; the four plays of a trick are four nested loops
  inside it, on int masks (no call per card; the move lists are shared tuples from tables);
- a transposition table at every trick boundary, keyed on the four hand masks and the leader
  (the value of the rest of a deal depends on nothing else once the trump is fixed), holding a
  lower and an upper bound on team 0's points and the best lead found.  One ``Solver`` per trump
  suit, so the table is kept from one decision of a deal to the next;
- move ordering: the table's best lead first, then the leads by a history score (cut-offs they
  caused, per seat) and by rising points; a follower tries its cheapest card when an opponent
  holds the trick (the rules leave it only winners or only losers then) and its dearest when its
  partner does;
- equivalent cards: an 8 or a 9 is not searched when the next lower card of its suit still in
  play (hands and trick in progress) is in the same hand: no card in play separates them and
  neither is worth a point, so swapping them changes nothing.  Cards adjacent in strength but
  not in points (9/J, J/Q, …, A/T) are *not* equivalent here: whoever takes the trick takes a
  different number of points;
- cheap cut-offs: a trick's outcome is known when the window is out of reach of
  ``[gain, gain + points still out]``, and the last trick is played out without a search;
- the exact value comes from null-window probes (MTD(f)-style: first at a guess, then beside
  it, then by bisection with the fail-soft bounds), which prune more than one wide window on
  a 0–61 scale.  ``best_cards`` then tests each legal card once with a null window at the best
  value; ``solve`` also probes each worse card down to its exact value.  Within a deal the
  previous answer gives the next question's guess (``banked``).

Nothing is approximate: every bound kept is a proven bound, every cut-off is alpha-beta's; the
tests compare with a plain minimax over the engine's own ``Trick`` and ``legal_mask``.

**oracle-1** plays, among the optimal cards, the one with the fewest card points, ties to the
lowest canonical index (RULES §3.3): deterministic, and a pure function of the full game state
(the caches change the time it takes, never the card).
It reads every hand, so it is *not* a ``Bot`` in the sense of RULES §8: it has ``choose_open``
(the whole ``GameState``), and its ``choose`` (an observation) always raises.  It is therefore
never in ``bots.BOTS`` and can never play a daily challenge or verify a submission; the
tournament (``cli.tournament``) and measurement scripts hand it the state.
"""

from __future__ import annotations

from service.replay import GameState, ManilleError, Trick
from service.replay.cards import CARD_POINTS, DECK, Card
from service.replay.rules import RULES_ID, STRONGER, SUIT_MASKS, legal_facing

#: Above any value (a deal hands out 61 points).
INF = 1 << 10
_EIGHTS = 0x02020202
_NINES = 0x04040404
#: Points of the cards of one suit, by the suit's 8-bit mask.
_PTS8 = tuple(sum(CARD_POINTS[r] for r in range(8) if b >> r & 1) for b in range(256))
#: Card masks to "rank-major" masks (bit 4 × rank + suit), to list cards of several suits by
#: rising points; ``_RM_CARD`` maps a rank-major bit back to its card id.
_RM = tuple(tuple(sum(1 << (4 * r + s) for r in range(8) if b >> r & 1) for b in range(256)) for s in range(4))
_RM_CARD = tuple(8 * (i & 3) + (i >> 2) for i in range(32))
#: The cards of one suit's 8-bit mask, weakest first / strongest first, by suit.
_UP = tuple(tuple(tuple(8 * s + r for r in range(8) if b >> r & 1) for b in range(256)) for s in range(4))
_DOWN = tuple(tuple(t[::-1] for t in by_suit) for by_suit in _UP)
#: Above this many entries a solver's table is emptied (it is a cache: values stay exact).
MAX_TABLE = 1_000_000


class OracleError(ManilleError):
    """oracle-1 was asked to play from an observation, or a position is not a legal one."""


def mask_points(mask: int) -> int:
    """Card points in a mask."""
    return _PTS8[mask & 255] + _PTS8[mask >> 8 & 255] + _PTS8[mask >> 16 & 255] + _PTS8[mask >> 24]


def reduce_equivalent(cards: int, in_play: int) -> int:
    """``cards`` without the 8s and 9s equivalent to a lower card of the same mask: one whose next
    lower card of the suit in ``in_play`` is in ``cards`` too (all three ranks are worth 0)."""
    return cards & ~(cards & ((_EIGHTS & (cards << 1))
                              | (_NINES & ((cards << 1) | ((cards << 2) & ~(in_play << 1))))))


#: ``_up`` / ``_down`` results by mask (a cache; emptied when large).
_UP_CACHE: dict[int, tuple[int, ...]] = {}
_DOWN_CACHE: dict[int, tuple[int, ...]] = {}
_CACHE_MAX = 1 << 18


def _up(mask: int) -> tuple[int, ...]:
    """Card ids of ``mask`` by rising rank (points), suits in canonical order within a rank."""
    out = _UP_CACHE.get(mask)
    if out is None:
        rm = _RM[0][mask & 255] | _RM[1][mask >> 8 & 255] | _RM[2][mask >> 16 & 255] | _RM[3][mask >> 24]
        ids = []
        while rm:
            low = rm & -rm
            ids.append(_RM_CARD[low.bit_length() - 1])
            rm ^= low
        if len(_UP_CACHE) > _CACHE_MAX:
            _UP_CACHE.clear()
        out = _UP_CACHE[mask] = tuple(ids)
    return out


def _down(mask: int) -> tuple[int, ...]:
    """Card ids of ``mask`` by falling rank."""
    out = _DOWN_CACHE.get(mask)
    if out is None:
        if len(_DOWN_CACHE) > _CACHE_MAX:
            _DOWN_CACHE.clear()
        out = _DOWN_CACHE[mask] = _up(mask)[::-1]
    return out


def _beats(card: int, best: int, trump: int) -> bool:
    """Whether ``card`` played now takes the trick from ``best`` (RULES §6.2)."""
    if card >> 3 == best >> 3:
        return card > best
    return card >> 3 == trump


class Solver:
    """Exact open-hand search for deals with one trump suit.  The table and the history scores
    are caches: they speed up later calls (the same deal's next decisions) and never change a
    result.  Not thread-safe."""

    __slots__ = ("trump", "table", "history", "counter", "final", "_h", "_node")

    def __init__(self, trump: int) -> None:
        self.trump = int(trump)
        self.table: dict = {}
        self.history = [[0] * 32 for _ in range(4)]
        self.counter = [0]  # boundary nodes searched (not found in the table)
        #: Team 0's points at the end of the deal as last solved (with ``banked`` given): the
        #: first guess of the next question of the deal.  A hint only, like the table.
        self.final: int | None = None
        self._h = [0, 0, 0, 0]
        self._node = _build_search(self.trump, self.table, self.history, self._h, self.counter)

    @property
    def nodes(self) -> int:
        return self.counter[0]

    def clear(self) -> None:
        self.table.clear()

    # -- positions ------------------------------------------------------------------------

    def _setup(self, hands, trick: Trick, banked: int | None) -> "_Root":
        if int(trick.trump) != self.trump:
            raise OracleError(f"this solver is for trump {'CDHS'[self.trump]}, the trick's is {trick.trump}")
        if len(self.table) > MAX_TABLE:
            self.table.clear()
        root = _Root(self, list(hands), trick)
        self._h[:] = root.hands
        if banked is not None and self.final is not None:
            root.guess = min(max(self.final - banked, 0), root.total)
        return root

    def _solved(self, root: "_Root", team0: int, banked: int | None) -> None:
        if banked is not None:
            self.final = banked + team0

    # ``banked``: team 0's points from the deal's completed tricks, when known (a GameState's
    # ``points[0]``); it only makes the first guess of the search better.

    def card_values(self, hands, trick: Trick, banked: int | None = None) -> dict[int, int]:
        """Card id -> exact points the mover's team takes from here, for every legal card."""
        root = self._setup(hands, trick, banked)
        best, _ = root.best()
        self._solved(root, root.team0(best), banked)
        values = {}
        for c in root.moves:
            if c in root.best_set:
                values[c] = best
            else:  # strictly worse than ``best``: search it exactly below it
                values[c] = root.child_exact(c)
        return root.expand(values)

    def best(self, hands, trick: Trick, banked: int | None = None) -> tuple[int, frozenset[int]]:
        """The best value for the mover's team and the set of card ids that reach it."""
        root = self._setup(hands, trick, banked)
        best, ids = root.best()
        self._solved(root, root.team0(best), banked)
        return best, frozenset(root.expand({c: 0 for c in ids}))

    def card_value(self, hands, trick: Trick, card: int, banked: int | None = None) -> int:
        """The exact points the mover's team takes from here after playing ``card`` (legal)."""
        root = self._setup(hands, trick, banked)
        if not root.legal >> card & 1:
            raise OracleError(f"{DECK[card]} is not a legal card here")
        return root.mover_value(_exact(lambda a, b: root.child(card, a, b), 0, root.total, root.guess))

    def value(self, hands, trick: Trick, banked: int | None = None) -> int:
        """The exact points the mover's team takes from here under perfect play."""
        root = self._setup(hands, trick, banked)
        team0 = _exact(root.search, 0, root.total, root.guess)
        self._solved(root, team0, banked)
        return root.mover_value(team0)


class _Root:
    """The position a question is asked about: maybe in the middle of a trick."""

    __slots__ = ("solver", "hands", "leader", "trick_ids", "tl", "total", "mover", "maximise", "legal",
                 "in_play", "moves", "best_set", "bounds", "guess", "_state")

    def __init__(self, solver: Solver, hands: list[int], trick: Trick) -> None:
        self.solver = solver
        self.hands = hands
        self.leader = trick.leader
        self.trick_ids = [p.card.id for p in trick.plays]
        mover = self.mover = trick.next_seat
        if len(trick.plays) == 4:
            raise OracleError("the trick is complete")
        union = 0
        for h in hands:
            if union & h:
                raise OracleError("two hands share a card")
            union |= h
        trick_mask = sum(1 << c for c in self.trick_ids)
        if union & trick_mask:
            raise OracleError("a card of the trick is still in a hand")
        tl = self.tl = hands[mover].bit_count()
        for i in range(4):
            seat = (self.leader + i) & 3
            want = tl - 1 if i < len(self.trick_ids) else tl
            if hands[seat].bit_count() != want or tl == 0:
                raise OracleError("the hands do not fit the trick in progress")
        self.in_play = union | trick_mask
        #: Team 0's points and the mover's team's: they add up to this.
        self.total = mask_points(self.in_play) + 1
        self.maximise = not mover & 1
        if self.trick_ids:
            w = trick.winning_play
            legal = legal_facing(hands[mover], self.trick_ids[0] >> 3, w.card.id, w.seat, mover, solver.trump)
            self._state = (w.card.id, w.seat, self.trick_ids[0] >> 3, sum(CARD_POINTS[c] for c in self.trick_ids))
        else:
            legal = hands[mover]
            self._state = None
        self.legal = legal
        reps = reduce_equivalent(legal, self.in_play)
        self.moves = [c for c in range(32) if reps >> c & 1]
        self.best_set: set[int] = set()
        self.bounds: dict[int, int] = {}
        self.guess = self.total // 2  # of team 0's points

    def mover_value(self, team0: int) -> int:
        return team0 if self.maximise else self.total - team0

    def team0(self, mover_value: int) -> int:
        return mover_value if self.maximise else self.total - mover_value

    def search(self, alpha: int, beta: int) -> int:
        """Team 0's points from here (fail-soft in the window)."""
        s = self.solver
        if self._state is None:
            return _from_boundary(s, self.leader, self.tl, self.total, alpha, beta)
        w, ws, led, p = self._state
        return _tail(s, self.leader, len(self.trick_ids), w, ws, led, p, self.tl, self.total - p, self.in_play,
                     alpha, beta)

    def child(self, c: int, alpha: int, beta: int) -> int:
        """Team 0's points when the mover plays ``c`` (fail-soft in the window)."""
        s = self.solver
        h = s._h
        mover = self.mover
        hand = h[mover]
        h[mover] = hand ^ (1 << c)
        try:
            if self._state is None:
                w, ws, led, p = c, mover, c >> 3, CARD_POINTS[c]
            else:
                w, ws, led, p = self._state
                if _beats(c, w, s.trump):
                    w, ws = c, mover
                p += CARD_POINTS[c]
            n = len(self.trick_ids) + 1
            return _tail(s, self.leader, n, w, ws, led, p, self.tl, self.total - p, self.in_play, alpha, beta)
        finally:
            h[mover] = hand

    def child_exact(self, c: int) -> int:
        """The mover's value of ``c``, a card ``best`` found worse than the best: its test left a
        bound on the far side of the best value, which is the first guess."""
        bound = self.bounds[c]
        if self.maximise:
            return _exact(lambda a, b: self.child(c, a, b), 0, bound, bound)
        return self.total - _exact(lambda a, b: self.child(c, a, b), bound, self.total, bound)

    def best(self) -> tuple[int, list[int]]:
        """The best value for the mover and the representative cards that reach it."""
        v = _exact(self.search, 0, self.total, self.guess)
        ids = []
        for c in self.moves:
            if self.maximise:
                r = self.child(c, v - 1, v)
                if r >= v:
                    ids.append(c)
            else:
                r = self.child(c, v, v + 1)
                if r <= v:
                    ids.append(c)
            self.bounds[c] = r  # team 0's points: a bound, beyond v for the cards that are worse
        self.best_set = set(ids)
        return self.mover_value(v), ids

    def expand(self, values: dict[int, int]) -> dict[int, int]:
        """``values`` of the representative cards, extended to the legal cards they stand for."""
        out = {}
        legal, in_play = self.legal, self.in_play
        for c in range(32):
            if not legal >> c & 1:
                continue
            if c in values:
                out[c] = values[c]
                continue
            if c in self.moves:
                continue
            d = c - 1  # an 8 or 9 left out: its value is that of the next lower card in play
            while not in_play >> d & 1:
                d -= 1
            if d in out:
                out[c] = out[d]
        return out


def _exact(search, lo: int, hi: int, guess: int) -> int:
    """The exact value known to lie in ``[lo, hi]``, by null-window probes ``search(b - 1, b)``
    ("is it ≥ b?"): first at ``guess``, then just beside the first answer (so that a right guess
    costs two probes, as in MTD(f)), then halving the interval.  Fail-soft answers tighten it."""
    b = guess
    probes = 0
    while lo < hi:
        if b <= lo:
            b = lo + 1
        elif b > hi:
            b = hi
        r = search(b - 1, b)
        probes += 1
        if r < b:
            hi = r
            b = hi if probes == 1 else (lo + hi + 1) // 2
        else:
            lo = r
            b = lo + 1 if probes == 1 else (lo + hi + 1) // 2
    return lo


def _last_trick(h, leader: int, trump: int) -> int:
    """The winner of a trick where every seat has one card left (all forced)."""
    best = h[leader].bit_length() - 1
    bs = leader
    for k in (1, 2, 3):
        s = (leader + k) & 3
        c = h[s].bit_length() - 1
        if (c >> 3 == best >> 3 and c > best) or (c >> 3 == trump and best >> 3 != trump):
            best, bs = c, s
    return bs


def _from_boundary(solver: Solver, leader: int, tl: int, rem: int, alpha: int, beta: int) -> int:
    """Team 0's points of the ``tl`` tricks left, ``leader`` to lead, ``rem`` = points in hands + 1."""
    if tl == 1:
        return 0 if _last_trick(solver._h, leader, solver.trump) & 1 else rem
    return solver._node(leader, tl, rem, alpha, beta)


def _order(legal: int, ws: int, seat: int, in_play: int):
    """The cards of ``legal`` worth searching, best guess first: the cheapest first when an
    opponent holds the trick, the dearest first when the seat's partner holds it."""
    legal = reduce_equivalent(legal, in_play)
    top = (legal.bit_length() - 1) >> 3
    if not legal & ~SUIT_MASKS[top]:  # one suit: a table
        return (_UP if (ws ^ seat) & 1 else _DOWN)[top][legal >> (top << 3)]
    return _up(legal) if (ws ^ seat) & 1 else _down(legal)


def _replies(hand: int, led: int, best: int, best_seat: int, seat: int, trump: int, u: int):
    """``_order(legal_facing(hand, led, best, best_seat, seat, trump), best_seat, seat, u)`` in one
    call: the search's hottest function.  The rules are ``legal_facing``'s, line for line (RULES
    §6.3); tests/test_bots_oracle.py checks the two against each other on random cases."""
    follow = hand & SUIT_MASKS[led]
    if not (best_seat ^ seat) & 1:  # the partner holds the trick: follow if able; dearest first
        if follow:
            follow &= ~(follow & ((_EIGHTS & (follow << 1)) | (_NINES & ((follow << 1) | ((follow << 2) & ~(u << 1))))))
            return _DOWN[led][follow >> (led << 3)]
        return _order(hand, 0, 0, u)
    if follow:  # an opponent holds it: must beat in the led suit if able; cheapest first
        if best >> 3 == led:
            higher = follow & STRONGER[best]
            if higher:
                follow = higher
        follow &= ~(follow & ((_EIGHTS & (follow << 1)) | (_NINES & ((follow << 1) | ((follow << 2) & ~(u << 1))))))
        return _UP[led][follow >> (led << 3)]
    trumps = hand & SUIT_MASKS[trump]
    if trumps:  # void: must trump, and overtrump if able
        if best >> 3 == trump:
            higher = trumps & STRONGER[best]
            if higher:
                trumps = higher
        trumps &= ~(trumps & ((_EIGHTS & (trumps << 1)) | (_NINES & ((trumps << 1) | ((trumps << 2) & ~(u << 1))))))
        return _UP[trump][trumps >> (trump << 3)]
    return _order(hand, 0, 1, u)


def _tail(solver: Solver, leader: int, n: int, w: int, ws: int, led: int, p: int, tl: int, rem: int,
          in_play: int, alpha: int, beta: int) -> int:
    """Team 0's points from a trick in progress (``n`` ≥ 1 cards played, ``w`` of seat ``ws``
    holding it, ``p`` points in it) to the end of the deal; ``rem`` = points in hands + 1,
    ``in_play`` = the hands and the trick.  Plays the rest of the trick one card at a time: only
    the trick a question is asked in goes through here, every later one through the search."""
    h = solver._h
    if n == 4:
        if tl == 1:  # the last trick: rem is its extra point
            return 0 if ws & 1 else p + rem
        g = 0 if ws & 1 else p
        return g + _from_boundary(solver, ws, tl - 1, rem, alpha - g, beta - g)
    trump = solver.trump
    seat = (leader + n) & 3
    hand = h[seat]
    maximise = not seat & 1
    value = -1 if maximise else INF
    for c in _order(legal_facing(hand, led, w, ws, seat, trump), ws, seat, in_play):
        h[seat] = hand ^ (1 << c)
        if _beats(c, w, trump):
            v = _tail(solver, leader, n + 1, c, seat, led, p + CARD_POINTS[c], tl, rem - CARD_POINTS[c],
                      in_play, alpha, beta)
        else:
            v = _tail(solver, leader, n + 1, w, ws, led, p + CARD_POINTS[c], tl, rem - CARD_POINTS[c],
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


def _build_search(trump: int, table: dict, history: list, h: list, counter: list):
    """The search from a trick boundary, as a closure over its tables (locals are the fastest
    names in CPython).  ``node(leader, tl, rem, alpha, beta)``: team 0's points of the ``tl`` ≥ 2
    tricks left with the hands in ``h`` and ``leader`` to lead; ``rem`` = points in hands + 1.
    Fail-soft: a result ≤ alpha is an upper bound, ≥ beta a lower bound, between them exact."""
    get = table.get
    PTS = CARD_POINTS
    replies = _replies
    up = _up

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
                if (c1 >> 3 == led and c1 > c0) or (c1 >> 3 == trump and led != trump):
                    w1, ws1 = c1, s1
                else:
                    w1, ws1 = c0, s0
                p1 = p0 + PTS[c1]
                a2, b2 = a1, b1
                v2 = -1 if max0 else INF
                hand2 = h[s2]
                for c2 in replies(hand2, led, w1, ws1, s2, trump, u):
                    h[s2] = hand2 ^ (1 << c2)
                    if (c2 >> 3 == w1 >> 3 and c2 > w1) or (c2 >> 3 == trump and w1 >> 3 != trump):
                        w2, ws2 = c2, s2
                    else:
                        w2, ws2 = w1, ws1
                    p2 = p1 + PTS[c2]
                    a3, b3 = a2, b2
                    v3 = -1 if max1 else INF
                    hand3 = h[s3]
                    for c3 in replies(hand3, led, w2, ws2, s3, trump, u):
                        if (c3 >> 3 == w2 >> 3 and c3 > w2) or (c3 >> 3 == trump and w2 >> 3 != trump):
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
                                if (c >> 3 == b >> 3 and c > b) or (c >> 3 == trump and b >> 3 != trump):
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


# -- questions about a game state ----------------------------------------------------------------


def _position(state) -> tuple[list[int], Trick, int | None]:
    """The four hands, the trick in progress and team 0's points banked in the deal of a
    GameState, or of a ``(hands, trick)`` pair (banked unknown)."""
    if isinstance(state, GameState):
        if state.is_over:
            raise OracleError("the game is over")
        return list(state.hands), state.trick, state.points[0]
    hands, trick = state
    return list(hands), trick, None


def _solver_for(trick: Trick, solver: Solver | None) -> Solver:
    if solver is not None and solver.trump == int(trick.trump):
        return solver
    return Solver(int(trick.trump))


def solve(state, solver: Solver | None = None) -> dict[Card, int]:
    """Every legal card of the seat to move -> the exact card points (last-trick point included)
    its team takes from the trick in progress to the end of the current deal under perfect play
    by both teams.  ``state`` is a GameState or a ``(hands, trick)`` pair (hands as 4 masks);
    ``solver`` (same trump) may be passed to reuse its table across questions of one deal."""
    hands, trick, banked = _position(state)
    values = _solver_for(trick, solver).card_values(hands, trick, banked)
    return {DECK[c]: v for c, v in sorted(values.items())}


def best_cards(state, solver: Solver | None = None) -> frozenset[Card]:
    """The legal cards of the seat to move that reach the best value (``solve``'s maximum)."""
    hands, trick, banked = _position(state)
    _, ids = _solver_for(trick, solver).best(hands, trick, banked)
    return frozenset(DECK[c] for c in ids)


def value(state, solver: Solver | None = None) -> int:
    """The exact points the team to move takes from the trick in progress to the end of the deal."""
    hands, trick, banked = _position(state)
    return _solver_for(trick, solver).value(hands, trick, banked)


def card_value(state, card: Card, solver: Solver | None = None) -> int:
    """``solve(state)[card]`` for one legal card, without solving the others."""
    hands, trick, banked = _position(state)
    return _solver_for(trick, solver).card_value(hands, trick, card.id, banked)


def pick(cards) -> Card:
    """oracle-1's tie-break among optimal cards: the fewest card points, then the lowest index."""
    return min(cards, key=lambda c: (c.points, c.id))


# -- oracle-1 --------------------------------------------------------------------------------------


class OracleBot:
    """``oracle-1``: plays an optimal card of the double-dummy solution (see ``pick``).

    A measurement bot: it reads every hand through ``choose_open(state)``.  ``choose`` (the Bot
    protocol, an observation only) always raises OracleError, so wherever the product plays a
    bot from observations (daily challenges, verification, ``manille play``) it cannot play.
    Its solver (and table) is kept for the deal in progress only.
    """

    id = "oracle-1"
    #: Needs the full GameState: drivers call ``choose_open``, never ``choose``.
    sees_all = True

    def __init__(self) -> None:
        self._deal: tuple | None = None
        self._solver: Solver | None = None

    def choose(self, obs, rng) -> Card:
        raise OracleError(
            "oracle-1 reads every hand: it is a measurement bot (tournaments, anti-cheat analysis), "
            "it cannot play from an observation and can never be the bot of a challenge")

    def solver_for(self, state: GameState) -> Solver:
        """The solver of ``state``'s deal (a new one, empty, when the deal changed)."""
        deal = (state.seed, state.deal_index)
        if deal != self._deal or self._solver is None:
            self._deal = deal
            self._solver = Solver(int(state.trick.trump))
        return self._solver

    def choose_open(self, state: GameState) -> Card:
        """An optimal card for the seat to move; raises OracleError under rules other than
        muette-1 (its solver knows only muette-1's legal cards, trump suits and last-trick point)."""
        if state.rules.id != RULES_ID:
            raise OracleError(f"oracle-1 plays {RULES_ID} only, not {state.rules.id}: its solver knows "
                              f"only {RULES_ID}'s legal cards, a trump suit and the last-trick point")
        legal = state.legal_mask()
        if not legal & (legal - 1):
            return DECK[legal.bit_length() - 1]
        return pick(best_cards(state, self.solver_for(state)))
