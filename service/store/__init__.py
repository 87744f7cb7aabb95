"""The one place that knows Redis key names, connections and Lua scripts.

Every key is built by :func:`key_for`.  Each key carries a hash tag naming the scope it
belongs to (``{day:2026-12-02}``, ``{boards}``, ``{all}``, ``{nicks}``, ``{nick:…}``,
``{player:…}``, ``{metrics}``), so that the keys of every Lua script call and every MULTI share
one Redis Cluster slot (tests/service/test_svc_slots.py computes them): one day's runs and
submissions, all the boards (one script writes a score to the day's, week's, month's and
all-time boards).

The modules that own data (challenges, runs, submissions, leaderboard) call these
helpers; nothing else touches Redis.
"""

from __future__ import annotations

import re
import time
import zlib
from datetime import date
from pathlib import Path

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry
from redis.cluster import ClusterNode, RedisCluster
from redis.sentinel import Sentinel, SentinelConnectionPool

PREFIX = "manille"


#: A day's runs and submissions are spread over this many slots by player (``shard_of``): one
#: slot's master cannot serve the plays of ten million players a day (docs/performance.md).
#: Frozen: a player's ranked run of a day is looked for in the slot its pid names.
DAY_SHARDS = 16


def day_scope(day: date | str, shard: int | None = None) -> str:
    """The hash tag of a day's keys: ``day:2026-12-07``, or of one of its shards
    (``day:2026-12-07/03``); the day's own tag holds what is one per day (its challenge), and
    the runs and submissions whose ids name no shard (made before the day was sharded)."""
    tag = f"day:{day if isinstance(day, str) else day.isoformat()}"
    return tag if shard is None else f"{tag}/{shard:02d}"


#: Every shard a day's runs and submissions may sit in, as the key helpers take it: None (the
#: day's own tag: ids that name no shard), then each shard.
EVERY_SHARD = (None, *range(DAY_SHARDS))


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
    an id made before the day was sharded (``YYYYMMDD-…``), whose keys are under the day's tag."""
    m = pattern.fullmatch(text)
    return int(m.group(2)) if m and m.group(2) else None


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


def load_script(client: redis.Redis, package_file: str, name: str):
    """Register the Lua script ``name`` that sits beside ``package_file`` (EVALSHA, loaded on demand)."""
    return client.register_script(script_source(Path(package_file).parent / name))


_NEEDS = re.compile(r"^-- needs: (\S+)$", re.MULTILINE)


def script_needs(path: Path) -> list[str]:
    """The files (beside it) that the Lua script at ``path`` names on its ``-- needs: <file>`` lines."""
    return _NEEDS.findall(path.read_text(encoding="utf-8"))


def script_source(path: Path) -> str:
    """The text of the Lua script at ``path`` as sent to Redis: the files it needs first, then its
    own (Redis 6 keeps no functions shared by scripts)."""
    return "".join(script_source(path.parent / need) for need in script_needs(path)) + path.read_text(encoding="utf-8")


def pipelined(client: redis.Redis, queue, scripts=()) -> list:
    """The replies of the reads that ``queue(pipe)`` puts on a pipeline, in one round trip.  Scripts
    go on it as bare EVALSHA (``evalsha_on``): redis-py's own way asks Redis whether they are
    loaded (SCRIPT EXISTS) on every execute, a round trip more.  When Redis lacks one (NOSCRIPT,
    after a restart), ``scripts`` are loaded and the reads sent again (on a cluster, only those
    a master refused: ``_cluster_execute``)."""
    if is_cluster(client):
        return _cluster_execute(client, queue, scripts)
    for attempt in range(2):
        pipe = client.pipeline(transaction=False)
        queue(pipe)
        try:
            return pipe.execute()
        except redis.exceptions.NoScriptError:
            if attempt:
                raise
            _load(client, scripts)
    raise AssertionError("unreachable")  # pragma: no cover


def _load(client, scripts) -> None:
    for script in scripts:
        client.script_load(script.script)


