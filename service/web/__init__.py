"""The web pages: the table (today's ranked game, free play, the archive, a duel), the
leaderboard, the leagues and the rules, in French, Dutch and English.

The pages are thin: HTML from Jinja templates with Flask-Babel for their strings, and plain ES
modules (``static/js``) that talk to /api/v1.  The server stays the authority: a page never
holds a hidden card or decides a card's legality.  No inline script or style is ever served, so
the Content-Security-Policy forbids them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlencode

import markdown
from flask import Blueprint, Flask, abort, current_app, g, redirect, render_template, request, url_for
from flask_babel import Babel
from markupsafe import Markup
from werkzeug.exceptions import HTTPException

from service.duels import CODE_RE as DUEL_CODE_RE
from service.leagues import INVITE_RE
from service.players.devices import ALPHABET as LINK_ALPHABET
from service.seeds import InvalidDateError, parse_date

LANGUAGES = {"fr": "Français", "nl": "Nederlands", "en": "English"}
DEFAULT_LANGUAGE = "fr"
LANG_COOKIE = "manille_lang"
SPEEDS = ("normal", "fast", "instant")
LINK_CODE_RE = re.compile(f"[{LINK_ALPHABET}{LINK_ALPHABET.lower()}-]{{10,11}}")
ARCHIVE_DAYS = 30
DOCS = Path(__file__).resolve().parents[2] / "docs"
STATIC = Path(__file__).resolve().parent / "static"

#: Every page's but the board other sites frame (``embed``, its own): none may be framed.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")

bp = Blueprint("web", __name__, template_folder="templates", static_folder="static",
               static_url_path="/static")


def select_locale() -> str:
    """``?lang=`` first, then the saved choice (cookie), then Accept-Language, then French."""
    asked = request.args.get("lang", "")
    if asked in LANGUAGES:
        return asked
    saved = request.cookies.get(LANG_COOKIE, "")
    if saved in LANGUAGES:
        return saved
    return request.accept_languages.best_match(list(LANGUAGES)) or DEFAULT_LANGUAGE


def _services():
    return current_app.extensions["manille"]


#: The query arguments each page reads (its scripts included): the only ones its links to
#: itself in another language carry over.  Whatever else a query string holds is ignored; none of
#: it reaches ``url_for``, whose own arguments (``_external``, ``_scheme``, ``_anchor``,
#: ``_method``) and the page's path arguments (``endpoint``, ``day``) it would otherwise override.
PAGE_ARGS = {"web.index": ("speed",), "web.free": ("speed",), "web.archive_day": ("speed",),
             "web.leaderboard": ("board", "day")}


def _lang_links() -> list[dict]:
    """This very page in each language with only the page's own query arguments; an error page, which
    has no endpoint of its own, by its path (never one that starts a protocol-relative address)."""
    here = url_for(request.endpoint, **(request.view_args or {})) if request.endpoint else "/" + request.path.lstrip("/")
    kept = [(name, request.args[name]) for name in PAGE_ARGS.get(request.endpoint, ()) if name in request.args]
    return [{"code": code, "label": label, "current": code == g.lang,
             "url": f"{here}?{urlencode([*kept, ('lang', code)])}"}
            for code, label in LANGUAGES.items()]


def _asset_version(path: str) -> str:
    """A cache-busting version for a static file: its modification time."""
    try:
        return str(int((STATIC / path).stat().st_mtime))
    except OSError:
        return "0"


@bp.app_context_processor
def _context() -> dict:
    if not request or not getattr(g, "lang", None):  # a web page, or an error page (error_page)
        return {}
    return {"lang": g.lang, "languages": LANGUAGES, "lang_links": _lang_links(),
            "asset": lambda path: url_for("web.static", filename=path, v=_asset_version(path))}


@bp.before_request
def _locale() -> None:
    g.lang = select_locale()


@bp.after_request
def _headers(resp):
    return _page_headers(resp)


def _page_headers(resp):
    resp.headers.setdefault("Content-Security-Policy", CSP)
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "same-origin")
    if request.args.get("lang") in LANGUAGES:
        resp.set_cookie(LANG_COOKIE, request.args["lang"], max_age=365 * 86400, samesite="Lax")
    if request.endpoint == "web.static" and resp.status_code < 400:
        # A versioned URL names one content for ever; the modules that main.js imports by plain
        # URL must be revalidated, or a new main.js could run beside an old game.js.
        resp.headers["Cache-Control"] = ("public, max-age=31536000, immutable" if request.args.get("v")
                                         else "no-cache")
    else:
        resp.headers.setdefault("Cache-Control", "no-cache")
        resp.vary.add("Accept-Language")
        resp.vary.add("Cookie")
    return resp


def _speed() -> str:
    speed = request.args.get("speed", "")
    return speed if speed in SPEEDS else ""


def _table(mode: str, day: str = "", duel: str = "", strengths: dict | None = None):
    return render_template("table.html", page="table", mode=mode, day=day, duel=duel, speed=_speed(),
                           today=_services().settings.today().isoformat(),
                           strengths=json.dumps(strengths, separators=(",", ":")) if strengths else "")


@bp.get("/")
def index():
    """Today's ranked game (or, once played, the result and the board)."""
    return _table("ranked")


@bp.get("/free")
def free():
    """Free play: a new random deal, unranked, as often as wanted, against the table's strength the
    player chooses (``Runs.free_strengths``: the strongest is today's bots)."""
    s = _services()
    return _table("random", strengths=s.runs.free_strengths(s.settings.today()))


