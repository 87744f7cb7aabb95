"""The operator's desk for a player: their case (every game, notes, addresses, the others seen
from them, reports, appeals), restriction, lift and notes.  Ops' bearer token as for every ops
route (``service.api.ops``); restrict and lift are a decider's."""

from __future__ import annotations

from flask.views import MethodView

from service.ops.player import PlayerDesk

from .blueprint import Blueprint
from .ops import SECURITY, _ops, authenticate, ops_user, require_decider
from .schemas import NoteEntrySchema, NoteSchema, OptionalReasonSchema, PlayerCaseSchema, RestrictSchema

PREFIX = "/ops/players"
blp = Blueprint("ops_players", __name__, description="Ops: a player's case, restriction and notes")
blp.before_request(authenticate)


def _desk() -> PlayerDesk:
    return PlayerDesk(_ops())


@blp.route("/<string:player>")
class PlayerCase(MethodView):
    @blp.response(200, PlayerCaseSchema)
    @blp.doc(security=SECURITY)
    def get(self, player):
        """A player's case (``player``: the id on a submission and the boards, or a nickname): every
        game indexed with score, flags and decision, notes, the addresses and user agents seen and
        the other players seen from those networks, reports on their games, appeals, restriction"""
        desk = _desk()
        return desk.view(desk.resolve(player))


@blp.route("/<string:player>/restrict")
class Restrict(MethodView):
    @blp.arguments(RestrictSchema)
    @blp.response(200, PlayerCaseSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, player):
        """Restrict a player: every verified game of theirs off every public board now (as a
        disqualification), their new games verified and not ranked, and they read the reason and
        the end (GET /players/me); for ``days``, else until lifted; again: new reason and end.
        A decider's; audited"""
        require_decider()
        desk = _desk()
        return desk.restrict(desk.resolve(player), ops_user(), body["reason"], body.get("days"))


@blp.route("/<string:player>/lift")
class Lift(MethodView):
    @blp.arguments(OptionalReasonSchema, required=False)  # no body: no reason
    @blp.response(200, PlayerCaseSchema)
    @blp.doc(security=SECURITY)
    def post(self, body, player):
        """Lift a player's restriction: their restricted games back on the boards (409
        ``not_restricted`` if none). A decider's; audited"""
        require_decider()
        desk = _desk()
        return desk.lift(desk.resolve(player), ops_user(), body["reason"])


@blp.route("/<string:player>/notes")
class Notes(MethodView):
    @blp.arguments(NoteSchema)
    @blp.response(201, NoteEntrySchema)
    @blp.doc(security=SECURITY)
    def post(self, body, player):
        """A note on the player, for the operators who read the case after; audited"""
        desk = _desk()
        return desk.note(desk.resolve(player), ops_user(), body["text"])
