"""The state of one game: what has happened so far, deal after deal, from a seed.

Dealing is the seeded chance step: when a deal ends without ending the game, the
next deal is dealt from the seed by the next dealer.  Under rules with an auction
(``parlee-1``, ``manillen-1``) each deal starts with its calls, then its tricks.
``apply`` checks a card (``call`` a call) against the rules; ``_apply`` trusts its
caller (search, or a caller that has already checked).  ``clone`` plus ``apply`` is
how to explore without touching the original.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .calls import Auction, Call, Contract
from .cards import Card, cards_of
from .deal import Deal, check_seed, deal, dealer_of, first_dealer
from .errors import GameOverError, IllegalCallError
from .observation import Observation
from .rules import TRICKS_PER_DEAL, Trick, check_play, deal_score, is_game_over, legal_mask, team_of
from .variants import MUETTE, Rules, rules_for


@dataclass
class DealLog:
    """One deal as it went: the deal itself, its auction (None under muette-1), each completed trick
    with the legal mask of every play, and what it scored (``factor``: the multiplier applied)."""

    deal: Deal
    tricks: list[tuple[Trick, tuple[int, ...]]] = field(default_factory=list)
    points: tuple[int, int] | None = None
    scored: tuple[int, int] | None = None
    totals: tuple[int, int] | None = None
    auction: Auction | None = None
    factor: int = 1

    @property
    def contract(self) -> Contract | None:
        return self.auction.contract if self.auction is not None else None

    def copy(self) -> "DealLog":
        return DealLog(self.deal, list(self.tricks), self.points, self.scored, self.totals,
                       self.auction, self.factor)


class GameState:
    """A game in progress from a seed under ``rules`` (muette-1 by default) to ``target`` (the
    rules' default); ``current_player`` is None once the game is over."""

    __slots__ = ("seed", "rules", "target", "deals", "hands", "trick", "points", "totals", "carry",
                 "_legals", "_over")

    def __init__(self, seed: bytes | str, rules: Rules | str | None = None, target: int | None = None) -> None:
        self.seed = check_seed(seed)
        self.rules = rules_for(rules)
        self.target = self.rules.check_target(target)
        self.deals: list[DealLog] = []
        self.totals = (0, 0)
        self.carry = 1  # parlee-1: doubled by each 30–30 in a row, for the next deal that scores
        self._over = False
        self._start_deal(0, first_dealer(self.seed))

    @classmethod
    def at_deal(cls, seed: bytes | str, index: int) -> "GameState":
        """Deal ``index`` of a muette-1 game as dealt, the score 0–0 before it: where a deal's
        positions are explored for bots that never read the score (``service.botcache.warm``).
        Each deal's cards and dealer come from the seed and the deal's index alone (docs/spec.md §5)."""
        state = cls(seed)
        if index:
            state.deals = []
            state._start_deal(index, dealer_of(state.seed, index))
        return state

    def _start_deal(self, index: int, dealer: int) -> None:
        d = deal(self.seed, index, dealer)
        rules = self.rules
        if rules.has_auction:
            auction = Auction(rules.trump_from, dealer, rules.no_trump_factor)
            self.deals.append(DealLog(d, auction=auction))
            trump = None  # not known until the auction is over; no card is played before
        else:
            self.deals.append(DealLog(d))
            trump = d.trump
        self.hands = [sum(c.bit for c in hand) for hand in d.hands]
        self.trick = Trick(d.leader, trump)
        self.points = (0, 0)
        self._legals: list[int] = []

    # -- what the state is -------------------------------------------------

    @property
    def current_deal(self) -> Deal:
        return self.deals[-1].deal

    @property
    def deal_index(self) -> int:
        return self.deals[-1].deal.index

    @property
    def trick_index(self) -> int:
        """Index of the trick in progress inside the current deal (0–7)."""
        return len(self.deals[-1].tricks)

    @property
    def is_over(self) -> bool:
        return self._over

    @property
    def auction(self) -> Auction | None:
        """The current deal's auction while it is being called (None once over, and under muette-1)."""
        auction = self.deals[-1].auction
        return auction if auction is not None and not auction.is_over else None

    @property
    def contract(self) -> Contract | None:
        """The current deal's contract once its auction is over (None under muette-1)."""
        return self.deals[-1].contract

    @property
    def factor(self) -> int:
        """What the current deal's score will be multiplied by (contract and 30–30s before it)."""
        contract = self.contract
        return (contract.factor if contract is not None else 1) * self.carry

    @property
    def current_player(self) -> int | None:
        if self._over:
            return None
        auction = self.auction
        return auction.next_seat if auction is not None else self.trick.next_seat

    def hand(self, seat: int) -> tuple[Card, ...]:
        return cards_of(self.hands[seat])

    def legal_mask(self) -> int:
        """The legal cards of the seat to move as a mask (0 while a call is due and once over)."""
        if self._over or self.auction is not None:
            return 0
        seat = self.trick.next_seat
        return legal_mask(self.hands[seat], self.trick, seat, self.rules.facing)

    def legal_cards(self) -> tuple[Card, ...]:
        """The legal cards of the seat to move, in canonical order (empty once the game is over)."""
        return cards_of(self.legal_mask())

    def legal_calls(self) -> tuple[Call, ...]:
        """The calls the seat to speak may make, in one fixed order (empty when no call is due)."""
        auction = None if self._over else self.auction
        return auction.legal if auction is not None else ()

    def observation(self, seat: int) -> Observation:
        """What ``seat`` sees now (docs/spec.md §8.1); its legal cards or calls are set only when it is to move."""
        log = self.deals[-1]
        to_move = self.current_player == seat
        seen = dict(seat=seat, deal_index=log.deal.index, dealer=log.deal.dealer, hand_mask=self.hands[seat],
                    legal_mask=self.legal_mask() if to_move else 0, trick=self.trick,
                    tricks=tuple(t for t, _ in log.tricks), points=self.points, totals=self.totals)
        if not self.rules.has_auction:
            return Observation(turned=log.deal.turned, **seen)
        return Observation(turned=None, rules=self.rules.id, target=self.target, calls=log.auction.calls,
                           legal_calls=self.legal_calls() if to_move else (), contract=log.contract,
                           factor=self.factor, **seen)

    # -- changing it ---------------------------------------------------------

    def apply(self, card: Card) -> None:
        """Play ``card`` for the seat to move; raises GameOverError, IllegalCallError while a call is
        due, or IllegalPlayError naming the obligation."""
        if self._over:
            raise GameOverError("the game is over")
        auction = self.auction
        if auction is not None:
            raise IllegalCallError(card, f"seat {auction.next_seat} must call before any card is played",
                                   auction.legal)
        seat = self.trick.next_seat
        check_play(self.hands[seat], self.trick, seat, card, self.rules.facing)
        self._apply(card)

    def call(self, call: Call) -> None:
        """Say ``call`` for the seat to speak; raises GameOverError, or IllegalCallError (with the
        legal calls) for a call not allowed now, or when a card is due."""
        if self._over:
            raise GameOverError("the game is over")
        log = self.deals[-1]
        if log.auction is None or log.auction.is_over:
            raise IllegalCallError(call, "no call is due: a card is", ())
        self._call(log.auction.call(call))

    def _call(self, auction: Auction) -> None:
        log = self.deals[-1]
        log.auction = auction
        if auction.contract is not None:
            self.trick = Trick(self.trick.leader, auction.contract.trump)

    def act(self, action: "Card | Call") -> None:
        """Apply a card or a call, whichever it is (the checks of ``apply`` and ``call``)."""
        if isinstance(action, Call):
            self.call(action)
        else:
            self.apply(action)

    def _apply(self, card: Card, legal: int | None = None) -> None:
        """Play ``card`` unchecked; ``legal`` (the mask it was chosen from) saves recomputing it for the log."""
        seat = self.trick.next_seat
        if legal is None:
            legal = legal_mask(self.hands[seat], self.trick, seat, self.rules.facing)
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
        rules = self.rules
        pts[team] += trick.points(last, rules.last_trick_bonus)
        self.points = (pts[0], pts[1])
        self.trick = Trick(trick.winner, trick.trump)
        if not last:
            return
        if rules is MUETTE:
            scored = deal_score(self.points)
        else:
            log.factor = self.factor
            scored = rules.score(self.points, log.factor)
            tie = self.points[0] == self.points[1]
            self.carry = self.carry * 2 if tie and rules.tie_doubles_next else 1
        self.totals = (self.totals[0] + scored[0], self.totals[1] + scored[1])
        log.points, log.scored, log.totals = self.points, scored, self.totals
        if is_game_over(self.totals, self.target):
            self._over = True
        else:
            self._start_deal(log.deal.index + 1, (log.deal.dealer + 1) % 4)

    def clone(self) -> "GameState":
        """An independent copy: applying cards to it leaves this state as it was."""
        other = object.__new__(GameState)
        other.seed = self.seed
        other.rules = self.rules
        other.target = self.target
        other.carry = self.carry
        other.deals = self.deals[:-1] + [self.deals[-1].copy()]
        other.hands = list(self.hands)
        other.trick = self.trick
        other.points = self.points
        other.totals = self.totals
        other._legals = list(self._legals)
        other._over = self._over
        return other
