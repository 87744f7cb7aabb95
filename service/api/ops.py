"""Ops: the day's submissions with their flags and evidence, one submission in full, and the
actions (disqualify, restore, show a closed day's seed), each written to the audit log.

Every request carries ``Authorization: Bearer <MANILLE_OPS_TOKEN>`` (compared in constant
time): none is 401 ``ops_unauthorized``, a wrong one 403 ``ops_forbidden``, both logged.  With no
``MANILLE_OPS_TOKEN`` configured the ops API is closed (403).  ``X-Ops-User`` names who acts, for
the audit log.
"""

from __future__ import annotations

import hmac
import logging

import marshmallow as ma
from flask import request
from flask.views import MethodView
from .blueprint import Blueprint
from marshmallow import fields, validate

from service.errors import ServiceError
from service.ops import Ops

from .common import day_from, services
from .schemas import StrictSchema

PREFIX = "/ops"
blp = Blueprint("ops", __name__, description="Ops: review, flags, actions (bearer MANILLE_OPS_TOKEN)")
log = logging.getLogger("service.ops")
SECURITY = [{"opsToken": []}]
MAX_LIST = 1000


class OpsUnauthorized(ServiceError):
    status = 401
    code = "ops_unauthorized"


class OpsForbidden(ServiceError):
    status = 403
    code = "ops_forbidden"


def ops_user() -> str:
    """Who acts, for the audit log: the name the caller gives, and its address."""
    name = (request.headers.get("X-Ops-User") or "ops")[:64]
    return f"{name}@{request.remote_addr or 'unknown'}"


@blp.before_request
def _authenticate() -> None:
    expected = services().settings.ops_token
    auth = request.headers.get("Authorization", "")
    given = auth[7:].strip() if auth[:7].lower() == "bearer " else ""
    if not given:
        log.warning("ops: no token from %s for %s %s", request.remote_addr, request.method, request.path)
        raise OpsUnauthorized("an ops bearer token is required (Authorization: Bearer …)")
    if not expected or not hmac.compare_digest(given.encode(), expected.encode()):
        log.warning("ops: wrong token from %s for %s %s", request.remote_addr, request.method, request.path)
        raise OpsForbidden("this token may not use the ops API")


def _ops() -> Ops:
    s = services()
    return Ops(s.redis, s.settings)


class ListQuerySchema(StrictSchema):
    limit = fields.Integer(load_default=500, validate=validate.Range(1, MAX_LIST))
    offset = fields.Integer(load_default=0, validate=validate.Range(0, 100_000_000))


class ReasonSchema(StrictSchema):
    reason = fields.String(required=True, validate=validate.Length(1, 1000))


class FlagSchema(ma.Schema):
    code = fields.String(required=True, metadata={"description": "explored | many_runs | speed | outlier"})
    evidence = fields.Dict(required=True)


class OpsSubmissionSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    submission_id = fields.String(required=True)
    run_id = fields.String()
    player = fields.String()
    nickname = fields.String()
    date = fields.String()
    status = fields.String(required=True)
    score = fields.Integer(allow_none=True)
    flags = fields.List(fields.Nested(FlagSchema), required=True,
                        metadata={"description": "suspicions with their evidence; empty when clean"})
    created_at = fields.String()
    verified_at = fields.String(allow_none=True)
    address = fields.String()
    submit_address = fields.String()
    user_agent = fields.String()
    decision = fields.String(allow_none=True)
    decision_reason = fields.String(allow_none=True)


class OpsSubmissionListSchema(ma.Schema):
    submissions = fields.List(fields.Nested(OpsSubmissionSchema), required=True)


class OpsSubmissionDetailSchema(OpsSubmissionSchema):
    cards = fields.List(fields.String())
    play_times_ms = fields.List(fields.Integer())
    address_runs = fields.List(fields.String())
    token_runs = fields.List(fields.String())
    record = fields.Dict(allow_none=True)
    reason = fields.Dict(allow_none=True)


class SeedSchema(ma.Schema):
    date = fields.String()
    seed = fields.String()


class AuditEntrySchema(ma.Schema):
    id = fields.String()
    who = fields.String()
    at = fields.String()
    action = fields.String()
    target = fields.String()
    why = fields.String()
    details = fields.String()


