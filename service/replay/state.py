"""The state of one game: what has happened so far, deal after deal, from a seed.

Dealing is the seeded chance step: when a deal ends without ending the game, the
next deal is dealt from the seed by the next dealer.  ``apply`` checks a card
against the rules; ``_apply`` trusts its caller (search, or a caller that has
already checked).  ``clone`` plus ``apply`` is how to explore without touching
the original.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import Card, cards_of
from .deal import Deal, check_seed, deal, first_dealer
from .errors import GameOverError
from .observation import Observation
from .rules import (TRICKS_PER_DEAL, Trick, check_play, deal_score, is_game_over,
                    legal_mask, team_of)


@dataclass
class DealLog:
    """One deal as it went: the deal itself, each completed trick with the legal mask of every play."""

    deal: Deal
    tricks: list[tuple[Trick, tuple[int, ...]]] = field(default_factory=list)
    points: tuple[int, int] | None = None
    scored: tuple[int, int] | None = None
    totals: tuple[int, int] | None = None

    def copy(self) -> "DealLog":
        return DealLog(self.deal, list(self.tricks), self.points, self.scored, self.totals)


class GameState:
    """A game in progress from a seed; ``current_player`` is None once the game is over."""

    __slots__ = ("seed", "deals", "hands", "trick", "points", "totals", "_legals", "_over")

    def __init__(self, seed: bytes | str) -> None:
        self.seed = check_seed(seed)
        self.deals: list[DealLog] = []
        self.totals = (0, 0)
        self._over = False
        self._start_deal(0, first_dealer(self.seed))

    def _start_deal(self, index: int, dealer: int) -> None:
        d = deal(self.seed, index, dealer)
        self.deals.append(DealLog(d))
        self.hands = [sum(c.bit for c in hand) for hand in d.hands]
        self.trick = Trick(d.leader, d.trump)
        self.points = (0, 0)
        self._legals: list[int] = []

    # -- what the state is -------------------------------------------------

    @property
    def current_deal(self) -> Deal:
        return self.deals[-1].deal

    @property
    def deal_index(self) -> int:
        return len(self.deals) - 1

    @property
    def trick_index(self) -> int:
        """Index of the trick in progress inside the current deal (0–7)."""
        return len(self.deals[-1].tricks)

    @property
    def is_over(self) -> bool:
        return self._over

    @property
    def current_player(self) -> int | None:
        return None if self._over else self.trick.next_seat

    def hand(self, seat: int) -> tuple[Card, ...]:
        return cards_of(self.hands[seat])

    def legal_mask(self) -> int:
        return 0 if self._over else legal_mask(self.hands[self.trick.next_seat], self.trick, self.trick.next_seat)

    def legal_cards(self) -> tuple[Card, ...]:
        """The legal cards of the seat to move, in canonical order (empty once the game is over)."""
        return cards_of(self.legal_mask())

    def observation(self, seat: int) -> Observation:
        """What ``seat`` sees now (RULES §6); its legal cards are set only when it is to move."""
        log = self.deals[-1]
        to_move = not self._over and self.trick.next_seat == seat
        return Observation(
            seat=seat,
            deal_index=log.deal.index,
            dealer=log.deal.dealer,
            turned=log.deal.turned,
            hand_mask=self.hands[seat],
            legal_mask=self.legal_mask() if to_move else 0,
            trick=self.trick,
            tricks=tuple(t for t, _ in log.tricks),
            points=self.points,
            totals=self.totals,
        )

    # -- changing it ---------------------------------------------------------

    def apply(self, card: Card) -> None:
        """Play ``card`` for the seat to move; raises GameOverError, or IllegalPlayError naming the obligation."""
        if self._over:
            raise GameOverError("the game is over")
        seat = self.trick.next_seat
        check_play(self.hands[seat], self.trick, seat, card)
        self._apply(card)

    def _apply(self, card: Card, legal: int | None = None) -> None:
        """Play ``card`` unchecked; ``legal`` (the mask it was chosen from) saves recomputing it for the log."""
        seat = self.trick.next_seat
        if legal is None:
            legal = legal_mask(self.hands[seat], self.trick, seat)
        self._legals.append(legal)
        self.hands[seat] &= ~card.bit
        self.trick = self.trick.play(card)
        if self.trick.is_complete:
            self._finish_trick()

    def _finish_trick(self) -> None:
        log = self.deals[-1]
        trick = self.trick
        last = len(log.tricks) == TRICKS_PER_DEAL - 1
        log.tricks.append((trick, tuple(self._legals)))
        self._legals = []
        team = team_of(trick.winner)
        pts = list(self.points)
        pts[team] += trick.points(last)
        self.points = (pts[0], pts[1])
        self.trick = Trick(trick.winner, trick.trump)
        if not last:
            return
        scored = deal_score(self.points)
        self.totals = (self.totals[0] + scored[0], self.totals[1] + scored[1])
        log.points, log.scored, log.totals = self.points, scored, self.totals
        if is_game_over(self.totals):
            self._over = True
        else:
            self._start_deal(log.deal.index + 1, (log.deal.dealer + 1) % 4)

    def clone(self) -> "GameState":
        """An independent copy: applying cards to it leaves this state as it was."""
        other = object.__new__(GameState)
        other.seed = self.seed
        other.deals = self.deals[:-1] + [self.deals[-1].copy()]
        other.hands = list(self.hands)
        other.trick = self.trick
        other.points = self.points
        other.totals = self.totals
        other._legals = list(self._legals)
        other._over = self._over
        return other
