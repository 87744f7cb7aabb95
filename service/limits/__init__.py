"""Rate limits counted in Redis, shared by every web process: moving windows of hits.

A limit is a name (``plays_per_token``…), a subject (a player id, a client address) and one or
more windows (``"240 per minute;3600 per hour"``): a request fits when every window has room,
and then counts one hit in each.  Why each limit and its defaults: ``service.api.limits``.

A window of length E counts the hits of the last E in 60 buckets of E/60 (``windows.lua``): a
hash of at most 61 small fields per window and subject, gone E after its last hit, whatever the
amount (a list of every hit, Flask-Limiter's moving window, held up to 12,000 timestamps for an
address's hourly plays).  The price: a hit leaves the window up to E/60 early (a minute early
in an hour).  Retry-After is the wait until the oldest hits that fill the window have left it.

Checking and counting are Lua, in one round trip each (``check.lua``, ``count.lua``); a play
counts inside ``service/runs/play.lua``, atomically with storing it (see ``Runs.play``).  The
time is the web process's clock (a script may not read Redis's before writing on Redis 6).
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path

from service.errors import TooManyRequests
from service.store import evalsha_on, key_for, load_script

#: The shared Lua functions; a script that checks or counts windows includes it.
WINDOWS_LUA = Path(__file__).with_name("windows.lua")

UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
WINDOW_RE = re.compile(r"\s*([0-9]+)\s*(?:per|/)\s*([0-9]+)?\s*(second|minute|hour|day)s?\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Window:
    amount: int
    seconds: int


@functools.lru_cache(maxsize=256)
def parse(text: str) -> tuple[Window, ...]:
    """``"12 per hour;30 per day"`` (also ``12/hour``, ``6 per 10 minutes``); "" is no window.
    Raises ValueError for anything else, or an amount or length of 0."""
    windows = []
    for part in filter(str.strip, (text or "").split(";")):
        m = WINDOW_RE.fullmatch(part)
        if not m:
            raise ValueError(f"not a rate limit (such as '12 per hour;30 per day'): {part.strip()!r}")
        amount, seconds = int(m.group(1)), int(m.group(2) or 1) * UNITS[m.group(3).lower()]
        if amount < 1 or seconds < 1:
            raise ValueError(f"a rate limit needs an amount and a length of at least 1: {part.strip()!r}")
        windows.append(Window(amount, seconds))
    return tuple(windows)


def duration(seconds: int) -> str:
    """``seconds`` for people, rounded to the largest unit it reaches: "3 minutes"."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = round(seconds / size)
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


class Gate:
    """The windows one request must find room in: each limit ``(name, subject, windows)`` flattened
    to the keys and arguments the scripts take (subjects hashed: a key is no log of addresses)."""

    def __init__(self, limits) -> None:
        self.keys: list[str] = []
        self.args: list[int] = []
        self._windows: list[tuple[str, Window]] = []
        for name, subject, windows in limits:
            digest = hashlib.sha1(subject.encode()).hexdigest()[:16]
            for w in windows:
                self.keys.append(key_for("limit", f"{name}:{digest}", str(w.seconds)))
                self.args += [w.amount, w.seconds * 1000]
                self._windows.append((name, w))

    def __bool__(self) -> bool:
        return bool(self.keys)

    def verdict(self, reply) -> None:
        """TooManyRequests if a script's answer ``[window index, ms]`` names a full window (index 0: room)."""
        index, wait_ms = int(reply[0]), int(reply[1])
        if index:
            raise self.refusal(index, wait_ms)

    def refusal(self, index: int, wait_ms: int) -> TooManyRequests:
        """The 429 for window ``index`` (1-based, as the scripts answer) full for ``wait_ms`` more."""
        name, w = self._windows[index - 1]
        retry = max(1, math.ceil(wait_ms / 1000))
        return TooManyRequests(f"too many {name.replace('_', ' ')}: at most {w.amount} in "
                               f"{duration(w.seconds)}; try again in {duration(retry)}",
                               retry_after=retry, limit=name)


def now_ms() -> int:
    return int(time.time() * 1000)


class Limits:
    def __init__(self, client) -> None:
        self.r = client
        self._check = load_script(client, __file__, "check.lua", include=[WINDOWS_LUA])
        self._count = load_script(client, __file__, "count.lua", include=[WINDOWS_LUA])

    def check(self, gate: Gate, now: int | None = None) -> None:
        """TooManyRequests if a window of ``gate`` is full; counts nothing."""
        if gate:
            gate.verdict(self._check(keys=gate.keys, args=[now or now_ms(), *gate.args]))

    def queue_check(self, gate: Gate, pipe, now: int) -> None:
        """``check`` queued on ``pipe`` (a gate with windows) for ``store.pipelined_reads`` (with
        ``self.scripts``); its reply goes to ``gate.verdict``."""
        evalsha_on(pipe, self._check, gate.keys, [now, *gate.args])

    @property
    def scripts(self) -> tuple:
        return (self._check,)

    def count(self, gate: Gate, now: int | None = None) -> None:
        """One hit in every window of ``gate`` (the request succeeded)."""
        if gate:
            self._count(keys=gate.keys, args=[now or now_ms(), *gate.args])


__all__ = ["WINDOWS_LUA", "Gate", "Limits", "Window", "duration", "now_ms", "parse"]
