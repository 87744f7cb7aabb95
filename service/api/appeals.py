"""A restricted or disqualified player appeals, and reads the answers (``service.appeals``)."""

from __future__ import annotations

from flask.views import MethodView

from service.appeals import Appeals, public

from .blueprint import Blueprint
from .common import current_pid, services
from .schemas import AppealCreateSchema, AppealListSchema, AppealSchema

PREFIX = "/appeals"
blp = Blueprint("appeals", __name__, description="Appeals of a restriction or a disqualification")


@blp.route("")
class AppealsOfPlayer(MethodView):
    @blp.arguments(AppealCreateSchema)
    @blp.response(201, AppealSchema)
    @blp.doc(security=[{"playerToken": []}])
    def post(self, body):
        """Appeal the caller's restriction, else their latest disqualified game (409
        ``nothing_to_appeal``); one open at a time (409 ``appeal_open``); another operator than
        the one who decided answers it"""
        s = services()
        return public(Appeals(s.redis, s.settings).file(current_pid(), body["text"]))

    @blp.response(200, AppealListSchema)
    @blp.doc(security=[{"playerToken": []}])
    def get(self):
        """The caller's appeals, newest first, with ops' answers"""
        s = services()
        return {"appeals": [public(a) for a in Appeals(s.redis, s.settings).of_player(current_pid())]}
