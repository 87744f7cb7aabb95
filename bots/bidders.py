"""Bidders: the calls before a deal's play under ``parlee-1`` and ``manillen-1`` (naming or choosing
the trump or no trump, passing, doubling, redoubling).  Each id names frozen behaviour, like a bot's.

- ``random-bidder-1``: a uniform legal call from its stream (the baseline).
- ``longest-bidder-1``: always names its longest suit (ties: more card points, then the later suit
  in canonical order), never no trump, never passes when it may choose, never doubles.
- ``bidder-1``: weighs the hand for each trump and for no trump (``suit_value``), names the best,
  doubles and redoubles strong hands (thresholds in its docstring, tuned and measured in README).
"""

from __future__ import annotations

from service.replay import Call, HashStream, Observation
from service.replay.calls import DOUBLE, NAMING, NT, PASS, REDOUBLE
from service.replay.cards import CARD_POINTS, iter_ids
from service.replay.rules import SUIT_MASKS


class RandomBidder:
    """Frozen behaviour ``random-bidder-1``: ``legal_calls[uniform(len(legal_calls))]``."""

    id = "random-bidder-1"

    def call(self, obs: Observation, rng: HashStream) -> Call:
        return obs.legal_calls[rng.uniform(len(obs.legal_calls))]


def longest_suit(hand: int) -> int:
    """The suit the hand holds most cards of; ties to more card points, then to the later suit."""
    return max(range(4), key=lambda s: ((hand & SUIT_MASKS[s]).bit_count(), _points(hand & SUIT_MASKS[s]), s))


def _points(mask: int) -> int:
    return sum(CARD_POINTS[c] for c in iter_ids(mask))


class LongestBidder:
    """Frozen behaviour ``longest-bidder-1``: names its longest suit whenever it may name one;
    otherwise (a double or redouble offered) passes."""

    id = "longest-bidder-1"

    def call(self, obs: Observation, rng: HashStream) -> Call:
        legal = obs.legal_calls
        if NAMING[0] in legal:
            return NAMING[longest_suit(obs.hand_mask)]
        return PASS


#: Trump strength by rank (7 8 9 J Q K A T): every trump counts, the top ones most.
_TRUMP_VALUE = (2, 2, 2, 3, 4, 5, 7, 9)


def suit_value(hand: int, trump: int) -> int:
    """How many card points a hand is worth with ``trump`` (a suit, or 4 for no trump), roughly:
    its trumps by rank, each trump past the third +3; a side-suit ten 5, an ace with its ten 4, a
    bare ace 1, a king behind ten and ace 3; with no trump, a suit without its ten counts nothing
    and a void or a singleton costs 4."""
    value = 0
    for s in range(4):
        cards = hand & SUIT_MASKS[s]
        n = cards.bit_count()
        ranks = {c & 7 for c in iter_ids(cards)}
        if s == trump:
            value += sum(_TRUMP_VALUE[r] for r in ranks) + 3 * max(0, n - 3)
            continue
        if 7 in ranks:
            value += 5 + (4 if 6 in ranks else 0) + (3 if 6 in ranks and 5 in ranks else 0)
        elif trump != 4 and 6 in ranks:
            value += 1
        if trump == 4 and n <= 1:
            value -= 4
    return value


class Bidder:
    """Frozen behaviour ``bidder-1`` (``suit_value`` weighs a hand for a trump, 4 = no trump).

    Naming (parlee-1's dealer) or choosing (manillen-1, each seat in turn): the suit with the
    highest ``suit_value`` (ties: the later suit), unless the hand holds three tens or more and its
    no-trump value is at least 0.4 × that suit's: then no trump.  Never passes when it may choose
    (``PASS_BELOW`` is 0, and no hand values under 0).  Doubling (parlee-1, the dealer's opponents):
    doubles a suit contract when that suit's value for its own hand is at least 20, a no-trump one
    when it holds two tens or more; else passes.  Redoubling (the dealer's side, after a double):
    redoubles when its own value in the contract (4 for no trump) is at least 24; else passes.
    Never reads its stream.  Tuned on the seeds ``"bidder-tuning"`` (scripts/tune_bidders.py):
    passing weak hands (under 12, 16, 20) lost to longest-bidder-1 in manillen-1; doubling at 16
    or 24, or never, did worse than at 20 in parlee-1; no trump with three tens at 0.4 did best.
    """

    id = "bidder-1"
    #: The thresholds above, as names, so that the tuning script can try others under other ids;
    #: bidder-1 is these values and nothing else.
    NT_TENS = 3
    NT_RATIO = 0.4
    PASS_BELOW = 0  # passes a hand whose value (no trump: twice the best suit's) is under this
    DOUBLE_AT = 20
    DOUBLE_NT_TENS = 2
    REDOUBLE_AT = 24

    def call(self, obs: Observation, rng: HashStream) -> Call:
        legal = obs.legal_calls
        hand = obs.hand_mask
        tens = sum(1 for s in range(4) if hand >> (8 * s + 7) & 1)
        if NAMING[0] in legal:
            best = max(range(4), key=lambda s: (suit_value(hand, s), s))
            value = suit_value(hand, best)
            if tens >= self.NT_TENS and suit_value(hand, 4) >= self.NT_RATIO * value:
                choice, value = NT, 2 * value
            else:
                choice = NAMING[best]
            if PASS in legal and value < self.PASS_BELOW:
                return PASS
            return choice
        contract_trump = obs.calls[0][1].suit if obs.calls else None
        trump = 4 if contract_trump is None else int(contract_trump)
        if DOUBLE in legal:
            if trump != 4 and suit_value(hand, trump) >= self.DOUBLE_AT:
                return DOUBLE
            if trump == 4 and tens >= self.DOUBLE_NT_TENS:
                return DOUBLE
            return PASS
        if REDOUBLE in legal and suit_value(hand, trump) >= self.REDOUBLE_AT:
            return REDOUBLE
        return PASS