#: Commands whose one key is their first argument, among those the service pipelines.
_FIRST_KEY = frozenset({"EXISTS", "GET", "HGET", "HMGET", "HGETALL", "HSET", "HSETNX", "HINCRBY", "EXPIRE",
                        "TTL", "ZSCORE", "ZMSCORE", "ZCOUNT", "ZREVRANK", "ZRANK", "ZCARD", "ZREVRANGE", "ZRANGE",
                        "LRANGE", "LLEN", "SCARD"})
#: Replies of a command sent straight to a master that say it was not done there (the slot is
#: elsewhere, the script unknown: a master promoted in a failover has none) or may not have
#: been (the connection broke): sent again through redis-py's cluster pipeline.
_SEND_AGAIN = (redis.exceptions.MovedError, redis.exceptions.AskError, redis.exceptions.TryAgainError,
               redis.exceptions.ClusterDownError, redis.exceptions.NoScriptError, redis.ConnectionError,
               redis.TimeoutError)


def _cluster_execute(client: RedisCluster, queue, scripts=()) -> list:
    """``queue``'s commands on a cluster, sent to the masters that hold their keys as the
    client's slot map has them: to each master its commands on one connection, all written
    before any reply is read (one round trip however many masters), without redis-py's cluster
    pipeline, whose cost was a fifth of a play's.  A script and the WAIT that follows it go on
    the same connection, as WAIT needs.

    Only the commands that a master did not do, or may not have done (MOVED, ASK, NOSCRIPT, a
    broken connection, CLUSTERDOWN), go again, through redis-py's cluster pipeline, which follows
    the slots (``scripts`` loaded first), up to twice more 0.2 and 0.4 s apart: a write done on
    another master is not done twice.  What still fails is raised (the web answers 503).
    A pipeline with a command whose keys are not known here goes through that pipeline whole."""
    staging = client.get_redis_connection(client.get_default_node()).pipeline(transaction=False)  # records only
    queue(staging)
    stack = [(args, {k: v for k, v in options.items() if k != "target_nodes"}, options.get("target_nodes"))
             for args, options in staging.command_stack]
    groups = _by_node(client, stack)
    out = _send_by_node(client, stack, groups) if groups is not None else [redis.ConnectionError()] * len(stack)
    for attempt in range(3):
        again = [i for i, reply in enumerate(out) if isinstance(reply, _SEND_AGAIN)]
        if not again:
            break
        if attempt:  # the cluster is still failing over (CLUSTERDOWN, TRYAGAIN): give it a moment
            time.sleep(0.1 * 2 ** attempt)
        # a WAIT after a write sent again must follow it again, or it vouches for nothing
        again = sorted(set(again) | {j for j in range(again[0], len(stack)) if str(stack[j][0][0]).upper() == "WAIT"})
        if any(isinstance(out[i], redis.exceptions.NoScriptError) for i in again):
            _load(client, scripts)
        pipe = client.pipeline(transaction=False)
        for i in again:
            args, options, target = stack[i]
            pipe.execute_command(*args, **options, **({"target_nodes": target} if target is not None else {}))
        for i, reply in zip(again, pipe.execute(raise_on_error=False)):
            out[i] = reply
    for reply in out:
        if isinstance(reply, Exception):
            raise reply
    return out


def _by_node(client: RedisCluster, stack) -> dict | None:
    """The positions of ``stack``'s commands by the master that holds their keys; None if a
    command is not one whose keys are known here."""
    groups: dict = {}
    for i, (args, _options, target) in enumerate(stack):
        name = str(args[0]).upper()
        if name == "EVALSHA" and int(args[2]) > 0:
            node = client.nodes_manager.get_node_from_slot(client.keyslot(args[3]))
        elif name in _FIRST_KEY and len(args) > 1:
            node = client.nodes_manager.get_node_from_slot(client.keyslot(args[1]))
        elif target is not None and not isinstance(target, (list, str)):
            node = target
        else:
            return None
        groups.setdefault(node.name, (node, []))[1].append(i)
    return groups


