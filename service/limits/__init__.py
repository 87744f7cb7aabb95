"""Rate limits counted in Redis, shared by every web process: moving windows of hits.

A limit is a name (``plays_per_token``…), a subject (a player id, a client's network:
``client_network``) and one or more windows (``"240 per minute;3600 per hour"``): a request fits when every window has room,
and then counts one hit in each.  Why each limit and its defaults: ``service.api.limits``.

A window of length E counts the hits of the last E in 60 buckets of E/60 (``windows.lua``): a
hash of at most 61 small fields per window and subject, gone E after its last hit, whatever the
amount (a list of every hit, Flask-Limiter's moving window, held up to 12,000 timestamps for an
address's hourly plays).  The price: a hit leaves the window up to E/60 early (a minute early
in an hour).  Retry-After is the wait until the oldest hits that fill the window have left it.

One script call per limit (its windows share a hash tag: one cluster slot), the limits of a
request in one pipelined round trip: ``take`` checks a limit and counts the request in it if
every window has room, in one call, so that requests arriving together cannot all pass a check
before any is counted; the count is given back (``uncount``) when the request then fails.  A play
queues its take beside its reads (``Runs.play``); opening a run, a submission and an analysis
take theirs as they learn they need them (``service.api.limits.Admission``).  ``check`` (no
count) and ``count`` remain for callers that only look.  The time is the web process's clock (a
script may not read Redis's before writing on Redis 6).
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import math
import re
import time
from dataclasses import dataclass

from service.errors import TooManyRequests
from service.store import evalsha_on, key_for, load_script, pipelined

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


#: The prefix of an IPv6 client that counts as one client: a /64 is one subscriber's (RFC 6177,
#: SLAAC), who can pick any of its 2^64 addresses at will.
IPV6_PREFIX = 64
#: The IPv6 prefixes a per-address limit counts an IPv6 client's /64 in, each with its windows'
#: amounts times the factor: an ISP hands one customer a /56 or a /48 (RFC 6177), 256 or 65,536
#: /64s to pick from, so a /64's windows alone would let one customer act as thousands of clients.
#: A /56 is one household, as a /64 is (its windows hold the /64's: no key of the /64's own, so
#: that a client drawing a new /64 for each request makes no new window); a /48, a site, has room
#: for two (scripts/bench_attacker.py prints what one /48 can then add to Redis in a day).
WIDER_PREFIXES = ((56, 1), (48, 2))


@functools.lru_cache(maxsize=65536)
def client_network(address: str) -> str:
    """What the per-address limits and indexes count as one client: an IPv4 address itself (an
    IPv4-mapped, 6to4 or Teredo IPv6 address as the IPv4 client it carries), an IPv6 address its
    /64 (``2001:db8:1:2::/64``); anything else (no address, a Unix socket) as it is."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # a zone (fe80::1%eth0) is no part of the network
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if ip.sixtofour is not None:  # 2002:AABB:CCDD::/48 is the whole of IPv4 AA.BB.CC.DD's 6to4
            return str(ip.sixtofour)
        if ip.teredo is not None:  # (server, client): the client's IPv4 is who sent it
            return str(ip.teredo[1])
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip)


@functools.lru_cache(maxsize=65536)
def counted_networks(network: str) -> tuple[tuple[str, int], ...]:
    """The networks a per-address limit counts a ``client_network`` in, each with its factor: an
    IPv6 /64's /56 and /48 (``WIDER_PREFIXES``); anything else (an IPv4 address) itself, once."""
    try:
        net = ipaddress.ip_network(network)
    except ValueError:
        return ((network, 1),)
    if net.version != 6 or net.prefixlen != IPV6_PREFIX:
        return ((network, 1),)
    return tuple((str(net.supernet(new_prefix=prefix)), factor) for prefix, factor in WIDER_PREFIXES)


def scaled(windows: tuple["Window", ...], factor: int) -> tuple["Window", ...]:
    """``windows`` with each amount times ``factor``."""
    return tuple(Window(w.amount * factor, w.seconds) for w in windows)


