"""expert-1 under parlee-1 and manillen-1: what it infers from the rules' obligations, its search's
rules, and that it answers a legal card in every position of many playouts."""

from __future__ import annotations

import hashlib

import pytest

from bots import get_bidder, get_bot
from bots.knowledge import Knowledge
from bots.solver import Solver
from support.scripted import trick_of
from service.replay import (MANILLEN, MUETTE, PARLEE, Call, Card, Contract, HashStream, Observation, Trick,
                            legal_mask, mask_of, parse_cards, play_game)
from service.replay.rules import SUIT_MASKS, legal_facing, trump_forced

EXPERT = get_bot("expert-1")
GREEDY = get_bot("greedy-1")


def _obs(rules, seat, hand, trick="", tricks=(), trump="H", leader=None, dealer=3):
    """An observation under ``rules`` after the auction: the contract names ``trump`` (None: NT);
    ``trick``/``tricks`` as "seat:card ..." in playing order."""
    suit = None if trump is None else Card.parse("7" + trump).suit
    done = [trick_of(text, suit) for text in tricks]
    t = trick_of(trick, suit, seat if leader is None else leader)
    assert t.next_seat == seat
    hand_mask = mask_of(parse_cards(hand))
    if rules is MUETTE:
        return Observation(seat=seat, deal_index=0, dealer=dealer, turned=Card.parse("8" + trump),
                           hand_mask=hand_mask, legal_mask=legal_mask(hand_mask, t, seat), trick=t,
                           tricks=tuple(done), points=(0, 0), totals=(0, 0))
    call = Call.naming(suit)
    return Observation(seat=seat, deal_index=0, dealer=dealer, turned=None, hand_mask=hand_mask,
                       legal_mask=legal_mask(hand_mask, t, seat, rules.facing), trick=t, tricks=tuple(done),
                       points=(0, 0), totals=(0, 0), rules=rules.id, target=rules.target,
                       contract=Contract(call, dealer, 0, 1), factor=1)


def _may_hold(k: Knowledge, seat: int, cards: str) -> bool:
    return bool(k.possible[seat] & mask_of(parse_cards(cards)))


HAND = "7C 8C 9C JC QC KC AD TD"  # seat 0 holds no spade and no heart


@pytest.mark.parametrize("rules", [MUETTE, PARLEE])
def test_following_low_under_an_opponent_reveals_no_higher_card_where_one_must_beat(rules):
    # Seat 1 leads KS, seat 2 follows 7S: it had to beat with AS or TS if it held one.
    k = Knowledge(_obs(rules, 0, HAND, "1:KS 2:7S 3:8S"))
    assert not _may_hold(k, 2, "AS TS") and _may_hold(k, 3, "AS TS")


def test_manillen_following_low_reveals_nothing_no_duty_to_beat():
    k = Knowledge(_obs(MANILLEN, 0, HAND, "1:KS 2:7S 3:8S"))
    assert _may_hold(k, 2, "AS") and _may_hold(k, 2, "TS")


def test_manillen_a_void_seat_that_did_not_trump_has_no_trump_even_under_its_partner():
    # Seat 1 holds the trick with KS; its partner seat 3, void in spades, throws 7D.
    muette = Knowledge(_obs(MUETTE, 0, HAND, "1:KS 2:8S 3:7D"))
    assert _may_hold(muette, 3, "TH 9H")  # muette: no duty to trump over a partner
    manillen = Knowledge(_obs(MANILLEN, 0, HAND, "1:KS 2:8S 3:7D"))
    assert not manillen.possible[3] & SUIT_MASKS[2] and not manillen.possible[3] & SUIT_MASKS[3]


def test_manillen_undertrumping_a_partner_reveals_no_higher_trump():
    # Seat 1 trumps with 9H; its partner seat 3, void too, plays 7H: it could not overtrump.
    tricks = ("0:7S 1:9H 2:8S 3:7H",)
    manillen = Knowledge(_obs(MANILLEN, 0, "7C 8C 9C JC QC KC AD", "1:7D 2:8D 3:9D", tricks))
    assert not _may_hold(manillen, 3, "JH QH KH AH TH") and _may_hold(manillen, 1, "TH")
    muette = Knowledge(_obs(MUETTE, 0, "7C 8C 9C JC QC KC AD", "1:7D 2:8D 3:9D", tricks))
    assert _may_hold(muette, 3, "TH")


def test_no_trump_is_the_empty_suit_and_no_turned_card_is_assumed():
    k = Knowledge(_obs(PARLEE, 0, HAND, "1:KS 2:8S 3:7D", trump=None))
    assert k.trump == 4 and k.facing is legal_facing and k.bonus == 0
    assert _may_hold(k, 3, "TH")  # a void seat in a no-trump deal reveals nothing of hearts
    assert Knowledge(_obs(MANILLEN, 0, HAND, trump=None)).facing is trump_forced
    # Without a turned card no seat is placed a card: everything unseen may be anywhere.
    k = Knowledge(_obs(MANILLEN, 0, HAND, trump="S", dealer=1))
    assert k.possible[2] == k.possible[3] == k.unseen


def test_the_search_scores_the_rules_last_trick_bonus():
    # The last trick, one card each, seat 0 leads TC (the manille, 5 points) and wins it.
    hands = [mask_of(parse_cards(c)) for c in ("TC", "7C", "8C", "9C")]
    for rules in (MUETTE, PARLEE, MANILLEN):
        solver = Solver(0, compiled=False, facing=rules.facing, bonus=rules.last_trick_bonus)
        assert solver.value(list(hands), Trick(0, 0)) == 5 + rules.last_trick_bonus


def test_expert_answers_the_rules_legal_cards_facing_a_partner():
    # Seat 0, void in spades with 7D 7H (trump H), faces its partner's TS: parlée (like muette) lets
    # it throw 7D, manillen forces the trump; the card answered is legal either way.
    for rules, legal in ((PARLEE, "7D 7H"), (MANILLEN, "7H")):
        obs = _obs(rules, 0, "7H 7D", "1:7S 2:TS 3:8S")
        assert " ".join(str(c) for c in obs.legal) == legal
        assert str(EXPERT.choose(obs, HashStream(b"t"))) in legal.split()


def _seed(rules: str, i: int) -> bytes:
    return hashlib.sha256(b"expert-variants" + rules.encode() + i.to_bytes(4, "big")).digest()


@pytest.mark.parametrize("rules", [PARLEE, MANILLEN])
def test_expert_answers_a_legal_card_in_every_position_of_many_playouts(rules):
    # play_game raises BotError at the first illegal card; the random bidder gives every contract
    # (each trump, no trump, doubled and redoubled), greedy-1 at one seat varies the play.
    bidders = [get_bidder(b) for b in ("random-bidder-1", "bidder-1", "random-bidder-1", "longest-bidder-1")]
    contracts, cards = set(), 0
    for i in range(120):
        seats = (EXPERT, EXPERT, GREEDY, EXPERT) if i % 3 == 0 else (EXPERT,) * 4
        state = play_game(_seed(rules.id, i), seats, rules=rules, bidders=bidders[i % 4:] + bidders[:i % 4])
        for log in state.deals:
            contracts.add(str(log.contract.call))
            cards += sum(len(t.plays) for t, _ in log.tricks)
    assert contracts == {"C", "D", "H", "S", "NT"} and cards > 120 * 32
