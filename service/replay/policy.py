"""The bot interface: an observation and a deterministic random stream in, one legal card out
(a ``Bot``), or one legal call out (a ``Bidder``, under rules with an auction)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .calls import Call
from .cards import Card
from .observation import Observation
from .stream import HashStream, u32be


@runtime_checkable
class Bot(Protocol):
    """A player policy.  ``id`` names frozen behaviour (docs/spec.md §11); ``choose`` must be a pure function
    of its two arguments and return one of ``obs.legal``."""

    id: str

    def choose(self, obs: Observation, rng: HashStream) -> Card: ...


def decision_stream(seed: bytes, deal_index: int, seat: int, trick_index: int) -> HashStream:
    """The stream handed to the bot at ``seat`` for its card of trick ``trick_index`` of a deal.

    Blocks are ``SHA-256(seed ‖ "bot" ‖ uint32be(deal) ‖ uint32be(seat) ‖ uint32be(trick) ‖
    uint32be(j))``: one-way, so a bot learns nothing of the seed or the hands from it.
    """
    return HashStream(seed + b"bot" + u32be(deal_index) + u32be(seat) + u32be(trick_index))


@runtime_checkable
class Bidder(Protocol):
    """A calling policy for rules with an auction.  ``id`` names frozen behaviour; ``call`` must be a
    pure function of its two arguments and return one of ``obs.legal_calls``."""

    id: str

    def call(self, obs: Observation, rng: HashStream) -> Call: ...


def call_stream(seed: bytes, deal_index: int, seat: int, call_index: int) -> HashStream:
    """The stream handed to the bidder at ``seat`` for call number ``call_index`` of a deal's auction:
    blocks ``SHA-256(seed ‖ "call" ‖ uint32be(deal) ‖ uint32be(seat) ‖ uint32be(call) ‖ uint32be(j))``."""
    return HashStream(seed + b"call" + u32be(deal_index) + u32be(seat) + u32be(call_index))
