"""Prometheus metrics: what the web processes count, and what is read from Redis at each scrape.

Counted in the web processes (prometheus_client; under gunicorn in multi-process mode, one file
per process in ``PROMETHEUS_MULTIPROC_DIR``, summed at the scrape — ``deploy/gunicorn.conf.py``
sets the directory up):

- ``manille_http_requests_total{method,route,status}`` and
  ``manille_http_request_duration_seconds{method,route}`` (a histogram), per URL rule;
- ``manille_plays_total``: cards played (answered 200; a repeat of the last play counts again);
- ``manille_play_cache_total{result}``: plays whose game this process held (``hit``) or had to
  replay from the stored plays (``miss``): the share of hits says whether the proxy keeps a run's
  requests on one process (deploy/nginx.conf hashes the run id).

Read from Redis when ``/metrics`` is scraped (the same in every process, so summed by none):
the verification queue (``manille_queue_jobs``, ``manille_queue_oldest_job_age_seconds``,
``manille_queue_failed_jobs``, ``manille_queue_started_jobs``, ``manille_queue_workers``), the
verdicts the workers counted (``manille_verifications_total{status}``,
``manille_rejections_total{code}``, ``manille_flags_total{flag}``: see ``verdicts``), and
Redis itself (``manille_redis_up``, ``manille_redis_used_memory_bytes``,
``manille_redis_maxmemory_bytes``, ``manille_redis_aof_last_write_ok``).

Said by the process that answers the scrape: ``manille_solver_compiled`` (1: it searches with the
compiled solver; 0: with the Python reference, 35–81× slower: ``solver``); and, read from the
workers' RQ hashes, ``manille_queue_workers_without_compiled_solver`` (on the verification queue).
"""

from __future__ import annotations

import logging
import os
import time

import redis
from prometheus_client import (CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, disable_created_metrics,
                               generate_latest)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

from . import solver
from .verdicts import VERDICTS

log = logging.getLogger("service.metrics")
disable_created_metrics()  # the *_created series double every counter for nothing we watch

