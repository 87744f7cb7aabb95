"""The players' reports as ops read them: newest first, each with the game's evidence."""

from __future__ import annotations

from flask.views import MethodView

from service.reports import Reports

from .blueprint import Blueprint
from .ops import QUERY, SECURITY, _ops, authenticate
from .schemas import OpsReportListSchema
from .schemas.desk import OpsListPageSchema

PREFIX = "/ops/reports"
blp = Blueprint("ops_reports", __name__, description="Ops: the players' reports of games")
blp.before_request(authenticate)


@blp.route("")
class ReportList(MethodView):
    @blp.arguments(OpsListPageSchema, **QUERY)
    @blp.response(200, OpsReportListSchema)
    @blp.doc(security=SECURITY)
    def get(self, query):
        """Every report, newest first (``limit``, ``offset``), each with how many reported the game
        and the game as ops list it (status, score, flags and their evidence, decision)"""
        ops = _ops()
        reports, total = Reports(ops.r, ops.settings).newest(query["limit"], query["offset"])
        games = {g["submission_id"]: g for g in ops._listed(list({r["submission_id"] for r in reports}), None, 0, None)}
        return {"reports": [{**r, "game": games.get(r["submission_id"])} for r in reports], "total": total}
