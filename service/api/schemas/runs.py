"""Runs and their plays: /api/v1/runs (the view of a game, its events, its result)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.replay import RULES
from .common import Day, JsonInteger, OneOfSchema, StrictSchema


#: What ``null`` means for an optional field of an opening: the default, as if it were left out.
_DEFAULT = "null or absent: "


class DailyRunCreateSchema(StrictSchema):
    """Today's ranked run (``{}``), or the archive run of a past day whose seed is public."""

    kind = fields.String(load_default="daily", validate=validate.Equal("daily"), metadata={
        "description": "daily, the default"})
    date = Day(load_default=None, metadata={
        "description": _DEFAULT + "today, ranked (one run per player and day: 409 already_played); "
                       "a past day whose seed is public: its archive run, unranked. A day with no challenge "
                       "(before the service's first, still to come) is 404 unknown_date; a day whose seed "
                       "is not public yet, 409 day_closed with reveal_at"})


class RandomRunCreateSchema(StrictSchema):
    """Free play on a fresh random deal, unranked; the deal is shown once the game is over."""

    kind = fields.String(required=True, validate=validate.Equal("random"))
    # The allowed values are documented (``enum``), and checked by the service, which answers the
    # typed unknown_rules / unknown_target with ``allowed`` rather than a bare validation error.
    rules = fields.String(load_default=None, validate=validate.Length(1, 32), metadata={
        "enum": [*RULES, None], "description": _DEFAULT + "muette-1; or parlee-1, manillen-1"})
    target = JsonInteger(load_default=None, metadata={
        "enum": [*sorted({t for r in RULES.values() for t in r.targets}), None],
        "description": _DEFAULT + "the rules' default. The game target the rules allow (parlee-1: 101, the "
                       "default, or 51; muette-1: 40; manillen-1: 21); another is 422 unknown_target with "
                       "``allowed``"})
    bots = fields.String(load_default=None, validate=validate.Length(1, 32), metadata={
        "description": _DEFAULT + "today's bots (the strongest; under parlee-1 and manillen-1 expert-1). "
                       "The bots' id, the table's strength: greedy-1 (a beginner's), expert-1 (the club's) or "
                       "today's bots; another is 422 unknown_bots with ``allowed``"})


class DuelRunCreateSchema(StrictSchema):
    """The game of a duel, unranked, once per player."""

    kind = fields.String(required=True, validate=validate.Equal("duel"))
    duel = fields.String(required=True, validate=validate.Length(1, 64), metadata={
        "description": "the duel's code (``duel_id``, the end of its link); 404 unknown_duel for none"})


class RunCreateSchema(OneOfSchema):
    """A run's opening: by ``kind`` (daily when absent) one of its three kinds, each with its own
    fields only."""

    ONE_OF = (DailyRunCreateSchema(), RandomRunCreateSchema(), DuelRunCreateSchema())
    KINDS = dict(zip(("daily", "random", "duel"), ONE_OF))
    DESCRIPTION = ("One of three kinds of run, told apart by ``kind``: daily (the default, so ``{}`` and no "
                   "body at all are today's ranked run), random or duel, each with its own fields and no "
                   "other (a field of another kind is 422 validation_error naming it). ``kind`` is no "
                   "OpenAPI discriminator: a discriminator's property is required, and ``{}`` must stay "
                   "today's run.")

    def choose(self, data):
        kind = data.get("kind", "daily")
        schema = self.KINDS.get(kind) if isinstance(kind, str) else None
        if schema is None:
            raise ma.ValidationError({"kind": [f"Must be one of: {', '.join(self.KINDS)}."]})
        for name in data:  # a field of another kind: say whose it is rather than "Unknown field."
            owner = next((k for k, other in self.KINDS.items() if name in other.fields), None)
            if name not in schema.fields and owner is not None:
                raise ma.ValidationError({name: [f"only a {owner} run has {name}, not a {kind} run"]})
        return schema


def _any_case(word: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in word)


#: What ``Card.parse`` and ``Call.parse`` read, as patterns of the document (any case; a ten is T
#: or 10): a card or a call of another form is refused (422 unknown_card, unknown_call).
CARD_PATTERN = "^(?:[789]|10|[JjQqKkAaTt])[CcDdHhSs]$"
CALL_PATTERN = "^(?:" + "|".join(_any_case(c) for c in ("C", "D", "H", "S", "NT", "pass", "double", "redouble")) + ")$"


