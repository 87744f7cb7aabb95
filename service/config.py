"""Settings of the service and the worker, from the environment (``Settings.from_env``; for the
app, a config dict too).

Each ``MANILLE_*`` variable (and ``REDIS_URL``, ``REDIS_SENTINELS``), what it does and its default:
the configuration table of docs/operations.md, their one home.  Every secret and token is at least
32 bytes (``service.seeds.MIN_SECRET_BYTES``): a shorter one stops the process at start, naming the
variable.  No secret is in a ``repr``; the operators' tokens are ``service.operators.OpsTokens``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from urllib.parse import urlsplit

from service.flags import FlagSettings
from service.operators import OpsTokens  # noqa: F401  (callers import it from here too)
from service.review import ReviewSettings
from service.seeds import (DEFAULT_GRACE_SECONDS, DayClock, SecretSchedule, previous_from_env, require_length,
                           secret_from_env)
from service.store import connect, connect_cluster, parse_nodes, parse_sentinels

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
#: The bot of a new day (``MANILLE_BOTS``): the strongest searching bot that holds the service's
#: budgets (docs/bots.md, "The day's bot", says how it was chosen); the days before keep theirs.
DEFAULT_BOTS = "expert-5"
#: ``MANILLE_BOTS_BEFORE``: the bot every day was dealt with before the searching bots.
DEFAULT_BOTS_BEFORE = "expert-1"
#: Free play of the rules with an auction: the one place their bot and bidder are chosen (greedy-1
#: until expert-1 plays those rules).
DEFAULT_VARIANT_BOTS = "expert-1"
DEFAULT_VARIANT_BIDDER = "bidder-1"
DEFAULT_SENTINEL_SERVICE = "manille"
QUEUE_NAME = "verify"
DEFAULT_REDIS_TIMEOUT = 5.0
DEFAULT_REDIS_WAIT_MS = 200
#: A worker's client of the cluster, by seeds, made once per process (``Settings.state_beside``):
#: a job runs in a fork or in the worker itself, and a client learns the slots when first used.
_STATE_CLIENTS: dict = {}
#: Backoff of a verification that raised or whose process died: then ``delayed`` (ops requeue it).
DEFAULT_VERIFY_RETRY = (10, 60, 300)
DEFAULT_READY_MAX_QUEUED_SECONDS = 900
DEFAULT_RUN_KEEP_HOURS = 48
DEFAULT_PRACTICE_KEEP_HOURS = 24
#: How long the runs around a game are kept once ops open its case (service.runs.around).
DEFAULT_CASE_KEEP_DAYS = 365
DEFAULT_MEMORY_WARN = 0.8
DEFAULT_PLAY_CACHE = 1024
DEFAULT_BOARD_MAX_AGE = 1.0
DEFAULT_MATCHPOINTS_SECONDS = 300.0
DEFAULT_CLOSED_MAX_AGE = 300
#: About 0.2 s a game (docs/performance.md): a thousand are minutes of one worker's core.
DEFAULT_ANALYSIS_QUEUE_MAX = 1000
DEFAULT_PLAYER_KEEP_DAYS = 30
#: The CNIL's advice for connection logs: six months to a year.
DEFAULT_CLIENT_KEEP_DAYS = 365
DEFAULT_WARM_DEALS = 12
DEFAULT_BOT_POOL_WAIT = 20.0
#: A household, a café or a classroom behind one address brings several players a day; a search of
#: the day's game needs dozens of runs (48 in the attack measured before these limits).  Why each
#: figure: ``service.api.limits``.
DEFAULT_LIMITS = {
    "ranked_runs": "6 per 10 minutes;20 per day",
    "runs_per_token": "60 per hour;400 per day",
    "runs_per_address": "200 per hour;2000 per day",
    "plays_per_token": "240 per minute;3600 per hour",
    "plays_per_address": "600 per minute;12000 per hour",
    "submissions_per_token": "5 per hour;10 per day",
    "submissions_per_address": "30 per hour;100 per day",
    "analyses_per_token": "20 per hour;60 per day",
    "analyses_per_address": "60 per hour;400 per day",
    "leagues_per_token": "10 per hour;30 per day",
    "leagues_per_address": "60 per hour;300 per day",
    "reports_per_token": "10 per hour;30 per day",
    "reports_per_address": "30 per hour;100 per day",
    "ops_tokens_per_address": "20 per minute",
    "links_per_player": "10 per hour;30 per day",
    "links_per_address": "30 per hour;100 per day",
    "joins_per_address": "20 per 10 minutes;100 per day",
    "search_ms_per_token": "10000 per minute;60000 per hour",
    "search_ms_per_address": "20000 per minute;300000 per hour",
}


def token_from_env(environ, name: str) -> str:
    """``name``'s value, else the first line of the file named by ``name_FILE`` (a Docker secret,
    a systemd credential), else ""; a file that cannot be read is an error, not an open door."""
    value = (environ.get(name) or "").strip()
    path = environ.get(f"{name}_FILE")
    if not value and path:
        with open(path, encoding="utf-8") as f:
            value = f.readline().strip()
    return value


def retry_from_env(text: str | None) -> tuple[int, ...]:
    """``MANILLE_VERIFY_RETRY``: comma-separated seconds, one per retry; "off" none; ValueError if
    not whole seconds >= 0."""
    text = (text or "").strip()
    if not text:
        return DEFAULT_VERIFY_RETRY
    if text.lower() == "off":
        return ()
    try:
        intervals = tuple(int(part) for part in text.split(","))
    except ValueError:
        intervals = (-1,)
    if any(i < 0 for i in intervals):
        raise ValueError(f"MANILLE_VERIFY_RETRY: {text!r} is not whole seconds >= 0, comma-separated, or off")
    return intervals


def tokens_from_env(environ, name: str) -> str:
    """``name``'s value, else every line of the file named by ``name_FILE``, else ""; a file that
    cannot be read is an error, not an open door."""
    value = environ.get(name) or ""
    path = environ.get(f"{name}_FILE")
    if not value.strip() and path:
        with open(path, encoding="utf-8") as f:
            value = f.read()
    return value


def limits_from_env(environ) -> dict[str, str]:
    limits = dict(DEFAULT_LIMITS)
    for name in DEFAULT_LIMITS:
        value = (environ.get(f"MANILLE_LIMIT_{name.upper()}") or "").strip()
        if value:
            limits[name] = "" if value.lower() == "off" else value
    return limits


def public_url_from_env(text: str | None) -> str:
    """``MANILLE_PUBLIC_URL``: the site's canonical base URL (``https://manille.example``, a path
    allowed), without its final slash; "" when unset.  ValueError for anything but an http(s) URL
    with a host and no query, fragment or credentials."""
    url = (text or "").strip()
    if not url:
        return ""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment \
            or "@" in parts.netloc or any(c.isspace() or c in "<>\"'" for c in url):
        raise ValueError(f"MANILLE_PUBLIC_URL must be an http(s) URL such as https://manille.example, not {url!r}")
    return url.rstrip("/")


def redacted_url(url: str) -> str:
    """``url`` with its password, if any, shown as ``***``."""
    return re.sub(r"^([a-z+]+://[^:@/]*:)[^@/]+@", r"\1***@", url)


@dataclass(repr=False)
class Settings:
    redis_url: str = DEFAULT_REDIS_URL
    secret: bytes = b""
    secret_since: str | date | None = None
    secret_previous: str = ""
    tz: str | None = None
    bots: str = DEFAULT_BOTS
    bots_since: str | date | None = None
    bots_before: str = DEFAULT_BOTS_BEFORE
    variant_bots: str = DEFAULT_VARIANT_BOTS
    variant_bidder: str = DEFAULT_VARIANT_BIDDER
    grace_seconds: int = DEFAULT_GRACE_SECONDS
    queue_name: str = QUEUE_NAME
    trusted_proxies: int = 0
    limits: dict = field(default_factory=lambda: dict(DEFAULT_LIMITS))
    flags: FlagSettings = field(default_factory=FlagSettings)
    review: ReviewSettings = field(default_factory=ReviewSettings)
    ops_tokens: str = ""
    ops_token: str = ""
    redis_sentinels: str = ""
    redis_sentinel_service: str = DEFAULT_SENTINEL_SERVICE
    metrics_token: str = ""
    redis_timeout: float = DEFAULT_REDIS_TIMEOUT
    redis_cluster: str = ""
    redis_wait_ms: int = DEFAULT_REDIS_WAIT_MS
    verify_retry: tuple = DEFAULT_VERIFY_RETRY
    ready_max_queued_seconds: int = DEFAULT_READY_MAX_QUEUED_SECONDS
    run_keep_hours: int = DEFAULT_RUN_KEEP_HOURS
    practice_keep_hours: int = DEFAULT_PRACTICE_KEEP_HOURS
    case_keep_days: int = DEFAULT_CASE_KEEP_DAYS
    memory_warn: float = DEFAULT_MEMORY_WARN
    play_cache: int = DEFAULT_PLAY_CACHE
    board_max_age: float = DEFAULT_BOARD_MAX_AGE
    matchpoints_seconds: float = DEFAULT_MATCHPOINTS_SECONDS
    closed_max_age: int = DEFAULT_CLOSED_MAX_AGE
    analysis_queue_max: int = DEFAULT_ANALYSIS_QUEUE_MAX
    player_keep_days: int = DEFAULT_PLAYER_KEEP_DAYS
    client_keep_days: int = DEFAULT_CLIENT_KEEP_DAYS
    warm_deals: int = DEFAULT_WARM_DEALS
    #: The site's base URL as players reach it (https://manille.example): device links' URLs and the
    #: passkeys' relying party; "" in development: the request's own origin (``service.players.origin``).
    public_url: str = ""
    bot_pool: int = 0
    bot_pool_wait: float = DEFAULT_BOT_POOL_WAIT
    archive_dir: str = ""
    clock: DayClock = field(init=False)
    secrets: SecretSchedule = field(init=False)
    operators: OpsTokens = field(init=False)

    #: What a repr never shows: the secrets and tokens (the Redis URL is shown with its password hidden).
    SECRET_FIELDS = ("secret", "secret_previous", "ops_tokens", "ops_token", "metrics_token")

    def __repr__(self) -> str:
        from dataclasses import fields

        shown = []
        for f in fields(self):
            if f.name in self.SECRET_FIELDS or not f.init:
                continue
            value = getattr(self, f.name)
            shown.append(f"{f.name}={redacted_url(value) if f.name == 'redis_url' else value!r}")
        return f"Settings({', '.join(shown)})"

    def __post_init__(self) -> None:
        from bots.registry import get_bidder, get_challenge_bot

        if self.run_keep_hours < 0 or self.practice_keep_hours < 1:
            raise ValueError("MANILLE_RUN_KEEP_HOURS must be >= 0 and MANILLE_PRACTICE_KEEP_HOURS >= 1")
        if self.case_keep_days < 1:
            raise ValueError("MANILLE_CASE_KEEP_DAYS must be >= 1")
        if self.client_keep_days < 1:
            raise ValueError("MANILLE_CLIENT_KEEP_DAYS must be >= 1")
        if self.analysis_queue_max < 1 or self.player_keep_days < 1:
            raise ValueError("MANILLE_ANALYSIS_QUEUE_MAX and MANILLE_PLAYER_KEEP_DAYS must be >= 1")
        if self.board_max_age < 0 or self.closed_max_age < 0:
            raise ValueError("MANILLE_BOARD_MAX_AGE and MANILLE_CLOSED_MAX_AGE must be >= 0")
        if not 0 < self.memory_warn <= 1:
            raise ValueError(f"MANILLE_MEMORY_WARN must be a share of maxmemory, 0 < x <= 1, not {self.memory_warn}")

        get_challenge_bot(self.bots)  # an unknown id, or a measurement bot such as oracle-1: refused now
        get_challenge_bot(self.bots_before)
        if isinstance(self.bots_since, str):
            try:
                self.bots_since = date.fromisoformat(self.bots_since)
            except ValueError:
                raise ValueError(f"MANILLE_BOTS_SINCE is a day, YYYY-MM-DD, not {self.bots_since!r}") from None
        get_challenge_bot(self.variant_bots)
        get_bidder(self.variant_bidder)
        parse_sentinels(self.redis_sentinels)  # a malformed REDIS_SENTINELS: refused now
        parse_nodes(self.redis_cluster)  # and a malformed MANILLE_REDIS_CLUSTER
        if self.warm_deals < 0:
            raise ValueError(f"MANILLE_WARM_DEALS must be >= 0, not {self.warm_deals}")
        if self.bot_pool < 0 or self.bot_pool_wait <= 0:
            raise ValueError("MANILLE_BOT_POOL must be >= 0 and MANILLE_BOT_POOL_WAIT > 0")
        if self.redis_wait_ms < 0:
            raise ValueError(f"MANILLE_REDIS_WAIT_MS must be >= 0, not {self.redis_wait_ms}")
        self.clock = DayClock(self.tz, self.grace_seconds)
        # An inconsistent rotation (SINCE without PREVIOUS, dates out of order …) or a secret too
        # short to resist guessing: refused now.
        self.secrets = SecretSchedule.build(self.secret, self.secret_since, self.secret_previous)
        self.operators = OpsTokens(self.ops_tokens)
        for name, token in (("MANILLE_OPS_TOKEN", self.ops_token), ("MANILLE_METRICS_TOKEN", self.metrics_token)):
            if token:
                require_length(name, token)

    @classmethod
    def from_env(cls, environ=os.environ, **overrides) -> "Settings":
        values = {
            "redis_url": environ.get("REDIS_URL") or DEFAULT_REDIS_URL,
            "secret": secret_from_env(environ),
            "secret_since": (environ.get("MANILLE_SECRET_SINCE") or "").strip() or None,
            "secret_previous": previous_from_env(environ),
            "tz": environ.get("MANILLE_TZ") or None,
            "bots": environ.get("MANILLE_BOTS") or DEFAULT_BOTS,
            "bots_since": (environ.get("MANILLE_BOTS_SINCE") or "").strip() or None,
            "bots_before": environ.get("MANILLE_BOTS_BEFORE") or DEFAULT_BOTS_BEFORE,
            "variant_bots": environ.get("MANILLE_VARIANT_BOTS") or DEFAULT_VARIANT_BOTS,
            "variant_bidder": environ.get("MANILLE_VARIANT_BIDDER") or DEFAULT_VARIANT_BIDDER,
            "grace_seconds": int(environ.get("MANILLE_GRACE_SECONDS") or DEFAULT_GRACE_SECONDS),
            "trusted_proxies": int(environ.get("MANILLE_TRUSTED_PROXIES") or 0),
            "limits": limits_from_env(environ),
            "flags": FlagSettings.from_env(environ),
            "review": ReviewSettings.from_env(environ),
            "ops_tokens": tokens_from_env(environ, "MANILLE_OPS_TOKENS"),
            "ops_token": token_from_env(environ, "MANILLE_OPS_TOKEN"),
            "redis_sentinels": (environ.get("REDIS_SENTINELS") or "").strip(),
            "redis_sentinel_service": (environ.get("REDIS_SENTINEL_SERVICE") or "").strip()
            or DEFAULT_SENTINEL_SERVICE,
            "metrics_token": token_from_env(environ, "MANILLE_METRICS_TOKEN"),
            "redis_timeout": float(environ.get("MANILLE_REDIS_TIMEOUT") or DEFAULT_REDIS_TIMEOUT),
            "redis_cluster": (environ.get("MANILLE_REDIS_CLUSTER") or "").strip(),
            "redis_wait_ms": int(environ.get("MANILLE_REDIS_WAIT_MS") or DEFAULT_REDIS_WAIT_MS),
            "verify_retry": retry_from_env(environ.get("MANILLE_VERIFY_RETRY")),
            "ready_max_queued_seconds": int(environ.get("MANILLE_READY_MAX_QUEUED_SECONDS")
                                            or DEFAULT_READY_MAX_QUEUED_SECONDS),
            "run_keep_hours": int(environ.get("MANILLE_RUN_KEEP_HOURS") or DEFAULT_RUN_KEEP_HOURS),
            "practice_keep_hours": int(environ.get("MANILLE_PRACTICE_KEEP_HOURS") or DEFAULT_PRACTICE_KEEP_HOURS),
            "case_keep_days": int(environ.get("MANILLE_CASE_KEEP_DAYS") or DEFAULT_CASE_KEEP_DAYS),
            "memory_warn": float(environ.get("MANILLE_MEMORY_WARN") or DEFAULT_MEMORY_WARN),
            "play_cache": int(environ.get("MANILLE_PLAY_CACHE") or DEFAULT_PLAY_CACHE),
            "board_max_age": float(environ.get("MANILLE_BOARD_MAX_AGE") or DEFAULT_BOARD_MAX_AGE),
            "matchpoints_seconds": float(environ.get("MANILLE_MATCHPOINTS_SECONDS") or DEFAULT_MATCHPOINTS_SECONDS),
            "closed_max_age": int(environ.get("MANILLE_CLOSED_MAX_AGE") or DEFAULT_CLOSED_MAX_AGE),
            "analysis_queue_max": int(environ.get("MANILLE_ANALYSIS_QUEUE_MAX") or DEFAULT_ANALYSIS_QUEUE_MAX),
            "player_keep_days": int(environ.get("MANILLE_PLAYER_KEEP_DAYS") or DEFAULT_PLAYER_KEEP_DAYS),
            "client_keep_days": int(environ.get("MANILLE_CLIENT_KEEP_DAYS") or DEFAULT_CLIENT_KEEP_DAYS),
            "warm_deals": int(environ.get("MANILLE_WARM_DEALS") or DEFAULT_WARM_DEALS),
            "public_url": public_url_from_env(environ.get("MANILLE_PUBLIC_URL")),
            "bot_pool": int(environ.get("MANILLE_BOT_POOL") or 0),
            "bot_pool_wait": float(environ.get("MANILLE_BOT_POOL_WAIT") or DEFAULT_BOT_POOL_WAIT),
            "archive_dir": (environ.get("MANILLE_ARCHIVE_DIR") or "").strip(),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if isinstance(values["secret"], str):
            values["secret"] = values["secret"].encode("utf-8")
        return cls(**values)

    def redis(self, *, timeout: float | None = None, retries: int = 3):
        """A text client of the service's state: the cluster (``MANILLE_REDIS_CLUSTER``), else the
        queue's Redis (``queue_redis``), with ``service.store.connect``'s ``timeout`` and ``retries``."""
        if self.redis_cluster:
            import redis as redis_py

            password = redis_py.connection.parse_url(self.redis_url).get("password")
            return connect_cluster(self.redis_cluster, timeout=timeout, retries=retries, password=password)
        return self.queue_redis(timeout=timeout, retries=retries)

    def queue_redis(self, *, timeout: float | None = None, retries: int = 3):
        """A text client of the queue's Redis (``REDIS_URL``, or the master the Sentinels name)."""
        return connect(self.redis_url, timeout=timeout, retries=retries, sentinels=self.redis_sentinels,
                       service=self.redis_sentinel_service)

    def queue_connection(self, state, *, timeout: float | None = None, retries: int = 3):
        """The bytes client RQ takes beside the state client ``state``: of its own server when the
        state has no cluster (one Redis for both), else of ``queue_redis`` (made once per client)."""
        from service.store import is_cluster, raw_client

        if not is_cluster(state):
            return raw_client(state)
        queue = getattr(state, "_manille_queue", None)
        if queue is None:
            queue = state._manille_queue = raw_client(self.queue_redis(timeout=timeout, retries=retries))
        return queue

    def state_beside(self, queue_conn, *, retries: int = 3):
        """The state client of a process that holds the RQ connection ``queue_conn`` (a worker, a
        job): the same server as text, or with a cluster this process's one client of it."""
        from service.store import text_client

        if not self.redis_cluster:
            return text_client(queue_conn)
        client = _STATE_CLIENTS.get(self.redis_cluster)
        if client is None:
            client = _STATE_CLIENTS[self.redis_cluster] = self.redis(retries=retries)
        client._manille_queue = queue_conn
        return client

    # -- days ----------------------------------------------------------------

    @staticmethod
    def now() -> datetime:
        return datetime.now(timezone.utc)

    def today(self, now: datetime | None = None) -> date:
        return self.clock.today(now or self.now())

    def bots_for(self, day: date) -> str:
        """The bot id a day not yet stored is created with (``MANILLE_BOTS_SINCE``)."""
        return self.bots_before if self.bots_since is not None and day < self.bots_since else self.bots

    def seed(self, day: date) -> bytes:
        """``day``'s seed under the secret the schedule gives that day (every process asks here)."""
        return self.secrets.seed(day)
