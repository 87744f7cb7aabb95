"""docs/spec.md §12.1 test vectors, to the card."""

import pytest

from service.replay import HashStream, InvalidSeedError, check_seed, deal, dealer_of, first_dealer, format_cards, shuffled_deck

ZERO = bytes(32)


def test_first_dealer_vector():
    assert first_dealer(ZERO) == 1


def test_deal0_deck_vector():
    assert format_cards(shuffled_deck(ZERO, 0)) == (
        "7S 8H TS KD KS TD QS JD 9S 7H AS 9D QH KC JH 8D JC AC KH 7D 9C QD TH 8S 8C 7C JS TC AH 9H AD QC")


def test_deal1_deck_vector():
    assert format_cards(shuffled_deck(ZERO, 1)) == (
        "7C TS 9H 8S JS 8C 9S 9D QS 7D TH JH QD 9C 7H JC TD JD 8H TC KD QH AH KC QC AD KS AS AC 8D KH 7S")


def test_deal0_hands_vector():
    d = deal(ZERO, 0, first_dealer(ZERO))
    assert format_cards(d.hands[0]) == "7S 8H TS QH KC JH 8C 7C"
    assert format_cards(d.hands[1]) == "7H AS 9D QD TH 8S AD QC"
    assert format_cards(d.hands[2]) == "QS JD 9S KH 7D 9C AH 9H"
    assert format_cards(d.hands[3]) == "KD KS TD 8D JC AC JS TC"
    assert str(d.turned) == "QC" and str(d.trump) == "C"
    assert d.turned in d.hands[d.dealer]
    assert d.leader == 2


def test_every_card_dealt_once():
    for k in range(5):
        d = deal(ZERO, k, dealer_of(ZERO, k))
        dealt = [c for h in d.hands for c in h]
        assert len(dealt) == 32 and len(set(dealt)) == 32
        assert all(len(h) == 8 for h in d.hands)
        assert d.hands[d.dealer][-1] == d.turned


def test_dealer_passes_clockwise():
    assert [dealer_of(ZERO, k) for k in range(5)] == [1, 2, 3, 0, 1]


@pytest.mark.parametrize("bad", [b"", bytes(31), bytes(33), "zz" * 32, "00" * 31, None, 12])
def test_bad_seed(bad):
    with pytest.raises(InvalidSeedError):
        check_seed(bad)


def test_hex_seed_accepted():
    assert check_seed("00" * 32) == ZERO
    assert check_seed("AB" * 32) == bytes([0xAB]) * 32


def test_the_streams_shuffle_reads_the_values_that_uniform_calls_would():
    # HashStream.shuffle is docs/spec.md §5.3's Fisher-Yates read without a call a swap: the same order
    # for every length (blocks of eight values crossed many times), and the stream left where
    # the calls would leave it
    for n in (0, 1, 2, 3, 7, 8, 24, 32, 100):
        for tag in (b"a", b"b", b"c"):
            items, reference = list(range(n)), list(range(n))
            fast, slow = HashStream(tag + bytes([n])), HashStream(tag + bytes([n]))
            fast.shuffle(items)
            for i in range(n - 1, 0, -1):
                j = slow.uniform(i + 1)
                reference[i], reference[j] = reference[j], reference[i]
            assert items == reference
            assert [fast.next_u32() for _ in range(9)] == [slow.next_u32() for _ in range(9)]
