"""The seeded chance step: shuffle, first dealer, the 3-3-2 deal and the turned card (docs/spec.md §5)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .cards import DECK, Card, Suit
from .errors import InvalidSeedError
from .stream import HashStream, u32be

SEED_BYTES = 32
#: Packet sizes, dealt to seats d+3, d+2, d+1, d in turn for each packet size.
PACKETS = (3, 3, 2)


def check_seed(seed: bytes | str) -> bytes:
    """The 32-byte seed from bytes or 64 hex digits; raises InvalidSeedError otherwise."""
    if isinstance(seed, str):
        try:
            seed = bytes.fromhex(seed.strip())
        except ValueError:
            raise InvalidSeedError(f"seed is not hexadecimal: {seed!r}") from None
    if not isinstance(seed, (bytes, bytearray)) or len(seed) != SEED_BYTES:
        raise InvalidSeedError(f"a seed is {SEED_BYTES} bytes (64 hex digits)")
    return bytes(seed)


def shuffled_deck(seed: bytes, deal_index: int) -> tuple[Card, ...]:
    """Deal ``deal_index``'s deck: Fisher-Yates from the canonical order, i = 31 down to 1."""
    deck = list(DECK)
    HashStream(seed + b"deal" + u32be(deal_index)).shuffle(deck)
    return tuple(deck)


def first_dealer(seed: bytes) -> int:
    """The dealer of deal 0: ``SHA-256(seed ‖ "dealer")[0] mod 4``."""
    return hashlib.sha256(seed + b"dealer").digest()[0] % 4


@dataclass(frozen=True)
class Deal:
    """One deal as dealt: hands in the order the cards arrived, the turned card is the dealer's last."""

    index: int
    dealer: int
    hands: tuple[tuple[Card, ...], ...]
    turned: Card

    @property
    def trump(self) -> Suit:
        return self.turned.suit

    @property
    def leader(self) -> int:
        """The dealer's left-hand neighbour leads the first trick."""
        return (self.dealer + 1) % 4


def deal(seed: bytes, deal_index: int, dealer: int) -> Deal:
    """Deal ``deal_index`` by ``dealer``: counter-clockwise from the dealer's right, packets 3-3-2."""
    deck = shuffled_deck(seed, deal_index)
    hands: list[list[Card]] = [[], [], [], []]
    pos = 0
    for size in PACKETS:
        for offset in (3, 2, 1, 0):
            hands[(dealer + offset) % 4].extend(deck[pos:pos + size])
            pos += size
    return Deal(deal_index, dealer, tuple(tuple(h) for h in hands), deck[31])


def dealer_of(seed: bytes, deal_index: int) -> int:
    """The dealer of any deal: the deal passes clockwise from the first dealer."""
    return (first_dealer(seed) + deal_index) % 4
