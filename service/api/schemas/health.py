"""Liveness and readiness: /api/v1/health."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields


class HealthSchema(ma.Schema):
    status = fields.String(required=True, metadata={
        "description": "ok or not_ready; every other field only for the metrics' readers (bearer "
                       "MANILLE_METRICS_TOKEN, or loopback when none is set)"})
    redis = fields.Boolean(metadata={"description": "the state's Redis answered (a cluster: every master, state ok)"})
    queue_redis = fields.Boolean(metadata={"description": "the queue's Redis answered"})
    redis_cluster = fields.Dict(allow_none=True, metadata={
        "description": "the state's cluster: state, slots_ok, masters, masters_without_replica, masters_unreachable; null: one Redis"})
    workers = fields.Integer()
    last_worker_seen_seconds = fields.Float(allow_none=True)
    pending = fields.Integer(allow_none=True, metadata={"description": "verifications without a verdict"})
    oldest_queued_seconds = fields.Float(allow_none=True, metadata={
        "description": "since the oldest pending verification (queued or delayed) was accepted"})
    failed = fields.Integer(allow_none=True, metadata={"description": "jobs in RQ's failed registry of the queue"})
    redis_memory_bytes = fields.Integer(allow_none=True, metadata={"description": "Redis's used_memory"})
    redis_maxmemory_bytes = fields.Integer(allow_none=True, metadata={
        "description": "Redis's maxmemory; null when none is set"})
    warnings = fields.List(fields.String(), metadata={
        "description": "redis_memory: Redis uses MANILLE_MEMORY_WARN (default 0.8) of its maxmemory or more; "
                       "no_analysis_worker: analyses are queued and no worker takes the analysis queue; "
                       "no_warm_worker: the day's warm is queued and no worker takes the warm queue; "
                       "redis_unreplicated: a cluster master has no replica connected; "
                       "solver_not_compiled: this web process or a worker searches without the compiled "
                       "solver (same answers, 35-81x slower; see compiled_solver)"})
    analysis = fields.Dict(metadata={"description": "the players' analysis queue (workers, queued jobs, waiting: "
                                                    "places taken of max_waiting) and the hidden-information "
                                                    "check's (check_workers, check_queued)"})
    compiled_solver = fields.Boolean(metadata={
        "description": "this web process loaded the compiled solver (bots.native); false: it searches "
                       "with the Python reference, same answers, 35-81x slower"})
    workers_without_compiled_solver = fields.Integer(allow_none=True, metadata={
        "description": "verification and analysis workers that said at start they search without the "
                       "compiled solver"})
    bots = fields.Dict(allow_none=True, metadata={
        "description": "the bots' pool (null: none): its queue's workers, the bots' turns waiting, max_waiting"})
    warm = fields.Dict(allow_none=True, metadata={
        "description": "the warm of the day's decisions: its queue's workers and queued jobs; today's bots, the warm's "
                       "jobs and those done (0 jobs: nothing to warm, or not queued yet)"})
