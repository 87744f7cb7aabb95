"""Runs: open one on today's challenge, a past day or a random deal; see it; play one card."""

from __future__ import annotations

from datetime import date

from flask.views import MethodView

from service.errors import Conflict, NotFound, Unauthorized
from service.runs import run_kind
from service.runs import table as tbl

from .blueprint import Blueprint
from .caching import limited
from . import duels, limits
from .links import responds, run_links
from .common import as_documented, client_info, current_pid, day_from, services, token_from_request
from .schemas import PlaySchema, RecordSchema, RunCreateSchema, RunSchema

PREFIX = "/runs"
blp = Blueprint("runs", __name__, description="Server-driven play, one card at a time")
SECURITY = [{"playerToken": []}]


def run_json(run: dict, table: tbl.Table, events: list | None = None) -> dict:
    state = table.state
    variant = {"target": state.target, "bidder": run["bidder"]} if run.get("bidder") else {}
    return {
        "run_id": run["id"], "date": run["date"], "kind": run_kind(run), "ranked": run["ranked"] == "1",
        "rules": run["rules"], **variant, "bots": run["bots"], "status": run["status"],
        "turn": len(run["cards"]) // 2,
        "seed": services().runs.public_seed(run),
        "view": tbl.view(state), "events": events if events is not None else [],
        "result": tbl.result_of(state) if state.is_over else None,
        "submission_id": run.get("submission") or None,
        **({"duel_id": run["duel"]} if run.get("duel") else {}),
    }


@blp.route("")
class RunList(MethodView):
    # a body always, {} for today's run: a generated client's optional oneOf body does not type-check
    @blp.arguments(RunCreateSchema)
    @blp.response(201, RunSchema)
    @blp.doc(security=[{}] + SECURITY)  # the token is optional here: without one, one is issued
    @limited(201)
    @blp.doc(**responds(201, **run_links("$response.body#/run_id")))
    def post(self, body):
        """Open a run: ranked on today's challenge, archive on a closed day, or a random deal

        ``{}`` is today's ranked run, one per player and day (409 ``already_played``);
        ``{"date": D}`` a past day whose seed is public (unranked); ``{"kind": "random"}`` free
        play on a fresh random seed, shown once the game is over (unranked), under ``rules``
        (muette-1, parlee-1, manillen-1; 422 ``unknown_rules``) to ``target`` (422
        ``unknown_target``), against ``bots``: a beginner's table (greedy-1), the club's
        (expert-1) or the strongest, today's bots (the default; under parlee-1 and manillen-1
        expert-1); another is 422 ``unknown_bots``; each with ``allowed``; the strongest while
        its bots' pool is full is 503 ``bots_busy`` with ``waiting`` and ``offer`` (the club's
        table); ``{"kind": "duel", "duel": code}`` the game of a duel, unranked, once per player (404 ``unknown_duel``; 409
        ``already_played`` with ``run_id``, ``own_duel`` for its challenger, ``duel_full``).
        Without a token a new one is issued and returned once as ``player_token``."""
        s = services()
        token, new_token = token_from_request(), None
        if token is None:
            new_token, pid = s.players.new_token()
        else:
            pid = s.players.authenticate(token)
        duel = body["kind"] == "duel"
        day = None if body["kind"] in ("random", "duel") else (
            s.settings.today() if body.get("date") is None else day_from(body["date"].isoformat()))
        if body["kind"] == "random":  # refused before any count
            s.runs.free_terms(s.settings.today(), body.get("rules"), body.get("target"), body.get("bots"))
        address = limits.client_address()
        counted = [("runs_per_address", address), ("runs_per_token", pid)]
        if (day is not None and s.settings.clock.phase(day) == "open"
                and not (token and s.runs.ranked_run_id(day, pid))):  # else 409 already_played
            counted.append(("ranked_runs", address))
        with limits.Admission(*counted) as admission:
            admission.take()
            if duel:
                run, table = duels.open_run(body["duel"], pid)
            elif day is None:
                run, table = s.runs.open_random(pid, rules=body.get("rules"), target=body.get("target"),
                                                bots=body.get("bots"), **client_info())
            else:
                run, table = s.runs.open(day, pid, **client_info())
            admission.keep()
        s.players.opened(pid, run["created_at"])  # a new token is known from now; any is kept on
        out = run_json(run, table, table.events)
        if new_token:
            out["player_token"] = new_token
        return as_documented(out, 201)


