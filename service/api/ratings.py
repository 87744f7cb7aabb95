"""Ratings: a player's profile by nickname, the rating board, a league's ratings."""

from __future__ import annotations

from flask.views import MethodView

from service.errors import NotFound
from service.freshness import Freshness

from .blueprint import Blueprint
from .caching import cacheable, public_read
from .common import current_pid, services
from .schemas import LeagueRatingsSchema, ProfileSchema, RatingBoardSchema, RatingsQuerySchema

PREFIX = ""
blp = Blueprint("ratings", __name__, description=(
    "Ratings: every player's Glicko-2 rating from the days' matchpoints against the field, computed "
    "once a day has closed and its matchpoint board is final. The rating board lists the players "
    "whose deviation after their last day was at most 75 and who played within 30 days of the last "
    "day rated."))


@blp.route("/players/me/rating")
class MyRating(MethodView):
    @blp.response(200, ProfileSchema)
    @blp.doc(security=[{"playerToken": []}])
    def get(self):
        """The caller's own profile, as ``/players/{nickname}`` answers it, whatever names their
        games were played under (a past day's board may show one they no longer hold); private"""
        s = services()
        pid = current_pid()
        shown = s.ratings.player(pid) or s.ratings.unrated()
        return {"nickname": s.players.held_name(pid), "streak": s.leaderboard.streak(pid, s.settings.today()), **shown}


@blp.route("/players/<path:nickname>")  # a nickname may hold a slash; /players/me stays the token's
class Profile(MethodView):
    @blp.response(200, ProfileSchema)
    @public_read
    def get(self, nickname):
        """A player's public profile by nickname (or one confusable with it): rating now, its history,
        streak, days played, best days; 404 ``unknown_player`` for a name nobody holds"""
        s = services()
        pid = s.players.holder(nickname)
        if pid is None:
            raise NotFound("no player holds this nickname", code="unknown_player")
        shown = s.ratings.player(pid) or s.ratings.unrated()
        name = s.players.held_name(pid) or nickname  # a name only claimed is shown nowhere
        cacheable(Freshness(s.settings).archive())
        return {"nickname": name, "streak": s.leaderboard.streak(pid, s.settings.today()), **shown}


@blp.route("/ratings")
class RatingBoard(MethodView):
    @blp.arguments(RatingsQuerySchema, location="query")
    @blp.response(200, RatingBoardSchema)
    @public_read
    def get(self, query):
        """The rating board, best first, ``limit`` entries from ``offset``: equal ratings share a rank"""
        s = services()
        page = s.ratings.page(query["offset"], query["limit"])
        cacheable(Freshness(s.settings).archive())
        return page


@blp.route("/leagues/<string:league_id>/ratings")
class LeagueRatings(MethodView):
    @blp.response(200, LeagueRatingsSchema)
    @blp.doc(security=[{"playerToken": []}])
    def get(self, league_id):
        """The league's ratings: its members with a rating, best first, ranked among them; members
        only (404 ``unknown_league``)"""
        s = services()
        pid = current_pid()
        view = s.leagues.members_of(league_id, pid)
        through = s.ratings.through()
        # members know each other by their names in the league: no player id in its answers
        entries = [{**{k: v for k, v in e.items() if k != "player"}, "nickname": view.name_of(e["player"]),
                    "me": e["player"] == pid} for e in s.ratings.entries_of(list(view.members))]
        return {"league_id": league_id, "through": through.isoformat() if through else None, "entries": entries}
