"""GET today's challenge or a given date's; the seed only once the day has closed."""

from __future__ import annotations

from flask.views import MethodView

from service.errors import NotFound
from service.freshness import Freshness

from .blueprint import Blueprint
from .caching import cacheable, public_read
from .common import day_from, services
from .schemas import ChallengeSchema

PREFIX = "/challenges"
blp = Blueprint("challenges", __name__, description="Daily challenges")


def challenge_json(day):
    s = services()
    if s.settings.clock.phase(day) == "upcoming":
        raise NotFound(f"no challenge for {day.isoformat()} yet", code="unknown_date")
    return s.challenges.get(day).to_json()


@blp.route("/today")
class Today(MethodView):
    @blp.response(200, ChallengeSchema)
    @public_read
    def get(self):
        """Today's challenge: date, times, rules, bot id and commitment (no seed)"""
        s = services()
        now = s.settings.now()
        cacheable(Freshness(s.settings).today(now))
        return challenge_json(s.settings.today(now))


@blp.route("/<string:day>")
class ByDate(MethodView):
    @blp.response(200, ChallengeSchema)
    @public_read
    def get(self, day):
        """A day's challenge; its seed once the day has closed"""
        parsed = day_from(day)
        cacheable(Freshness(services().settings).challenge(parsed))
        return challenge_json(parsed)
