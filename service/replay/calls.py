"""The decisions before a deal's play (``parlee-1``, ``manillen-1``): calls, the auction, the contract.

A call is a small immutable value with a notation that round-trips, like a card: ``str(call)``
is ``C``, ``D``, ``H``, ``S`` (name that suit trump), ``NT`` (no trump), ``pass``, ``double`` or
``redouble``; ``Call.parse`` takes any case.  Its stable integer id follows the card ids (32–39),
so a game's actions, cards and calls, fit one byte each.

An ``Auction`` is the calls of one deal so far under one rules id; it says who speaks next, what
they may say (in one fixed order) and, once over, the contract.  ``muette-1`` has no auction.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Suit
from .errors import IllegalCallError, InvalidCallError

_TEXT = ("C", "D", "H", "S", "NT", "pass", "double", "redouble")
CALL_ID_BASE = 32


class Call:
    """One of the eight calls; interned, so ``Call.parse("nt") is Call.parse("NT")``."""

    __slots__ = ("index",)
    _all: tuple["Call", ...] = ()

    def __new__(cls, index: int) -> "Call":
        if cls._all:
            return cls._all[index]
        call = object.__new__(cls)
        object.__setattr__(call, "index", index)
        return call

    def __setattr__(self, name, value):
        raise AttributeError("Call is immutable")

    @classmethod
    def parse(cls, text: str) -> "Call":
        """Parse a call's notation, any case; raises InvalidCallError for anything else (a card too)."""
        if isinstance(text, str) and text.isascii():
            low = text.lower()
            for i, t in enumerate(_TEXT):
                if low == t.lower():
                    return cls._all[i]
        raise InvalidCallError(f"not a call: {text!r}")

    @classmethod
    def from_id(cls, call_id: int) -> "Call":
        """The call with stable id ``call_id`` (32–39); raises InvalidCallError otherwise."""
        if isinstance(call_id, int) and CALL_ID_BASE <= call_id < CALL_ID_BASE + len(_TEXT):
            return cls._all[call_id - CALL_ID_BASE]
        raise InvalidCallError(f"no call with id {call_id!r}")

    @classmethod
    def naming(cls, suit: Suit | None) -> "Call":
        """The call that names ``suit`` trump, or NT for None."""
        return cls._all[4 if suit is None else int(suit)]

    @property
    def id(self) -> int:
        return CALL_ID_BASE + self.index

    @property
    def names_trump(self) -> bool:
        """Whether this call chooses the deal's trump (a suit or NT)."""
        return self.index <= 4

    @property
    def suit(self) -> Suit | None:
        """The suit a naming call makes trump; None for NT and for the other calls."""
        return Suit(self.index) if self.index < 4 else None

    def __str__(self) -> str:
        return _TEXT[self.index]

    def __repr__(self) -> str:
        return f"Call.parse({_TEXT[self.index]!r})"

    def __hash__(self) -> int:
        return self.id

    def __eq__(self, other) -> bool:
        return isinstance(other, Call) and other.index == self.index

    def __reduce__(self):
        return (Call.from_id, (self.id,))


Call._all = tuple(Call(i) for i in range(len(_TEXT)))
C, D, H, S, NT, PASS, DOUBLE, REDOUBLE = Call._all
NAMING = (C, D, H, S, NT)


@dataclass(frozen=True)
class Contract:
    """What a deal is played for: the trump (None: no trump), who chose it, doubled 0, 1 or 2 times.
    ``factor`` multiplies the deal's score: ×2 for no trump (when the rules say), ×2 per double."""

    call: Call
    declarer: int
    doubled: int
    factor: int

    @property
    def trump(self) -> Suit | None:
        return self.call.suit

    def to_json(self) -> dict:
        return {"declarer": self.declarer, "call": str(self.call),
                "trump": None if self.trump is None else str(self.trump),
                "doubled": self.doubled, "factor": self.factor}


class Auction:
    """The calls of one deal so far: who speaks next, the legal calls, and the contract once over.

    ``named`` (parlee-1): the dealer names a suit or NT; the dealer's opponents then, in the order
    of play from the dealer, may double (the first double ends their turn); after a double the
    dealer's side, in the order of play from the doubler, may redouble.  ``chosen`` (manillen-1):
    the three seats after the dealer in turn choose a suit or NT, or pass; the first choice ends
    the auction; after three passes the dealer must choose.  Immutable: ``call`` returns a new one.
    """

    __slots__ = ("style", "dealer", "no_trump_factor", "calls", "next_seat", "legal", "contract")

    def __init__(self, style: str, dealer: int, no_trump_factor: int, calls: tuple = ()) -> None:
        self.style = style
        self.dealer = dealer
        self.no_trump_factor = no_trump_factor
        self.calls: tuple[tuple[int, Call], ...] = tuple(calls)
        self.next_seat, self.legal, self.contract = _progress(style, dealer, no_trump_factor, self.calls)

    @property
    def is_over(self) -> bool:
        return self.contract is not None

    def call(self, call: Call) -> "Auction":
        """The auction with ``call`` said by the seat to speak; raises IllegalCallError (with the
        legal calls) for a call not allowed now, or any call once the auction is over."""
        if self.contract is not None:
            raise IllegalCallError(call, "the auction is over", ())
        if call not in self.legal:
            raise IllegalCallError(call, f"seat {self.next_seat} may not say {call} now", self.legal)
        return Auction(self.style, self.dealer, self.no_trump_factor, self.calls + ((self.next_seat, call),))

    def __eq__(self, other) -> bool:
        return (isinstance(other, Auction) and (other.style, other.dealer, other.calls)
                == (self.style, self.dealer, self.calls))

    def __hash__(self) -> int:
        return hash((self.style, self.dealer, self.calls))

    def __repr__(self) -> str:
        said = " ".join(f"{s}:{c}" for s, c in self.calls)
        return f"<Auction {self.style} dealer={self.dealer} [{said}]>"


def _contract(naming: tuple[int, Call], doubled: int, no_trump_factor: int) -> Contract:
    seat, call = naming
    factor = (no_trump_factor if call is NT else 1) << doubled
    return Contract(call, seat, doubled, factor)


def _progress(style: str, dealer: int, ntf: int, calls: tuple) -> tuple:
    """(next seat, legal calls, contract) after ``calls``: (None, (), contract) once over."""
    said = [c for _, c in calls]
    if style == "chosen":
        for i, c in enumerate(said):
            if c is not PASS:
                return None, (), _contract(calls[i], 0, ntf)
        n = len(said)
        if n < 3:
            return (dealer + 1 + n) % 4, NAMING + (PASS,), None
        return dealer, NAMING, None  # all three passed: the dealer must choose
    if style != "named":
        raise ValueError(f"no auction in the style {style!r}")
    if not said:
        return dealer, NAMING, None
    naming = calls[0]
    rest = said[1:]
    opponents = ((dealer + 1) % 4, (dealer + 3) % 4)
    if DOUBLE not in rest:
        if len(rest) < 2:
            return opponents[len(rest)], (DOUBLE, PASS), None
        return None, (), _contract(naming, 0, ntf)
    doubler = calls[1 + rest.index(DOUBLE)][0]
    after = rest[rest.index(DOUBLE) + 1:]
    # The dealer's side answers in the order of play from the doubler.
    side = ((doubler + 1) % 4, (doubler + 3) % 4)
    if REDOUBLE in after:
        return None, (), _contract(naming, 2, ntf)
    if len(after) < 2:
        return side[len(after)], (REDOUBLE, PASS), None
    return None, (), _contract(naming, 1, ntf)
