"""The players' appeals as ops read and answer them (another operator than the one who decided)."""

from __future__ import annotations

from flask.views import MethodView

from service.appeals import Appeals
from service.ops.player import PlayerDesk
from service.restrictions import Restrictions

from .blueprint import Blueprint
from .ops import QUERY, SECURITY, _ops, authenticate, ops_user, require_decider
from .schemas import AnswerSchema, OpsAppealListSchema, OpsAppealSchema, OpsAppealsQuerySchema

PREFIX = "/ops/appeals"
blp = Blueprint("ops_appeals", __name__, description="Ops: the players' appeals and their answers")
blp.before_request(authenticate)


def _with_evidence(ops, appeals: list[dict]) -> list[dict]:
    """Each appeal with what it is about: the game as ops list it, or the restriction in force."""
    games = {g["submission_id"]: g for g in ops._listed([a["submission_id"] for a in appeals if a.get("submission_id")],
                                                          None, 0, None)}
    restrictions = Restrictions(ops.r, ops.settings)
    return [{**a, "game": games.get(a.get("submission_id") or ""),
             "restricted": restrictions.get(a["player"]) if a["kind"] == "restriction" else None} for a in appeals]


@blp.route("")
class AppealList(MethodView):
    @blp.arguments(OpsAppealsQuerySchema, **QUERY)
    @blp.response(200, OpsAppealListSchema)
    @blp.doc(security=SECURITY)
    def get(self, query):
        """The appeals, newest first (``status``: open or answered), each with the game or the
        restriction it is about and who decided it"""
        ops = _ops()
        found = Appeals(ops.r, ops.settings).newest(query.get("status"), query["limit"], query["offset"])
        return {"appeals": _with_evidence(ops, found)}


@blp.route("/<string:appeal_id>/answer")
class Answer(MethodView):
    @blp.arguments(AnswerSchema)
    @blp.response(200, OpsAppealSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, appeal_id):
        """Answer an appeal: ``upheld`` or ``granted`` (the restriction lifted, the game restored),
        with the text the player reads. A decider's, and another than the one who decided (403
        ``same_operator``); once (409 ``appeal_answered``); audited"""
        require_decider()
        ops = _ops()
        answered = Appeals(ops.r, ops.settings).answer(appeal_id, ops_user(), body["decision"], body["text"],
                                                       PlayerDesk(ops))
        return _with_evidence(ops, [answered])[0]
