"""Daily seeds: derivation from the server secret, the public commitment, day boundaries, reveal.

A day is a calendar date in the configured time zone (``MANILLE_TZ``, default
Europe/Brussels).  It opens at local midnight and closes at the next local
midnight, so a day lasts 23 or 25 hours across a DST change.  Runs opened before
the close may still be finished during a grace (``MANILLE_GRACE_SECONDS``, default
1800); the seed is revealed only once the day has closed and the grace has ended,
so no run still in play can ever meet its own seed.

The secret can be rotated without changing any day already committed: a ``SecretSchedule``
names the secret of each day (``MANILLE_SECRET`` from ``MANILLE_SECRET_SINCE``, the older ones
in ``MANILLE_SECRET_PREVIOUS``); every process derives a day's seed through it.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from service.replay import ManilleError, commitment_of

DAILY_PREFIX = b"manille/daily/v1/"
DEFAULT_TZ = "Europe/Brussels"
DEFAULT_GRACE_SECONDS = 1800

__all__ = ["DAILY_PREFIX", "DEFAULT_GRACE_SECONDS", "DEFAULT_TZ", "DayClock", "InvalidDateError", "MIN_SECRET_BYTES",
           "MissingSecretError", "SealedSeedError", "SecretSchedule", "SecretScheduleError", "ShortSecretError",
           "commitment", "daily_seed", "free_play_seed", "older_secrets", "parse_date", "previous_from_env",
           "require_length", "schedule_from_env", "secret_from_env"]

#: The shortest secret or token a process accepts.  Each day's seed and its commitment are
#: published, so anyone can test guesses of the secret offline, at the speed of HMAC-SHA256:
#: 32 random bytes (``secrets.token_hex(32)``, as ``make run`` makes) put that out of reach, and a
#: bearer token of as many bytes is as hard to guess as the secret.
MIN_SECRET_BYTES = 32


class InvalidDateError(ManilleError):
    """A date is not ``YYYY-MM-DD`` or is not a real calendar date."""


class MissingSecretError(ManilleError):
    """``MANILLE_SECRET`` is unset or empty: no daily seed can be derived."""


class ShortSecretError(ManilleError):
    """A secret or token is shorter than ``MIN_SECRET_BYTES``: the process refuses to start."""


def require_length(name: str, value: bytes | str) -> None:
    """Raise ShortSecretError, naming ``name`` (the variable, or where in it), when ``value`` is
    shorter than ``MIN_SECRET_BYTES`` bytes (its length, never the value, is said)."""
    size = len(value.encode("utf-8") if isinstance(value, str) else value)
    if size < MIN_SECRET_BYTES:
        raise ShortSecretError(f"{name} is {size} bytes long: at least {MIN_SECRET_BYTES} are required "
                               "(make one with: python3 -c 'import secrets; print(secrets.token_hex(32))')")


class SecretScheduleError(ManilleError):
    """A rotation of the server secret is configured inconsistently, or would change the seed of a
    day already committed."""


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
    """``HMAC-SHA256(secret, "manille/daily/v1/" + YYYY-MM-DD)`` (docs/spec.md §4.1)."""
    if not secret:
        raise MissingSecretError("the server secret is empty")
    return hmac.new(secret, DAILY_PREFIX + day.isoformat().encode("ascii"), hashlib.sha256).digest()


def commitment(seed: bytes) -> str:
    """Lowercase hex SHA-256 of the seed: public from the day's start."""
    return commitment_of(seed)


def free_play_seed() -> bytes:
    """32 bytes from the operating system's cryptographic source."""
    return os.urandom(32)


def _env_text(environ, name: str, *, first_line: bool) -> str:
    """``name``'s value, else the file named by ``name_FILE`` (its first line, or all of it);
    raises MissingSecretError naming the file if it cannot be read."""
    value = environ.get(name, "")
    if not value and environ.get(f"{name}_FILE"):
        path = environ[f"{name}_FILE"]
        try:
            with open(path, encoding="utf-8") as f:
                value = f.readline().strip() if first_line else f.read()
        except OSError as e:
            raise MissingSecretError(f"{name}_FILE {path!r}: {e.strerror}") from None
    return value


