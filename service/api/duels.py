"""Duels ("Challenge a friend"): a finished free or archive game sent to friends, played by them
unranked, then every result side by side deal by deal, and the analysis of each.

The deals stay the friend's to discover: the link names the duel by a random code, never the
seed, and the results (the challenger's card points deal by deal, its record, its analysis) are
shown to a friend only once their own game of it is over (403 ``play_first`` before).  The
challenger sees them at once.
"""

from __future__ import annotations

from datetime import date

from flask.views import MethodView

from bots import get_bidder, get_bot
from service.botcache import cached
from service.duels import DuelView, check_code, duel_full, game_result, unknown_duel
from service.errors import Conflict, Forbidden, NotFound, Unauthorized
from service.replay import verify
from service.runs import game_terms, run_kind
from service.runs import table as tbl

from . import limits
from .analysis import _LINKS, _queue
from .blueprint import Blueprint
from .common import as_documented, client_info, current_pid, services, token_from_request
from .links import link, responds
from .schemas import AnalysisAcceptedSchema, DuelSchema, RecordSchema

PREFIX = ""
blp = Blueprint("duels", __name__, description=(
    "Duels (\"Challenge a friend\"): the same game for friends, unranked, and every result side by side. "
    "A duel lasts 7 days; its link carries a random code, not the deals. A friend sees the results once "
    "their own game of it is over."))
SECURITY = [{"playerToken": []}]
_DUEL_LINKS = dict(GetDuel=link("get", "/duels/{duel_id}", "the duel and its results",
                                parameters={"duel_id": "$response.body#/duel_id"}))


def _nickname(pid: str) -> str | None:
    """The name a duel shows for ``pid``: one they hold (a name only claimed is no one's yet)."""
    return services().players.held_name(pid)


def record_finished(run: dict, state) -> bool:
    """Keep a duel run's finished game on its duel (once; the play that ends it calls this, and
    so does a read of the duel that finds it finished and not kept, after a crash in between)."""
    s = services()
    result = game_result(state, run["cards"], _nickname(run["pid"]), s.settings.now())
    return s.duels.record(run["duel"], run["pid"], result)


def _caller() -> str | None:
    """The caller's pid, or None without a token (a bad token is 401: it is somebody's mistake)."""
    token = token_from_request()
    return services().players.authenticate(token) if token else None


def read(code: str, pid: str | None) -> DuelView:
    """The duel as ``pid`` sees it, with the caller's own finished game kept first if its run ended
    without its result reaching the duel."""
    s = services()
    view = DuelView(check_code(code), s.duels.get(code), pid)
    run_id = view.run_of(pid)
    if run_id and pid not in view.results:
        try:
            run = s.runs.load(run_id, pid)
        except NotFound:  # the run has gone (a day after its last play): nothing to keep
            return view
        if run["status"] == "finished":
            record_finished(run, s.runs.rebuild(run).state)
            view = DuelView(code, s.duels.get(code), pid)
    return view


def open_run(code: str, pid: str):
    """``POST /runs {"kind": "duel", "duel": code}``: the caller's run of the duel (runs.py calls
    this after the token; the limits on runs count it as any run).  409 ``own_duel`` for its
    challenger, ``already_played`` (with ``run_id``) for a second run, ``duel_full``."""
    s = services()
    view = DuelView(check_code(code), s.duels.get(code), pid)
    if pid == view.challenger:
        raise Conflict("this is your own duel: send its link to a friend", code="own_duel")
    if view.run_of(pid):
        raise Conflict("you have played this duel already", code="already_played", run_id=view.run_of(pid))
    if view.full:
        raise duel_full()
    run, table = s.runs.open_duel(pid, code, view.terms, **client_info())
    before = s.duels.claim_run(code, pid, run["id"])
    if before:  # another request of the same player opened one first: that one is theirs
        raise Conflict("you have played this duel already", code="already_played", run_id=before)
    return run, table


