"""``greedy-1``: a simple baseline that takes the trick cheaply when it can, else throws its least
valuable card.  No memory, no inference, no randomness: a pure function of the observation."""

from __future__ import annotations

from service.replay import Card, HashStream, Observation
from service.replay.cards import CARD_POINTS, DECK, iter_ids
from service.replay.rules import beats


def _cost(card: int, trump: int) -> tuple[int, int, int]:
    """How much a card is worth keeping: points, then trumps above plain cards, then rank."""
    return (CARD_POINTS[card], card >> 3 == trump, card & 7)


class GreedyBot:
    """Frozen behaviour ``greedy-1``.

    When an opponent holds the trick and a legal card beats the card holding it, play the cheapest
    such card (fewest points, a plain card before a trump, lowest rank); otherwise (leading, the
    partner holding the trick, or no card that beats) play the least valuable legal card by the
    same order.  Ties cannot happen: the order ends on the card's suit and rank.
    """

    id = "greedy-1"

    def choose(self, obs: Observation, rng: HashStream) -> Card:
        trump = 4 if obs.trump is None else int(obs.trump)  # 4: no trump (SUIT_MASKS[4] is empty)
        legal = list(iter_ids(obs.legal_mask))
        win = obs.trick.winning_play
        if win is not None and (win.seat ^ obs.seat) & 1:
            best = win.card.id
            winners = [c for c in legal if beats(c, best, trump)]
            if winners:
                legal = winners
        return DECK[min(legal, key=lambda c: (_cost(c, trump), c))]
