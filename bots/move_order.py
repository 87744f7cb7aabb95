"""The solver's cards as int masks: their points, the 8s and 9s a search may skip as equivalent,
and the order in which a seat tries its cards (``bots.solver`` says how the search uses them).

Kept apart from the search so that ``replies``, its hottest function, stands next to the tables it
reads and can be checked on its own against the rules' ``legal_facing``."""

from __future__ import annotations

from service.replay.cards import CARD_POINTS
from service.replay.rules import STRONGER, SUIT_MASKS

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


def mask_points(mask: int) -> int:
    """Card points in a mask."""
    return _PTS8[mask & 255] + _PTS8[mask >> 8 & 255] + _PTS8[mask >> 16 & 255] + _PTS8[mask >> 24]


def reduce_equivalent(cards: int, in_play: int) -> int:
    """``cards`` without the 8s and 9s equivalent to a lower card of the same mask: one whose next
    lower card of the suit in ``in_play`` is in ``cards`` too (all three ranks are worth 0)."""
    return cards & ~(cards & ((_EIGHTS & (cards << 1))
                              | (_NINES & ((cards << 1) | ((cards << 2) & ~(in_play << 1))))))


def searched_as(card: int, reps: int, in_play: int) -> int:
    """The card searched for ``card``: itself when in ``reps`` (``reduce_equivalent``'s answer),
    else, for an 8 or 9 left out, the next lower card in play, and so on down."""
    while not reps >> card & 1:
        card -= 1
        while not in_play >> card & 1:
            card -= 1
    return card


#: ``rising`` / ``falling`` results by mask (a cache; emptied when large).
_UP_CACHE: dict[int, tuple[int, ...]] = {}
_DOWN_CACHE: dict[int, tuple[int, ...]] = {}
_CACHE_MAX = 1 << 18


def rising(mask: int) -> tuple[int, ...]:
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


def falling(mask: int) -> tuple[int, ...]:
    """Card ids of ``mask`` by falling rank."""
    out = _DOWN_CACHE.get(mask)
    if out is None:
        if len(_DOWN_CACHE) > _CACHE_MAX:
            _DOWN_CACHE.clear()
        out = _DOWN_CACHE[mask] = rising(mask)[::-1]
    return out


def ordered_moves(legal: int, ws: int, seat: int, in_play: int):
    """The cards of ``legal`` worth searching, best guess first: the cheapest first when an
    opponent holds the trick, the dearest first when the seat's partner holds it."""
    legal = reduce_equivalent(legal, in_play)
    top = (legal.bit_length() - 1) >> 3
    if not legal & ~SUIT_MASKS[top]:  # one suit: a table
        return (_UP if (ws ^ seat) & 1 else _DOWN)[top][legal >> (top << 3)]
    return rising(legal) if (ws ^ seat) & 1 else falling(legal)


def replies(hand: int, led: int, best: int, best_seat: int, seat: int, trump: int, u: int):
    """``ordered_moves(legal_facing(hand, led, best, best_seat, seat, trump), best_seat, seat, u)``
    in one call: the search's hottest function.  The rules are ``legal_facing``'s, line for line
    (docs/spec.md §6.3); tests/test_bots_oracle.py checks the two against each other on random
    cases."""
    follow = hand & SUIT_MASKS[led]
    if not (best_seat ^ seat) & 1:  # the partner holds the trick: follow if able; dearest first
        if follow:
            follow &= ~(follow & ((_EIGHTS & (follow << 1)) | (_NINES & ((follow << 1) | ((follow << 2) & ~(u << 1))))))
            return _DOWN[led][follow >> (led << 3)]
        return ordered_moves(hand, 0, 0, u)
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
    return ordered_moves(hand, 0, 1, u)