@blp.route("/runs/<string:run_id>/duel")
class RunDuel(MethodView):
    @blp.response(201, DuelSchema)
    @blp.alt_response(200, schema=DuelSchema, description="the duel made of this run before")
    @blp.doc(security=SECURITY)
    @blp.doc(**responds(201, **_DUEL_LINKS))
    def post(self, run_id):
        """Make a duel of the player's finished free or archive game: a link that deals the same game
        to friends, for 7 days

        201 with the duel; the same run again answers the same duel (200).  409 ``run_not_finished``
        while it is played, ``ranked_run`` for the day's ranked game (everyone plays it already);
        a duel's own run answers its duel, so a friend may pass the link on."""
        s = services()
        pid = current_pid()
        run = s.runs.load(run_id, pid)
        if run["status"] != "finished":
            raise Conflict("the game of this run is not over", code="run_not_finished")
        kind = run_kind(run)
        if kind == "ranked":
            raise Conflict("a ranked game is the day's: everyone plays it already", code="ranked_run")
        if run.get("duel"):
            try:
                return as_documented(read(run["duel"], pid).to_json(), 200)
            except NotFound:
                if kind == "duel":
                    raise
        state = s.runs.rebuild(run).state
        terms = {"kind": kind, "date": run["date"], "seed": run.get("seed") if kind == "random" else None,
                 "rules": run["rules"], "target": game_terms(run)["target"], "bots": run["bots"],
                 "bidder": run.get("bidder")}
        now = s.settings.now()
        code = s.duels.make(run, terms, game_result(state, run["cards"], _nickname(pid), now), now)
        noted = s.runs.note_duel(run_id, code)
        if noted is None:
            s.duels.drop(code)
            raise NotFound("no such run for this player", code="run_not_found")
        if noted != code:  # another request made one first: that one is the run's
            s.duels.drop(code)
            return as_documented(read(noted, pid).to_json(), 200)
        return as_documented(read(code, pid).to_json(), 201)


@blp.route("/duels/<string:duel_id>")
class DuelById(MethodView):
    @blp.response(200, DuelSchema)
    @blp.doc(security=[{}] + SECURITY)
    def get(self, duel_id):
        """A duel: its game's terms, the challenger's name and score, the caller's part in it and,
        once the caller is done (the challenger, or a friend whose game of it is over), every result
        deal by deal

        404 ``unknown_duel`` for a code that is none, or a duel older than 7 days."""
        return read(duel_id, _caller()).to_json()


def _result(duel_id: str, result_id: str) -> tuple[DuelView, dict]:
    """The duel and its result ``result_id``, for a caller who may see it; 403 ``play_first``
    until the caller's own game of it is over."""
    view = read(duel_id, current_pid())
    if not view.done:
        raise Forbidden("the results of a duel are shown once your own game of it is over", code="play_first")
    return view, view.result(result_id)[1]


def _seed(view: DuelView) -> tuple[bytes, date | None]:
    """The duel's seed, and its archive day (None for a random deal, whose seed it keeps)."""
    terms = view.terms
    if terms.get("seed"):
        return bytes.fromhex(terms["seed"]), None
    day = date.fromisoformat(terms["date"])
    return services().settings.seed(day), day


@blp.route("/duels/<string:duel_id>/results/<string:result_id>/analysis")
class DuelResultAnalysis(MethodView):
    @blp.response(202, AnalysisAcceptedSchema)
    @blp.doc(security=SECURITY)
    @blp.doc(**responds(202, **_LINKS))
    def post(self, duel_id, result_id):
        """Ask for the card-by-card analysis of one result of the duel (the caller's or another's)

        403 ``play_first`` until the caller's own game of it is over; 404 ``unknown_result``; 422
        ``analysis_unsupported`` under rules the analysis does not know yet.  Limits as for a run's
        analysis."""
        view, res = _result(duel_id, result_id)
        seed, day = _seed(view)
        terms = view.terms
        cards = [tbl.action_text(c) for c in tbl.split_actions(res["cards"])]
        pid = view.pid
        return _queue(seed=seed, day=day, rules=terms["rules"], bots=terms["bots"], cards=cards,
                      subjects=(("analyses_per_token", pid), ("analyses_per_address", limits.client_address())))


@blp.route("/duels/<string:duel_id>/results/<string:result_id>/record")
class DuelResultRecord(MethodView):
    @blp.response(200, RecordSchema)
    @blp.doc(security=SECURITY)
    def get(self, duel_id, result_id):
        """The game record (docs/spec.md §9) of one result of the duel, all four hands, replayed from the
        duel's seed and that player's actions

        403 ``play_first`` until the caller's own game of it is over; 404 ``unknown_result``."""
        view, res = _result(duel_id, result_id)
        seed, _day = _seed(view)
        terms = view.terms
        actions = [tbl.action_text(c) for c in tbl.split_actions(res["cards"])]
        record = verify(seed, actions, cached(get_bot(terms["bots"]), services().redis, seed),
                        bidder=get_bidder(terms["bidder"]) if terms.get("bidder") else None, **game_terms(terms))
        record["seed"] = seed.hex()
        return record


__all__ = ["Unauthorized", "blp", "open_run", "record_finished", "unknown_duel"]