class _TurnSchema(StrictSchema):
    turn = JsonInteger(required=True, validate=validate.Range(0, 10_000), metadata={
        "description": "how many actions (cards and calls) the player had taken before this one; another "
                       "is 409 wrong_turn with expected_turn"})


class PlayCardSchema(_TurnSchema):
    """A card played."""

    card = fields.String(required=True, validate=validate.Length(1, 16), metadata={
        "pattern": CARD_PATTERN, "description": "e.g. TH; 422 unknown_card for no card, illegal_card (with obligation and legal) for "
                       "one the rules forbid now, card_expected while a call is due"})


class PlayCallSchema(_TurnSchema):
    """A call, under rules with an auction."""

    call = fields.String(required=True, validate=validate.Length(1, 16), metadata={
        "pattern": CALL_PATTERN, "description": "C, D, H, S (trump), NT (no trump), pass, double or redouble; 422 unknown_call, "
                       "illegal_call (with legal), card_expected while a card is due (no auction, or it is over)"})


class PlaySchema(OneOfSchema):
    """One action of the player: a card, or under rules with an auction a call (never both)."""

    ONE_OF = (PlayCardSchema(), PlayCallSchema())
    DESCRIPTION = "One action: ``{turn, card}`` or, under rules with an auction, ``{turn, call}``; never both."

    def choose(self, data):
        if "card" in data and "call" in data:
            raise ma.ValidationError({"card": ["send exactly one of card and call"]})
        return self.ONE_OF[1] if "call" in data else self.ONE_OF[0]


class PlaySeatSchema(ma.Schema):
    seat = fields.Integer()
    card = fields.String()


class CallSeatSchema(ma.Schema):
    seat = fields.Integer()
    call = fields.String(metadata={"description": "C D H S NT pass double redouble"})


class ContractSchema(ma.Schema):
    declarer = fields.Integer(metadata={"description": "the seat that named or chose the trump"})
    call = fields.String(metadata={"description": "C, D, H, S or NT"})
    trump = fields.String(allow_none=True, metadata={"description": "null: no trump"})
    doubled = fields.Integer(metadata={"description": "0, 1 (doubled) or 2 (redoubled)"})
    factor = fields.Integer(metadata={"description": "the contract's own factor: x2 no trump (where the "
                                                     "rules say), x2 a double"})


class TrickSchema(ma.Schema):
    deal = fields.Integer()
    leader = fields.Integer()
    plays = fields.List(fields.Nested(PlaySeatSchema))
    winner = fields.Integer()
    points = fields.Integer()


class DealSummarySchema(ma.Schema):
    deal = fields.Integer()
    dealer = fields.Integer()
    turned = fields.String(allow_none=True, metadata={"description": "null under rules with an auction"})
    calls = fields.List(fields.Nested(CallSeatSchema), metadata={"description": "rules with an auction: its calls"})
    contract = fields.Nested(ContractSchema)
    carry = fields.Integer(metadata={"description": "x2 per 30-30 deal just before it (parlee-1)"})
    factor = fields.Integer(metadata={"description": "what its score was multiplied by: contract x carry"})
    points = fields.List(fields.Integer(), metadata={"description": "card points [us, them]"})
    scored = fields.List(fields.Integer(), metadata={"description": "game points scored [us, them]"})
    totals = fields.List(fields.Integer(), metadata={"description": "game totals after it [us, them]"})


