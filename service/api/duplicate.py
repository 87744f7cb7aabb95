"""Duplicate results: how the field did with the same cards, deal by deal.

While a day is open, the field's numbers go only to a player whose own ranked game of that day
has been verified (knowing that deal 3 is rich for one's side before playing it is an edge): 403
``play_first`` to anyone else.  A game's own deals go to its player; everyone's, and the
travellers, once the day's seed is published (409 ``day_open`` before).  The matchpoint boards,
like the margin boards, are public.
"""

from __future__ import annotations

from datetime import date

from flask.views import MethodView

from service.duplicate import Field, Matchpoints, parse_points
from service.errors import Conflict, Forbidden, NotFound, Unauthorized
from service.freshness import Freshness
from service.leaderboard import Board, month_board, week_board

from .blueprint import Blueprint
from .caching import cacheable, public_read
from .common import current_pid, services, token_from_request
from .leaderboards import _day
from .schemas import AroundQuerySchema
from .schemas.duplicate import (DayFieldSchema, MatchpointBoardSchema, MatchpointQuerySchema, SubmissionDealsSchema,
                                TravellerQuerySchema, TravellerSchema)

PREFIX = ""
blp = Blueprint("duplicate", __name__, description=(
    "Duplicate results. Deal k of a day is the same four hands for everyone who reaches it: each "
    "deal's field (the card points every counted game took on it), a game's matchpoints on each "
    "deal (100 × (beaten + tied / 2) / (results − 1), higher card points beating lower) and their "
    "mean, each deal's traveller once the day's seed is published, and boards by matchpoints. "
    "A held, disqualified or rejected game is in none of it."))
#: The statuses of a game that verification found valid (its deals are known).
VALID_GAME = ("verified", "held", "review", "disqualified", "restricted")


def _closed(day: date) -> bool:
    return services().settings.clock.phase(day) == "closed"


def _day_open(day: date, what: str) -> Conflict:
    return Conflict(f"{what} once the day's seed is published", code="day_open",
                    reveal_at=services().settings.clock.reveals_at(day).isoformat())


def _own_status(day: date, pid: str) -> str | None:
    """The status of the player's submitted ranked game of ``day`` (None: not submitted)."""
    s = services()
    sub_id = s.runs.submission_of(s.runs.ranked_id(day, pid))
    return s.submissions.get(sub_id)["status"] if sub_id else None


def _may_see_field(day: date) -> None:
    """Raise 403 ``play_first`` unless the day's seed is public or the caller's own ranked game of
    the day has been verified."""
    if _closed(day):
        return
    token, status = token_from_request(), None
    if token:
        try:
            pid = services().players.authenticate(token)
        except Unauthorized:
            pid = None
        if pid and Field(services().redis).game_of(day, pid):
            return
        status = _own_status(day, pid) if pid else None
        if status in VALID_GAME:
            return
    if status in ("queued", "delayed"):
        raise Forbidden("your game of the day is being verified: the field is shown once it is",
                        code="play_first", submission_status=status)
    raise Forbidden("the field of an open day is shown to players whose own game of the day has been "
                    "verified: play today's game and submit it first", code="play_first")


@blp.route("/leaderboards/days/<string:period>/deals")
class DayDeals(MethodView):
    @blp.response(200, DayFieldSchema)
    @blp.doc(security=[{}, {"playerToken": []}])
    @public_read
    def get(self, period):
        """The field of each deal of a day: how many counted games played it, their mean card
        points and the histogram (``counts[p]``: games whose side took p card points)

        Once the day's seed is published, public; while the day is open, only with the token of a
        player whose own ranked game of the day has been verified (403 ``play_first`` otherwise)."""
        board = _day(period)
        day = date.fromisoformat(board.id)
        _may_see_field(day)
        if _closed(day):
            cacheable(Freshness(services().settings).day(day))
        return Field(services().redis).deals(day)


