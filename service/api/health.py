"""Health: liveness (the process answers) and readiness (Redis reachable, a worker seen recently,
no verification pending for too long)."""

from __future__ import annotations

import time

from flask.views import MethodView
from rq import Worker

from service.store import raw_client

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
        """Redis answers PING, a verification worker has been seen recently, and no verification
        has been pending (queued or delayed) longer than MANILLE_READY_MAX_QUEUED_SECONDS

        ``pending`` verifications, ``oldest_queued_seconds`` since the oldest was accepted,
        ``failed`` jobs in RQ's failed registry of the queue (a delayed verification is one)."""
        s = services()
        out = {"status": "ok", "redis": False, "workers": 0, "last_worker_seen_seconds": None,
               "pending": None, "oldest_queued_seconds": None, "failed": None}
        try:
            out["redis"] = bool(s.redis.ping())
            workers = Worker.all(connection=raw_client(s.redis), queue=s.submissions.queue)
            pending = s.submissions.pending_summary()
            out["failed"] = s.submissions.queue.failed_job_registry.count
        except Exception:  # noqa: BLE001 - any failure means not ready
            workers, pending = [], {"pending": None, "oldest": None}
        seen = [w.last_heartbeat.timestamp() for w in workers if w.last_heartbeat]
        out["workers"] = len(workers)
        if seen:
            out["last_worker_seen_seconds"] = round(max(0.0, time.time() - max(seen)), 1)
        out["pending"] = pending["pending"]
        if pending["oldest"] is not None:
            out["oldest_queued_seconds"] = round(max(0.0, time.time() - pending["oldest"]), 1)
        limit = s.settings.ready_max_queued_seconds
        ready = (out["redis"] and seen and out["last_worker_seen_seconds"] < WORKER_RECENT_SECONDS
                 and not (limit and (out["oldest_queued_seconds"] or 0) > limit))
        if not ready:
            out["status"] = "not_ready"
            return out, 503
        return out