class ViewSchema(ma.Schema):
    """Seat 0's view; the keys from ``rules`` on are present only under rules with an auction."""

    seat = fields.Integer(required=True)
    deal = fields.Integer(required=True)
    dealer = fields.Integer(required=True)
    turned = fields.String(required=True, allow_none=True,
                           metadata={"description": "null under rules with an auction"})
    trump = fields.String(required=True, allow_none=True, metadata={
        "description": "null while the auction goes on, and for no trump"})
    turned_holder = fields.Integer(required=True, allow_none=True,
                                   metadata={"description": "the dealer while the turned card is in hand"})
    hand = fields.List(fields.String(), required=True)
    legal = fields.List(fields.String(), required=True,
                        metadata={"description": "empty unless the player is to move"})
    unplayable = fields.Dict(keys=fields.String(), values=fields.String(), required=True, metadata={
        "description": "each card of the hand that may not be played now -> the obligation it "
                       "would break (docs/spec.md §10.3 codes); empty unless the player is to move"})
    to_move = fields.Integer(required=True, allow_none=True)
    trick = fields.Nested(TrickSchema, required=True)
    last_trick = fields.Nested(TrickSchema, required=True, allow_none=True)
    tricks = fields.List(fields.Nested(TrickSchema), required=True)
    points = fields.List(fields.Integer(), required=True,
                         metadata={"description": "card points this deal [us, them]"})
    totals = fields.List(fields.Integer(), required=True, metadata={"description": "game points [us, them]"})
    counts = fields.List(fields.Integer(), required=True, metadata={"description": "cards in each seat's hand"})
    deals = fields.List(fields.Nested(DealSummarySchema), required=True,
                        metadata={"description": "the deals already scored"})
    rules = fields.String(metadata={"description": "parlee-1 or manillen-1"})
    target = fields.Integer(metadata={"description": "the game target"})
    calls = fields.List(fields.Nested(CallSeatSchema), metadata={"description": "this deal's calls so far"})
    legal_calls = fields.List(fields.String(), metadata={
        "description": "the calls the player may make; empty unless a call of the player's is due"})
    contract = fields.Nested(ContractSchema, allow_none=True, metadata={"description": "null until the "
                                                                                        "auction is over"})
    factor = fields.Integer(metadata={"description": "what this deal's score will be multiplied by"})
    carry = fields.Integer(metadata={"description": "x2 per 30-30 deal just before this one (parlee-1)"})


class ResultSchema(ma.Schema):
    totals = fields.List(fields.Integer())
    winner = fields.String()
    rank_score = fields.Integer(metadata={"description": "preview; the verifier's replay is the truth"})


class EventSchema(ma.Schema):
    """One thing that happened at the table: ``type`` is play, trick, deal_end, deal_start or game_end;
    under rules with an auction also call (``seat`` said ``call``) and contract (the auction is over)."""

    class Meta:
        unknown = ma.INCLUDE

    type = fields.String(required=True)
    seat = fields.Integer()
    card = fields.String()
    deal = fields.Integer()
    trick = fields.Integer()
    winner = fields.Raw()
    team = fields.String()
    points = fields.Raw()
    scored = fields.List(fields.Integer())
    totals = fields.List(fields.Integer())
    dealer = fields.Integer()
    turned = fields.String(allow_none=True)
    trump = fields.String(allow_none=True)
    leader = fields.Integer()
    rank_score = fields.Integer()
    call = fields.String(metadata={"description": "call: what ``seat`` said"})
    contract = fields.Nested(ContractSchema, metadata={"description": "contract: what the deal is played for"})
    factor = fields.Integer(metadata={"description": "contract, deal_end: the deal's score multiplier"})
    carry = fields.Integer(metadata={"description": "deal_start, contract: x2 per 30-30 deal before; "
                                                    "deal_end: the carry it leaves to the next deal"})


class RunSchema(ma.Schema):
    run_id = fields.String(required=True)
    date = fields.String(required=True, metadata={"description": "the challenge's day; a random deal's opening day"})
    kind = fields.String(required=True, validate=validate.OneOf(["ranked", "archive", "random", "duel"]))
    ranked = fields.Boolean(required=True)
    rules = fields.String(required=True, metadata={"description": "muette-1; free play also parlee-1, manillen-1"})
    target = fields.Integer(metadata={"description": "the game target (rules with an auction only)"})
    bots = fields.String(required=True)
    bidder = fields.String(metadata={"description": "the bots' bidder (rules with an auction only)"})
    seed = fields.String(required=True, allow_none=True, metadata={
        "description": "hex; archive runs always, random deals and duels once finished, ranked runs once revealed"})
    status = fields.String(required=True, validate=validate.OneOf(["playing", "finished"]))
    turn = fields.Integer(required=True, metadata={"description": "actions (cards and calls) the player has taken"})
    view = fields.Nested(ViewSchema, required=True)
    events = fields.List(fields.Nested(EventSchema), required=True, metadata={
        "description": "a play: what happened from the player's card on; opening: since the deal; "
                       "GET: everything since the run opened"})
    result = fields.Nested(ResultSchema, required=True, allow_none=True)
    submission_id = fields.String(required=True, allow_none=True)
    duel_id = fields.String(metadata={"description": "a duel's run: its duel (GET /duels/{duel_id})"})
    player_token = fields.String(metadata={"description": "only when a new token was issued"})