@blp.route("/leaderboards/days/<string:period>/deals/<int(signed=True):deal>")
class DayTraveller(MethodView):
    @blp.arguments(TravellerQuerySchema, location="query")
    @blp.response(200, TravellerSchema)
    @public_read
    def get(self, query, period, deal):
        """A deal's traveller: every counted result on it, best card points first (equal points:
        the earlier verified first), ``limit`` from ``offset``

        409 ``day_open`` until the day's seed is published; 404 ``unknown_deal`` for a deal no
        counted game played.  Each entry's ``submission_id`` opens that game's record, which shows
        how the deal was played, all four hands trick by trick."""
        board = _day(period)
        day = date.fromisoformat(board.id)
        if not _closed(day):
            raise _day_open(day, "a deal's traveller is shown")
        cacheable(Freshness(services().settings).day(day))
        return Field(services().redis).traveller(day, deal, query["offset"], query["limit"])


@blp.route("/submissions/<string:sub_id>/deals")
class SubmissionDeals(MethodView):
    @blp.response(200, SubmissionDealsSchema)
    @blp.doc(security=[{}, {"playerToken": []}])
    @public_read
    def get(self, sub_id):
        """A verified game against the field, deal by deal: its card points, how many results, how
        many it beat and tied, its matchpoints; and the game's matchpoints

        To its player (the token that submitted it) at once; to anyone once the day's seed is
        published (409 ``day_open`` before).  409 ``not_verified`` while its verification is
        pending; 404 ``no_record`` for a rejected game."""
        s = services()
        sub = s.submissions.get(sub_id)
        day = date.fromisoformat(sub["date"])
        if not _closed(day):  # the player's own view, never public (a token is required)
            token = token_from_request()
            if not token or current_pid() != sub["pid"]:
                raise _day_open(day, "another player's deals are shown")
        else:
            cacheable(Freshness(s.settings).day(day))
        if sub["status"] == "rejected":
            raise NotFound("this submission has no game (rejected)", code="no_record")
        if sub["status"] not in VALID_GAME or not sub.get("deals"):
            raise Conflict("this game's verification is not done yet", code="not_verified",
                           submission_status=sub["status"])
        points = parse_points(sub["deals"])
        field = Field(s.redis)
        counted = field.game_of(day, sub["pid"]) is not None and sub["status"] == "verified"
        return {"submission_id": sub_id, "date": sub["date"], "counted": counted,
                **field.of_game(day, points, counted)}


def _mp_board(kind: str, period: str) -> Board:
    if kind == "days":
        return _day(period)
    return week_board(period) if kind == "weeks" else month_board(period)


def _mp_page(board: Board, query: dict) -> dict:
    s = services()
    mp = Matchpoints(s.redis)
    out = {"board": board.kind, "period": board.id, "scoring": "matchpoints",
           **mp.page(board, query["offset"], query["limit"])}
    token = token_from_request()
    if token:
        try:
            out["me"] = mp.rank_of(board, s.players.authenticate(token))
        except Unauthorized:
            pass
    else:
        cacheable(Freshness(s.settings).matchpoints(board, out["final"]))
    return out


@blp.route("/leaderboards/<any(days, weeks, months):kind>/<string:period>/matchpoints")
class MatchpointBoard(MethodView):
    @blp.arguments(MatchpointQuerySchema, location="query")
    @blp.response(200, MatchpointBoardSchema)
    @public_read
    def get(self, query, kind, period):
        """The board by matchpoints: a day's games by the mean of their deals' matchpoints
        (provisional while the day is open, see ``final`` and ``built_at``), a week's (YYYY-Www)
        or a month's (YYYY-MM) players by the mean of their daily matchpoints over the closed days
        they played; with a player token, also ``me``"""
        return _mp_page(_mp_board(kind, period), query)


@blp.route("/leaderboards/<any(days, weeks, months):kind>/<string:period>/matchpoints/me")
class MatchpointBoardMe(MethodView):
    @blp.arguments(AroundQuerySchema, location="query")
    @blp.response(200, MatchpointBoardSchema)
    @blp.doc(security=[{"playerToken": []}])
    def get(self, query, kind, period):
        """The caller's entry on a board by matchpoints, with the entries around it
        (404 ``not_on_board`` if the caller has none)"""
        board = _mp_board(kind, period)
        page = Matchpoints(services().redis).around(board, current_pid(), query["radius"])
        return {"board": board.kind, "period": board.id, "scoring": "matchpoints", **page}

