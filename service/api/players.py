"""The caller as a player: nickname, streak and today's ranked run (so a page knows what to show)."""

from __future__ import annotations

from flask.views import MethodView

from service.appeals import Appeals, public
from service.ops import Ops
from service.privacy.erasure import erase_player
from service.privacy.export import export_player
from service.restrictions import Restrictions

from .blueprint import Blueprint
from .common import current_pid, services
from .schemas import PlayerSchema
from .schemas.privacy import ErasureSchema, EraseSchema, ExportSchema

PREFIX = "/players"
blp = Blueprint("players", __name__, description="The player holding the token")


@blp.route("/me")
class Me(MethodView):
    @blp.response(200, PlayerSchema)
    @blp.doc(security=[{"playerToken": []}])
    def get(self):
        """The caller's nickname (the last claimed while its claim stands, else the one held; null
        for none), streak (days in a row with a verified score, up to today or yesterday),
        today's ranked run, if any, and the restriction ops put on them, if any"""
        s = services()
        pid = current_pid()
        today = s.settings.today()
        today_json = {"date": today.isoformat(), "run_id": None, "status": None, "submission_id": None}
        run_id = s.runs.ranked_run_id(today, pid)
        if run_id:
            run = s.runs.load(run_id, pid)
            today_json.update(run_id=run_id, status=run["status"], submission_id=run.get("submission") or None)
        return {"player": pid, "nickname": s.players.name_of(pid),
                "streak": s.leaderboard.streak(pid, today), "today": today_json,
                "restricted": _restricted(s, pid)}

    @blp.arguments(EraseSchema)
    @blp.response(200, ErasureSchema)
    @blp.doc(security=[{"playerToken": []}])
    def delete(self, body):
        """Erase the caller (GDPR article 17): nicknames released and shown as a pseudonym on every
        board, league and duel (no rank moves), addresses and user agents deleted (a game held or
        awaiting its verdict keeps them until decided), the token revoked (401 after).  422
        without ``{"confirm": "erase"}``; audited by player id"""
        s = services()
        pid = current_pid()
        done = erase_player(s.redis, s.settings, pid)
        Ops(s.redis, s.settings).audit("player", "erase", pid, evidence_kept=len(done["evidence_kept"]))
        return done


@blp.route("/me/export")
class MyData(MethodView):
    @blp.response(200, ExportSchema)
    @blp.doc(security=[{"playerToken": []}])
    def get(self):
        """A copy of everything kept about the caller (GDPR articles 15 and 20), as JSON: nickname
        and its history, every game with its clients and record link, runs still kept, leagues,
        duels, restriction and appeals"""
        s = services()
        pid = current_pid()
        return export_player(s.redis, s.settings, pid, s.players)


def _restricted(s, pid: str) -> dict | None:
    """The caller's restriction as they read it (reason, end, their latest appeal), or None."""
    found = Restrictions(s.redis, s.settings).get(pid)
    if found is None:
        return None
    latest = Appeals(s.redis, s.settings).latest(pid)
    return {"reason": found["reason"], "until": found["until"],
            # an appeal of an earlier restriction is not this one's
            "appeal": public(latest) if latest and latest["kind"] == "restriction"
            and latest["at"] >= (found["since"] or "") else None}
