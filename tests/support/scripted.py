"""Scripted tricks for the tests, written in card notation: ``"1:KS 2:TS 3:7S"`` is seat 1 leading
the king of spades, then seat 2's ten and seat 3's seven."""

from __future__ import annotations

from service.replay import Card, Trick, legal_mask


def trick_of(text: str, trump, leader: int | None = None) -> Trick:
    """The trick ``text`` ("seat:card ..." in playing order) under ``trump`` (a Suit, or None for no
    trump); an empty text is an empty trick led by ``leader``."""
    plays = [p.split(":") for p in text.split()]
    t = Trick(int(plays[0][0]) if plays else leader, trump)
    for _, card in plays:
        t = t.play(Card.parse(card))
    return t


def plays_legal(hands_at_start, tricks) -> bool:
    """Whether every play of ``tricks`` (a deal's, in order; the last may be in progress) is legal
    when the deal's hands (masks by seat) were ``hands_at_start``."""
    held = list(hands_at_start)
    for t in tricks:
        prefix = Trick(t.leader, t.trump)
        for p in t.plays:
            if not legal_mask(held[p.seat], prefix, p.seat) >> p.card.id & 1:
                return False
            held[p.seat] &= ~p.card.bit
            prefix = prefix.play(p.card)
    return True
