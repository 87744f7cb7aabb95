"""Ops: the day's submissions with their flags and evidence, one submission in full, and the
actions (disqualify, restore, show a closed day's seed), each written to the audit log.

Every request carries ``Authorization: Bearer <token>``, one of the operators' tokens
(``MANILLE_OPS_TOKENS``, compared in constant time): none is 401 ``ops_unauthorized``, a wrong one
403 ``ops_forbidden``, both logged.  With no operator configured the ops API is closed (403).  The
token names the operator: the audit log says whose token acted, and from which address.
"""

from __future__ import annotations

import logging

import marshmallow as ma

from flask import g, request
from flask.views import MethodView

from service.errors import Forbidden, Unauthorized
from service.limits import Gate, parse
from service.ops import Ops
from service.runs.around import around

from .blueprint import Blueprint
from .common import day_from, services
from .limits import client_address
from .schemas import (AuditQuerySchema, AuditSchema, DisqualifySchema, JobSchema, OpsPendingQuerySchema,
                      OpsSubmissionDetailSchema, OpsSubmissionListSchema, OpsSubmissionsQuerySchema,
                      OpsAnalyseSchema, ReasonSchema, OptionalReasonSchema, RequeueListSchema, RequeueSchema,
                      SeedSchema, OpsReviewQuerySchema, OpsReviewSchema)
from .schemas.runs_around import RunsAroundSchema

PREFIX = "/ops"
blp = Blueprint("ops", __name__, description="Ops: review, flags, actions (bearer: an operator's token, MANILLE_OPS_TOKENS)")
log = logging.getLogger("service.ops")
SECURITY = [{"opsToken": []}]
#: An ops query's parameters: one the route does not know is a 422, never ignored (webargs would
#: drop it from a query by default), so that a filter mistyped never reads as a filter applied.
QUERY = {"location": "query", "unknown": ma.RAISE}


def ops_user() -> str:
    """Who acts, for the audit log: the operator whose token came, and from which address."""
    return f"{g.operator}@{request.remote_addr or 'unknown'}"


@blp.before_request
def authenticate() -> None:
    """The operator of the request's token (``g.operator``, ``g.role``); 401, 403, or 429 once an
    address has sent ``ops_tokens_per_address`` wrong tokens (checked before any comparison, so
    that a guess answered 429 tells nothing).  Every ops blueprint runs it first."""
    auth = request.headers.get("Authorization", "")
    given = auth[7:].strip() if auth[:7].lower() == "bearer " else ""
    if not given:
        log.warning("ops: no token from %s for %s %s", request.remote_addr, request.method, request.path)
        raise Unauthorized("an ops bearer token is required (Authorization: Bearer …)", code="ops_unauthorized")
    s = services()
    wrong = Gate([("ops_tokens_per_address", client_address(),
                   parse(s.settings.limits.get("ops_tokens_per_address") or ""))])
    s.limits.check(wrong)
    g.operator = s.settings.operators.name_of(given)
    if g.operator is None:
        log.warning("ops: wrong token from %s for %s %s", request.remote_addr, request.method, request.path)
        s.limits.count(wrong)
        raise Forbidden("this token may not use the ops API", code="ops_forbidden")
    g.role = s.settings.operators.role_of(g.operator)


def require_decider() -> None:
    """403 ``ops_decider_only`` for a reviewer's decision (disqualify, restore, restrict, lift,
    rebuild, answer an appeal)."""
    if g.role != "decider":
        raise Forbidden(f"{g.operator} reviews: this decision is a decider's (MANILLE_OPS_TOKENS)",
                        code="ops_decider_only")


def _ops() -> Ops:
    s = services()
    return Ops(s.redis, s.settings)


@blp.route("/days/<string:day>/submissions")
class DaySubmissions(MethodView):
    @blp.arguments(OpsSubmissionsQuerySchema, **QUERY)
    @blp.response(200, OpsSubmissionListSchema)
    @blp.doc(security=SECURITY)
    def get(self, query, day):
        """Every submission of a day, in submission order, with status, score and flags
        (``status=delayed``: only those)"""
        return {"submissions": _ops().submissions(day_from(day), query["limit"], query["offset"],
                                                  query.get("status"))}


@blp.route("/pending")
class Pending(MethodView):
    @blp.arguments(OpsPendingQuerySchema, **QUERY)
    @blp.response(200, OpsSubmissionListSchema)
    @blp.doc(security=SECURITY)
    def get(self, query):
        """Every verification without a verdict, of any day, oldest first (``status=delayed``:
        those whose verification crashed and waits for a requeue)"""
        return {"submissions": _ops().pending(query.get("status"))}


@blp.route("/review")
class ReviewQueue(MethodView):
    @blp.arguments(OpsReviewQuerySchema, **QUERY)  # an unknown parameter is refused, as on every ops list
    @blp.response(200, OpsReviewSchema)
    @blp.doc(security=SECURITY)
    def get(self, query):
        """The review queue: the games at the top of a day held for review (or being checked for it),
        the highest score first, with their evidence (the check's drivers, the pace of play, the
        day's fast runs from the same address never submitted)"""
        return {"submissions": _ops().review_queue(query["limit"])}


