"""Cards, suits and ranks as small immutable values with a notation that round-trips.

A card's stable integer id is its index in the canonical order of docs/spec.md §3.3
(7C = 0 … TS = 31).  Sets of cards are also handled as 32-bit masks (bit ``id``),
which is what makes legal-card checks and bot search cheap.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Iterable, Iterator

from .errors import InvalidCardError


class Suit(IntEnum):
    """The four suits in canonical order; ``str`` gives the one-letter notation."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    def __str__(self) -> str:
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]

    @property
    def mask(self) -> int:
        """The 32-bit mask of the suit's eight cards."""
        return 0xFF << (8 * self)

    @classmethod
    def parse(cls, text: str) -> "Suit":
        """Parse ``C``/``D``/``H``/``S`` (any case); raises InvalidCardError otherwise."""
        if isinstance(text, str) and len(text) == 1 and text.upper() in "CDHS":
            return cls("CDHS".index(text.upper()))
        raise InvalidCardError(f"not a suit: {text!r}")


class Rank(IntEnum):
    """Ranks from weakest to strongest: the value is the strength inside a suit (T, the manille, is 7)."""

    SEVEN = 0
    EIGHT = 1
    NINE = 2
    JACK = 3
    QUEEN = 4
    KING = 5
    ACE = 6
    TEN = 7

    def __str__(self) -> str:
        return "789JQKAT"[self]

    @property
    def points(self) -> int:
        return _RANK_POINTS[self]

    @property
    def french(self) -> str:
        return ("7", "8", "9", "V", "D", "R", "A", "10")[self]


_RANK_POINTS = (0, 0, 0, 1, 2, 3, 4, 5)
_RANK_TEXT = {"7": 0, "8": 1, "9": 2, "J": 3, "Q": 4, "K": 5, "A": 6, "T": 7, "10": 7}


class Card:
    """One of the 32 cards; instances are interned, so ``Card.parse("TH") is Card.parse("th")``."""

    __slots__ = ("id", "suit", "rank", "_text")

    _all: tuple["Card", ...] = ()

    def __new__(cls, suit: Suit | int, rank: Rank | int) -> "Card":
        if not (0 <= int(suit) < 4 and 0 <= int(rank) < 8):
            raise InvalidCardError(f"no card with suit {suit!r} and rank {rank!r}")
        if cls._all:
            return cls._all[8 * int(suit) + int(rank)]
        card = object.__new__(cls)
        object.__setattr__(card, "suit", Suit(suit))
        object.__setattr__(card, "rank", Rank(rank))
        object.__setattr__(card, "id", 8 * int(suit) + int(rank))
        object.__setattr__(card, "_text", f"{Rank(rank)}{Suit(suit)}")
        return card

    def __setattr__(self, name, value):
        raise AttributeError("Card is immutable")

    @classmethod
    def from_id(cls, card_id: int) -> "Card":
        """The card with canonical index ``card_id``; raises InvalidCardError outside 0..31."""
        if isinstance(card_id, int) and 0 <= card_id < 32:
            return cls._all[card_id]
        raise InvalidCardError(f"no card with id {card_id!r}")

    @classmethod
    def parse(cls, text: str) -> "Card":
        """Parse ``TH``, ``th`` or ``10h``; raises InvalidCardError for anything else (a non-string,
        or a non-ASCII look-alike such as ``Tſ``, whose upper case is ``TS``)."""
        if isinstance(text, str) and 2 <= len(text) <= 3 and text.isascii():
            rank = _RANK_TEXT.get(text[:-1].upper())
            suit = "CDHS".find(text[-1].upper())
            if rank is not None and suit >= 0:
                return cls._all[8 * suit + rank]
        raise InvalidCardError(f"not a card: {text!r}")

    @property
    def points(self) -> int:
        return _RANK_POINTS[self.rank]

    @property
    def bit(self) -> int:
        return 1 << self.id

    def french(self) -> str:
        """The display form for people, e.g. ``10♥``, ``D♠`` (never parsed back)."""
        return f"{self.rank.french}{self.suit.symbol}"

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card.parse({self._text!r})"

    def __hash__(self) -> int:
        return self.id

    def __eq__(self, other) -> bool:
        return isinstance(other, Card) and other.id == self.id

    def __lt__(self, other: "Card") -> bool:
        return self.id < other.id

    def __le__(self, other: "Card") -> bool:
        return self.id <= other.id

    def __reduce__(self):
        return (Card.from_id, (self.id,))


Card._all = tuple(Card(s, r) for s in range(4) for r in range(8))

#: Every card in canonical order (docs/spec.md §3.3), the order the shuffle starts from.
DECK: tuple[Card, ...] = Card._all

FULL_MASK = (1 << 32) - 1

#: Card points by card id (``CARD_POINTS[card.id] == card.points``): a table for hot loops over masks.
CARD_POINTS: tuple[int, ...] = tuple(_RANK_POINTS[i & 7] for i in range(32))


def mask_of(cards: Iterable[Card]) -> int:
    """The 32-bit mask of a collection of cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card.id
    return mask


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, in canonical order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(DECK[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def iter_ids(mask: int) -> Iterator[int]:
    """The card ids of a mask, in canonical order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse ``"TH 7s 10d"`` (spaces or commas) or a list of card texts; raises InvalidCardError."""
    if isinstance(text, str):
        text = text.replace(",", " ").split()
    return tuple(Card.parse(t) for t in text)


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in canonical notation separated by spaces."""
    return " ".join(str(c) for c in cards)
