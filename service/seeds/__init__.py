"""Daily seeds: derivation from the server secret, the public commitment, day boundaries, reveal.

A day is a calendar date in the configured time zone (``MANILLE_TZ``, default
Europe/Brussels).  It opens at local midnight and closes at the next local
midnight, so a day lasts 23 or 25 hours across a DST change.  Runs opened before
the close may still be finished during a grace (``MANILLE_GRACE_SECONDS``, default
1800); the seed is revealed only once the day has closed and the grace has ended,
so no run still in play can ever meet its own seed.
"""

from __future__ import annotations

import functools

import hashlib
import hmac
import os
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from service.replay import ManilleError, commitment_of

DAILY_PREFIX = b"manille/daily/v1/"
DEFAULT_TZ = "Europe/Brussels"
DEFAULT_GRACE_SECONDS = 1800

__all__ = ["DAILY_PREFIX", "DEFAULT_GRACE_SECONDS", "DEFAULT_TZ", "DayClock", "InvalidDateError", "MissingSecretError",
           "SealedSeedError", "commitment", "daily_seed", "free_play_seed", "parse_date",
           "secret_from_env"]


class InvalidDateError(ManilleError):
    """A date is not ``YYYY-MM-DD`` or is not a real calendar date."""


class MissingSecretError(ManilleError):
    """``MANILLE_SECRET`` is unset or empty: no daily seed can be derived."""


class SealedSeedError(ManilleError):
    """A day's seed was asked for before the day closed."""


#: The days the service knows: from its epoch to a year before the calendar ends, so that every
#: day's opening, closing and reveal times (a day either side, in any time zone) exist.
FIRST_DAY = date(2000, 1, 1)
LAST_DAY = date(9998, 12, 31)


def parse_date(text: str) -> date:
    """``YYYY-MM-DD`` (exactly that form) to a date from 2000-01-01 to 9998-12-31; raises
    InvalidDateError for anything else (a day before the service's epoch has no challenge, and
    day ids are written with four-digit years)."""
    if isinstance(text, str) and len(text) == 10 and text[4] == "-" and text[7] == "-":
        try:
            day = date.fromisoformat(text)
        except ValueError:
            pass
        else:
            if FIRST_DAY <= day <= LAST_DAY:
                return day
            raise InvalidDateError(f"no day before {FIRST_DAY} or after {LAST_DAY}: {text!r}")
    raise InvalidDateError(f"not a date (YYYY-MM-DD): {text[:32] if isinstance(text, str) else text!r}")


def daily_seed(secret: bytes, day: date) -> bytes:
    """``HMAC-SHA256(secret, "manille/daily/v1/" + YYYY-MM-DD)`` (RULES §3)."""
    if not secret:
        raise MissingSecretError("the server secret is empty")
    return hmac.new(secret, DAILY_PREFIX + day.isoformat().encode("ascii"), hashlib.sha256).digest()


def commitment(seed: bytes) -> str:
    """Lowercase hex SHA-256 of the seed: public from the day's start."""
    return commitment_of(seed)


def free_play_seed() -> bytes:
    """32 bytes from the operating system's cryptographic source."""
    return os.urandom(32)


def secret_from_env(environ=os.environ) -> bytes:
    """The server secret: ``MANILLE_SECRET`` (UTF-8), else the first line of the file named by
    ``MANILLE_SECRET_FILE`` (``make run`` keeps one in ./var/secret); raises MissingSecretError."""
    value = environ.get("MANILLE_SECRET", "")
    if not value and environ.get("MANILLE_SECRET_FILE"):
        path = environ["MANILLE_SECRET_FILE"]
        try:
            with open(path, encoding="utf-8") as f:
                value = f.readline().strip()
        except OSError as e:
            raise MissingSecretError(f"MANILLE_SECRET_FILE {path!r}: {e.strerror}") from None
    if not value:
        raise MissingSecretError("no server secret: set MANILLE_SECRET or MANILLE_SECRET_FILE")
    return value.encode("utf-8")


@functools.lru_cache(maxsize=4096)
def _midnight(tz: ZoneInfo, day: date) -> datetime:
    """``DayClock.opens_at``, kept: every board and run request asks for its day's phase."""
    return datetime.combine(day, time(0), tzinfo=tz).astimezone(timezone.utc)


class DayClock:
    """Which date is today, when each day opens, closes and reveals its seed, in one time zone.

    ``tz`` and ``grace_seconds`` default to ``MANILLE_TZ`` and ``MANILLE_GRACE_SECONDS``.
    """

    def __init__(self, tz: str | None = None, grace_seconds: int | None = None) -> None:
        name = tz or os.environ.get("MANILLE_TZ") or DEFAULT_TZ
        try:
            self.tz = ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            raise ManilleError(f"unknown time zone: {name!r}") from None
        if grace_seconds is None:
            text = os.environ.get("MANILLE_GRACE_SECONDS") or str(DEFAULT_GRACE_SECONDS)
            try:
                grace_seconds = int(text)
            except ValueError:
                raise ManilleError(f"MANILLE_GRACE_SECONDS is not a whole number: {text!r}") from None
        if not 0 <= grace_seconds <= 86400:
            raise ManilleError(f"the grace must be 0 to 86400 seconds, not {grace_seconds}")
        self.grace = timedelta(seconds=grace_seconds)

    @staticmethod
    def _now(now: datetime | None) -> datetime:
        if now is None:
            return datetime.now(timezone.utc)
        if now.tzinfo is None:
            raise ValueError("now must be timezone-aware")
        return now

    def today(self, now: datetime | None = None) -> date:
        """The challenge date at ``now`` (default: the current time)."""
        return self._now(now).astimezone(self.tz).date()

    def opens_at(self, day: date) -> datetime:
        """Local midnight starting ``day``, as an aware UTC datetime."""
        return _midnight(self.tz, day)

    def closes_at(self, day: date) -> datetime:
        """Local midnight ending ``day`` (the next day's opening)."""
        return self.opens_at(day + timedelta(days=1))

    def is_open(self, day: date, now: datetime | None = None) -> bool:
        now = self._now(now)
        return self.opens_at(day) <= now < self.closes_at(day)

    def is_closed(self, day: date, now: datetime | None = None) -> bool:
        return self._now(now) >= self.closes_at(day)

    def reveals_at(self, day: date) -> datetime:
        """When ``day``'s seed becomes public: its close plus the grace for runs still in play."""
        return self.closes_at(day) + self.grace

    def may_reveal(self, day: date, now: datetime | None = None) -> bool:
        """Whether ``day``'s seed may be published: only once the day has closed and the grace ended."""
        return self._now(now) >= self.reveals_at(day)

    def phase(self, day: date, now: datetime | None = None) -> str:
        """``upcoming``, ``open`` (ranked runs start), ``closing`` (runs opened before the close
        finish), ``closed`` (seed public, practice allowed)."""
        now = self._now(now)
        if now < self.opens_at(day):
            return "upcoming"
        if now < self.closes_at(day):
            return "open"
        return "closing" if now < self.reveals_at(day) else "closed"

    def revealed_seed(self, secret: bytes, day: date, now: datetime | None = None) -> bytes:
        """The seed of a closed day; raises SealedSeedError while the day is open or to come."""
        if not self.may_reveal(day, now):
            raise SealedSeedError(f"the seed of {day.isoformat()} stays sealed until "
                                  f"{self.reveals_at(day).isoformat()}")
        return daily_seed(secret, day)
