"""The frozen rules of Manille muette, rules id ``muette-1``: legal cards, tricks, scoring (docs/spec.md §6–7)."""

from __future__ import annotations

from typing import NamedTuple

from .cards import Card, Suit, cards_of, mask_of
from .errors import IllegalPlayError, Obligation

RULES_ID = "muette-1"
TRICKS_PER_DEAL = 8
DEAL_POINTS = 61
LAST_TRICK_BONUS = 1
HALF = 30
GAME_TARGET = 40
#: The cards of each suit by suit index; index 4 (``NO_TRUMP``) is the empty "suit" a no-trump
#: deal's trump stands for, so the same rule code serves deals with and without a trump.
SUIT_MASKS = (0xFF, 0xFF << 8, 0xFF << 16, 0xFF << 24, 0)
NO_TRUMP = 4


def team_of(seat: int) -> int:
    """Team 0 (``us``) is seats 0 and 2, team 1 (``them``) seats 1 and 3."""
    return seat & 1


def stronger_in_suit(card_id: int) -> int:
    """Mask of the cards of ``card_id``'s suit that beat it."""
    return SUIT_MASKS[card_id >> 3] & ~((2 << card_id) - 1)


class Play(NamedTuple):
    seat: int
    card: Card


class Trick:
    """A trick in progress or done: who led, the trump (None: a no-trump deal), the plays so far;
    immutable, ``play`` returns a new one."""

    __slots__ = ("leader", "trump", "plays", "_winner")

    def __init__(self, leader: int, trump: Suit | None, plays: tuple[Play, ...] = ()) -> None:
        self.leader = leader
        self.trump = None if trump is None else Suit(trump)
        self.plays = tuple(plays)
        self._winner = _winning_play(self.plays, self.trump) if self.plays else None

    def play(self, card: Card) -> "Trick":
        """The trick with ``card`` added by the seat to move; raises ValueError if already complete."""
        if len(self.plays) == 4:
            raise ValueError("the trick is complete")
        return Trick(self.leader, self.trump, self.plays + (Play(self.next_seat, card),))

    @property
    def next_seat(self) -> int:
        return (self.leader + len(self.plays)) % 4

    @property
    def is_complete(self) -> bool:
        return len(self.plays) == 4

    @property
    def led_suit(self) -> Suit | None:
        return self.plays[0].card.suit if self.plays else None

    @property
    def winning_play(self) -> Play | None:
        """The play now holding the trick (None while empty)."""
        return self._winner

    @property
    def winner(self) -> int | None:
        return self._winner.seat if self._winner else None

    @property
    def trump_index(self) -> int:
        """The trump as the rule code's int: the suit, or NO_TRUMP."""
        return NO_TRUMP if self.trump is None else int(self.trump)

    def points(self, last: bool = False, bonus: int = LAST_TRICK_BONUS) -> int:
        """Card points in the trick, plus ``bonus`` (the rules' last-trick point) when ``last``."""
        return sum(p.card.points for p in self.plays) + (bonus if last else 0)

    def legal_mask(self, hand_mask: int, facing=None) -> int:
        """Mask of the cards of ``hand_mask`` the seat to move may play (``facing``: the rules' rule
        function, muette's by default)."""
        return legal_mask(hand_mask, self, self.next_seat, facing)

    def __eq__(self, other) -> bool:
        return (isinstance(other, Trick) and other.leader == self.leader
                and other.trump == self.trump and other.plays == self.plays)

    def __hash__(self) -> int:
        return hash((self.leader, self.trump, self.plays))

    def __repr__(self) -> str:
        plays = " ".join(f"{p.seat}:{p.card}" for p in self.plays)
        return f"<Trick leader={self.leader} trump={self.trump} [{plays}]>"


def beats(card: int, best: int, trump: int) -> bool:
    """Whether card id ``card``, played now, takes the trick from card id ``best``, the card holding
    it (docs/spec.md §6.2): a higher card of its suit, or a trump over a card of another suit
    (``trump`` is the suit index, NO_TRUMP in a no-trump deal).  The one definition: the engine
    and every bot call it."""
    if card >> 3 == best >> 3:
        return card > best
    return card >> 3 == trump


def _winning_play(plays: tuple[Play, ...], trump: Suit | None) -> Play:
    trump_index = NO_TRUMP if trump is None else int(trump)
    best = plays[0]
    for p in plays[1:]:
        if beats(p.card.id, best.card.id, trump_index):
            best = p
    return best


#: ``stronger_in_suit`` of every card id, for the hot paths (legal cards, bots' search).
STRONGER = tuple(stronger_in_suit(c) for c in range(32))


