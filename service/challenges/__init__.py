"""Daily challenges: which rules and bot a day is played with, its commitment, its seed once public.

A day's challenge is stored the first time it is needed (a run opened on it, or today's asked
for), so that a later change of ``MANILLE_BOTS`` never alters a past day (docs/spec.md §11).  It keeps the
day's commitment too, as published when the day opened: ``check_commitments`` refuses, at every
process's start, a secret configuration that would give a committed day another seed.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from redis.exceptions import ConnectionError as RedisConnectionError, TimeoutError as RedisTimeoutError

from service.config import Settings
from service.replay import RULES_ID
from service.seeds import SecretScheduleError, commitment
from service.store import day_scope, key_for


@dataclass(frozen=True)
class Challenge:
    date: date
    rules: str
    bots: str
    commitment: str
    opens_at: datetime
    closes_at: datetime
    reveal_at: datetime
    phase: str
    seed: str | None  # hex, only once the day's seed is public

    def to_json(self) -> dict:
        return {
            "date": self.date.isoformat(), "rules": self.rules, "bots": self.bots,
            "commitment": self.commitment, "opens_at": self.opens_at.isoformat(),
            "closes_at": self.closes_at.isoformat(), "reveal_at": self.reveal_at.isoformat(),
            "status": self.phase, "seed": self.seed,
        }


class Challenges:
    def __init__(self, client, settings: Settings) -> None:
        self.r = client
        self.settings = settings

    @staticmethod
    def key(day: date) -> str:
        return key_for("challenge", day_scope(day))

    def stored_terms(self, day: date, *, create: bool) -> dict:
        """The rules and bot id of ``day``: as stored, else the configured ones (stored if ``create``)."""
        key = self.key(day)
        raw = self.r.get(key)
        if raw is None:
            terms = {"rules": RULES_ID, "bots": self.settings.bots_for(day),
                     "created_at": self.settings.now().isoformat()}
            if not create:
                return terms
            terms["commitment"] = commitment(self.settings.seed(day))  # what check_commitments holds to
            self.r.set(key, json.dumps(terms), nx=True)
            raw = self.r.get(key)
        return json.loads(raw)

    def get(self, day: date, *, create: bool = False, now: datetime | None = None) -> Challenge:
        s = self.settings
        now = now or s.now()
        phase = s.clock.phase(day, now)
        terms = self.stored_terms(day, create=create or phase == "open")
        seed = s.seed(day)
        return Challenge(
            date=day, rules=terms["rules"], bots=terms["bots"], commitment=commitment(seed),
            opens_at=s.clock.opens_at(day), closes_at=s.clock.closes_at(day),
            reveal_at=s.clock.reveals_at(day), phase=phase,
            seed=seed.hex() if phase == "closed" else None,
        )


log = logging.getLogger("service.challenges")

#: Stored terms read per round trip by ``check_commitments``.
_CHECK_CHUNK = 500


def check_commitments(client, settings: Settings, now: datetime | None = None) -> int | None:
    """Refuses a secret configuration that would change a committed day's seed: for each day from the
    day before the schedule's first rotation (or yesterday) to tomorrow whose stored terms hold a
    commitment, the configuration must give the same.  Returns the days compared, None if Redis
    could not be reached (logged; the start goes on, as it does without this check); raises
    SecretScheduleError naming the day and the variable."""
    today = settings.today(now)
    first = min([today - timedelta(days=1)] + [d - timedelta(days=1) for d in settings.secrets.firsts()])
    days = [first + timedelta(days=i) for i in range((today - first).days + 2)]
    try:
        stored = []
        for i in range(0, len(days), _CHECK_CHUNK):
            pipe = client.pipeline(transaction=False)
            for day in days[i:i + _CHECK_CHUNK]:
                pipe.get(Challenges.key(day))
            stored += pipe.execute()
    except (RedisConnectionError, RedisTimeoutError) as e:
        log.warning("the days' commitments could not be compared with the secret configuration: %s", e)
        return None
    compared = 0
    for day, raw in zip(days, stored):
        published = json.loads(raw).get("commitment") if raw else None
        if published is None:  # not opened yet, or opened before commitments were stored
            continue
        compared += 1
        if commitment(settings.seed(day)) != published:
            since = settings.secrets.since
            if since is not None and day >= since:
                which = f"MANILLE_SECRET (from MANILLE_SECRET_SINCE {since.isoformat()})"
            elif since is not None:
                which = "MANILLE_SECRET_PREVIOUS (the secret it gives that day)"
            else:
                which = "MANILLE_SECRET (no MANILLE_SECRET_SINCE: it serves every day)"
            raise SecretScheduleError(
                f"{which} would change the seed of {day.isoformat()}, already committed to "
                f"{published[:12]}…: a new secret needs MANILLE_SECRET_SINCE after today and the old "
                "one in MANILLE_SECRET_PREVIOUS (deploy/RUNBOOK.md, Rotating secrets)")
    return compared