def duration(seconds: int) -> str:
    """``seconds`` for people, rounded to the largest unit it reaches: "3 minutes"."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = round(seconds / size)
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


@functools.lru_cache(maxsize=4096)
def _limit(name: str, subject: str, windows: tuple[Window, ...]) -> tuple:
    """A limit's keys and arguments for one subject, kept: a player plays some fifty cards a game,
    each asking for the same two (a hash and four keys built again each time)."""
    digest = hashlib.sha1(subject.encode()).hexdigest()[:16]
    keys = tuple(key_for("limit", f"{name}:{digest}", str(w.seconds)) for w in windows)
    args = tuple(n for w in windows for n in (w.amount, w.seconds * 1000))
    return name, keys, args, windows


@dataclass(frozen=True)
class Quota:
    """Where a request leaves the window of its limits with the fewest hits left: the RateLimit
    headers (``limit``, ``remaining``; ``reset``: seconds until hits leave it, or when it is full
    until one more fits, as Retry-After)."""
    limit: int
    remaining: int
    reset: int


class Gate:
    """The windows one request must find room in: each limit ``(name, subject, windows)`` as the
    keys and arguments of its script call (subjects hashed: a key is no log of addresses).  It
    keeps what its last check or take found (``replies``) and whether that take's hits were given
    back, for ``quota``."""

    def __init__(self, limits) -> None:
        self.limits: list[tuple[str, tuple[str, ...], tuple[int, ...], tuple[Window, ...]]] = [
            _limit(name, subject, windows) for name, subject, windows in limits if windows]
        self.replies: list | None = None
        self.taken = False  # the replies are a take's (a check's count nothing)
        self.given_back = False
        self.origin: Gate | None = None  # the gate whose take counted this one's hits

    def __bool__(self) -> bool:
        return bool(self.limits)

    def counted(self, replies) -> "Gate":
        """The limits that a ``take`` (``replies``, one per limit) counted the hit in: those that
        had room.  A take counts in every window of a limit or in none, and one limit full does
        not stop the others from counting: give their hits back (``uncount``) if the request
        fails."""
        self.replies, self.taken, self.given_back = replies, True, False
        gate = Gate(())
        gate.limits = [limit for limit, reply in zip(self.limits, replies) if not int(reply[0])]
        gate.origin = self
        return gate

    def quota(self) -> Quota | None:
        """The window with the fewest hits left once this request is counted (or not: refused,
        given back, only checked), ties to the one that empties last; None before any check."""
        if self.replies is None:
            return None
        best = None
        for (_name, _keys, _args, windows), reply in zip(self.limits, self.replies):
            index, wait_ms, figures = int(reply[0]), int(reply[1]), [int(x) for x in reply[2:]]
            counted = self.taken and not index and not self.given_back
            for i, w in enumerate(windows):
                hits, oldest = (figures[2 * i], figures[2 * i + 1]) if len(figures) > 2 * i + 1 else (0, 0)
                used = hits + counted
                if index == i + 1:
                    reset_ms = wait_ms
                elif hits:
                    reset_ms = oldest
                else:  # empty before: this request's own hit, if counted, leaves after the whole window
                    reset_ms = w.seconds * 1000 if counted else 0
                q = Quota(w.amount, max(0, w.amount - used), math.ceil(reset_ms / 1000))
                if best is None or (q.remaining, -q.reset) < (best.remaining, -best.reset):
                    best = q
        return best

    def verdict(self, replies) -> None:
        """TooManyRequests for the first limit whose check (``replies``, one per limit, each
        ``[window, ms, …]``) names a full window; nothing if all have room."""
        if self.replies is None:
            self.replies = replies
        for (name, _keys, _args, windows), (index, wait_ms, *_figures) in zip(self.limits, replies):
            if int(index):
                w = windows[int(index) - 1]
                retry = max(1, math.ceil(int(wait_ms) / 1000))
                raise TooManyRequests(f"too many {name.replace('_', ' ')}: at most {w.amount} in "
                                      f"{duration(w.seconds)}; try again in {duration(retry)}",
                                      retry_after=retry, limit=name)


def now_ms() -> int:
    return int(time.time() * 1000)


class Limits:
    def __init__(self, client) -> None:
        self.r = client
        self.script = load_script(client, __file__, "windows.lua")

    def queue(self, gate: Gate, pipe, mode: str, now: int, weight: int = 1) -> None:
        """One script call per limit of ``gate`` queued on ``pipe`` (``store.pipelined``):
        ``check`` or ``take`` (the replies go to ``gate.verdict``, and for a take to
        ``gate.counted``), ``count`` (``weight`` hits) or ``uncount`` at ``now``."""
        extra = [weight] if weight != 1 else []
        for _name, keys, args, _windows in gate.limits:
            evalsha_on(pipe, self.script, keys, [mode, now, *args, *extra])

    def _run(self, gate: Gate, mode: str, now: int | None, weight: int = 1) -> list:
        now = now or now_ms()
        return pipelined(self.r, lambda pipe: self.queue(gate, pipe, mode, now, weight),
                         [self.script]) if gate else []

    def take(self, gate: Gate, now: int) -> Gate:
        """Count one hit at ``now`` in every limit of ``gate`` that has room, in one round trip;
        TooManyRequests (the hits counted in the others given back) if one is full.  Returns
        what was counted, for ``uncount`` if the request then fails."""
        replies = self._run(gate, "take", now)
        counted = gate.counted(replies)
        try:
            gate.verdict(replies)
        except TooManyRequests:
            if counted:
                self.uncount(counted, now)
            raise
        return counted

    def check(self, gate: Gate, now: int | None = None) -> None:
        """TooManyRequests if a window of ``gate`` is full; counts nothing."""
        gate.verdict(self._run(gate, "check", now))

    def look(self, gate: Gate, now: int | None = None) -> None:
        """What ``gate``'s windows hold, kept in it for ``quota``; counts and refuses nothing."""
        if gate:
            gate.replies, gate.taken = self._run(gate, "check", now), False

    def count(self, gate: Gate, now: int | None = None, weight: int = 1) -> None:
        """``weight`` hits (one: the request succeeded; a search's ms of CPU) in every window of ``gate``."""
        self._run(gate, "count", now, weight)

    def uncount(self, gate: Gate, now: int) -> None:
        """Take back the hit ``count`` made at ``now`` (what it counted was not stored after all)."""
        self._run(gate, "uncount", now)
        if gate.origin is not None:
            gate.origin.given_back = True


__all__ = ["Gate", "IPV6_PREFIX", "Limits", "Quota", "WIDER_PREFIXES", "Window", "client_network", "duration", "now_ms",
           "counted_networks", "parse", "scaled"]
