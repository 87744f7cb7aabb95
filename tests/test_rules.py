"""docs/spec.md §6–7: legal cards (all ten worked examples), obligations, tricks, scoring."""

import pytest

from service.replay import (Card, IllegalPlayError, Obligation, Suit, Trick, broken_obligation, check_play,
                            deal_score, legal_cards, mask_of, parse_cards, rank_score)
from service.replay.rules import is_game_over


def trick_from(text: str, trump: Suit = Suit.HEARTS) -> Trick:
    """``"2:KS 3:7H"`` to a trick (seats in playing order)."""
    items = [p.split(":") for p in text.split()]
    trick = Trick(int(items[0][0]), trump)
    for seat, card in items:
        assert trick.next_seat == int(seat)
        trick = trick.play(Card.parse(card))
    return trick


WORKED = [  # docs/spec.md §6.4, trump hearts, player seat 0
    ("3:KS", "AS 7S TD", "AS", "opponent holds: must beat in the suit"),
    ("2:KS 3:7H", "AS 7S TD", "AS 7S", "trumped by an opponent: any spade"),
    ("2:KS 3:7S", "AS 7S TD", "AS 7S", "partner holds: follow, no need to beat"),
    ("3:KS", "TD 9H AH", "9H AH", "void: must trump, any trump"),
    ("2:KS 3:AH", "TD 9H TH", "TH", "must overtrump"),
    ("2:KS 3:TH", "TD 9H", "9H", "cannot overtrump: must still trump"),
    ("3:KS", "TD QC", "TD QC", "no spade, no trump: anything"),
    ("1:KS 2:7H 3:8S", "TD 9H", "TD 9H", "partner holds (with a trump), void: anything"),
    ("3:KH", "AH 7H TS", "AH", "trump led, opponent holds: must beat"),
    ("1:7H 2:TH 3:8H", "AH 9H TS", "AH 9H", "trump led, partner holds: any trump"),
]


@pytest.mark.parametrize("trick,hand,legal,why", WORKED, ids=[w[3] for w in WORKED])
def test_worked_examples(trick, hand, legal, why):
    got = legal_cards(parse_cards(hand), trick_from(trick), seat=0)
    assert set(got) == set(parse_cards(legal))
    assert list(got) == sorted(got)  # one fixed (canonical) order


def test_leading_any_card():
    hand = parse_cards("7C TD AH KS")
    assert set(legal_cards(hand, Trick(0, Suit.HEARTS), 0)) == set(hand)


@pytest.mark.parametrize("trick,hand,card,obligation", [
    ("3:KS", "AS 7S TD", "7S", Obligation.MUST_BEAT),
    ("3:KS", "AS 7S TD", "TD", Obligation.MUST_FOLLOW_SUIT),
    ("2:KS 3:7S", "AS 7S TD", "TD", Obligation.MUST_FOLLOW_SUIT),  # partner holds: still follow
    ("3:KS", "TD 9H AH", "TD", Obligation.MUST_TRUMP),
    ("2:KS 3:AH", "TD 9H TH", "9H", Obligation.MUST_OVERTRUMP),
    ("2:KS 3:AH", "TD 9H TH", "TD", Obligation.MUST_TRUMP),
    ("3:KH", "AH 7H TS", "7H", Obligation.MUST_BEAT),
    ("3:KH", "AH 7H TS", "TS", Obligation.MUST_FOLLOW_SUIT),
    ("3:KS", "AS 7S TD", "TS", Obligation.NOT_IN_HAND),
])
def test_broken_obligation(trick, hand, card, obligation):
    t, h, c = trick_from(trick), mask_of(parse_cards(hand)), Card.parse(card)
    assert broken_obligation(h, t, 0, c) is obligation
    with pytest.raises(IllegalPlayError) as info:
        check_play(h, t, 0, c)
    assert info.value.obligation is obligation
    assert set(info.value.legal) == set(legal_cards(h, t, 0))
    assert obligation.value in str(info.value)


def test_legal_card_breaks_nothing():
    t = trick_from("3:KS")
    assert broken_obligation(mask_of(parse_cards("AS 7S")), t, 0, Card.parse("AS")) is None
    check_play(mask_of(parse_cards("AS 7S")), t, 0, Card.parse("AS"))


def test_trick_winner_and_points():
    t = trick_from("1:KS 2:TS 3:7H 0:AS")
    assert t.is_complete and t.winner == 3 and t.led_suit == Suit.SPADES
    assert t.points() == 3 + 5 + 0 + 4
    assert t.points(last=True) == 13
    t2 = trick_from("0:9D 1:TC 2:AD 3:KD")  # off-suit ten does nothing without trump
    assert t2.winner == 2
    t3 = trick_from("0:9D 1:7H 2:AH 3:KD")  # higher trump wins
    assert t3.winner == 2
    with pytest.raises(ValueError):
        t.play(Card.parse("7C"))


def test_trick_is_immutable_value():
    t = trick_from("3:KS")
    t2 = t.play(Card.parse("AS"))
    assert len(t.plays) == 1 and len(t2.plays) == 2
    assert t == trick_from("3:KS") and hash(t) == hash(trick_from("3:KS"))
    assert "3:KS" in repr(t)


@pytest.mark.parametrize("points,scored", [((31, 30), (1, 0)), ((30, 31), (0, 1)), ((61, 0), (31, 0)),
                                           ((38, 23), (8, 0)), ((13, 48), (0, 18))])
def test_deal_score(points, scored):
    assert deal_score(points) == scored


def test_deal_score_refuses_wrong_total():
    with pytest.raises(ValueError):
        deal_score((30, 30))


def test_game_end_and_rank_score():
    assert not is_game_over((39, 39)) and is_game_over((40, 12)) and is_game_over((3, 41))
    assert rank_score((42, 18)) == 1240
    assert rank_score((37, 40)) == 970
