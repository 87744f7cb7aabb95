"""Rate limits, counted in Redis through Flask-Limiter's storage so that every web process and
machine shares them.

A run of an open day is an exact simulator of that day's game (the bots are deterministic), so
opening ranked runs in bulk is how the day's game tree gets searched.  The limits make that
expensive without costing an honest newcomer anything: a first run needs no account, no waiting
and no puzzle, and is ranked.  Each limit is configuration (``Settings.limits``, strings such as
``"12 per hour;30 per day"``); all of a limit's windows must have room, else 429
``too_many_requests`` in the JSON envelope with ``Retry-After`` (seconds until the first window
that is full has room again), and nothing is counted.

``ranked_runs``       ranked runs of an open day opened from one client address.  Each player has
                      one, so this is how many players one address may bring in a day.
``runs_per_token``    runs of any kind opened by one player token (free play included).
``runs_per_address``  runs of any kind opened from one client address.
"""

from __future__ import annotations

import math
import time

from flask import Flask, request
from flask_limiter import Limiter
from limits import parse_many

from service.errors import TooManyRequests

from .common import services

NAMESPACE = "manille"
limiter = Limiter(key_func=lambda: request.remote_addr or "unknown", key_prefix="manille-limits",
                  strategy="moving-window")


def init_app(app: Flask) -> None:
    app.config.setdefault("RATELIMIT_STORAGE_URI", app.extensions["manille"].settings.redis_url)
    limiter.init_app(app)


def client_address() -> str:
    """The client's address: the socket's, or, behind ``MANILLE_TRUSTED_PROXIES`` proxies, the one
    they forwarded (werkzeug's ProxyFix rewrites ``remote_addr``)."""
    return request.remote_addr or "unknown"


def _duration(seconds: int) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = round(seconds / size)
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def check(*limits: tuple[str, str]):
    """Test each (limit name, key) for room; TooManyRequests if any window of any is full.
    Returns the function that counts them, to call once the request has succeeded: a refused
    request (limited, or invalid for any other reason) counts nothing."""
    configured = services().settings.limits
    strategy = limiter.limiter
    wanted = [(name, key, item) for name, key in limits if configured.get(name)
              for item in parse_many(configured[name])]
    for name, key, item in wanted:
        if not strategy.test(item, NAMESPACE, name, key):
            reset = strategy.get_window_stats(item, NAMESPACE, name, key).reset_time
            retry = max(1, math.ceil(reset - time.time()))
            raise TooManyRequests(f"too many {name.replace('_', ' ')}: at most {item.amount} in "
                                  f"{_duration(item.get_expiry())}; try again in {_duration(retry)}",
                                  retry_after=retry, limit=name)

    def count() -> None:
        for name, key, item in wanted:
            strategy.hit(item, NAMESPACE, name, key)
    return count
