"""Leaderboards: a day's board (page, around me, histogram) and week, month, all-time boards."""

from __future__ import annotations

from collections import OrderedDict
from datetime import date

from flask.views import MethodView

from service.conditional import etag_of
from service.errors import NotFound, Unauthorized
from service.freshness import Freshness
from service.leaderboard import ALL_TIME, KEPT_PAGES, Board, day_board, month_board, week_board
from service.seeds import FIRST_DAY
from service.store import id_of, shard_of

from .blueprint import Blueprint
from .caching import cacheable, public_read
from .common import as_documented, current_pid, day_from, encode, services, token_from_request
from .schemas import AroundQuerySchema, BoardPageSchema, DaysQuerySchema, PlayedDaysSchema, HistogramSchema, PageQuerySchema

PREFIX = "/leaderboards"
blp = Blueprint("leaderboards", __name__, description=(
    "Rankings. Equal values share a rank (1, 2, 2, 4) and are listed in the order they were "
    "reached: on a day's board the earlier verified score first; on week, month and all-time "
    "boards whoever reached the total first (a later score that changes a total moves it behind "
    "the entries already at the new total). With a player token, a page also gives `me`: the "
    "caller's entry, or null when not on the board."))


def _day(text: str) -> Board:
    day = day_from(text)
    if services().settings.clock.phase(day) == "upcoming":
        raise NotFound(f"no challenge for {day.isoformat()} yet", code="unknown_date")
    return day_board(day)


BOARDS = {
    "days": _day,
    "weeks": week_board,
    "months": month_board,
}


def _board(kind: str, period: str | None) -> Board:
    if kind == "all-time":
        return ALL_TIME
    return BOARDS[kind](period)


#: The JSON of the public pages and its ETag, each kept with the page (and the submissions of its
#: best games) it encodes: the leaderboard answers the very same page while its board is
#: unchanged, so a hot page is encoded and hashed once.
_BODIES: OrderedDict[tuple, tuple[dict, tuple, bytes, str]] = OrderedDict()


def _public_body(board: Board, page: dict, games: tuple) -> tuple[bytes, str]:
    key = (board.key, page["offset"], page["limit"])
    kept = _BODIES.get(key)
    if kept is None or kept[0] is not page or kept[1] != games:
        body = encode({"board": board.kind, "period": board.id, **_shown(page, games)})
        kept = _BODIES[key] = (page, games, body, etag_of(body))
        while len(_BODIES) > KEPT_PAGES:
            _BODIES.popitem(last=False)
    _BODIES.move_to_end(key)
    return kept[2], kept[3]


def _games(board: Board, page: dict) -> tuple:
    """A closed day's page: the submission of each of its best games (those the
    hidden-information check looked at), which anyone may open in the analysis; none for an open
    day's page (its games are sealed) or another board's."""
    if board.kind != "day" or not page["entries"]:
        return ()
    s = services()
    day = date.fromisoformat(board.id)
    if s.settings.clock.phase(day, s.settings.now()) != "closed":
        return ()
    return tuple(s.submissions.strong_games(day, [e["player"] for e in page["entries"]]))


def _shown(page: dict, games: tuple) -> dict:
    """The page with its best games' submissions (a new page: the kept one stays as the
    leaderboard keeps it)."""
    if not any(games):
        return page
    return {**page, "entries": [{**e, "submission_id": g} if g else e for e, g in zip(page["entries"], games)]}


def _caller_pid() -> str | None:
    """The caller's pid from a valid token, else None: a public read (a bad token gives no ``me``)."""
    if not token_from_request():
        return None
    try:
        return services().players.authenticate(token_from_request())
    except Unauthorized:
        return None


def _page(board: Board, query: dict):
    """A page of the board; with a valid player token, also ``me``: the caller's entry or null,
    so that a client knows whether asking for ``/me`` will find it.  A public read: a bad token
    is not an error here, it only gives no ``me``."""
    s = services()
    page = s.leaderboard.page(board, query["offset"], query["limit"])
    games = _games(board, page)
    if not token_from_request():
        body, etag = _public_body(board, page, games)
        cacheable(Freshness(s.settings).board(board), etag)
        return as_documented(body)
    out = {"board": board.kind, "period": board.id, **_shown(page, games)}
    pid = _caller_pid()
    if pid:
        out["me"] = s.leaderboard.rank_of(board, pid)
        if out["me"] and board.kind == "day":  # the caller's own game, from any of its devices
            out["me"] = {**out["me"], **_own_game(board, pid)}
    return as_documented(out)


