"""Connections: one Redis (``connect``), its master through Sentinels, or a Redis Cluster
(``connect_cluster``); and the same server's client with replies as bytes (RQ's) or as text.
"""

from __future__ import annotations

import redis
from redis.backoff import ExponentialBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.retry import Retry
from redis.sentinel import Sentinel, SentinelConnectionPool


#: Sentinel answers within this, or the next one is asked (a sentinel host down costs no more).
SENTINEL_TIMEOUT = 0.5


def parse_sentinels(text: str) -> list[tuple[str, int]]:
    """``"host:port,host:port"`` (``REDIS_SENTINELS``) as pairs; ValueError for a malformed entry."""
    return parse_nodes(text, "REDIS_SENTINELS")


def connect(url: str, *, timeout: float | None = None, retries: int = 3, sentinels: str = "",
            service: str = "") -> redis.Redis:
    """A client with replies decoded as text (every value stored is text).

    A command unanswered after ``timeout`` seconds (None: redis-py's 5) raises TimeoutError at
    once: redis-py's default would resend it ten times, holding a request past gunicorn's
    timeout, and a resent write may apply twice.  A refused or broken connection is retried
    ``retries`` times, 0.1 s apart doubling up to 1 s: a Redis restart of a moment passes
    unseen; the web keeps that short, the worker long.

    With ``sentinels`` (``REDIS_SENTINELS``), a client of the master that the Sentinels name for
    ``service`` (``REDIS_SENTINEL_SERVICE``), found again after a failover (a retried connection
    asks them again); ``url`` then gives only the database number and the password."""
    options = {"socket_timeout": timeout, "socket_connect_timeout": timeout} if timeout else {}
    retry = Retry(ExponentialBackoff(cap=1.0, base=0.05), retries,
                  supported_errors=(redis.ConnectionError,))
    if not sentinels:
        return redis.Redis.from_url(url, decode_responses=True, health_check_interval=30, retry=retry,
                                    **options)
    kwargs = redis.connection.parse_url(url)
    auth = {k: kwargs[k] for k in ("username", "password") if kwargs.get(k)}
    # The Sentinels take the same password as Redis (or none), as Flask-Limiter's storage assumes.
    sentinel = Sentinel(parse_sentinels(sentinels), sentinel_kwargs={
        "socket_timeout": SENTINEL_TIMEOUT, "socket_connect_timeout": SENTINEL_TIMEOUT, **auth})
    return sentinel.master_for(service, db=int(kwargs.get("db") or 0), decode_responses=True,
                               health_check_interval=30, retry=retry, **options, **auth)


def parse_nodes(text: str, what: str = "MANILLE_REDIS_CLUSTER") -> list[tuple[str, int]]:
    """``"host:port,host:port"`` as pairs; ValueError naming ``what`` for a malformed entry."""
    out = []
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        host, sep, port = item.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ValueError(f"not host:port in {what}: {item!r}")
        out.append((host.strip("[]"), int(port)))
    return out


def connect_cluster(seeds: str, *, timeout: float | None = None, retries: int = 3,
                    decode: bool = True, password: str | None = None) -> RedisCluster:
    """A client of the Redis Cluster that any of ``seeds`` (``MANILLE_REDIS_CLUSTER``) belongs to:
    it learns the slots from them, follows MOVED and ASK, reads from masters only (a replica's
    answer can be behind, and a run's next play reads what the last one wrote).

    A broken connection, a slot not covered or the cluster down are retried ``retries`` times,
    0.05 s doubling up to 1 s, refreshing the slots between tries: a master's failover (about the
    cluster's node timeout) outlasts that, and the caller sees the error (the web: 503 with
    Retry-After; the worker: RQ's retry of the job).  ``timeout`` as ``connect``'s."""
    nodes = [ClusterNode(host, port) for host, port in parse_nodes(seeds)]
    if not nodes:
        raise ValueError("MANILLE_REDIS_CLUSTER names no node")
    options = {"socket_timeout": timeout, "socket_connect_timeout": timeout} if timeout else {}
    retry = Retry(ExponentialBackoff(cap=1.0, base=0.05), retries)
    client = RedisCluster(startup_nodes=nodes, decode_responses=decode, retry=retry, password=password,
                          require_full_coverage=True, **options)
    client._manille_make = lambda decode: connect_cluster(seeds, timeout=timeout, retries=retries,
                                                          decode=decode, password=password)
    return client


def is_cluster(client) -> bool:
    return isinstance(client, RedisCluster)


def _twin(client: redis.Redis, decode: bool) -> redis.Redis:
    """Another client of the same class and server (or Sentinel master, or cluster) with
    ``decode`` replies."""
    if is_cluster(client):
        make = getattr(client, "_manille_make", None)
        if make is None:
            nodes = [ClusterNode(n.host, n.port) for n in client.get_primaries()]
            return RedisCluster(startup_nodes=nodes, decode_responses=decode)
        return make(decode)
    pool = client.connection_pool
    kwargs = dict(pool.connection_kwargs)
    kwargs["decode_responses"] = decode
    if isinstance(pool, SentinelConnectionPool):
        kwargs.pop("connection_pool", None)  # the pool's own proxy: the new pool makes its own
        new_pool = SentinelConnectionPool(pool.service_name, pool.sentinel_manager, is_master=pool.is_master,
                                          connection_class=pool.connection_class, **kwargs)
    else:
        new_pool = redis.ConnectionPool(connection_class=pool.connection_class,
                                        max_connections=pool.max_connections, **kwargs)
    return type(client)(connection_pool=new_pool)


def _decodes(client) -> bool:
    return client.get_encoder().decode_responses


def raw_client(client: redis.Redis) -> redis.Redis:
    """A client to the same server with replies as bytes, which RQ needs (made once per client)."""
    if not _decodes(client):
        return client
    twin = getattr(client, "_manille_raw", None)
    if twin is None:
        twin = client._manille_raw = _twin(client, decode=False)
    return twin


def text_client(client: redis.Redis) -> redis.Redis:
    """A client to the same server with replies as text (made once per client)."""
    if _decodes(client):
        return client
    twin = getattr(client, "_manille_text", None)
    if twin is None:
        twin = client._manille_text = _twin(client, decode=True)
    return twin
