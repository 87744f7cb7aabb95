"""Daily challenges: which rules and bot a day is played with, its commitment, its seed once public.

A day's challenge is stored the first time it is needed (a run opened on it, or today's asked
for), so that a later change of ``MANILLE_BOTS`` never alters a past day (RULES §8).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime

from service.config import Settings
from service.replay import RULES_ID
from service.seeds import commitment
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
            terms = {"rules": RULES_ID, "bots": self.settings.bots,
                     "created_at": self.settings.now().isoformat()}
            if not create:
                return terms
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
