"""The bidders: a legal call in every auction situation, longest-bidder-1's suit and bidder-1's
documented thresholds on scripted hands written in card notation."""

from __future__ import annotations

import hashlib

import pytest

from bots import BIDDERS, get_bidder, get_bot
from bots.bidders import longest_suit, suit_value
from service.replay import (MANILLEN, PARLEE, Auction, Call, HashStream, Observation, Trick, mask_of,
                            parse_cards, play_game)
from service.replay.deal import deal

GREEDY = get_bot("greedy-1")


def situations(rules, dealer):
    """Every auction of ``rules`` from ``dealer`` that is not over: each situation a bidder can face."""
    todo, seen = [Auction(rules.trump_from, dealer, rules.no_trump_factor)], []
    while todo:
        a = todo.pop()
        if a.is_over:
            continue
        seen.append(a)
        todo.extend(a.call(c) for c in a.legal)
    return seen


def obs_for(rules, a: Auction, hand) -> Observation:
    """The observation of the seat to speak in auction ``a`` holding ``hand`` (a mask or card text)."""
    hand_mask = hand if isinstance(hand, int) else mask_of(parse_cards(hand))
    return Observation(seat=a.next_seat, deal_index=0, dealer=a.dealer, turned=None, hand_mask=hand_mask,
                       legal_mask=0, trick=Trick((a.dealer + 1) % 4, None), tricks=(), points=(0, 0),
                       totals=(0, 0), rules=rules.id, target=rules.target, calls=a.calls, legal_calls=a.legal)


def auction(rules, dealer, *calls):
    a = Auction(rules.trump_from, dealer, rules.no_trump_factor)
    for text in calls:
        a = a.call(Call.parse(text))
    return a


def call(bidder_id, rules, a, hand) -> str:
    return str(get_bidder(bidder_id).call(obs_for(rules, a, hand), HashStream(b"test")))


def test_the_situations_are_all_there():
    # Parlée: the naming (1), 5 × (first opponent, second opponent after a pass, the dealer's side
    # after a double by either: 2 + 2 × 2 answers) = 1 + 5 × 6; manillen: 3 seats in turn + the dealer.
    assert len(situations(PARLEE, 0)) == 31 and len(situations(MANILLEN, 0)) == 4


@pytest.mark.parametrize("rules", [PARLEE, MANILLEN])
@pytest.mark.parametrize("bidder_id", sorted(BIDDERS))
def test_every_bidder_answers_a_legal_call_in_every_situation(rules, bidder_id):
    bidder = get_bidder(bidder_id)
    answered = set()
    for i in range(60):  # 60 deals × 4 dealers × every situation × every seat's real hand
        seed = hashlib.sha256(b"bidders" + i.to_bytes(4, "big")).digest()
        for dealer in range(4):
            hands = deal(seed, i, dealer).hands
            for a in situations(rules, dealer):
                obs = obs_for(rules, a, mask_of(hands[a.next_seat]))
                c = bidder.call(obs, HashStream(seed + bytes([dealer, len(a.calls)])))
                assert isinstance(c, Call) and c in a.legal, (a, c)
                answered.add(str(c))
    assert {"C", "D", "H", "S"} <= answered


@pytest.mark.parametrize("rules", [PARLEE, MANILLEN])
def test_bidders_face_each_other_over_many_playouts(rules):
    # play_game raises BotError at the first call not in the legal ones.
    bidders = [get_bidder(b) for b in ("bidder-1", "random-bidder-1", "longest-bidder-1", "random-bidder-1")]
    for i in range(40):
        seed = hashlib.sha256(b"bidder-playouts" + i.to_bytes(4, "big")).digest()
        state = play_game(seed, (GREEDY,) * 4, rules=rules, bidders=bidders[i % 4:] + bidders[:i % 4])
        assert state.is_over and all(log.contract is not None for log in state.deals)


# -- longest-bidder-1 --------------------------------------------------------------------------

