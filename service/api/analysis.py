"""Analyses: a finished game judged card by card (``analysis``), asked for, then followed.

A game may be analysed once its seed is public to the asker: a free game once it is over, an
archive game at once, a ranked game (the player's own, or any verified game of the day) once the
day's seed is published.  Never while the day is open: the analysis shows every hand and the
best card of every decision, an oracle of the day.
"""

from __future__ import annotations

from datetime import date

from flask.views import MethodView

from service.errors import Conflict, NotFound, Unprocessable
from service.runs import table as tbl

from . import limits
from .blueprint import Blueprint
from .caching import limited
from .common import current_pid, services, token_from_request
from .links import link, responds
from .schemas import AnalysisAcceptedSchema, AnalysisStatusSchema

PREFIX = ""
blp = Blueprint("analyses", __name__, description="Card-by-card analysis of finished games")
ANALYSED_RULES = ("muette-1",)


def status_url(aid: str) -> str:
    return f"/api/v1/analyses/{aid}"


_LINKS = dict(GetAnalysis=link("get", "/analyses/{analysis_id}", "its state, progress and, once finished, the document",
                               parameters={"analysis_id": "$response.body#/analysis_id"}))


def _sealed(day: date) -> Conflict:
    clock = services().settings.clock
    return Conflict("a ranked game is analysed once its day's seed is published: the analysis shows every "
                    "hand", code="day_open", reveal_at=clock.reveals_at(day).isoformat())


def _queue(*, seed: bytes, day: date | None, rules: str, bots: str, cards: list[str], subjects) -> dict:
    """The analysis of the game, queued (counted in the limits) unless it is queued, running or
    done already (answered as it is, counting nothing)."""
    if rules not in ANALYSED_RULES:
        raise Unprocessable(f"games under {rules} are not analysed yet: the analysis knows "
                            f"{', '.join(ANALYSED_RULES)}", code="analysis_unsupported", allowed=list(ANALYSED_RULES))
    s = services()
    with limits.Admission(*subjects) as admission:
        aid, queued = s.analyses.request(seed=seed, day=day, rules=rules, bots=bots, cards=cards,
                                         admit=admission.take)
        if queued:
            admission.keep()
    got = s.analyses.state(aid)
    return {"analysis_id": aid, "status": got["status"], "status_url": status_url(aid),
            "progress": got["progress"]}


@blp.route("/runs/<string:run_id>/analysis")
class RunAnalysis(MethodView):
    @blp.response(202, AnalysisAcceptedSchema)
    @blp.doc(security=[{"playerToken": []}])
    @blp.doc(**responds(202, **_LINKS))
    @limited(202)
    def post(self, run_id):
        """Ask for the analysis of the player's finished run

        A free game once over, an archive game, a ranked game once its day's seed is published
        (409 ``day_open`` before, with ``reveal_at``); 409 ``run_not_finished`` while it is played;
        422 ``analysis_unsupported`` under rules the analysis does not know yet.  A game already
        analysed, queued or running is answered as it is; a new analysis counts towards the limits
        on analyses per token and per address (429 ``too_many_requests``)."""
        s = services()
        pid = current_pid()
        run = s.runs.load(run_id, pid)
        if run["status"] != "finished":
            raise Conflict("the game of this run is not over", code="run_not_finished")
        if s.runs.public_seed(run) is None:
            raise _sealed(date.fromisoformat(run["date"]))
        cards = [tbl.action_text(c) for c in tbl.split_actions(run["cards"])]
        day = None if run.get("seed") else date.fromisoformat(run["date"])  # a random deal keeps its seed
        return _queue(seed=s.runs.seed_of(run), day=day, rules=run["rules"], bots=run["bots"], cards=cards,
                      subjects=(("analyses_per_token", pid), ("analyses_per_address", limits.client_address())))


@blp.route("/submissions/<string:sub_id>/analysis")
class SubmissionAnalysis(MethodView):
    @blp.response(202, AnalysisAcceptedSchema)
    @blp.doc(**responds(202, **_LINKS))
    @limited(202)
    def post(self, sub_id):
        """Ask for the analysis of a verified game of a closed day (any player's: the day's best
        games, a shared game)

        409 ``day_open`` until the day's seed is published; 404 ``no_record`` for a game not
        verified.  Limits as for a run's analysis (per token when one is sent, per address)."""
        s = services()
        sub = s.submissions.get(sub_id)
        day = date.fromisoformat(sub["date"])
        challenge = s.challenges.get(day)
        if challenge.seed is None:
            raise _sealed(day)
        if sub["status"] != "verified":
            raise NotFound("this submission has no public game (not verified)", code="no_record")
        token = token_from_request()
        subjects = [("analyses_per_address", limits.client_address())]
        if token:
            subjects.insert(0, ("analyses_per_token", s.players.claimed_pid(token)))
        cards = [str(c) for c in tbl.parse_plays(sub["cards"])]
        return _queue(seed=s.settings.seed(day), day=day, rules=challenge.rules, bots=challenge.bots,
                      cards=cards, subjects=subjects)


@blp.route("/analyses/<string:analysis_id>")
class AnalysisById(MethodView):
    @blp.response(200, AnalysisStatusSchema)
    def get(self, analysis_id):
        """An analysis: ``queued``, ``started`` (with ``progress``: decisions done of decisions in
        the game), ``finished`` (with the document) or ``failed`` (with ``error``: ``invalid_game``
        and the verifier's rejection, ``analysis_failed``); 404 ``analysis_not_found``"""
        s = services()
        if not isinstance(analysis_id, str) or len(analysis_id) != 32 or not all(
                c in "0123456789abcdef" for c in analysis_id):
            raise NotFound("no such analysis", code="analysis_not_found")
        day = s.analyses.state(analysis_id)["date"]
        if day is not None and s.settings.clock.phase(date.fromisoformat(day), s.settings.now()) != "closed":
            raise NotFound("no such analysis", code="analysis_not_found")  # an open day's: ops only
        got = s.analyses.get(analysis_id)  # its document rebuilt (or kept by this process)
        got.pop("date")
        return got
