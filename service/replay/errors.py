"""Errors of the engine, typed by cause, all under one root that is a ValueError."""

from __future__ import annotations

from enum import Enum


class ManilleError(ValueError):
    """Root of every error the engine raises on bad input."""


class InvalidCardError(ManilleError):
    """A card's text is not a card: bad notation, not a move against the rules."""


class InvalidSeedError(ManilleError):
    """A seed is not 32 bytes (or 64 hex digits)."""


class Obligation(str, Enum):
    """Why a card was refused; the values are the codes of docs/spec.md §10.3."""

    NOT_IN_HAND = "not_in_hand"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    MUST_BEAT = "must_beat"
    MUST_TRUMP = "must_trump"
    MUST_OVERTRUMP = "must_overtrump"


class IllegalPlayError(ManilleError):
    """A well-formed card played against the rules; carries the broken obligation and the legal cards."""

    def __init__(self, card, obligation: Obligation, legal: tuple) -> None:
        self.card = card
        self.obligation = obligation
        self.legal = tuple(legal)
        super().__init__(
            f"{card} breaks {obligation.value}; legal: {' '.join(str(c) for c in self.legal)}"
        )


class GameOverError(ManilleError):
    """A card was played after the game ended."""


class BotError(RuntimeError):
    """A bot answered with an illegal card: a bug in the bot, never the player's fault."""


class InvalidCallError(ManilleError):
    """A call's text is not a call: bad notation, not a call against the rules."""


class IllegalCallError(ManilleError):
    """A well-formed call not allowed now (or an action of the wrong kind for the phase); carries
    the legal calls."""

    def __init__(self, call, why: str, legal: tuple) -> None:
        self.call = call
        self.legal = tuple(legal)
        super().__init__(f"{why}; legal: {' '.join(str(c) for c in self.legal) or 'none'}")
