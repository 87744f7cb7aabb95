"""Writes answered once a replica has them: on a cluster, a script followed by WAIT 1 on its
master's connection (``run_replicated``), so that an acknowledged write survives its master's
crash.
"""

from __future__ import annotations

import logging
import time

from .connection import is_cluster
from .pipeline import pipelined
from .scripts import evalsha_on


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
    if time.monotonic() - _last_warned[0] > 10:
        _last_warned[0] = time.monotonic()
        logging.getLogger("service.store").warning(
            "redis master %s:%s has no replica in sync: writes are acknowledged unreplicated", node.host, node.port)
