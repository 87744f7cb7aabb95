"""The bots' dear decisions of one seed, kept in Redis so that they are computed once a day.

Every player of a day meets the same bots in the same deals, and most games share their first
tricks: the same bot, in the same seat, seeing the same table, chooses the same card (a bot is a
pure function of its observation and of the decision stream, itself a function of the seed and
the position).  ``CachedBot`` wraps a bot: a decision the bot calls dear (``bot.searches(obs)``:
expert-2's solved ones; a cheap one costs less to compute than to fetch) is looked up by the
digest of the bot id and the whole observation, in a hash per seed; a miss computes it and
stores it.  The play path writes, the verifier reads: only the server writes there, so the
cache is trusted, and a miss or a Redis error recomputes the same card.  The worker fills a day's
hash ahead with every decision its first deals can ask for (``warm``).

Each process also keeps the decisions it has read or written, per seed (``KEPT_SEEDS`` seeds, up
to ``KEPT_PER_SEED`` decisions each, about 4 MB): a decision never changes, so a copy is never
stale, and a play then costs no round trip to Redis for the bots' cards a day's players share.
"""

from __future__ import annotations

import hashlib
import logging

from redis.exceptions import RedisError

from service.replay import DECK, Card, Observation
from service.store import key_for

#: A seed's decisions are kept this long after the last one written (a day and its grace).
KEEP_SECONDS = 2 * 24 * 3600
#: The process's own copies (``DecisionCache(kept=True)``): seeds, most recent last, and how many
#: decisions of each (a day's warm is about 31,000 with expert-5: docs/performance.md).
KEPT_SEEDS = 2
KEPT_PER_SEED = 1 << 16
_kept: dict[str, dict[str, str]] = {}
#: One string per card for the copies (a card read from Redis is a new string each time).
_CARD_TEXT = {str(c): str(c) for c in DECK}

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


def seed_scope(seed: bytes) -> str:
    """The hash tag of a seed's decisions (and of its warm's progress: ``warm``)."""
    return f"seed:{hashlib.sha256(seed).hexdigest()[:16]}"


class DecisionCache:
    """The dear decisions of one seed: digest -> card.  ``batch``: writes are kept and sent
    together every ``batch`` decisions (and by ``flush``), for a writer of thousands (the warm)."""

    def __init__(self, client, seed: bytes, *, batch: int = 0, kept: bool = True) -> None:
        self.r = client
        self.key = key_for("decisions", seed_scope(seed))
        self.hits = self.misses = 0
        self.broken = False  # after one Redis error, this game's decisions are all computed
        self.batch = batch
        self.pending: dict[str, str] = {}
        self.kept = _kept_for(self.key) if kept else None

    def get(self, digest: str) -> str | None:
        kept = self.kept
        if kept is not None and digest in kept:
            self.hits += 1
            return kept[digest]
        if self.broken:
            return None
        if digest in self.pending:
            self.hits += 1
            return self.pending[digest]
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
            self._keep(digest, got)
        return got

    def _keep(self, digest: str, card: str) -> None:
        kept = self.kept
        if kept is not None and card in _CARD_TEXT:
            if len(kept) >= KEPT_PER_SEED:
                del kept[next(iter(kept))]  # the oldest copy
            kept[digest] = _CARD_TEXT[card]

    def put(self, digest: str, card: str) -> None:
        self._keep(digest, card)
        if self.broken:
            return
        self.pending[digest] = card
        if len(self.pending) >= self.batch:
            self.flush()

    def drop(self, digest: str) -> None:
        """Forget this process's copy of ``digest`` (it was found wrong: recomputed and written again)."""
        if self.kept is not None:
            self.kept.pop(digest, None)

    def flush(self) -> None:
        """Send the decisions kept (one transaction: the hash and its expiry)."""
        if self.broken or not self.pending:
            return
        try:
            with self.r.pipeline(transaction=True) as pipe:
                pipe.hset(self.key, mapping=self.pending)
                pipe.expire(self.key, KEEP_SECONDS)
                pipe.execute()
        except RedisError as e:
            log.warning("decision cache unwritable: %s", e)
            self.broken = True
        self.pending = {}


def _kept_for(key: str) -> dict[str, str]:
    """This process's copies of the decisions under ``key``; the seed used longest ago dropped."""
    kept = _kept.pop(key, None)
    if kept is None:
        kept = {}
        while len(_kept) >= KEPT_SEEDS:
            del _kept[next(iter(_kept))]
    _kept[key] = kept  # the most recent last
    return kept


def forget() -> None:
    """Drop this process's copies (a test that empties Redis empties them too)."""
    _kept.clear()


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
        card = self.lookup(obs)
        if card is not None:
            return card
        card = self.bot.choose(obs, rng)
        if self.write:
            self.cache.put(self.digest(obs), str(card))
        return card

    def digest(self, obs: Observation) -> str:
        return observation_digest(self.id, obs, totals=getattr(self.bot, "reads_totals", True))

    def lookup(self, obs: Observation) -> Card | None:
        """The card the cache holds for this dear decision, None if none (or one not legal there,
        dropped: it is computed again)."""
        digest = self.digest(obs)
        got = self.cache.get(digest)
        if got is not None:
            card = Card.parse(got)
            if obs.legal_mask >> card.id & 1:
                return card
            log.error("decision cache: %s is not legal for %s; recomputed", got, digest)
            self.cache.drop(digest)
        return None


def cached(bot, client, seed: bytes, *, write: bool = True):
    """``bot`` behind the seed's decision cache when it has dear decisions, else ``bot`` itself."""
    if getattr(bot, "searches", None) is None:
        return bot
    return CachedBot(bot, DecisionCache(client, seed), write=write)
