"""``expert-1``: the bot of the daily challenge; plays from its observation as a good club player.

Rules of thumb (the product page's advice) on masks, cheap enough to replay every decision of
every submission:

- counts the cards fallen, so it knows which cards are *masters* (no unseen card beats them);
- tracks the voids seen and what *monter* / *surcouper* reveal (bots.knowledge), and that the
  dealer holds the turned card;
- leading: draws trumps when long in them (four or more) and not when short; cashes side-suit
  masters no opponent can be seen to trump; never opens a suit where it holds the ace without the
  ten while it has another choice; otherwise leads its cheapest card, keeping small guards;
- following: loads its partner's trick with its big cards when the partner is sure to win it
  (charger le pli); takes an opponent's trick with the cheapest card that is sure to hold; throws
  the least useful card otherwise, keeping a small card in each suit when it can;
- late in a deal (three cards or fewer left in hand) it calculates instead: bots.search plays out every
  deal of the unseen cards consistent with what it knows and picks the card with the most points.

Under every rules id: it reads the trump from ``obs.trump`` (no trump is index 4, an empty suit,
so the trump rules of thumb fall silent), and its inference and search follow the rules' legal
cards and last-trick bonus (``rules_for(obs.rules)``); under muette-1 it plays exactly as before
the other ids existed.

Every choice is a pure function of the observation; ties end on the card id, so no dict, set or
float order enters a decision.  Frozen as ``expert-1`` (docs/spec.md §11): a change is a new id.
"""

from __future__ import annotations

from service.replay import Card, HashStream, Observation
from service.replay.cards import CARD_POINTS, DECK, iter_ids
from service.replay.rules import SUIT_MASKS, beats

from .knowledge import Knowledge, top_id
from .search import best_card as search_best_card

ACE, TEN = 6, 7
#: Hand size from which the exact late-deal calculation replaces the rules of thumb.
SEARCH_FROM = 3
DRAW_MIN = 4
MASTER_MIN = 3


class ExpertBot:
    """Frozen behaviour ``expert-1``."""

    id = "expert-1"

    def choose(self, obs: Observation, rng: HashStream) -> Card:
        legal = obs.legal_mask
        if not legal & (legal - 1):  # one legal card: nothing to decide
            return DECK[legal.bit_length() - 1]
        k = Knowledge(obs)
        if k.hand.bit_count() <= SEARCH_FROM:
            card = search_best_card(k, legal, rng, preference(k, legal))
            if card is not None:
                return DECK[card]
        return DECK[_rules_card(k, legal)]

    def rule_card(self, k: Knowledge, legal: int) -> int | None:
        """The card ``choose`` plays from ``k`` (more than one ``legal`` card) when its rules of
        thumb decide, without the stream: None from ``SEARCH_FROM`` cards in hand down."""
        return None if k.hand.bit_count() <= SEARCH_FROM else _rules_card(k, legal)


def _rules_card(k: Knowledge, legal: int) -> int:
    """The rules of thumb's card: a follow's when a trick is in progress, else a lead's."""
    return _follow(k, legal) if k.trick_ids else _lead(k, legal)


def preference(k: Knowledge, legal: int) -> list[int]:
    """The rules-of-thumb card first, then the rest by id: the search's tie-break order."""
    first = _rules_card(k, legal)
    return [first] + [c for c in iter_ids(legal) if c != first]


# -- leading ----------------------------------------------------------------------------------


def _lead(k: Knowledge, legal: int) -> int:
    hand = k.hand
    trump = k.trump
    tmask = SUIT_MASKS[trump]
    me = k.seat
    opps = ((me + 1) & 3, (me + 3) & 3)
    partner = me ^ 2
    my_trumps = hand & tmask
    n_trumps = my_trumps.bit_count()
    opp_trumps = (k.possible[opps[0]] | k.possible[opps[1]]) & tmask
    unseen_trumps = k.unseen & tmask

    # 1. Draw trumps when long in them (or longer than all the trumps still out), while an
    #    opponent may still hold one: the master trump first, else the smallest.
    if my_trumps and opp_trumps and (n_trumps >= DRAW_MIN or (n_trumps >= 2 and n_trumps > unseen_trumps.bit_count())):
        top = top_id(my_trumps)
        if k.is_master(top):
            return top
        if n_trumps >= DRAW_MIN:
            return _lowest(my_trumps)

    # 2. Cash a side-suit master that no opponent is seen to be able to trump.
    best_master, best_value = -1, -1
    for suit, cards in _side_suits(hand, trump):
        top = top_id(cards)
        if not k.is_master(top):
            continue
        suit_out = k.unseen & SUIT_MASKS[suit]
        risky = False
        for o in opps:
            # An opponent who may be void here and may hold a trump can ruff it.
            if (not (k.possible[o] & suit_out) or not suit_out) and k.possible[o] & tmask:
                risky = True
        if risky:
            continue
        value = CARD_POINTS[top] * 4 + suit_out.bit_count()
        if value > best_value:
            best_master, best_value = top, value
    if best_master >= 0 and CARD_POINTS[best_master] >= MASTER_MIN:
        return best_master

    # 3. A cheap lead from a side suit, never from one where it holds the ace without the ten.
    best, best_cost = -1, 1 << 30
    for suit, cards in _side_suits(hand, trump):
        ace_bare = cards >> (8 * suit + ACE) & 1 and k.unseen >> (8 * suit + TEN) & 1
        if ace_bare:
            continue
        low = cards & -cards
        c = low.bit_length() - 1
        cost = CARD_POINTS[c] * 4 + (c & 7)
        for o in opps:
            if not (k.possible[o] & SUIT_MASKS[suit]) and k.possible[o] & tmask:
                cost += 6  # an opponent will ruff it
        if not (k.possible[partner] & SUIT_MASKS[suit]) and k.possible[partner] & tmask:
            cost -= 3  # the partner may ruff it
        if cards.bit_count() == 1 and my_trumps and CARD_POINTS[c] == 0:
            cost -= 1  # a singleton small card: leading it makes a void to ruff with later
        if cost < best_cost:
            best, best_cost = c, cost
    if best_master >= 0 and (best < 0 or CARD_POINTS[best] > 0):
        return best_master
    if best >= 0:
        return best
    if best_master >= 0:
        return best_master

    # 4. Only trumps, or suits with a bare ace: a trump (the master if held), else the smallest
    #    card of a bare-ace suit.
    if my_trumps:
        top = top_id(my_trumps)
        return top if k.is_master(top) else _lowest(my_trumps)
    return _discard(k, legal)


