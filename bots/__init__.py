"""Bots: policies from an observation to a card (bidders: to a call).  They import only
``service.replay`` types."""

from .registry import BIDDERS, BOTS, UnknownBotError, get_bidder, get_bot

__all__ = ["BIDDERS", "BOTS", "UnknownBotError", "get_bidder", "get_bot"]
