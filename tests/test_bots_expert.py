"""expert-1 and what it infers, on scripted positions written in card notation."""

from __future__ import annotations

from bots import get_bot
from bots.knowledge import Knowledge
from service.replay import Card, HashStream, Observation, Trick, legal_mask, mask_of, parse_cards

EXPERT = get_bot("expert-1")


def _obs(seat, hand, trick="", leader=None, turned="JH", dealer=3, tricks=()):
    """An observation: ``trick`` as "seat:card ..." in playing order, ``tricks`` completed ones."""
    trump = Card.parse(turned).suit
    done = []
    for text in tricks:
        plays = [p.split(":") for p in text.split()]
        t = Trick(int(plays[0][0]), trump)
        for _, c in plays:
            t = t.play(Card.parse(c))
        done.append(t)
    plays = [p.split(":") for p in trick.split()]
    first = int(plays[0][0]) if plays else (leader if leader is not None else seat)
    t = Trick(first, trump)
    for _, c in plays:
        t = t.play(Card.parse(c))
    assert t.next_seat == seat
    hand_mask = mask_of(parse_cards(hand))
    return Observation(seat=seat, deal_index=0, dealer=dealer, turned=Card.parse(turned), hand_mask=hand_mask,
                       legal_mask=legal_mask(hand_mask, t, seat), trick=t, tricks=tuple(done),
                       points=(0, 0), totals=(0, 0))


def _choose(obs) -> str:
    return str(EXPERT.choose(obs, HashStream(b"test")))


def test_loads_the_partners_sure_trick_with_the_ten():
    # Partner (seat 2) holds with the manille of spades; seat 0 plays last, void in spades.
    obs = _obs(0, "TD JD 9D 8D 7D 9C 8C 7C", "1:KS 2:TS 3:7S")
    assert _choose(obs) == "TD"


def test_does_not_load_when_an_opponent_may_still_take_the_trick():
    # Partner led KS, seat 3 could not beat; seat 1 plays after and may hold TS or AS.
    obs = _obs(0, "TD JD 9D 8D 7D 9C 8C 7C", "2:KS 3:7S")
    assert Card.parse(_choose(obs)).points == 0


def test_does_not_lead_a_suit_with_the_ace_but_not_the_ten():
    obs = _obs(0, "AC 8C 9C KD 7D QS 8S 9H", leader=0)
    assert Card.parse(_choose(obs)).suit != Card.parse("AC").suit


def test_draws_trumps_when_long():
    obs = _obs(0, "TH 9H 8H 7H AC 8C KD 7S", leader=0)
    assert _choose(obs) == "TH"


def test_does_not_draw_trumps_when_short():
    obs = _obs(0, "TH 9H AC 8C KD 7D 7S 8S", leader=0)
    assert Card.parse(_choose(obs)).suit != Card.parse("TH").suit


def test_takes_an_opponents_trick_cheaply_when_last():
    # Seat 3 holds with QS; seat 0 (last) must beat and may choose: the cheapest winner, KS.
    obs = _obs(0, "KS AS TS 7D 8D 9D 7C 8C", "1:7S 2:8S 3:QS")
    assert _choose(obs) == "KS"


def test_knows_voids_monter_caps_and_the_turned_card():
    # Trick 0: seat 3 did not beat the opponent's 9S, so it holds nothing above 9S; seat 0
    # discarded a diamond, so it has no spade; and the dealer (3) holds the turned JH.
    obs = _obs(1, "7S 8C 9C JC QC KC AC", leader=1, tricks=["2:9S 3:8S 0:7D 1:JS"])
    k = Knowledge(obs)
    above = mask_of(parse_cards("QS KS AS TS"))
    assert k.cannot[3] & above == above and not k.possible[3] & above
    assert not k.possible[0] & Card.parse("AS").suit.mask
    assert k.sure[3] >> Card.parse("JH").id & 1
    assert not (k.possible[0] | k.possible[2]) >> Card.parse("JH").id & 1
    assert k.left == [7, 7, 7, 7]