def secret_from_env(environ=os.environ) -> bytes:
    """The server secret: ``MANILLE_SECRET`` (UTF-8), else the first line of the file named by
    ``MANILLE_SECRET_FILE`` (``make run`` keeps one in ./var/secret); raises MissingSecretError."""
    value = _env_text(environ, "MANILLE_SECRET", first_line=True)
    if not value:
        raise MissingSecretError("no server secret: set MANILLE_SECRET or MANILLE_SECRET_FILE")
    return value.encode("utf-8")


_DATED = re.compile(r"(\d{4}-\d{2}-\d{2})\s+(\S.*)")


@dataclass(frozen=True)
class SecretSchedule:
    """The secret each day's seed derives from: ``eras`` are (first day, secret), oldest first; the
    oldest's first day is None (it serves every day before the next era)."""

    eras: tuple[tuple[date | None, bytes], ...]

    @classmethod
    def single(cls, secret: bytes) -> "SecretSchedule":
        """One secret for every day (no rotation yet)."""
        return cls(((None, secret),))

    @classmethod
    def build(cls, secret: bytes, since: str | date | None = None, previous: str | None = None) -> "SecretSchedule":
        """``MANILLE_SECRET`` from ``MANILLE_SECRET_SINCE``, the days before it from
        ``MANILLE_SECRET_PREVIOUS``: a line per older secret, oldest first, the first line the secret
        alone, each later one "YYYY-MM-DD secret" (its first day).  Raises SecretScheduleError, naming
        the variable, for a SINCE without PREVIOUS or the reverse, a malformed or undated line,
        dates not increasing, or a new secret equal to the one it replaces; ShortSecretError for a
        secret shorter than ``MIN_SECRET_BYTES``."""
        if not secret:
            raise MissingSecretError("no server secret: set MANILLE_SECRET or MANILLE_SECRET_FILE")
        require_length("MANILLE_SECRET", secret)
        previous = previous if previous and previous.strip() else None
        if since in (None, ""):
            if previous is not None:
                raise SecretScheduleError("MANILLE_SECRET_PREVIOUS is set but MANILLE_SECRET_SINCE is not: "
                                          "from which day does MANILLE_SECRET serve?")
            return cls.single(secret)
        if isinstance(since, str):
            since = _schedule_date(since, "MANILLE_SECRET_SINCE")
        if previous is None:
            raise SecretScheduleError(f"MANILLE_SECRET_SINCE is {since.isoformat()} but MANILLE_SECRET_PREVIOUS "
                                      "(or MANILLE_SECRET_PREVIOUS_FILE) is unset: the days before it would "
                                      "have no secret")
        eras: list[tuple[date | None, bytes]] = []
        lines = [(n, line.strip()) for n, line in enumerate(previous.splitlines(), start=1) if line.strip()]
        for n, line in lines:
            dated = _DATED.fullmatch(line)
            where = f"MANILLE_SECRET_PREVIOUS line {n}"
            if not eras:
                if dated:
                    raise SecretScheduleError(f"{where}: the oldest secret comes first, alone, without a date "
                                              "(it serves every day before the next line's)")
                require_length(where, line)
                eras.append((None, line.encode("utf-8")))
                continue
            if not dated:
                raise SecretScheduleError(f"{where}: \"YYYY-MM-DD secret\" expected (the first day that older "
                                          "secret served)")
            first = _schedule_date(dated.group(1), where)
            if eras[-1][0] is not None and first <= eras[-1][0]:
                raise SecretScheduleError(f"{where}: {first.isoformat()} is not after the line before's "
                                          f"{eras[-1][0].isoformat()}: the dates must increase")
            require_length(where, dated.group(2).strip())
            eras.append((first, dated.group(2).strip().encode("utf-8")))
        if eras[-1][0] is not None and since <= eras[-1][0]:
            raise SecretScheduleError(f"MANILLE_SECRET_SINCE {since.isoformat()} is not after "
                                      f"MANILLE_SECRET_PREVIOUS's last date {eras[-1][0].isoformat()}")
        if eras[-1][1] == secret:
            raise SecretScheduleError("MANILLE_SECRET is the same as MANILLE_SECRET_PREVIOUS's newest secret: "
                                      "nothing would rotate (PREVIOUS keeps the old secret, SECRET the new one)")
        eras.append((since, secret))
        return cls(tuple(eras))

    def __repr__(self) -> str:  # the first days only: a repr may reach a log line
        return f"SecretSchedule(firsts={[d.isoformat() for d in self.firsts()]})"

    @property
    def since(self) -> date | None:
        """The first day of the current secret (None: it serves every day)."""
        return self.eras[-1][0]

    def firsts(self) -> list[date]:
        """The first days of every secret after the oldest: where a wrong configuration shows first."""
        return [first for first, _ in self.eras if first is not None]

    def secret_for(self, day: date) -> bytes:
        """The secret in force on ``day``: the newest era whose first day is not after it."""
        for first, secret in reversed(self.eras):
            if first is None or first <= day:
                return secret
        raise AssertionError("the oldest era has no first day")  # build() always makes one

    def seed(self, day: date) -> bytes:
        """``day``'s seed under its own secret; raises MissingSecretError if that secret is empty."""
        return daily_seed(self.secret_for(day), day)

    def secrets(self) -> list[bytes]:
        return [secret for _, secret in self.eras]