def _side_suits(hand: int, trump: int):
    """(suit, cards held in it) for each non-trump suit the hand holds, in suit order."""
    for suit in range(4):
        if suit != trump and hand & SUIT_MASKS[suit]:
            yield suit, hand & SUIT_MASKS[suit]


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


# -- following --------------------------------------------------------------------------------


def _follow(k: Knowledge, legal: int) -> int:
    me = k.seat
    trump = k.trump
    led = k.trick_ids[0] >> 3
    best, best_seat = k.win_id, k.win_seat
    n_played = len(k.trick_ids)
    opps_after = [(me + i) & 3 for i in range(1, 4 - n_played) if i & 1]
    ids = list(iter_ids(legal))

    if not (best_seat ^ me) & 1:  # the partner holds the trick
        if not any(k.may_beat(s, best, led) for s in opps_after):
            return _load(k, ids)
        trick_points = sum(CARD_POINTS[c] for c in k.trick_ids)
        securing = [c for c in ids if beats(c, best, trump)
                    and not any(k.may_beat(s, c, led) for s in opps_after)]
        if securing:
            c = min(securing, key=lambda c: (c >> 3 == trump, CARD_POINTS[c], c))
            if c >> 3 != trump or trick_points >= 5:
                return c
        return _discard(k, legal)

    winners = [c for c in ids if beats(c, best, trump)]
    if not winners:
        return _discard(k, legal)
    cheapest = lambda cs: min(cs, key=lambda c: (c >> 3 == trump, CARD_POINTS[c], c & 7, c))  # noqa: E731
    if not opps_after:
        return cheapest(winners)
    sure = [c for c in winners if not any(k.may_beat(s, c, led) for s in opps_after)]
    if sure:
        return cheapest(sure)
    if len(winners) == len(ids):
        return cheapest(winners)
    return _discard(k, legal)


def _load(k: Knowledge, ids: list[int]) -> int:
    """The card to give a trick the partner is sure to win: the most points, trumps and side-suit
    masters last (they win tricks of their own); with no points to give, a plain discard."""
    trump = k.trump
    best, best_value = -1, -(1 << 30)
    for c in ids:
        value = CARD_POINTS[c] * 10 + (c & 7)
        if c >> 3 == trump:
            value -= 100
        elif CARD_POINTS[c] and k.is_master(c):
            value -= 40
        if value > best_value:
            best, best_value = c, value
    if CARD_POINTS[best] == 0 or best >> 3 == trump:
        return _discard(k, sum(1 << c for c in ids))
    return best


def _discard(k: Knowledge, legal: int) -> int:
    """The least useful legal card: fewest points, trumps and masters kept, and the last small
    card guarding bigger ones in its suit kept when possible."""
    trump = k.trump
    hand = k.hand
    best, best_cost = -1, 1 << 30
    for c in iter_ids(legal):
        suit = c >> 3
        cost = CARD_POINTS[c] * 10 + (c & 7)
        if suit == trump:
            cost += 100
        elif CARD_POINTS[c] and k.is_master(c):
            cost += 25
        if c & 7 <= 2:
            in_suit = hand & SUIT_MASKS[suit]
            small = in_suit & 0x07070707 & SUIT_MASKS[suit]
            if small == 1 << c and in_suit != small:
                cost += 8  # the last small card in front of bigger ones
        if cost < best_cost:
            best, best_cost = c, cost
    return best


__all__ = ["ExpertBot"]
