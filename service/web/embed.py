"""``/embed/board``: a board's top as a small page that any site may show in an ``<iframe>`` (a
club's site with today's top ten), the one page that may be framed.

It is drawn on the server, whole: no script at all (so none that could hold a token), no form, no
cookie read or set, one stylesheet; its own Content-Security-Policy says so and lets any site
frame it (``frame-ancestors *``), where every other page says ``frame-ancestors 'none'``.  Its
links open the site in a new tab.  Like the API's public reads (``service.api.caching``) it may
be kept by caches as long as its board allows (``service.freshness``), with an ETag and 304s.

Query: ``board`` day (default), week or month; ``period`` the day (YYYY-MM-DD), ISO week
(YYYY-Www) or month (YYYY-MM), default the current one; ``limit`` 1 to 20 (default 10); ``lang``
fr, nl or en (default: the reader's Accept-Language, else French).  Anything else is a 400 page
that names the parameter, framed as well, so that whoever writes the snippet sees what is wrong.
"""

from __future__ import annotations

from datetime import date

from flask import Blueprint, Flask, current_app, g, render_template, request
from flask_babel import format_date, gettext

from service.conditional import keepable
from service.errors import NotFound
from service.freshness import Freshness
from service.leaderboard import Board, day_board, month_board, week_board
from service.seeds import InvalidDateError, parse_date
from service.store import month_id, week_id

from . import DEFAULT_LANGUAGE, LANGUAGES

MAX_LIMIT = 20
DEFAULT_LIMIT = 10
KINDS = ("day", "week", "month")

CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
       "frame-ancestors *")

bp = Blueprint("embed", __name__, template_folder="templates")


class BadQuery(Exception):
    """A query parameter the page cannot use: its name and what it takes (in the page's language,
    or French when the language itself is what is wrong)."""

    def __init__(self, name: str, takes: str) -> None:
        super().__init__(name)
        self.name, self.takes = name, takes


def _lang() -> str:
    """``?lang=``, else the reader's Accept-Language, else French; never the site's cookie (a
    framed page is another site's: its cookies are not the reader's choice here)."""
    asked = request.args.get("lang", "")
    if asked:
        if asked not in LANGUAGES:
            raise BadQuery("lang", gettext("fr, nl or en"))
        return asked
    return request.accept_languages.best_match(list(LANGUAGES)) or DEFAULT_LANGUAGE


def _board(kind: str, today: date) -> Board:
    text = request.args.get("period", "")
    try:
        if kind == "day":
            day = parse_date(text) if text else today
            if day > today:
                raise BadQuery("period", gettext("a day up to today (YYYY-MM-DD)"))
            return day_board(day)
        if kind == "week":
            return week_board(text or week_id(today))
        return month_board(text or month_id(today))
    except (InvalidDateError, NotFound):
        raise BadQuery("period", {"day": gettext("a day (YYYY-MM-DD)"), "week": gettext("an ISO week (YYYY-Www)"),
                                  "month": gettext("a month (YYYY-MM)")}[kind]) from None


def _limit() -> int:
    text = request.args.get("limit", "")
    if not text:
        return DEFAULT_LIMIT
    if not text.isdigit() or not 1 <= int(text) <= MAX_LIMIT:
        raise BadQuery("limit", gettext("a whole number from 1 to %(max)s", max=MAX_LIMIT))
    return int(text)


def _heading(board: Board, today: date) -> str:
    if board.kind == "day":
        day = date.fromisoformat(board.id)
        return gettext("Today's board") if day == today else gettext("The board of %(day)s",
                                                                      day=format_date(day, "long"))
    days = board.days
    if board.kind == "week":
        return gettext("The week of %(first)s to %(last)s", first=format_date(days[0], "d MMM"),
                       last=format_date(days[-1], "d MMM y"))
    return gettext("The board of %(month)s", month=format_date(days[0], "LLLL y"))


@bp.get("/embed/board")
def board():
    """The top ``limit`` of a board, with a link to play today's game."""
    s = current_app.extensions["manille"]
    today = s.settings.today()
    try:
        g.lang = _lang()
        kind = request.args.get("board") or "day"
        if kind not in KINDS:
            raise BadQuery("board", gettext("day, week or month"))
        board = _board(kind, today)
        limit = _limit()
    except BadQuery as e:
        g.lang = getattr(g, "lang", None) or DEFAULT_LANGUAGE
        resp = current_app.make_response((render_template(
            "embed_board.html", error=gettext("This board cannot be shown: %(name)s must be %(takes)s.",
                                             name=e.name, takes=e.takes)), 400))
        return _headers(resp, None)
    page = s.leaderboard.page(board, 0, limit)
    resp = current_app.make_response(render_template(
        "embed_board.html", board=board, entries=page["entries"], total=page["total"],
        heading=_heading(board, today), play=play_url(s.settings), error=None))
    return _headers(resp, Freshness(s.settings).board(board))


def play_url(settings) -> str:
    """Where the page's links lead: ``MANILLE_PUBLIC_URL``'s home, else the home of whoever served
    the page (a relative link: a framed page's links resolve against its own URL).  Never the
    request's Host header, which anyone sends as they like into a page caches keep."""
    return settings.public_url + "/" if settings.public_url else "/"


def _headers(resp, max_age: int | None):
    """Its own CSP (framed by anyone, nothing to run); kept ``max_age`` by caches (None: an error,
    not kept), with an ETag; the language follows Accept-Language when no ``lang`` is asked."""
    headers = resp.headers
    headers["Content-Security-Policy"] = CSP
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    if "lang" not in request.args:
        resp.vary.add("Accept-Language")
    if max_age is None:
        headers["Cache-Control"] = "no-store"
        return resp
    return keepable(resp, request, max_age)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
