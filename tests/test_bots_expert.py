"""expert-1 and what it infers, on scripted positions written in card notation."""

from __future__ import annotations

import pytest

from bots import get_bot
from bots.knowledge import Knowledge
from support.scripted import trick_of
from service.replay import (DECK, MANILLEN, MUETTE, PARLEE, Card, HashStream, Observation, Trick, legal_mask,
                            mask_of, parse_cards)
from service.replay.rules import NO_TRUMP

EXPERT = get_bot("expert-1")


def _obs(seat, hand, trick="", leader=None, turned="JH", dealer=3, tricks=()):
    """An observation: ``trick`` as "seat:card ..." in playing order, ``tricks`` completed ones."""
    trump = Card.parse(turned).suit
    done = [trick_of(text, trump) for text in tricks]
    t = trick_of(trick, trump, leader if leader is not None else seat)
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


def test_late_calculation_is_the_exact_best_over_every_consistent_deal():
    # Two cards left, seat 0 to lead, trump hearts, dealer 3 (so seat 3 still holds the turned JH).
    # Unseen: 7S 8S 9S 7H 8H JH, few enough to list every deal.  Leading AS loses it to a ruff
    # whenever an opponent is void in spades; leading TH first draws a trump.  Whatever the right
    # answer, it must be the one a brute-force minimax (no pruning, no table) gets over the same
    # deals, and the bot must play it.
    from bots.search import best_card, consistent_deals

    obs = _obs(0, "TH AS", leader=0, turned="JH", dealer=3, tricks=[
        "0:TC 1:9C 2:8C 3:QC", "0:AC 1:JC 2:KC 3:7C", "0:TD 1:AD 2:KD 3:QD",
        "0:TS 1:KS 2:QS 3:JS", "0:AH 1:9H 2:KH 3:QH", "0:JD 1:7D 2:8D 3:9D"])
    k = Knowledge(obs)
    deals = consistent_deals(k)
    assert deals is not None and len(deals) > 1
    turned = Card.parse("JH").bit
    for d in deals:  # each seat gets its number of cards, only cards it may hold, JH with the dealer
        assert d[0] == k.hand and d[3] & turned
        for s in (1, 2, 3):
            assert d[s].bit_count() == k.left[s] and not d[s] & ~k.possible[s]
    preference = [c.id for c in obs.legal]
    card = best_card(k, obs.legal_mask, HashStream(b"test"), preference)
    assert card == _exact_best(k, deals, obs, preference)
    assert _choose(obs) == str(Card.from_id(card))

def _brute(hands, trick, tricks_left, team, rules=MUETTE) -> int:
    """Points ``team`` still takes from ``trick`` on with every hand open: plain minimax over the
    engine's legal cards under ``rules``, no pruning, no table (the reference the bots' solver must
    match)."""
    if len(trick.plays) == 4:
        last = tricks_left == 1
        gain = trick.points(last, rules.last_trick_bonus) if trick.winner % 2 == team else 0
        return gain if last else gain + _brute(hands, Trick(trick.winner, trick.trump), tricks_left - 1, team, rules)
    seat = trick.next_seat
    values = []
    for c in DECK:
        if legal_mask(hands[seat], trick, seat, rules.facing) >> c.id & 1:
            h = list(hands)
            h[seat] &= ~c.bit
            values.append(_brute(h, trick.play(c), tricks_left, team, rules))
    return max(values) if seat % 2 == team else min(values)


def _exact_best(k, deals, obs, preference) -> int:
    """Brute-force minimax (no pruning, no table) of every candidate over the listed deals: what the
    late calculation must reproduce."""
    from service.replay.cards import CARD_POINTS

    totals = {}
    for c in obs.hand:
        if obs.legal_mask >> c.id & 1:
            total = 0
            for d in deals:
                h = list(d)
                h[k.seat] &= ~c.bit
                total += _brute(h, obs.trick.play(c), k.hand.bit_count(), k.seat % 2)
            totals[c.id] = total
    assert all(CARD_POINTS[c] == Card.from_id(c).points for c in range(32))
    top = max(totals.values())
    return next(c for c in preference if totals[c] == top)


@pytest.mark.parametrize("rules", [MUETTE, PARLEE, MANILLEN], ids=lambda r: r.id)
def test_solver_with_its_table_gives_the_exact_minimax_value(rules):
    # Open-hand positions of two to four tricks (few of four: brute force is slow), solved twice in a
    # row (the second time from the table): always the brute-force value, under each rules id's
    # legal cards and last-trick bonus (no trump too, where the rules have it), by the Python search.
    import random

    from bots.move_order import mask_points
    from bots.solver import Solver

    rnd = random.Random(7)
    for _ in range(120):
        n = rnd.choice((2, 3, 3, 4)) if _ < 20 else rnd.choice((2, 3))
        cards = rnd.sample(range(32), 4 * n)
        hands = [sum(1 << c for c in cards[i * n:(i + 1) * n]) for i in range(4)]
        trump, team, leader = rnd.randrange(4), rnd.randrange(2), rnd.randrange(4)
        if rules is not MUETTE and _ % 3 == 0:
            trump = NO_TRUMP
        solver = Solver(trump, compiled=False, facing=rules.facing, bonus=rules.last_trick_bonus)
        trick = Trick(leader, None if trump == NO_TRUMP else trump)
        expected = _brute(hands, trick, n, team, rules)
        total = mask_points(sum(hands)) + rules.last_trick_bonus
        for _ in range(2):
            got = solver.value(list(hands), trick)  # the points of the leader's team
            assert (got if leader % 2 == team else total - got) == expected