def _schedule_date(text: str, where: str) -> date:
    try:
        return parse_date(text.strip())
    except InvalidDateError as e:
        raise SecretScheduleError(f"{where}: {e}") from None


def previous_from_env(environ=os.environ) -> str:
    """``MANILLE_SECRET_PREVIOUS``, else every line of ``MANILLE_SECRET_PREVIOUS_FILE``, else "";
    raises MissingSecretError if that file cannot be read."""
    return _env_text(environ, "MANILLE_SECRET_PREVIOUS", first_line=False)


def older_secrets(previous: str) -> list[str]:
    """The secrets of a ``MANILLE_SECRET_PREVIOUS`` text, without their dates (for the log
    redactor: it must scrub them even where the text does not build a schedule)."""
    return [m.group(2).strip() if (m := _DATED.fullmatch(line.strip())) else line.strip()
            for line in previous.splitlines() if line.strip()]


def schedule_from_env(environ=os.environ) -> SecretSchedule:
    """``SecretSchedule.build`` from ``MANILLE_SECRET`` (or ``_FILE``), ``MANILLE_SECRET_SINCE`` and
    ``MANILLE_SECRET_PREVIOUS`` (or ``_FILE``); raises MissingSecretError or SecretScheduleError."""
    return SecretSchedule.build(secret_from_env(environ), (environ.get("MANILLE_SECRET_SINCE") or "").strip(),
                                previous_from_env(environ))


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

    def closed_days(self, before: date, count: int, now: datetime | None = None) -> list[date]:
        """Up to ``count`` days before ``before`` whose seed is public, newest first (the archive's
        days: the day before today stays out while its grace runs)."""
        now = self._now(now)
        day = before - timedelta(days=1)
        while day >= FIRST_DAY and self.phase(day, now) != "closed":  # today and, in its grace, yesterday
            day -= timedelta(days=1)
        days = []
        while len(days) < count and day >= FIRST_DAY:
            days.append(day)
            day -= timedelta(days=1)
        return days

    def revealed_seed(self, secrets: SecretSchedule | bytes, day: date, now: datetime | None = None) -> bytes:
        """The seed of a closed day, from a schedule or a single secret; raises SealedSeedError while
        the day is open or to come."""
        if not self.may_reveal(day, now):
            raise SealedSeedError(f"the seed of {day.isoformat()} stays sealed until "
                                  f"{self.reveals_at(day).isoformat()}")
        if isinstance(secrets, bytes):
            secrets = SecretSchedule.single(secrets)
        return secrets.seed(day)
