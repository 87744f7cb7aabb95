"""Health: liveness (the process answers) and readiness (Redis reachable, a worker seen recently,
no verification pending for too long; Redis's memory reported, with a warning near its limit).

Readiness answers anyone ready or not ready, and nothing more: its details (Redis's memory and
layout, the queues, the workers) are the metrics' readers' (the bearer ``MANILLE_METRICS_TOKEN``,
or loopback with none configured), as ``/metrics`` is."""

from __future__ import annotations

import time

from flask.views import MethodView
from rq import Worker

from service.botcache import warm
from service.telemetry import solver
from service.telemetry.metrics import state_health
from service.telemetry.web import trusted_reader

from .blueprint import Blueprint
from .common import services
from .schemas import HealthSchema

PREFIX = "/health"
blp = Blueprint("health", __name__, description="Liveness and readiness")

#: A worker heartbeats at least every worker_ttl (420 s by default in RQ); older means gone.
WORKER_RECENT_SECONDS = 600


@blp.route("/live")
class Live(MethodView):
    @blp.response(200, HealthSchema)
    def get(self):
        """The process is up"""
        return {"status": "ok"}


@blp.route("/ready")
class Ready(MethodView):
    @blp.response(200, HealthSchema)
    @blp.alt_response(503, schema=HealthSchema)
    def get(self):
        """Redis answers PING (the state's, every master of its cluster, and the queue's), a verification worker has been seen recently, and no verification
        has been pending (queued or delayed) longer than MANILLE_READY_MAX_QUEUED_SECONDS

        To anyone: ``status`` alone, ``ok`` (200) or ``not_ready`` (503).  The details below only
        with the bearer MANILLE_METRICS_TOKEN (or from loopback when none is configured).
        ``queue_redis``: the queue's Redis answered; ``redis_cluster`` (null: one Redis): the
        cluster's ``state`` (``ok``, else ``redis`` is false), ``slots_ok`` (16384: every slot
        served), ``masters`` and ``masters_without_replica`` (not 0: the warning
        ``redis_unreplicated``, still 200: its writes are answered unreplicated, and one more
        failure there loses slots), ``masters_unreachable`` (masters this process knows that did
        not answer: one lost and not yet failed over).
        ``pending`` verifications, ``oldest_queued_seconds`` since the oldest was accepted,
        ``failed`` jobs in RQ's failed registry of the queue (a delayed verification is one).
        ``analysis``: the players' analysis queue's ``workers``, ``queued`` jobs and ``waiting`` (the
        places taken of its cap ``max_waiting``), and the hidden-information check's queue's
        ``check_workers`` and ``check_queued``; analyses queued with no worker for them give the
        warning ``no_analysis_worker`` (still 200: verification goes on).
        ``warm``: the queue of the day's decisions computed ahead (``workers``, ``queued``) and
        today's warm (its ``bots``, ``jobs``, ``done``); its jobs queued with no worker give the
        warning ``no_warm_worker`` (still 200: the bots then decide as each decision is met, slower).
        ``bots``: the bots' pool (null: none, MANILLE_BOT_POOL 0), its queue's ``workers``, the
        bots' turns ``waiting`` and ``max_waiting``; no worker gives the warning ``no_bots_worker``
        (still 200: ranked play with a warm day goes on; a play that needs a search waits, then 503).
        ``redis_memory_bytes`` Redis uses of its ``redis_maxmemory_bytes`` (null: no limit set);
        at MANILLE_MEMORY_WARN of it (default 0.8) ``warnings`` holds ``redis_memory`` and the
        answer stays 200: every web process shares the one Redis, so taking them out of the
        balancer frees nothing and would stop the reads that still work; full, Redis refuses
        writes (``noeviction``), each answered 503 ``store_full``.
        ``compiled_solver``: this web process searches (the bots' moves) with the compiled solver,
        and ``workers_without_compiled_solver`` counts the workers (verification and analysis)
        that said at start they search without it; either gives the warning
        ``solver_not_compiled`` (still 200: the Python search gives the same answers, 35–81× slower;
        deploy/RUNBOOK.md, "The compiled solver")."""
        s = services()
        out = {"status": "ok", "redis": False, "queue_redis": False, "redis_cluster": None, "workers": 0, "last_worker_seen_seconds": None,
               "pending": None, "oldest_queued_seconds": None, "failed": None,
               "redis_memory_bytes": None, "redis_maxmemory_bytes": None, "warnings": [],
               "analysis": {"workers": None, "queued": None}, "warm": None, "bots": None,
               "compiled_solver": solver.compiled(), "workers_without_compiled_solver": None}
        try:
            out["redis"] = bool(s.redis.ping())
            out["queue_redis"] = bool(s.queue.ping())
            state = state_health(s.redis)
            if state["cluster"] is not None:
                c = state["cluster"]
                out["redis_cluster"] = {"state": c.get("cluster_state"), "slots_ok": int(c.get("cluster_slots_ok", 0)),
                                        "masters": int(c.get("cluster_size", 0)),
                                        "masters_without_replica": state["lonely_masters"],
                                        "masters_unreachable": state["masters_unreachable"]}
                if c.get("cluster_state") != "ok":
                    out["redis"] = False
                if state["lonely_masters"]:
                    out["warnings"].append("redis_unreplicated")
            memory = state["memory"]
            out["redis_memory_bytes"] = memory["used_memory"]
            out["redis_maxmemory_bytes"] = memory.get("maxmemory") or None
            if out["redis_maxmemory_bytes"] and (out["redis_memory_bytes"]
                                                 >= s.settings.memory_warn * out["redis_maxmemory_bytes"]):
                out["warnings"].append("redis_memory")
            workers = Worker.all(connection=s.queue, queue=s.submissions.queue)
            pending = s.submissions.pending_summary()
            out["failed"] = s.submissions.queue.failed_job_registry.count
            queue, check = s.analyses.queue, s.analyses.check_queue
            analysing = Worker.all(connection=s.queue, queue=queue)
            checking = Worker.all(connection=s.queue, queue=check)
            out["analysis"] = {"workers": len(analysing),
                               "queued": queue.count, "waiting": s.analyses.waiting(),
                               "max_waiting": s.settings.analysis_queue_max,
                               "check_workers": len(checking),
                               "check_queued": check.count}
            a = out["analysis"]
            if (a["queued"] and not a["workers"]) or (a["check_queued"] and not a["check_workers"]):
                out["warnings"].append("no_analysis_worker")  # analyses wait; verification does not
            searching = {w.key for w in workers + analysing + checking}
            out["workers_without_compiled_solver"] = solver.workers_without(s.queue, sorted(searching))
            out["warm"] = warm.health(s.settings, s.redis, s.queue)
            if out["warm"]["queued"] and not out["warm"]["workers"]:
                out["warnings"].append("no_warm_worker")  # the bots decide as met: slower plays
            if s.runs.pool is not None:
                out["bots"] = s.runs.pool.health()
                if not out["bots"]["workers"]:
                    out["warnings"].append("no_bots_worker")  # a play that searches waits, then 503
        except Exception:  # noqa: BLE001 - any failure means not ready
            workers, pending = [], {"pending": None, "oldest": None}
        if not out["compiled_solver"] or out["workers_without_compiled_solver"]:
            out["warnings"].append("solver_not_compiled")  # answers alike, many times slower
        seen = [w.last_heartbeat.timestamp() for w in workers if w.last_heartbeat]
        out["workers"] = len(workers)
        if seen:
            out["last_worker_seen_seconds"] = round(max(0.0, time.time() - max(seen)), 1)
        out["pending"] = pending["pending"]
        if pending["oldest"] is not None:
            out["oldest_queued_seconds"] = round(max(0.0, time.time() - pending["oldest"]), 1)
        limit = s.settings.ready_max_queued_seconds
        ready = (out["redis"] and out["queue_redis"] and seen and out["last_worker_seen_seconds"] < WORKER_RECENT_SECONDS
                 and not (limit and (out["oldest_queued_seconds"] or 0) > limit))
        if not ready:
            out["status"] = "not_ready"
        if not trusted_reader():
            out = {"status": out["status"]}
        return (out, 503) if out["status"] != "ok" else out
