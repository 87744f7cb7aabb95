"""Reads and script calls in one round trip (``pipelined``): on one Redis a plain pipeline; on a
cluster each master's commands written on one connection before any reply is read, and what a
master did not do sent again through redis-py's cluster pipeline.
"""

from __future__ import annotations

import time

import redis
from redis.cluster import RedisCluster

from .connection import is_cluster
from .scripts import load_scripts


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
            load_scripts(client, scripts)
    raise AssertionError("unreachable")  # pragma: no cover


#: Commands whose one key is their first argument, among those the service pipelines.
_FIRST_KEY = frozenset({"EXISTS", "GET", "HGET", "HMGET", "HGETALL", "HSET", "HSETNX", "HINCRBY", "EXPIRE",
                        "TTL", "ZSCORE", "ZMSCORE", "ZCOUNT", "ZREVRANK", "ZRANK", "ZCARD", "ZREVRANGE", "ZRANGE",
                        "LRANGE", "LLEN", "SCARD", "ZLEXCOUNT", "ZRANGEBYLEX", "SADD"})
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
            load_scripts(client, scripts)
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