#: Decided when prometheus_client is first imported: the directory must be set before that.
MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None
METHODS = frozenset({"GET", "POST", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"})
#: Seconds: a play is ~5–20 ms, a board page a few ms; anything past 1 s is trouble.
BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REQUESTS = Counter("manille_http_requests", "HTTP requests answered", ["method", "route", "status"], registry=None)
LATENCY = Histogram("manille_http_request_duration_seconds", "Time to answer an HTTP request",
                    ["method", "route"], buckets=BUCKETS, registry=None)
PLAYS = Counter("manille_plays", "Cards played (answered 200)", registry=None)
PLAY_ENDPOINT = "runs.RunPlays"
PLAY_CACHE = Counter("manille_play_cache", "Plays whose game this process held (hit) or replayed (miss)",
                     ["result"], registry=None)
_PLAY_CACHE_SERIES = (PLAY_CACHE.labels("miss"), PLAY_CACHE.labels("hit"))


def play_cache_taken(hit: bool) -> None:
    """Count one look-up of the games in play (``GameCache.on_take``)."""
    _PLAY_CACHE_SERIES[hit].inc()

#: (method, route, status) -> its two series: labels() checks and locks on every call, and the
#: set of routes and statuses is small and fixed.
_series: dict[tuple, tuple] = {}


def observe(method: str, route: str, endpoint: str | None, status: int, seconds: float) -> None:
    """Count one answered request (called once per request, after it is answered)."""
    method = method if method in METHODS else "OTHER"
    series = _series.get((method, route, status))
    if series is None:
        series = _series[(method, route, status)] = (REQUESTS.labels(method, route, str(status)),
                                                      LATENCY.labels(method, route))
    series[0].inc()
    series[1].observe(seconds)
    if endpoint == PLAY_ENDPOINT and status == 200:
        PLAYS.inc()


class RedisCollector:
    """The queue, the verdicts and the state's memory, read at scrape time (a few round trips).
    With the state on a Redis Cluster, the queue is read from its own Redis, the memory is the
    fullest master's, and the cluster's own view is reported (state, slots served, nodes failed)."""

    def __init__(self, client, queue_name: str, queue=None) -> None:
        from rq import Queue
        from rq.registry import FailedJobRegistry, StartedJobRegistry
        from rq.worker_registration import WORKERS_BY_QUEUE_KEY

        from service.store import is_cluster, raw_client, text_client

        self.r = client
        self.cluster = is_cluster(client)
        raw = queue if queue is not None else raw_client(client)
        self.q = text_client(raw)
        self.queue_key = Queue(queue_name, connection=raw).key
        self.failed_key = FailedJobRegistry(queue_name, connection=raw).key
        self.started_key = StartedJobRegistry(queue_name, connection=raw).key
        self.workers_key = WORKERS_BY_QUEUE_KEY % queue_name
        self.job_prefix = "rq:job:"

    def collect(self):
        up = GaugeMetricFamily("manille_redis_up", "1 when the state's Redis (every master of a cluster) "
                                                   "and the queue's answered this scrape")
        try:
            data = self._read()
        except Exception as e:  # noqa: BLE001 - a scrape reports Redis down, it does not fail
            log.warning("metrics: redis unreadable: %s", e)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield GaugeMetricFamily("manille_queue_jobs", "Verification jobs waiting", value=data["depth"])
        yield GaugeMetricFamily("manille_queue_oldest_job_age_seconds",
                                "Age of the oldest waiting verification job (0: none waiting)",
                                value=data["oldest_age"])
        yield GaugeMetricFamily("manille_queue_failed_jobs", "Verification jobs failed (kept 30 days)",
                                value=data["failed"])
        yield GaugeMetricFamily("manille_queue_started_jobs", "Verification jobs running", value=data["started"])
        yield GaugeMetricFamily("manille_queue_workers", "Workers listening on the queue", value=data["workers"])
        yield GaugeMetricFamily("manille_queue_workers_without_compiled_solver",
                                "Workers on the queue searching with the Python solver (35-81x slower)",
                                value=data["workers_without_solver"])
        families = {
            "status": CounterMetricFamily("manille_verifications", "Verification jobs done, by verdict",
                                          labels=["status"]),
            "reason": CounterMetricFamily("manille_rejections", "Submissions rejected, by code", labels=["code"]),
            "flag": CounterMetricFamily("manille_flags", "Suspicion flags raised, by flag", labels=["flag"]),
        }
        for field, count in sorted(data["verdicts"].items()):
            kind, _, label = field.partition(":")
            if kind in families and label:
                families[kind].add_metric([label], int(count))
        yield from families.values()
        memory, persistence = data["memory"], data["persistence"]
        yield GaugeMetricFamily("manille_redis_used_memory_bytes", "Redis used_memory (a cluster: its fullest master)",
                                value=int(memory.get("used_memory", 0)))
        yield GaugeMetricFamily("manille_redis_maxmemory_bytes", "Redis maxmemory (0: no limit)",
                                value=int(memory.get("maxmemory", 0)))
        yield GaugeMetricFamily("manille_redis_aof_last_write_ok",
                                "1 when the AOF is on and its last write succeeded (a cluster: on every master)",
                                value=int(persistence.get("aof_enabled", 0) == 1
                                          and persistence.get("aof_last_write_status") == "ok"))
        cluster = data.get("cluster")
        if cluster is not None:
            yield GaugeMetricFamily("manille_redis_cluster_state_ok", "1 when the cluster says cluster_state:ok",
                                    value=int(cluster.get("cluster_state") == "ok"))
            yield GaugeMetricFamily("manille_redis_cluster_slots_ok", "Slots the cluster serves (16384: all)",
                                    value=int(cluster.get("cluster_slots_ok", 0)))
            yield GaugeMetricFamily("manille_redis_cluster_slots_failing",
                                    "Slots whose master is down (pfail or fail)",
                                    value=int(cluster.get("cluster_slots_pfail", 0))
                                    + int(cluster.get("cluster_slots_fail", 0)))
            yield GaugeMetricFamily("manille_redis_cluster_masters", "Masters serving slots",
                                    value=int(cluster.get("cluster_size", 0)))
            yield GaugeMetricFamily("manille_redis_cluster_nodes", "Nodes the cluster knows",
                                    value=int(cluster.get("cluster_known_nodes", 0)))
            yield GaugeMetricFamily("manille_redis_cluster_masters_without_replica",
                                    "Masters with no replica connected (a failover there would lose the slots)",
                                    value=data["lonely_masters"])
            yield GaugeMetricFamily("manille_redis_cluster_masters_unreachable",
                                    "Masters (as this client knows them) that did not answer this scrape",
                                    value=data["masters_unreachable"])

    def _read(self) -> dict:
        pipe = self.q.pipeline(transaction=False)
        pipe.llen(self.queue_key)
        pipe.lindex(self.queue_key, 0)  # RQ pushes on the right and takes from the left
        pipe.zcard(self.failed_key)
        pipe.zcard(self.started_key)
        pipe.scard(self.workers_key)
        pipe.smembers(self.workers_key)
        depth, head, failed, started, workers, names = pipe.execute()
        oldest_age = 0.0
        if head:
            enqueued = self.q.hget(self.job_prefix + head, "enqueued_at")
            if enqueued:
                from rq.utils import utcparse

                oldest_age = max(0.0, time.time() - utcparse(enqueued).timestamp())
        out = {"depth": depth, "oldest_age": round(oldest_age, 3), "failed": failed, "started": started,
               "workers": workers, "verdicts": self.r.hgetall(VERDICTS),
               "workers_without_solver": solver.workers_without(self.q, names)}
        out.update(state_health(self.r))
        return out


class SolverCollector:
    """``manille_solver_compiled`` of the process answering the scrape."""

    def collect(self):
        yield GaugeMetricFamily("manille_solver_compiled", "1 when this process searches with the compiled "
                                "solver, 0 with the Python reference (35-81x slower)", value=int(solver.compiled()))


def state_health(client) -> dict:
    """The state's memory and persistence (of its fullest master on a cluster), and on a cluster
    the cluster's own view and how many masters have no replica connected."""
    from service.store import is_cluster

    if not is_cluster(client):
        return {"memory": client.info("memory"), "persistence": client.info("persistence"), "cluster": None}
    # The masters as the cluster says now: a process that served no key of a failed-over slot
    # since would still list the dead master and not its promoted replica.  A scrape or a
    # readiness check is rare: one CLUSTER SLOTS to a live node is cheap.
    try:
        client.nodes_manager.initialize()
    except redis.RedisError:
        pass  # the masters known before: the reads below say which answer
    # Master by master: one lost (its replica not yet promoted) must not hide what the others
    # and the cluster itself say (its slots failing) behind an unreadable scrape.
    primaries, infos, last_error, answering = client.get_primaries(), [], None, None
    for node in primaries:
        try:
            infos.append(client.info(target_nodes=node))  # memory, persistence, replication at once
            answering = answering or node
        except redis.RedisError as e:
            last_error = e
    if answering is None:
        raise last_error or redis.ConnectionError("no master of the cluster answered")
    try:
        cluster = client.cluster_info(target_nodes=answering)
    except redis.RedisError:
        cluster = {"cluster_state": "fail"}
    fullest = max(infos, key=lambda i: i.get("used_memory", 0))
    aof_ok = all(i.get("aof_enabled") == 1 and i.get("aof_last_write_status") == "ok" for i in infos)
    return {"memory": {k: fullest.get(k, 0) for k in ("used_memory", "maxmemory")},
            "persistence": {"aof_enabled": int(aof_ok), "aof_last_write_status": "ok"},
            "cluster": cluster,
            "lonely_masters": sum(1 for i in infos if int(i.get("connected_slaves", 0)) == 0),
            "masters_unreachable": len(primaries) - len(infos)}


def exposition(redis_collector: RedisCollector | None) -> tuple[bytes, str]:
    """The text of a scrape: every process's counters (or this one's) and the Redis readings."""
    registry = CollectorRegistry(auto_describe=False)
    if MULTIPROC_DIR:
        MultiProcessCollector(registry, path=MULTIPROC_DIR)
    else:
        for metric in (REQUESTS, LATENCY, PLAYS, PLAY_CACHE):
            registry.register(metric)
    registry.register(SolverCollector())
    if redis_collector is not None:
        registry.register(redis_collector)
    return generate_latest(registry), CONTENT_TYPE_LATEST
