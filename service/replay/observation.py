"""What one seat may see (docs/spec.md §8.1): the only thing bots, outside players and the API are given."""

from __future__ import annotations

from dataclasses import dataclass

from .calls import Call, Contract
from .cards import Card, Suit, cards_of
from .rules import LAST_TRICK_BONUS, RULES_ID, Trick, team_of
from .variants import rules_for


@dataclass(frozen=True, slots=True)
class Observation:
    """A seat's view of the game: its own hand, the table, the scores; nothing of other hands or the seed.

    Under rules with an auction there is no turned card: the deal's calls so far, the contract once
    they are over, and the seat's legal calls when it is to speak are the rest of its view."""

    seat: int
    deal_index: int
    dealer: int
    turned: Card | None  # None under rules with an auction
    hand_mask: int
    legal_mask: int  # 0 when it is not this seat's turn to play a card
    trick: Trick  # the trick in progress (possibly empty)
    tricks: tuple[Trick, ...]  # this deal's completed tricks, in order
    points: tuple[int, int]  # card points won so far this deal, by team (0 = seats 0 and 2)
    totals: tuple[int, int]  # game points by team before this deal ends
    rules: str = RULES_ID
    target: int | None = None  # the game target, when the rules allow more than one
    calls: tuple[tuple[int, Call], ...] = ()  # this deal's calls so far, (seat, call) in order
    legal_calls: tuple[Call, ...] = ()  # when it is this seat's turn to call
    contract: Contract | None = None  # once this deal's auction is over
    factor: int = 1  # what this deal's score will be multiplied by

    @property
    def trump(self) -> Suit | None:
        """The deal's trump: the turned card's suit, or the contract's; None for no trump and
        while the auction goes on."""
        if self.turned is not None:
            return self.turned.suit
        return self.contract.trump if self.contract is not None else None

    @property
    def has_auction(self) -> bool:
        return self.turned is None

    @property
    def hand(self) -> tuple[Card, ...]:
        return cards_of(self.hand_mask)

    @property
    def legal(self) -> tuple[Card, ...]:
        return cards_of(self.legal_mask)

    @property
    def to_move(self) -> bool:
        return self.legal_mask != 0 or bool(self.legal_calls)

    @property
    def to_call(self) -> bool:
        return bool(self.legal_calls)

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
        return self.turned is not None and not self.played_mask & self.turned.bit

    def to_json(self) -> dict:
        """The observation as plain JSON values (the line protocol and the API use this shape).
        Under rules with an auction: muette-1's keys (``turned`` null) with ``target`` after
        ``rules``, then the calls, the contract and the factor."""
        auction = self.turned is None
        trump = self.trump
        bonus = rules_for(self.rules).last_trick_bonus
        out = {"rules": self.rules}
        if auction:
            out["target"] = self.target
        out.update({
            "seat": self.seat,
            "deal": self.deal_index,
            "dealer": self.dealer,
            "turned": None if auction else str(self.turned),
            "trump": None if trump is None else str(trump),
            "turned_in_hand": self.turned_in_hand,
            "hand": [str(c) for c in self.hand],
            "legal": [str(c) for c in self.legal],
            "trick": trick_json(self.trick),
            "tricks": [trick_json(t, last=i == 7, bonus=bonus) for i, t in enumerate(self.tricks)],
            "points": list(self.points),
            "totals": list(self.totals),
        })
        if auction:
            out.update({
                "calls": calls_json(self.calls),
                "legal_calls": [str(c) for c in self.legal_calls],
                "contract": None if self.contract is None else self.contract.to_json(),
                "factor": self.factor,
            })
        return out


def calls_json(calls) -> list[dict]:
    """A deal's calls as JSON: ``[{"seat": 1, "call": "pass"}, …]`` in the order said."""
    return [{"seat": s, "call": str(c)} for s, c in calls]


def trick_json(trick: Trick, last: bool = False, bonus: int = LAST_TRICK_BONUS) -> dict:
    """A trick as JSON: leader and plays, with winner and points (``bonus`` added to the last) once complete."""
    out = {"leader": trick.leader, "plays": [{"seat": p.seat, "card": str(p.card)} for p in trick.plays]}
    if trick.is_complete:
        out["winner"] = trick.winner
        out["points"] = trick.points(last, bonus)
    return out