def _past_days() -> list[str]:
    s = _services().settings
    return [d.isoformat() for d in s.clock.closed_days(s.today(), ARCHIVE_DAYS)]


@bp.get("/archive")
def archive():
    """The past days whose seed is public, each playable (unranked)."""
    return render_template("archive.html", page="archive", days=_past_days(),
                           today=_services().settings.today().isoformat())


@bp.get("/archive/<string:day>")
def archive_day(day: str):
    try:
        parsed = parse_date(day)
    except InvalidDateError:
        abort(404)
    if _services().settings.clock.phase(parsed) != "closed":
        return redirect(url_for("web.archive"))
    return _table("archive", parsed.isoformat())


@bp.get("/duel/<string:code>")
def duel(code: str):
    """A duel's game, sent by a friend: played unranked, then both results side by side (the
    challenger sees the results here)."""
    if not DUEL_CODE_RE.fullmatch(code):
        abort(404)
    return _table("duel", duel=code)


@bp.get("/leagues")
def leagues():
    """The player's leagues: create one, share its link, see its members, leave."""
    return render_template("leagues.html", page="leagues", invite="", today=_services().settings.today().isoformat())


@bp.get("/leagues/join/<string:invite>")
def league_join(invite: str):
    """An invite link: the league's name, and joining it."""
    if not INVITE_RE.fullmatch(invite):
        abort(404)
    return render_template("leagues.html", page="leagues", invite=invite,
                           today=_services().settings.today().isoformat())


@bp.get("/devices")
def devices():
    """The player's devices and passkeys: a link for another device, a code typed, a passkey."""
    return render_template("devices.html", page="devices", link="")


@bp.get("/link/<string:code>")
def device_link(code: str):
    """A device link opened on the other device: the devices page, offering to join (the code is
    checked when it is sent: a wrong or old one says so there)."""
    if not LINK_CODE_RE.fullmatch(code):
        abort(404)
    return render_template("devices.html", page="devices", link=code)


@bp.get("/leaderboard")
def leaderboard():
    return render_template("leaderboard.html", page="leaderboard",
                           today=_services().settings.today().isoformat())


@bp.get("/players/<path:nickname>")
def player(nickname: str):
    """A player's public profile: the rating, its history as a plot, days played, streak, best
    days (drawn by ``player.js`` from ``/api/v1/players/{nickname}``)."""
    if not nickname.strip() or len(nickname) > 200:
        abort(404)
    return render_template("player.html", page="player", nickname=nickname,
                           today=_services().settings.today().isoformat())


@bp.get("/ops")
def ops():
    """The ops review page: the day's submissions, their flags and evidence, the actions; it
    talks to /api/v1/ops with the ops token the person types (kept in sessionStorage only)."""
    return render_template("ops.html", page="ops", today=_services().settings.today().isoformat())


def rules_html(lang: str) -> tuple[Markup, Markup]:
    """The rules document of ``lang`` (docs/rules.<lang>.md; English is docs/rules.md) as HTML,
    with its table of contents; rendered once per process."""
    cache = current_app.extensions.setdefault("manille_rules_html", {})
    if lang not in cache:
        path = DOCS / ("rules.md" if lang == "en" else f"rules.{lang}.md")
        if not path.exists():
            path = DOCS / "rules.md"
        md = markdown.Markdown(extensions=["tables", "toc"], output_format="html")
        body = md.convert(path.read_text(encoding="utf-8"))
        cache[lang] = (Markup(body), Markup(md.toc))
    return cache[lang]


@bp.get("/rules")
def rules():
    body, toc = rules_html(g.lang)
    return render_template("rules.html", page="rules", rules_html=body, toc=toc)


@bp.get("/privacy")
def privacy():
    """What is kept about a player, why, who sees it and how long (read from the settings, so the
    page says what the service does), and the player's copy and erasure."""
    from service.duels import KEEP_SECONDS as DUEL_SECONDS
    from service.leagues import IDLE_SECONDS
    from service.submissions.by_player import NETWORK_KEEP_SECONDS

    settings = _services().settings
    keep = {"run_hours": settings.run_keep_hours, "practice_hours": settings.practice_keep_hours,
            "player_days": settings.player_keep_days, "client_days": settings.client_keep_days,
            "network_days": NETWORK_KEEP_SECONDS // 86400, "league_days": IDLE_SECONDS // 86400,
            "duel_days": DUEL_SECONDS // 86400}
    return render_template("privacy.html", page="privacy", keep=keep)


@bp.get("/favicon.ico")
def favicon():
    return bp.send_static_file("favicon.svg")


def error_page(error: HTTPException):
    """A page the site cannot serve (404, 405, 500…), with the site's header, style and language."""
    status = error.code or 500
    g.lang = getattr(g, "lang", None) or select_locale()
    resp = current_app.make_response((render_template("error.html", page="error", status=status), status))
    if status == 405 and getattr(error, "valid_methods", None):
        resp.headers["Allow"] = ", ".join(error.valid_methods)
    # a page of the blueprint gets its headers from _headers; any other path, here
    return resp if request.blueprint == "web" else _page_headers(resp)


def init_app(app: Flask) -> None:
    Babel(app, locale_selector=lambda: getattr(g, "lang", None) or DEFAULT_LANGUAGE,
          default_translation_directories=str(Path(__file__).resolve().parent / "translations"))
    app.register_blueprint(bp)
    from . import embed  # the one page other sites may frame

    embed.init_app(app)
    app.extensions["manille_error_page"] = error_page