class AuditSchema(ma.Schema):
    entries = fields.List(fields.Nested(AuditEntrySchema))


@blp.route("/days/<string:day>/submissions")
class DaySubmissions(MethodView):
    @blp.arguments(ListQuerySchema, location="query")
    @blp.response(200, OpsSubmissionListSchema)
    @blp.doc(security=SECURITY)
    def get(self, query, day):
        """Every submission of a day, in submission order, with status, score and flags"""
        return {"submissions": _ops().submissions(day_from(day), query["limit"], query["offset"])}


@blp.route("/days/<string:day>/seed")
class DaySeed(MethodView):
    @blp.response(200, SeedSchema)
    @blp.doc(security=SECURITY)
    def get(self, day):
        """A closed day's seed (409 ``seed_sealed`` before); audited"""
        parsed = day_from(day)
        return {"date": parsed.isoformat(), "seed": _ops().seed(parsed, ops_user())}


class JobSchema(ma.Schema):
    job_id = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "queued, started, finished, failed …"})
    description = fields.String(allow_none=True)
    result = fields.Raw(allow_none=True, metadata={"description": "once finished: the job's report"})
    status_url = fields.String()


class RebuildSchema(StrictSchema):
    reason = fields.String(load_default="", validate=validate.Length(max=1000))


def _queued(job_id: str) -> dict:
    return {**_ops().job(job_id), "status_url": f"/api/v1/ops/jobs/{job_id}"}


@blp.route("/days/<string:day>/reverify")
class DayReverify(MethodView):
    @blp.response(202, JobSchema)
    @blp.doc(security=SECURITY)
    def post(self, day):
        """Queue a re-verification of every submission of the day (nothing changes; the job's
        result lists each difference with what is stored); audited"""
        parsed = day_from(day).isoformat()
        return _queued(_ops().enqueue("worker.jobs.ops_reverify_day", parsed, who=ops_user(),
                                      action="reverify_day", target=parsed))


@blp.route("/days/<string:day>/rebuild")
class DayRebuild(MethodView):
    @blp.arguments(RebuildSchema)
    @blp.response(202, JobSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, day):
        """Queue a rebuild of the day's boards from its verified games; audited"""
        parsed = day_from(day).isoformat()
        who = ops_user()
        return _queued(_ops().enqueue("worker.jobs.ops_rebuild_day", parsed, who, body["reason"], who=who,
                                      action="queue_rebuild_day", target=parsed, why=body["reason"]))


@blp.route("/jobs/<string:job_id>")
class OpsJob(MethodView):
    @blp.response(200, JobSchema)
    @blp.doc(security=SECURITY)
    def get(self, job_id):
        """An ops job: its state and, once finished, its report"""
        return _queued(job_id)


@blp.route("/submissions/<string:sub_id>")
class SubmissionDetail(MethodView):
    @blp.response(200, OpsSubmissionDetailSchema)
    @blp.doc(security=SECURITY)
    def get(self, sub_id):
        """One submission in full: record, play times, client, the day's other runs of its
        token and address, flags with evidence"""
        return _ops().submission(sub_id)


@blp.route("/submissions/<string:sub_id>/disqualify")
class Disqualify(MethodView):
    @blp.arguments(ReasonSchema)
    @blp.response(200, OpsSubmissionDetailSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, sub_id):
        """Take a game off every board, kept with the reason; audited"""
        return _ops().disqualify(sub_id, ops_user(), body["reason"])


@blp.route("/submissions/<string:sub_id>/restore")
class Restore(MethodView):
    @blp.arguments(ReasonSchema)
    @blp.response(200, OpsSubmissionDetailSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, sub_id):
        """Put a disqualified or held game (back) on the boards; audited"""
        return _ops().restore(sub_id, ops_user(), body["reason"])


@blp.route("/audit")
class Audit(MethodView):
    @blp.arguments(ListQuerySchema, location="query")
    @blp.response(200, AuditSchema)
    @blp.doc(security=SECURITY)
    def get(self, query):
        """The audit log, newest first"""
        return {"entries": _ops().audit_log(query["limit"])}