@pytest.mark.parametrize("hand, suit", [
    ("7H 8H 9H JH AC TC KS 7D", "H"),   # four hearts
    ("7C 8C TD AD 7H 8H 7S 8S", "D"),   # two of each: diamonds hold the points
    ("7C 8C 7D 8D 7H 8H 7S 8S", "S"),   # a full tie: the later suit
    ("TS AS KS 7C 8C 9C JC 7D", "C"),   # four clubs beat three big spades
])
def test_longest_bidder_names_the_longest_suit(hand, suit):
    assert "CDHS"[longest_suit(mask_of(parse_cards(hand)))] == suit
    assert call("longest-bidder-1", PARLEE, auction(PARLEE, 1), hand) == suit
    assert call("longest-bidder-1", MANILLEN, auction(MANILLEN, 1), hand) == suit  # never passes
    assert call("longest-bidder-1", MANILLEN, auction(MANILLEN, 1, "pass", "pass", "pass"), hand) == suit


def test_longest_bidder_never_doubles_nor_redoubles():
    strong = "TS AS KS QS JS TH AH TD"
    assert call("longest-bidder-1", PARLEE, auction(PARLEE, 0, "S"), strong) == "pass"
    assert call("longest-bidder-1", PARLEE, auction(PARLEE, 0, "S", "double"), strong) == "pass"


# -- bidder-1: the thresholds of its docstring ----------------------------------------------------

def values(hand: str) -> list[int]:
    m = mask_of(parse_cards(hand))
    return [suit_value(m, s) for s in range(5)]


def test_bidder_names_no_trump_with_three_tens_and_enough_no_trump_value():
    hand = "TC AC KC TD AD TH 7S 8S"  # clubs 35, no trump 22 >= 0.4 x 35
    assert values(hand) == [35, 33, 30, 30, 22]
    assert call("bidder-1", PARLEE, auction(PARLEE, 2), hand) == "NT"
    assert call("bidder-1", MANILLEN, auction(MANILLEN, 2), hand) == "NT"


def test_bidder_names_its_best_suit_when_no_trump_is_too_weak_or_the_tens_too_few():
    three_tens = "TC TD TH 7S 8S 9S JS QS"  # spades 34; no trump 3 < 0.4 x 34 (three singletons)
    assert values(three_tens)[3] == 34 and values(three_tens)[4] == 3
    assert call("bidder-1", PARLEE, auction(PARLEE, 0), three_tens) == "S"
    two_tens = "TS AS KS 7S 8D 9D TH 8C"  # two tens: no trump is never considered
    assert call("bidder-1", PARLEE, auction(PARLEE, 0), two_tens) == "S"


def test_bidder_never_passes_when_it_may_choose_even_a_weak_hand():
    weak = "7C 8C 9C 7D 8D 9D 7H 8S"  # clubs and diamonds 6 each: the later suit
    assert values(weak)[:2] == [6, 6]
    for calls in ((), ("pass",), ("pass", "pass"), ("pass", "pass", "pass")):
        assert call("bidder-1", MANILLEN, auction(MANILLEN, 0, *calls), weak) == "D"


@pytest.mark.parametrize("hand, value, answer", [
    ("TS AS 7S 8S 9D 8D 7H 8C", 23, "double"),  # spades worth >= 20 to the opponent
    ("JS AS 9S 8S 9D 8D 7H 8C", 17, "pass"),
])
def test_bidder_doubles_a_suit_contract_it_is_strong_in(hand, value, answer):
    assert values(hand)[3] == value
    assert call("bidder-1", PARLEE, auction(PARLEE, 0, "S"), hand) == answer
    assert call("bidder-1", PARLEE, auction(PARLEE, 0, "S", "pass"), hand) == answer


def test_bidder_doubles_no_trump_with_two_tens():
    assert call("bidder-1", PARLEE, auction(PARLEE, 0, "NT"), "TC TD 7S 8S 9H 8H 7H 9C") == "double"
    assert call("bidder-1", PARLEE, auction(PARLEE, 0, "NT"), "TC 7S 8S 9S JS 8H 7H 9C") == "pass"


@pytest.mark.parametrize("hand, value, answer", [
    ("TS AS KS 7S 8D 9D 7H 8C", 26, "redouble"),  # >= 24 in the contract's trump
    ("TS AS 7S 8S 9D 8D 7H 8C", 23, "pass"),
])
def test_bidder_redoubles_when_strong_in_the_contract(hand, value, answer):
    assert values(hand)[3] == value
    a = auction(PARLEE, 0, "S", "double")  # seat 1 doubled: seat 2, the dealer's partner, answers
    assert a.next_seat == 2 and call("bidder-1", PARLEE, a, hand) == answer
