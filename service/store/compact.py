"""Compact stored forms shared by the data modules: cards a character each, times as Base64 VLQ gaps,
instants as integers.  What Redis holds of a run, a submission or an analysis is mostly these.

- a card is its id (docs/spec.md §3.3, 7C = 0 … TS = 31) as a base64 digit (``A`` … ``f``); a call (rules
  with an auction) one of ``CALLS``, which no card uses;
- times (ms since the epoch): the first, then the ms since the one before (negative if a clock
  went back), each a Base64 VLQ (source maps' variable-length integers: the sign in the lowest bit,
  five bits a digit, lowest first, a digit from ``g`` on saying another follows), run together:
  1764712800123, 1520, 830 is ``23vxih3mD`` ``g/C`` ``8zB``: 9 digits for the first, 3 for a gap
  of 0.5–16 s; a new time is appended as its gap alone (``vlq``);
- an instant as whole µs since the epoch, which Redis keeps as an 8-byte integer;
- a whole game of muette-1 (every seat's cards, ``pack_plays``) as one number: each card's place
  among the legal cards of its seat, in mixed radix (a forced card adds nothing), written in the
  VLQ digits: about 40 characters for the 190-odd cards of a game.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from service.replay import Card, GameState

#: A card's id as one character: the base64 digits, in order.
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef"
#: A call as one character (rules with an auction), after the cards' digits.
CALLS = {"C": "g", "D": "h", "H": "i", "S": "j", "NT": "k", "pass": "l", "double": "m", "redouble": "n"}
_ID_OF = {c: i for i, c in enumerate(ALPHABET)}
#: The digits of a Base64 VLQ (source maps'): 32 and up say that another digit follows.
VLQ = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_VLQ_OF = {c: i for i, c in enumerate(VLQ)}
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def pack_cards(cards: list[str]) -> str:
    """Cards (``7S``…) to one character each; InvalidCardError for anything not a card."""
    return "".join(ALPHABET[Card.parse(c).id] for c in cards)


def unpack_cards(text: str) -> list[str]:
    """``pack_cards`` undone; ValueError for a character no card has (a damaged store)."""
    try:
        return [str(Card.from_id(_ID_OF[ch])) for ch in text]
    except KeyError:
        raise ValueError(f"not a packed card list: {text[:64]!r}") from None


def vlq(n: int) -> str:
    """One integer as a Base64 VLQ."""
    v = (-n << 1) | 1 if n < 0 else n << 1
    out = []
    while True:
        digit, v = v & 31, v >> 5
        out.append(VLQ[digit | 32 if v else digit])
        if not v:
            return "".join(out)


def pack_times(times_ms: list[int]) -> str:
    """Play times (ms since the epoch) as gaps, each a Base64 VLQ, run together."""
    return "".join(vlq(t - prev) for prev, t in zip([0] + times_ms, times_ms))


def unpack_times(text: str) -> list[int]:
    """``pack_times`` undone ('' is no time); ValueError for a character that is no VLQ digit or a
    last number left unfinished (a damaged store)."""
    times, t, v, shift = [], 0, 0, 0
    try:
        for ch in text:
            digit = _VLQ_OF[ch]
            v |= (digit & 31) << shift
            shift += 5
            if not digit & 32:
                t += -(v >> 1) if v & 1 else v >> 1
                times.append(t)
                v = shift = 0
    except KeyError:
        raise ValueError(f"not packed play times: {text[:64]!r}") from None
    if shift:
        raise ValueError(f"packed play times cut short: {text[-64:]!r}")
    return times


def pack_instant(moment: datetime) -> str:
    """An aware datetime as whole µs since the epoch."""
    return str((moment - EPOCH) // timedelta(microseconds=1))


def unpack_instant(text: str) -> str:
    """``pack_instant``'s µs as ISO text in UTC (``datetime.isoformat``); '' stays ''."""
    return (EPOCH + timedelta(microseconds=int(text))).isoformat() if text else ""


def pack_plays(seed: bytes, cards: list[str]) -> str:
    """Every card of a muette-1 game from ``seed``, in order, as one number: card k's index among
    the legal cards at its turn, in the radix of how many there were; IllegalPlayError for a card
    not legal."""
    state, number, weight = GameState(seed), 0, 1
    for text in cards:
        card = Card.parse(text)
        legal = state.legal_cards()
        state.apply(card)  # IllegalPlayError for a card not legal
        number += legal.index(card) * weight
        weight *= len(legal)
    digits = []
    while number:
        number, d = divmod(number, 64)
        digits.append(VLQ[d])
    return f"{len(cards)}:" + "".join(digits)


def unpack_plays(seed: bytes, text: str) -> list[str]:
    """``pack_plays`` undone; ValueError for text that is none."""
    try:
        count, digits = text.split(":", 1)
        number = sum(_VLQ_OF[ch] << (6 * i) for i, ch in enumerate(digits))
        count = int(count)
    except (KeyError, ValueError):
        raise ValueError(f"not a packed game: {text[:64]!r}") from None
    state, cards = GameState(seed), []
    for _ in range(count):
        legal = state.legal_cards()
        if not legal:
            raise ValueError(f"a packed game longer than its game: {text[:64]!r}")
        number, index = divmod(number, len(legal))
        state.apply(legal[index])
        cards.append(str(legal[index]))
    return cards