@blp.route("/pending/requeue")
class RequeueDelayed(MethodView):
    @blp.arguments(OptionalReasonSchema, required=False)  # no body: no reason
    @blp.response(200, RequeueListSchema)
    @blp.doc(security=SECURITY)
    def post(self, body):
        """Requeue every delayed verification, of any day; audited"""
        return {"requeued": _ops().requeue_delayed(ops_user(), body["reason"])}


@blp.route("/days/<string:day>/seed")
class DaySeed(MethodView):
    @blp.response(200, SeedSchema)
    @blp.doc(security=SECURITY)
    def get(self, day):
        """A closed day's seed (409 ``seed_sealed`` before); audited"""
        parsed = day_from(day)
        return {"date": parsed.isoformat(), "seed": _ops().seed(parsed, ops_user())}


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
    @blp.arguments(OptionalReasonSchema, required=False)  # no body: no reason
    @blp.response(202, JobSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, day):
        """Queue a rebuild of the day's boards from its verified games; audited"""
        require_decider()
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
        token and address, flags with evidence; while its day is open without the hands (the
        record and the oracle's choices: ``hands_sealed``)"""
        return _ops().submission(sub_id)


@blp.route("/submissions/<string:sub_id>/runs")
class SubmissionRunsAround(MethodView):
    @blp.response(200, RunsAroundSchema)
    @blp.doc(security=SECURITY)
    def get(self, sub_id):
        """The day's runs around a game: every ranked run of its day, from any token or address,
        opened before it was submitted, that followed its cards and left them (where, with
        which card), played them whole or stopped on them, with its pace, client and token's
        age; the deepest first (404 ``submission_not_found``)"""
        s = services()
        return {"submission_id": sub_id, **around(s.redis, s.settings, sub_id)}


@blp.route("/submissions/<string:sub_id>/hands")
class SubmissionHands(MethodView):
    @blp.arguments(ReasonSchema)
    @blp.response(200, OpsSubmissionDetailSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, sub_id):
        """One submission in full with every hand, even while its day is open; the reason is
        required and the reading audited (``read_hands``: who, when, why)"""
        return _ops().hands(sub_id, ops_user(), body["reason"])


@blp.route("/submissions/<string:sub_id>/disqualify")
class Disqualify(MethodView):
    @blp.arguments(DisqualifySchema)
    @blp.response(200, OpsSubmissionDetailSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, sub_id):
        """Take a game off every board, kept with the reason (``public_reason``: what its player
        reads); audited"""
        require_decider()
        return _ops().disqualify(sub_id, ops_user(), body["reason"], body.get("public_reason"))


@blp.route("/submissions/<string:sub_id>/restore")
class Restore(MethodView):
    @blp.arguments(ReasonSchema)
    @blp.response(200, OpsSubmissionDetailSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, sub_id):
        """Put a disqualified or held game (back) on the boards; audited"""
        require_decider()
        return _ops().restore(sub_id, ops_user(), body["reason"])


@blp.route("/submissions/<string:sub_id>/release")
class Release(MethodView):
    @blp.arguments(ReasonSchema)
    @blp.response(200, OpsSubmissionDetailSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, sub_id):
        """Rank a game held for review (409 ``not_in_review`` for any other); audited"""
        require_decider()
        return _ops().release(sub_id, ops_user(), body["reason"])


@blp.route("/submissions/<string:sub_id>/requeue")
class Requeue(MethodView):
    @blp.arguments(OptionalReasonSchema, required=False)  # no body: no reason
    @blp.response(200, RequeueSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, sub_id):
        """Run a submission's verification again (a delayed one; a verified one is re-verified,
        counted once); nothing changes while RQ has it on its way; audited"""
        return _ops().requeue(sub_id, ops_user(), body["reason"])


@blp.route("/submissions/<string:sub_id>/analyse")
class Analyse(MethodView):
    @blp.arguments(OptionalReasonSchema, required=False)  # no body: no reason
    @blp.response(202, OpsAnalyseSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, sub_id):
        """Run the hidden-information check of a valid game now, whatever its score (its analysis
        is queued unless done or on its way; the figures and any flag land on the submission);
        audited"""
        return _ops().analyse(sub_id, ops_user(), body["reason"])


@blp.route("/audit")
class Audit(MethodView):
    @blp.arguments(AuditQuerySchema, **QUERY)
    @blp.response(200, AuditSchema)
    @blp.doc(security=SECURITY)
    def get(self, query):
        """The audit log, newest first: ``who`` (an operator's name, or name@address), ``target``,
        ``action``, ``since`` (a day or an ISO time) filter it; ``next`` is the ``before`` of the
        page after (null at the end); ``offset`` skips that many entries"""
        limit = query.pop("limit")
        return _ops().audit_log(limit, **query)