def legal_mask(hand: int, trick: Trick, seat: int, facing=None) -> int:
    """Mask of the legal cards of ``hand`` for ``seat`` facing ``trick`` (docs/spec.md §6.3, rules 1–3);
    ``facing`` is the rules' rule function (``Rules.facing``), ``legal_facing`` by default."""
    if not trick.plays:
        return hand
    win = trick._winner
    return (facing or legal_facing)(hand, trick.plays[0].card.suit, win.card.id, win.seat, seat, trick.trump_index)


def legal_facing(hand: int, led: int, best: int, best_seat: int, seat: int, trump: int) -> int:
    """Rules 2–3 of docs/spec.md §6.3 on bare ints: the legal mask of ``hand`` for ``seat`` facing a trick
    led in suit ``led`` and held by card id ``best`` of ``best_seat``.  The engine and the bots'
    search both call this, so they cannot disagree on a rule.  ``trump`` is NO_TRUMP in a no-trump
    deal (``parlee-1``): a seat void in the led suit may then play anything."""
    follow = hand & SUIT_MASKS[led]
    if not (best_seat ^ seat) & 1:  # partner holds the trick: follow if able, nothing more
        return follow or hand
    if follow:
        if best >> 3 == led:
            higher = follow & STRONGER[best]
            if higher:
                return higher
        return follow
    return void_in_led(hand, best, trump)


def void_in_led(hand: int, best: int, trump: int) -> int:
    """A seat void in the led suit, bound to trump: a trump if able, and over a trump holding the
    trick (card id ``best``) a higher one if able; with no trump in hand, anything."""
    trumps = hand & SUIT_MASKS[trump]
    if trumps:
        if best >> 3 == trump:
            higher = trumps & STRONGER[best]
            if higher:
                return higher
        return trumps
    return hand


def trump_forced(hand: int, led: int, best: int, best_seat: int, seat: int, trump: int) -> int:
    """``manillen-1``'s rule on bare ints: follow if able (no duty to beat in the suit); void, trump
    if able, whoever holds the trick, and overtrump a trump holding it if able; else anything."""
    return hand & SUIT_MASKS[led] or void_in_led(hand, best, trump)


def legal_cards(hand, trick: Trick, seat: int | None = None, facing=None) -> tuple[Card, ...]:
    """Legal cards of ``hand`` (cards or a mask) for ``seat`` (default: the seat to move), canonical order."""
    hand_mask = hand if isinstance(hand, int) else mask_of(hand)
    return cards_of(legal_mask(hand_mask, trick, trick.next_seat if seat is None else seat, facing))


def broken_obligation(hand: int, trick: Trick, seat: int, card: Card, facing=None) -> Obligation | None:
    """The obligation that playing ``card`` would break, or None when it is legal."""
    if not hand >> card.id & 1:
        return Obligation.NOT_IN_HAND
    if legal_mask(hand, trick, seat, facing) >> card.id & 1:
        return None
    # Illegal implies the trick is not empty and an opponent, or a followed suit, constrains us.
    led = trick.plays[0].card.suit
    if hand & SUIT_MASKS[led]:
        return Obligation.MUST_FOLLOW_SUIT if card.suit != led else Obligation.MUST_BEAT
    return Obligation.MUST_TRUMP if card.suit != trick.trump else Obligation.MUST_OVERTRUMP


def check_play(hand: int, trick: Trick, seat: int, card: Card, facing=None) -> None:
    """Raise IllegalPlayError (with the obligation and legal cards) unless ``card`` is legal."""
    broken = broken_obligation(hand, trick, seat, card, facing)
    if broken is not None:
        raise IllegalPlayError(card, broken, cards_of(legal_mask(hand, trick, seat, facing)))


def deal_score(points: tuple[int, int]) -> tuple[int, int]:
    """Game points a deal scores: the team over 30 scores ``points − 30``, the other nothing."""
    us, them = points
    if us + them != DEAL_POINTS:
        raise ValueError(f"a deal is worth {DEAL_POINTS} points, got {us} + {them}")
    return (us - HALF, 0) if us > HALF else (0, them - HALF)


def is_game_over(totals: tuple[int, int], target: int = GAME_TARGET) -> bool:
    return max(totals) >= target


TEAM_NAMES = ("us", "them")


def game_result(totals: tuple[int, int]) -> dict:
    """Final totals, the winning team (``us`` = seats 0 and 2) and seat 0's rank score, as JSON."""
    return {"totals": [totals[0], totals[1]], "winner": TEAM_NAMES[totals[1] > totals[0]],
            "rank_score": rank_score(totals)}


def rank_score(totals: tuple[int, int]) -> int:
    """The player's rank score, ``1000 + 10 × (us − them)``."""
    return 1000 + 10 * (totals[0] - totals[1])

