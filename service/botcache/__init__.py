"""The bots' dear decisions of one seed, kept in Redis so that they are computed once a day.

Every player of a day meets the same bots in the same deals, and most games share their first
tricks: the same bot, in the same seat, seeing the same table, chooses the same card (a bot is a
pure function of its observation and of the decision stream, itself a function of the seed and
the position).  ``CachedBot`` wraps a bot: a decision the bot calls dear (``bot.searches(obs)``:
expert-2's solved ones; a cheap one costs less to compute than to fetch) is looked up by the
digest of the bot id and the whole observation, in a hash per seed; a miss computes it and
stores it.  The play path writes, the verifier reads: only the server writes there, so the
cache is trusted, and a miss or a Redis error recomputes the same card.
"""

from __future__ import annotations

import hashlib
import logging

from redis.exceptions import RedisError

from service.replay import Card, Observation
from service.store import key_for

#: A seed's decisions are kept this long after the last one written (a day and its grace).
KEEP_SECONDS = 2 * 24 * 3600

log = logging.getLogger(__name__)


def observation_digest(bot_id: str, obs: Observation, *, totals: bool = True) -> str:
    """A digest of everything a bot's choice depends on besides the seed: its id and the whole
    observation (the seat, its hand, the table, the scores, the rules); the game's score before
    the deal left out for a bot that never reads it (``reads_totals = False``), so that the same
    deal's positions meet whatever the earlier deals gave."""
    tricks = "/".join("".join(f"{p.seat}{p.card}" for p in t.plays) for t in obs.tricks)
    current = f"{obs.trick.leader}:" + "".join(f"{p.seat}{p.card}" for p in obs.trick.plays)
    text = "|".join(map(str, (bot_id, obs.rules, obs.target, obs.seat, obs.deal_index, obs.dealer, obs.turned,
                              obs.hand_mask, obs.legal_mask, tricks, current, obs.points, obs.totals if totals else "",
                              obs.calls, obs.contract, obs.factor)))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class DecisionCache:
    """The dear decisions of one seed: digest -> card."""

    def __init__(self, client, seed: bytes) -> None:
        self.r = client
        self.key = key_for("decisions", f"seed:{hashlib.sha256(seed).hexdigest()[:16]}")
        self.hits = self.misses = 0
        self.broken = False  # after one Redis error, this game's decisions are all computed

    def get(self, digest: str) -> str | None:
        if self.broken:
            return None
        try:
            got = self.r.hget(self.key, digest)
        except RedisError as e:  # a cache: the card is computed instead
            log.warning("decision cache unreadable: %s", e)
            self.broken = True
            return None
        if got is None:
            self.misses += 1
        else:
            self.hits += 1
        return got

    def put(self, digest: str, card: str) -> None:
        if self.broken:
            return
        try:
            with self.r.pipeline(transaction=True) as pipe:
                pipe.hset(self.key, digest, card)
                pipe.expire(self.key, KEEP_SECONDS)
                pipe.execute()
        except RedisError as e:
            log.warning("decision cache unwritable: %s", e)
            self.broken = True


class CachedBot:
    """``bot`` with its dear decisions read from, and written to, ``cache``; the same cards."""

    def __init__(self, bot, cache: DecisionCache, *, write: bool = True) -> None:
        self.bot = bot
        self.id = bot.id
        self.cache = cache
        self.write = write

    def choose(self, obs: Observation, rng) -> Card:
        searches = getattr(self.bot, "searches", None)
        if searches is None or not searches(obs):
            return self.bot.choose(obs, rng)
        digest = observation_digest(self.id, obs, totals=getattr(self.bot, "reads_totals", True))
        got = self.cache.get(digest)
        if got is not None:
            card = Card.parse(got)
            if obs.legal_mask >> card.id & 1:
                return card
            log.error("decision cache: %s is not legal for %s; recomputed", got, digest)
        card = self.bot.choose(obs, rng)
        if self.write:
            self.cache.put(digest, str(card))
        return card


def cached(bot, client, seed: bytes, *, write: bool = True):
    """``bot`` behind the seed's decision cache when it has dear decisions, else ``bot`` itself."""
    if getattr(bot, "searches", None) is None:
        return bot
    return CachedBot(bot, DecisionCache(client, seed), write=write)
