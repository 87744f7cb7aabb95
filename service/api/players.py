"""The caller as a player: nickname, streak and today's ranked run (so a page knows what to show)."""

from __future__ import annotations

from flask.views import MethodView

from .blueprint import Blueprint
from .common import current_pid, services
from .schemas import PlayerSchema

PREFIX = "/players"
blp = Blueprint("players", __name__, description="The player holding the token")


@blp.route("/me")
class Me(MethodView):
    @blp.response(200, PlayerSchema)
    @blp.doc(security=[{"playerToken": []}])
    def get(self):
        """The caller's nickname (the last claimed while its claim stands, else the one held; null
        for none), streak (days in a row with a verified score, up to today or yesterday) and
        today's ranked run, if any"""
        s = services()
        pid = current_pid()
        today = s.settings.today()
        today_json = {"date": today.isoformat(), "run_id": None, "status": None, "submission_id": None}
        run_id = s.runs.ranked_run_id(today, pid)
        if run_id:
            run = s.runs.load(run_id, pid)
            today_json.update(run_id=run_id, status=run["status"], submission_id=run.get("submission") or None)
        return {"player": pid, "nickname": s.players.name_of(pid),
                "streak": s.leaderboard.streak(pid, today), "today": today_json}
