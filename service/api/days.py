"""A closed day's games as open data (``service.opendata``): one JSON line a game, gzip on request,
immutable once final (a strong ETag; a disqualification later is a new version and a new ETag)."""

from __future__ import annotations

from flask import Response, request, stream_with_context
from flask.views import MethodView

from service.errors import Conflict
from service.freshness import Freshness
from service.opendata import DayGames, gzipped

from .blueprint import Blueprint
from .caching import cacheable, public_read
from .common import day_from, services

PREFIX = "/days"
blp = Blueprint("days", __name__, description=(
    "Every closed day as open data (CC0): the games on its board, one JSON line each, checkable by "
    "anyone with the day's seed (`manille verify-day`)."))
NDJSON = "application/x-ndjson"


@blp.route("/<string:day>/games")
class DayGamesFile(MethodView):
    @blp.doc(responses={200: {"description": "the day's file: a first line (format, licence, date, rules, bots, "
                                             "commitment, version, final, games), one line a game, a last line "
                                             "(end, games written); gzip if Accept-Encoding allows it",
                              "content": {NDJSON: {"schema": {"type": "string"}}}},
                        404: {"description": "unknown_date"}, 409: {"description": "day_open"}})
    @public_read
    def get(self, day):
        """Every game on a closed day's board, one JSON line each (its submission id, nickname,
        cards, gaps between plays in ms, score, card points a deal, rules, bots, verification)

        409 ``day_open`` until the day's seed is published; 404 ``unknown_date``.  Once ``final``
        (closed, no verification pending) kept a day by any cache; a later disqualification
        changes ``version`` and the ETag."""
        s = services()
        parsed = day_from(day)
        if s.settings.clock.phase(parsed) != "closed":
            raise Conflict("a day's games are published once its seed is", code="day_open",
                           reveal_at=s.settings.clock.reveals_at(parsed).isoformat())
        games = DayGames(s.redis, s.settings)
        state = games.state(parsed)
        gzip = request.accept_encodings["gzip"] > 0
        cacheable(Freshness(s.settings).day_file(parsed, state["head"]["final"]),
                  state["etag"] + ("-gzip" if gzip else ""))
        if request.method == "HEAD" or request.if_none_match.contains_weak(state["etag"] + ("-gzip" if gzip else "")):
            body = iter(())  # the after-request hook answers 304: nothing is read
        else:
            body = games.lines(parsed, state["head"])
            body = gzipped(body) if gzip else body
        resp = Response(stream_with_context(body), mimetype=NDJSON)
        resp.headers["Vary"] = "Accept-Encoding"
        resp.headers["Content-Disposition"] = f'inline; filename="manille-{parsed.isoformat()}.jsonl"'
        if gzip:
            resp.headers["Content-Encoding"] = "gzip"
        return resp
