"""A player reports a game that looks wrong, for ops to look at (``service.reports``)."""

from __future__ import annotations

from flask.views import MethodView

from service.reports import Reports

from . import limits
from .blueprint import Blueprint
from .caching import limited
from .common import current_pid, services
from .schemas import ReportCreateSchema, ReportSchema

PREFIX = "/reports"
blp = Blueprint("reports", __name__, description="Reports of games to ops")


@blp.route("")
class ReportCreate(MethodView):
    @blp.arguments(ReportCreateSchema)
    @blp.response(201, ReportSchema)
    @blp.doc(security=[{"playerToken": []}])
    @limited(201)
    def post(self, body):
        """Report a game (its submission id) with the reason: once per player and game (409
        ``already_reported``), never one's own (422 ``own_game``), 404 ``submission_not_found``;
        limited per token and per address (429)"""
        s = services()
        pid = current_pid()
        with limits.Admission(("reports_per_token", pid), ("reports_per_address", limits.client_address())) as adm:
            adm.take()
            made = Reports(s.redis, s.settings).file(pid, body["submission_id"], body["reason"])
            adm.keep()
        return {k: made[k] for k in ("report_id", "at", "submission_id", "reason")}
