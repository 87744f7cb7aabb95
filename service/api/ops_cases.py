"""Case files: one JSON document with everything ops hold on a game or a player."""

from __future__ import annotations

from flask.views import MethodView

from service.ops.case import case_file

from .blueprint import Blueprint
from .ops import SECURITY, _ops, authenticate, ops_user
from .schemas import CaseFileSchema

PREFIX = "/ops/export"
blp = Blueprint("ops_cases", __name__, description="Ops: case files of a game or a player")
blp.before_request(authenticate)


@blp.route("/<string:subject>")
class CaseFile(MethodView):
    @blp.response(200, CaseFileSchema)
    @blp.doc(security=SECURITY)
    def get(self, subject):
        """The case file of a submission or a player (id or nickname): the game in full with flags
        and evidence and the runs around it (kept past MANILLE_RUN_KEEP_HOURS from now on), the
        player's games, notes, addresses, reports and appeals, and every audit entry on them;
        audited (``export``)"""
        return case_file(_ops(), subject, ops_user())
