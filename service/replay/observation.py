"""What one seat may see (RULES §6): the only thing bots, outside players and the API are given."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card, Suit, cards_of
from .rules import RULES_ID, Trick, team_of


@dataclass(frozen=True, slots=True)
class Observation:
    """A seat's view of the game: its own hand, the table, the scores; nothing of other hands or the seed."""

    seat: int
    deal_index: int
    dealer: int
    turned: Card
    hand_mask: int
    legal_mask: int  # 0 when it is not this seat's turn
    trick: Trick  # the trick in progress (possibly empty)
    tricks: tuple[Trick, ...]  # this deal's completed tricks, in order
    points: tuple[int, int]  # card points won so far this deal, by team (0 = seats 0 and 2)
    totals: tuple[int, int]  # game points by team before this deal ends
    rules: str = RULES_ID

    @property
    def trump(self) -> Suit:
        return self.turned.suit

    @property
    def hand(self) -> tuple[Card, ...]:
        return cards_of(self.hand_mask)

    @property
    def legal(self) -> tuple[Card, ...]:
        return cards_of(self.legal_mask)

    @property
    def to_move(self) -> bool:
        return self.legal_mask != 0

    @property
    def team(self) -> int:
        return team_of(self.seat)

    @property
    def partner(self) -> int:
        return (self.seat + 2) % 4

    @property
    def played_mask(self) -> int:
        """Every card played so far this deal, the current trick included."""
        mask = 0
        for trick in self.tricks:
            for play in trick.plays:
                mask |= play.card.bit
        for play in self.trick.plays:
            mask |= play.card.bit
        return mask

    @property
    def turned_in_hand(self) -> bool:
        """Whether the dealer still holds the turned card (everyone knows it until it is played)."""
        return not self.played_mask & self.turned.bit

    def to_json(self) -> dict:
        """The observation as plain JSON values (the line protocol and the API use this shape)."""
        return {
            "rules": self.rules,
            "seat": self.seat,
            "deal": self.deal_index,
            "dealer": self.dealer,
            "turned": str(self.turned),
            "trump": str(self.trump),
            "turned_in_hand": self.turned_in_hand,
            "hand": [str(c) for c in self.hand],
            "legal": [str(c) for c in self.legal],
            "trick": trick_json(self.trick),
            "tricks": [trick_json(t, last=i == 7) for i, t in enumerate(self.tricks)],
            "points": list(self.points),
            "totals": list(self.totals),
        }


def trick_json(trick: Trick, last: bool = False) -> dict:
    """A trick as JSON: leader and plays, with winner and points once complete."""
    out = {"leader": trick.leader, "plays": [{"seat": p.seat, "card": str(p.card)} for p in trick.plays]}
    if trick.is_complete:
        out["winner"] = trick.winner
        out["points"] = trick.points(last)
    return out
