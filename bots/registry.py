"""Bot ids to bots.  An id names frozen behaviour: a better bot gets a new id beside the old one."""

from __future__ import annotations

from service.replay import Bot, ManilleError

from .bidders import Bidder, LongestBidder, RandomBidder
from .expert import ExpertBot
from .greedy import GreedyBot
from .oracle import OracleBot
from .random_bot import RandomBot
from .searching import SETTINGS, SearchingBot


class UnknownBotError(ManilleError):
    """No bot has this id."""


#: The bots that play from an observation (docs/spec.md §8.2): the only ones a challenge can name.
BOTS: dict[str, Bot] = {bot.id: bot for bot in (RandomBot(), GreedyBot(), ExpertBot(),
                                                  *(SearchingBot(bot_id) for bot_id in SETTINGS))}

#: Measurement bots: they read every hand (``choose_open(state)``), so they are not in BOTS and
#: can never play a challenge; their ``choose`` refuses any observation.  For the tournament and
#: the anti-cheat measurements only.
MEASUREMENT_BOTS: dict[str, OracleBot] = {bot.id: bot for bot in (OracleBot(),)}


def get_bot(bot_id: str) -> Bot:
    """The bot named ``bot_id``; raises UnknownBotError listing the known ids.  A measurement bot
    is returned too (for ``manille tournament``), but it can only play where the whole state is
    handed to it (``cli.tournament``): anywhere else its first move raises."""
    try:
        return BOTS[bot_id]
    except (KeyError, TypeError):
        pass
    try:
        return MEASUREMENT_BOTS[bot_id]
    except (KeyError, TypeError):
        raise UnknownBotError(f"unknown bot {bot_id!r}; known: {', '.join(sorted(BOTS))} "
                              f"(measurement only: {', '.join(sorted(MEASUREMENT_BOTS))})") from None


def get_challenge_bot(bot_id: str) -> Bot:
    """The bot named ``bot_id`` if it may play a challenge (one of BOTS); raises UnknownBotError,
    with the reason, for a measurement bot or an unknown id."""
    if isinstance(bot_id, str) and bot_id in MEASUREMENT_BOTS:
        raise UnknownBotError(f"bot {bot_id!r} reads every hand: a measurement bot, never a challenge bot; "
                              f"challenge bots: {', '.join(sorted(BOTS))}")
    return get_bot(bot_id)


#: The bidders (calls before play under rules with an auction), by id.
BIDDERS = {b.id: b for b in (RandomBidder(), LongestBidder(), Bidder())}


def get_bidder(bidder_id: str):
    """The bidder named ``bidder_id``; raises UnknownBotError listing the known ids."""
    try:
        return BIDDERS[bidder_id]
    except (KeyError, TypeError):
        raise UnknownBotError(f"unknown bidder {bidder_id!r}; known: {', '.join(sorted(BIDDERS))}") from None
