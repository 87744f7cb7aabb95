"""Bot ids to bots.  An id names frozen behaviour: a better bot gets a new id beside the old one."""

from __future__ import annotations

from service.replay import Bot, ManilleError

from .expert import ExpertBot
from .greedy import GreedyBot
from .random_bot import RandomBot


class UnknownBotError(ManilleError):
    """No bot has this id."""


BOTS: dict[str, Bot] = {bot.id: bot for bot in (RandomBot(), GreedyBot(), ExpertBot())}


def get_bot(bot_id: str) -> Bot:
    """The bot named ``bot_id``; raises UnknownBotError listing the known ids."""
    try:
        return BOTS[bot_id]
    except (KeyError, TypeError):
        raise UnknownBotError(f"unknown bot {bot_id!r}; known: {', '.join(sorted(BOTS))}") from None