def _own_game(board: Board, pid: str) -> dict:
    """``{"submission_id"}`` of ``pid``'s counted game on a day's board ({} for none): a device
    that joined the player later finds the player's games of past days by it."""
    day = date.fromisoformat(board.id)
    game = services().leaderboard.games_of(day, [pid])[0]
    return {"submission_id": id_of(day, shard_of(pid), game.split("|", 1)[0])} if game else {}


def _around(board: Board, query: dict):
    page = services().leaderboard.around(board, current_pid(), query["radius"])
    return as_documented({"board": board.kind, "period": board.id, **page})


@blp.route("/days")
class Days(MethodView):
    @blp.arguments(DaysQuerySchema, location="query")
    @blp.response(200, PlayedDaysSchema)
    @public_read
    def get(self, query):
        """The closed days (seed public) before ``before``, newest first, ``limit`` of them: how
        many players each day's board holds and, with a player token, the caller's entry there"""
        s = services()
        today = s.settings.today()
        # any day is a question: a later one is today, an earlier one than the service's first has none
        before = max(min(query["before"] or today, today), FIRST_DAY)
        days = s.settings.clock.closed_days(before, query["limit"])
        cacheable(Freshness(s.settings).archive())
        return {"days": s.leaderboard.days_played(days, _caller_pid())}


@blp.route("/days/<string:period>")
class DayBoard(MethodView):
    @blp.arguments(PageQuerySchema, location="query")
    @blp.response(200, BoardPageSchema)
    @public_read
    def get(self, query, period):
        """A day's board: rank scores, best first, ``limit`` entries from ``offset``"""
        return _page(_day(period), query)


@blp.route("/days/<string:period>/me")
class DayBoardMe(MethodView):
    @blp.arguments(AroundQuerySchema, location="query")
    @blp.response(200, BoardPageSchema)
    @blp.doc(security=[{"playerToken": []}])
    def get(self, query, period):
        """The caller's rank on a day's board with the entries around it"""
        return _around(_day(period), query)


@blp.route("/days/<string:period>/histogram")
class DayHistogram(MethodView):
    @blp.response(200, HistogramSchema)
    @public_read
    def get(self, period):
        """How many players got each rank score on a day"""
        board = _day(period)
        day = day_from(period)
        bins = services().leaderboard.histogram(day)
        cacheable(Freshness(services().settings).day(day))
        return {"date": board.id, "total": sum(b["count"] for b in bins), "bins": bins}


@blp.route("/<any(weeks, months):kind>/<string:period>")
class PeriodBoard(MethodView):
    @blp.arguments(PageQuerySchema, location="query")
    @blp.response(200, BoardPageSchema)
    @public_read
    def get(self, query, kind, period):
        """A week's (YYYY-Www, ISO) or month's (YYYY-MM) board of summed margins, with days played"""
        return _page(_board(kind, period), query)


@blp.route("/<any(weeks, months):kind>/<string:period>/me")
class PeriodBoardMe(MethodView):
    @blp.arguments(AroundQuerySchema, location="query")
    @blp.response(200, BoardPageSchema)
    @blp.doc(security=[{"playerToken": []}])
    def get(self, query, kind, period):
        """The caller's rank on a week's or month's board with the entries around it"""
        return _around(_board(kind, period), query)


@blp.route("/all-time")
class AllTimeBoard(MethodView):
    @blp.arguments(PageQuerySchema, location="query")
    @blp.response(200, BoardPageSchema)
    @public_read
    def get(self, query):
        """The all-time board of summed margins, with days played"""
        return _page(ALL_TIME, query)


@blp.route("/all-time/me")
class AllTimeBoardMe(MethodView):
    @blp.arguments(AroundQuerySchema, location="query")
    @blp.response(200, BoardPageSchema)
    @blp.doc(security=[{"playerToken": []}])
    def get(self, query):
        """The caller's rank on the all-time board with the entries around it"""
        return _around(ALL_TIME, query)
