"""Runs: open one on today's challenge (or practise a closed day), see it, play one card."""

from __future__ import annotations

from flask.views import MethodView
from flask_smorest import Blueprint

from service.errors import Unauthorized
from service.runs import table as tbl

from .common import client_info, current_pid, day_from, services, token_from_request
from .schemas import PlaySchema, RunCreateSchema, RunSchema

PREFIX = "/runs"
blp = Blueprint("runs", __name__, description="Server-driven play, one card at a time")
SECURITY = [{"playerToken": []}]


def run_json(run: dict, table: tbl.Table, events: list | None = None) -> dict:
    state = table.state
    return {
        "run_id": run["id"], "date": run["date"], "ranked": run["ranked"] == "1",
        "bots": run["bots"], "status": run["status"], "turn": len(run["cards"]) // 2,
        "view": tbl.view(state), "events": events if events is not None else [],
        "result": tbl.result_of(state) if state.is_over else None,
        "submission_id": run.get("submission") or None,
    }


@blp.route("")
class RunList(MethodView):
    @blp.arguments(RunCreateSchema)
    @blp.response(201, RunSchema)
    @blp.doc(security=[{}] + SECURITY)  # the token is optional here: without one, one is issued
    def post(self, body):
        """Open a run: ranked on today's challenge, practice on a closed day

        Without a token a new one is issued and returned once as ``player_token``.
        One ranked run per player and day (409 ``already_played``)."""
        s = services()
        token, new_token = token_from_request(), None
        if token is None:
            new_token, pid = s.players.new_token()
        else:
            pid = s.players.authenticate(token)
        day = s.settings.today() if body.get("date") is None else day_from(body["date"])
        run, table = s.runs.open(day, pid, **client_info())
        if new_token:
            s.players.register(pid, run["created_at"])
        out = run_json(run, table, table.events)
        if new_token:
            out["player_token"] = new_token
        return out


@blp.route("/<string:run_id>")
class RunById(MethodView):
    @blp.response(200, RunSchema)
    @blp.doc(security=SECURITY)
    def get(self, run_id):
        """The run as seat 0 sees it"""
        s = services()
        run = s.runs.load(run_id, current_pid())
        return run_json(run, s.runs.rebuild(run))


@blp.route("/<string:run_id>/plays")
class RunPlays(MethodView):
    @blp.arguments(PlaySchema)
    @blp.response(200, RunSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, run_id):
        """Play the player's card number ``turn``; the answer narrates the bots' replies

        The same ``turn`` and card sent again is answered again, not played twice.
        An illegal card is 422 ``illegal_card`` with ``obligation`` and ``legal``."""
        s = services()
        result = s.runs.play(run_id, current_pid(), body["turn"], body["card"])
        return run_json(result.run, result.table, result.table.events)


__all__ = ["Unauthorized", "blp"]