def _send_by_node(client: RedisCluster, stack, groups: dict) -> list:
    """``stack`` sent as ``groups`` says, every master's commands written before any reply is
    read; the replies in place, an error in place of each command a master refused or that a
    broken connection left unanswered."""
    out: list = [None] * len(stack)
    sent = []
    for node, positions in groups.values():
        node_client = client.get_redis_connection(node)
        conn = None
        try:
            conn = node_client.connection_pool.get_connection()
            conn.send_packed_command(conn.pack_commands([stack[i][0] for i in positions]))
            sent.append((node_client, conn, positions))
        except (redis.ConnectionError, redis.TimeoutError) as e:
            for i in positions:
                out[i] = e
            if conn is not None:
                conn.disconnect()
                node_client.connection_pool.release(conn)
    for node_client, conn, positions in sent:
        try:
            for n, i in enumerate(positions):
                args, options, _target = stack[i]
                try:
                    out[i] = node_client.parse_response(conn, args[0], **options)
                except redis.ResponseError as e:
                    out[i] = e
                except (redis.ConnectionError, redis.TimeoutError) as e:
                    conn.disconnect()  # what is left unread on it is lost with it
                    for j in positions[n:]:
                        out[j] = e
                    break
        except BaseException:
            conn.disconnect()
            raise
        finally:
            node_client.connection_pool.release(conn)
    return out


def run_replicated(client, script, keys: list, args: list, wait_ms: int) -> tuple:
    """``script`` on ``keys`` and ``args``, answered once a replica has it: on a cluster (with
    ``wait_ms``), WAIT 1 follows the script on the same connection, in one round trip, so that
    a write acknowledged to a player survives the SIGKILL of its master (replication is
    asynchronous: without it the last writes before a crash can be lost in the failover).
    Returns (the script's reply, how many replicas had it: None when not waited for).  A master
    with no replica in sync answers after ``wait_ms`` with 0, and the write stands: while the
    cluster is degraded, availability before durability (the readiness check says so)."""
    if not wait_ms or not is_cluster(client):
        return script(keys=keys, args=args), None
    return run_replicated_each(client, [(script, keys, args)], wait_ms)[0]


def run_replicated_each(client, calls: list, wait_ms: int) -> list[tuple]:
    """``run_replicated`` for each of ``calls`` (script, keys, args), in one round trip: the
    scripts may be on different slots (each script's keys on one), each followed by its WAIT on
    its own master's connection."""
    scripts = [script for script, _keys, _args in calls]
    if not wait_ms or not is_cluster(client):
        replies = pipelined(client, lambda pipe: [evalsha_on(pipe, s, k, a) for s, k, a in calls], scripts)
        return [(reply, None) for reply in replies]
    nodes = [client.get_node_from_key(keys[0]) for _script, keys, _args in calls]

    def queue(pipe):
        for (script, keys, args), node in zip(calls, nodes):
            evalsha_on(pipe, script, keys, args)
            pipe.execute_command("WAIT", 1, wait_ms, target_nodes=node)
    replies = pipelined(client, queue, scripts)
    out = []
    for i, node in enumerate(nodes):
        reply, acked = replies[2 * i], replies[2 * i + 1]
        if not acked:
            _unreplicated(node)
        out.append((reply, acked))
    return out


_last_warned = [0.0]


def _unreplicated(node) -> None:
    """Say (at most every 10 s a process) that a master acknowledged writes no replica had."""
    import logging
    import time

    if time.monotonic() - _last_warned[0] > 10:
        _last_warned[0] = time.monotonic()
        logging.getLogger("service.store").warning(
            "redis master %s:%s has no replica in sync: writes are acknowledged unreplicated", node.host, node.port)


def evalsha_on(pipe, script, keys: list, args: list) -> None:
    """``script`` (from ``load_script``) queued on ``pipe`` by its SHA alone (see ``pipelined_reads``)."""
    pipe.evalsha(script.sha, len(keys), *keys, *args)


__all__ = ["PREFIX", "connect", "connect_cluster", "is_cluster", "parse_nodes", "run_replicated", "run_replicated_each", "evalsha_on", "parse_sentinels", "pipelined", "raw_client", "text_client", "day_of_id",
           "day_scope", "EVERY_SHARD", "shard_of", "shard_of_id", "DAY_SHARDS", "id_of", "id_tail", "key_for", "load_script", "script_needs", "script_source", "month_id", "week_id"]
