"""Key names: every key is ``manille:{<scope>}:<kind>[:<part>…]`` (``key_for``), the braces
making its scope the Redis Cluster hash tag; the scopes of a day and of its shards, the ids of
weeks and months, and the ids that name a day and a shard.
"""

from __future__ import annotations

import re
import zlib
from datetime import date


PREFIX = "manille"


#: A day's runs and submissions are spread over this many slots by player (``shard_of``): one
#: slot's master cannot serve the plays of ten million players a day (docs/performance.md).
#: Frozen: a player's ranked run of a day is looked for in the slot its pid names.
DAY_SHARDS = 16


def day_scope(day: date | str, shard: int | None = None) -> str:
    """The hash tag of a day's keys: ``day:2026-12-07``, or of one of its shards
    (``day:2026-12-07/03``); the day's own tag holds what is one per day (its challenge), the
    shards the runs and submissions."""
    tag = f"day:{day if isinstance(day, str) else day.isoformat()}"
    return tag if shard is None else f"{tag}/{shard:02d}"


#: Every shard a day's runs and submissions sit in, as the key helpers take it.
EVERY_SHARD = tuple(range(DAY_SHARDS))


def shard_of(pid: str) -> int:
    """The shard of a day that holds a player's runs and submissions (CRC32 of the pid)."""
    return zlib.crc32(pid.encode()) % DAY_SHARDS


def week_id(day: date) -> str:
    """ISO week of a date, e.g. ``2026-W49``."""
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def month_id(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def day_of_id(pattern: re.Pattern, text) -> date | None:
    """The date of an id ``YYYYMMDD-…`` matching ``pattern`` (its first group is the date), or None
    for anything else, so that a malformed id never reaches a key."""
    m = pattern.fullmatch(text) if isinstance(text, str) else None
    if not m:
        return None
    d = m.group(1)
    try:
        return date(int(d[:4]), int(d[4:6]), int(d[6:]))
    except ValueError:
        return None


def shard_of_id(pattern: re.Pattern, text: str) -> int | None:
    """The day's shard an id ``YYYYMMDD-KK-…`` names (``pattern``'s second group), or None for
    anything else."""
    m = pattern.fullmatch(text) if isinstance(text, str) else None
    return int(m.group(2)) if m else None


def id_tail(text: str) -> str:
    """A day's sharded id (``YYYYMMDD-KK-…``, a submission's) without the day and shard it begins
    with, which a key or a field of that day's shard need not repeat; another id as it is."""
    return text[12:] if len(text) > 12 and text[8] == "-" and text[11] == "-" and text[:8].isdigit() else text


def id_of(day: date, shard: int, tail: str) -> str:
    """``id_tail`` undone: the id in ``day``'s ``shard`` (a whole id given is given back)."""
    return tail if "-" in tail else f"{day:%Y%m%d}-{shard:02d}-{tail}"


def key_for(kind: str, scope: str, *parts: str) -> str:
    """``manille:{<scope>}:<kind>[:<part>…]``; the braces make ``scope`` the cluster hash tag."""
    if "{" in scope or "}" in scope:
        raise ValueError(f"bad key scope {scope!r}")
    tail = "".join(f":{p}" for p in parts)
    return f"{PREFIX}:{{{scope}}}:{kind}{tail}"
