"""The double-dummy solver: exact answers about a position of one deal with all four hands open
(``bots.oracle`` asks them about a game state).

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
  partner does.  The compiled search (``bots/native/dds.c``) leads in a fixed order instead,
  side suits' cards from the top and then trumps, which measured sooner there; the order never
  changes an answer, only the time;
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

Here are the questions and their probes; the search is a ``bots.alphabeta.Search`` the solver
owns, the card tables and the move ordering are ``bots.move_order``.  Under other rules ids the
same search plays their legal cards (``facing``) and last-trick point (``bonus``); the compiled
search knows muette-1's only.
"""

from __future__ import annotations

from service.replay import ManilleError, Trick
from service.replay.cards import CARD_POINTS, DECK
from service.replay.rules import LAST_TRICK_BONUS, NO_TRUMP, beats, legal_facing

from . import native
from .alphabeta import Search
from .move_order import mask_points, reduce_equivalent, searched_as


class OracleError(ManilleError):
    """oracle-1 was asked to play from an observation, or a position is not a legal one."""


class Solver:
    """Exact open-hand search for deals with one trump suit (``NO_TRUMP``: none), under the
    rules' legal cards ``facing`` and last-trick point ``bonus`` (muette-1's by default).  Its
    search's table and history scores are caches: they speed up later calls (the same deal's
    next decisions) and never change a result.  Not thread-safe.

    Every question goes to the compiled search (``bots.native``) when it is there and knows the
    rules (muette-1's, with a trump): the same answers, 35-81 times sooner at a deal's first
    lead.  ``compiled=False`` keeps to the Python search, the reference the tests hold the
    compiled one to."""

    __slots__ = ("trump", "bonus", "search", "final", "_native")

    def __init__(self, trump: int, *, compiled: bool = True, facing=legal_facing,
                 bonus: int = LAST_TRICK_BONUS) -> None:
        self.trump = int(trump)
        self.bonus = bonus
        muette = facing is legal_facing and bonus == LAST_TRICK_BONUS and self.trump != NO_TRUMP
        self._native = (native.NativeSearch(self.trump) if compiled and muette and native.LIB is not None
                        else None)
        self.search = Search(self.trump, facing)
        #: Team 0's points at the end of the deal as last solved (with ``banked`` given): the
        #: first guess of the next question of the deal.  A hint only, like the table.
        self.final: int | None = None

    @property
    def nodes(self) -> int:
        return self.search.nodes + (self._native.nodes if self._native is not None else 0)

    @property
    def compiled(self) -> bool:
        return self._native is not None

    def clear(self) -> None:
        self.search.table.clear()
        if self._native is not None:
            self._native.clear()

    # -- positions ------------------------------------------------------------------------

    def _setup(self, hands, trick: Trick, banked: int | None) -> "_Root":
        if trick.trump_index != self.trump:
            raise OracleError(f"this solver is for trump {'CDHS-'[self.trump]}, the trick's is {trick.trump}")
        root = _Root(self, list(hands), trick)
        self.search.start(root.hands)
        if banked is not None and self.final is not None:
            root.guess = min(max(self.final - banked, 0), root.total)
        return root

    def _compiled(self, root: "_Root", banked: int | None) -> tuple[dict[int, int], int]:
        """Every legal card's value and the best, from the compiled search (the best noted as the
        next question's guess, as ``_solved`` does for the Python search)."""
        values = self._native.card_values(root.hands, root.leader, root.trick_ids, root.guess)
        best = max(values.values())
        self._solved(root, root.team0(best), banked)
        return values, best

    def _solved(self, root: "_Root", team0: int, banked: int | None) -> None:
        if banked is not None:
            self.final = banked + team0

    # ``banked``: team 0's points from the deal's completed tricks, when known (a GameState's
    # ``points[0]``); it only makes the first guess of the search better.

    def card_values(self, hands, trick: Trick, banked: int | None = None) -> dict[int, int]:
        """Card id -> exact points the mover's team takes from here, for every legal card."""
        root = self._setup(hands, trick, banked)
        if self._native is not None:
            return self._compiled(root, banked)[0]
        best, _ = root.best()
        self._solved(root, root.team0(best), banked)
        values = {}
        for c in root.moves:
            if c in root.best_set:
                values[c] = best
            else:  # strictly worse than ``best``: search it exactly below it
                values[c] = root.child_exact(c)
        return root.expand(values)

    def card_bounds(self, hands, trick: Trick, banked: int | None = None) -> tuple[dict[int, int], int]:
        """The mover's team's best points from here, and card id -> its points for every legal
        card that reaches them, an upper bound strictly below them for the others (one
        null-window test each: the first half of ``card_values``' work; ``card_exact`` the rest)."""
        root = self._setup(hands, trick, banked)
        if self._native is not None:
            values, best = self._native.card_bounds(root.hands, root.leader, root.trick_ids, root.guess)
        else:
            best, _ = root.best()
            values = root.expand({c: best if c in root.best_set else root.mover_value(root.bounds[c])
                                  for c in root.moves})
        self._solved(root, root.team0(best), banked)
        return values, best

    def card_exact(self, hands, trick: Trick, card: int, upper: int) -> int:
        """The exact points the mover's team takes after its legal ``card``, given ``upper``, an
        upper bound of them (``card_bounds``' answer for the card)."""
        root = self._setup(hands, trick, None)
        if not root.legal >> card & 1:
            raise OracleError(f"{DECK[card]} is not a legal card here")
        if self._native is not None:
            return self._native.card_exact(root.hands, root.leader, root.trick_ids, card, upper)
        card = searched_as(card, reduce_equivalent(root.legal, root.in_play), root.in_play)
        if root.maximise:
            return _exact(lambda a, b: root.child(card, a, b), 0, upper, upper)
        lower = root.total - upper
        return root.total - _exact(lambda a, b: root.child(card, a, b), lower, root.total, lower)

    def best(self, hands, trick: Trick, banked: int | None = None) -> tuple[int, frozenset[int]]:
        """The best value for the mover's team and the set of card ids that reach it."""
        root = self._setup(hands, trick, banked)
        if self._native is not None:
            values, best = self._compiled(root, banked)
            return best, frozenset(c for c, v in values.items() if v == best)
        best, ids = root.best()
        self._solved(root, root.team0(best), banked)
        return best, frozenset(root.expand({c: 0 for c in ids}))

    def card_value(self, hands, trick: Trick, card: int, banked: int | None = None) -> int:
        """The exact points the mover's team takes from here after playing ``card`` (legal)."""
        root = self._setup(hands, trick, banked)
        if not root.legal >> card & 1:
            raise OracleError(f"{DECK[card]} is not a legal card here")
        if self._native is not None:
            return self._compiled(root, banked)[0][card]
        return root.mover_value(_exact(lambda a, b: root.child(card, a, b), 0, root.total, root.guess))

    def value(self, hands, trick: Trick, banked: int | None = None) -> int:
        """The exact points the mover's team takes from here under perfect play."""
        root = self._setup(hands, trick, banked)
        if self._native is not None:
            return self._compiled(root, banked)[1]
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
        self.total = mask_points(self.in_play) + solver.bonus
        self.maximise = not mover & 1
        if self.trick_ids:
            w = trick.winning_play
            legal = solver.search.facing(hands[mover], self.trick_ids[0] >> 3, w.card.id, w.seat, mover,
                                         solver.trump)
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
        search = self.solver.search
        if self._state is None:
            return search.from_boundary(self.leader, self.tl, self.total, alpha, beta)
        w, ws, led, p = self._state
        return search.tail(self.leader, len(self.trick_ids), w, ws, led, p, self.tl, self.total - p, self.in_play,
                           alpha, beta)

    def child(self, c: int, alpha: int, beta: int) -> int:
        """Team 0's points when the mover plays ``c`` (fail-soft in the window)."""
        search = self.solver.search
        h = search.hands
        mover = self.mover
        hand = h[mover]
        h[mover] = hand ^ (1 << c)
        try:
            if self._state is None:
                w, ws, led, p = c, mover, c >> 3, CARD_POINTS[c]
            else:
                w, ws, led, p = self._state
                if beats(c, w, search.trump):
                    w, ws = c, mover
                p += CARD_POINTS[c]
            n = len(self.trick_ids) + 1
            return search.tail(self.leader, n, w, ws, led, p, self.tl, self.total - p, self.in_play, alpha, beta)
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