@blp.route("/<string:run_id>")
class RunById(MethodView):
    @blp.response(200, RunSchema)
    @blp.doc(security=SECURITY)
    def get(self, run_id):
        """The run as seat 0 sees it, with every event since it opened (to draw the table again)"""
        s = services()
        run = s.runs.load(run_id, current_pid())
        table = s.runs.rebuild(run, events_from=0, deal_start=True)
        return as_documented(run_json(run, table, table.events))


@blp.route("/<string:run_id>/record")
class RunRecord(MethodView):
    @blp.response(200, RecordSchema)
    @blp.doc(security=SECURITY)
    def get(self, run_id):
        """The finished run's game record (docs/spec.md §9) with all four hands, once its seed is public

        A ranked run's day stays sealed until its seed is revealed (409 ``record_sealed`` with
        ``reveal_at``: the record exists, it is not yet shown); a run still in play is 409
        ``run_not_finished``."""
        s = services()
        run = s.runs.load(run_id, current_pid())
        seed = s.runs.public_seed(run)
        if seed is None:
            if run["status"] == "finished":
                reveal_at = s.challenges.get(date.fromisoformat(run["date"])).reveal_at.isoformat()
                raise Conflict("the record stays sealed until the seed is published", code="record_sealed",
                               reveal_at=reveal_at)
            raise Conflict("the game of this run is not over", code="run_not_finished")
        if run["status"] != "finished":
            raise Conflict("the game of this run is not over", code="run_not_finished")
        return s.runs.record(run)


@blp.route("/<string:run_id>/plays")
class RunPlays(MethodView):
    @blp.arguments(PlaySchema)
    @blp.response(200, RunSchema)
    @blp.doc(security=SECURITY)
    @blp.doc(**responds(200, **run_links("$request.path.run_id")))
    @limited(200)
    def post(self, body, run_id):
        """Play the player's card (or call) number ``turn``; the answer narrates the bots' replies

        ``{"turn": n, "card": "TH"}``; under rules with an auction, while the player is to call,
        ``{"turn": n, "call": "NT"}`` (C D H S NT pass double redouble, as ``view.legal_calls``).
        The same ``turn`` and action sent again is answered again, not played twice.
        An illegal card is 422 ``illegal_card`` with ``obligation`` and ``legal``; an illegal call
        422 ``illegal_call``, a card while a call is due ``call_expected``, a call while a card is
        ``card_expected``, a call that is none ``unknown_call``, each with ``legal``.  A new play
        counts towards the limits on plays per token and per address (429 ``too_many_requests``),
        and its bots' searches' CPU towards the search limits (a play that would search once they
        are spent: 429); a repeat counts nothing and is answered even at the limit.  503
        ``bots_busy``: the bots' pool did not answer in time; send the same play again.  503 ``play_unconfirmed``:
        Redis took the play and never answered; it may have been played: send the same turn and
        card again."""
        s = services()
        pid = s.players.claimed_pid(token_from_request())  # known or not: read with the run
        gate = limits.gate(("plays_per_token", pid), ("plays_per_address", limits.client_address()))
        kind = "call" if "call" in body else "card"
        result = s.runs.play(run_id, pid, body["turn"], body[kind], kind=kind, limits=gate, players=s.players,
                             cpu=limits.search_gate(pid))
        if result.run.get("duel") and result.run["status"] == "finished" and run_kind(result.run) == "duel":
            duels.record_finished(result.run, result.table.state)  # a repeat finds it kept: nothing
        return as_documented(run_json(result.run, result.table, result.table.events))


__all__ = ["Unauthorized", "blp"]
