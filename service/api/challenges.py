"""GET today's challenge or a given date's; the seed only once the day has closed."""

from __future__ import annotations

from flask.views import MethodView

from service.errors import NotFound

from .blueprint import Blueprint
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
    def get(self):
        """Today's challenge: date, times, rules, bot id and commitment (no seed)"""
        return challenge_json(services().settings.today())


@blp.route("/<string:day>")
class ByDate(MethodView):
    @blp.response(200, ChallengeSchema)
    def get(self, day):
        """A day's challenge; its seed once the day has closed"""
        return challenge_json(day_from(day))
