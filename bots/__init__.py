"""Bots: policies from an observation to a card.  They import only ``service.replay`` types."""

from .registry import BOTS, UnknownBotError, get_bot

__all__ = ["BOTS", "UnknownBotError", "get_bot"]
