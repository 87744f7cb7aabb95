import pickle

import pytest

from service.replay import DECK, Card, InvalidCardError, ManilleError, Rank, Suit, parse_cards
from service.replay.cards import CARD_POINTS, cards_of, format_cards, iter_ids, mask_of


def test_canonical_order_and_ids():
    assert [str(c) for c in DECK[:8]] == ["7C", "8C", "9C", "JC", "QC", "KC", "AC", "TC"]
    assert str(DECK[0]) == "7C" and str(DECK[31]) == "TS"
    assert [c.id for c in DECK] == list(range(32))
    assert Card.parse("TH").id == 8 * 2 + 7


@pytest.mark.parametrize("text", ["TH", "th", "Th", "10h", "10H"])
def test_parse_lenient_print_canonical(text):
    card = Card.parse(text)
    assert str(card) == "TH"
    assert card is Card.parse("TH")  # interned


def test_round_trip_and_repr_rebuilds():
    for card in DECK:
        assert Card.parse(str(card)) is card
        assert eval(repr(card)) is card
        assert Card.from_id(card.id) is card
        assert Card(card.suit, card.rank) is card
        assert pickle.loads(pickle.dumps(card)) is card


@pytest.mark.parametrize("bad", ["", "T", "1H", "11H", "TX", "XH", "THH", " TH", "10", None, 7, "ZZ"])
def test_bad_notation_is_invalid_card_error(bad):
    with pytest.raises(InvalidCardError):
        Card.parse(bad)


def test_error_hierarchy():
    assert issubclass(InvalidCardError, ManilleError)
    assert issubclass(ManilleError, ValueError)


def test_immutable():
    with pytest.raises(AttributeError):
        Card.parse("TH").rank = Rank.ACE


def test_points_and_strength():
    assert [c.points for c in DECK[:8]] == [0, 0, 0, 1, 2, 3, 4, 5]
    assert sum(c.points for c in DECK) == 60
    assert Card.parse("TS").rank > Card.parse("AS").rank > Card.parse("KS").rank


def test_french_display():
    assert Card.parse("TH").french() == "10♥"
    assert Card.parse("QS").french() == "D♠"
    assert Card.parse("JC").french() == "V♣"
    assert Card.parse("KD").french() == "R♦"
    assert Card.parse("AD").french() == "A♦"


def test_masks():
    cards = parse_cards("TH 7C ks,as")
    assert [str(c) for c in cards] == ["TH", "7C", "KS", "AS"]
    m = mask_of(cards)
    assert format_cards(cards_of(m)) == "7C TH KS AS"
    assert sum(CARD_POINTS[i] for i in iter_ids(m)) == sum(c.points for c in cards) == 5 + 3 + 4
    assert Suit.HEARTS.mask == 0xFF << 16
    assert str(Suit.parse("h")) == "H"
    with pytest.raises(InvalidCardError):
        Suit.parse("X")
