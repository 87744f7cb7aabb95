"""Runs and their plays: /api/v1/runs (the view of a game, its events, its result)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.replay import RULES
from service.seeds import InvalidDateError, parse_date

from .common import StrictSchema


class RunCreateSchema(StrictSchema):
    kind = fields.String(load_default="daily", validate=validate.OneOf(["daily", "random", "duel"]), metadata={
        "description": "daily (default): today's ranked run, or the archive run of ``date``; "
                       "random: free play on a fresh random deal (no date); duel: the game of the duel ``duel``, "
                       "unranked, once per player"})
    date = fields.String(load_default=None, validate=validate.Length(max=32),
                         metadata={"description": "YYYY-MM-DD; default today (ranked). "
                                                  "A past day whose seed is public gives an archive run."})
    # The allowed values are documented (``enum``), and checked by the service, which answers the
    # typed unknown_rules / unknown_target with ``allowed`` rather than a bare validation error.
    rules = fields.String(load_default=None, validate=validate.Length(1, 32), metadata={
        "enum": list(RULES), "description": "random only: muette-1 (default), parlee-1 or manillen-1; another id is 422 "
                       "unknown_rules with ``allowed``"})
    target = fields.Integer(load_default=None, strict=True, metadata={
        "enum": sorted({t for r in RULES.values() for t in r.targets}), "description": "random only: the game target (parlee-1: 101, the default, or 51; muette-1: 40; "
                       "manillen-1: 21); another is 422 unknown_target with ``allowed``"})

    duel = fields.String(load_default=None, validate=validate.Length(1, 64), metadata={
        "description": "duel only: the duel's code (``duel_id``, the end of its link)"})
    bots = fields.String(load_default=None, validate=validate.Length(1, 32), metadata={
        "description": "random only: the bots' id, the table's strength: greedy-1 (a beginner's), expert-1 (the "
                       "club's) or today's bots (the strongest, the default; under parlee-1 and manillen-1 "
                       "expert-1); another is 422 unknown_bots with ``allowed``"})

    @ma.validates_schema
    def _random_has_no_date(self, data, **_kwargs):
        if data.get("kind") in ("random", "duel") and data.get("date") is not None:
            raise ma.ValidationError(f"a {data['kind']} run has no date", field_name="date")
        if (data.get("kind") == "duel") != (data.get("duel") is not None):
            raise ma.ValidationError("a duel run names its duel, and only a duel run does", field_name="duel")
        for name in ("rules", "target", "bots"):
            if data.get(name) is not None and data.get("kind") != "random":
                raise ma.ValidationError("only free play (kind random) chooses its rules and bots", field_name=name)

    @ma.validates("date")
    def _a_day(self, value, **_kwargs):
        if value is not None:
            try:
                parse_date(value)
            except InvalidDateError as e:
                raise ma.ValidationError(str(e)) from None


class PlaySchema(StrictSchema):
    """One action of the player: ``card``, or under rules with an auction ``call`` (exactly one)."""

    turn = fields.Integer(required=True, strict=True, validate=validate.Range(0, 10_000),
                          metadata={"description": "how many actions (cards and calls) the player had "
                                                   "taken before this one"})
    card = fields.String(validate=validate.Length(1, 16), metadata={"description": "e.g. TH"})
    call = fields.String(validate=validate.Length(1, 16), metadata={
        "description": "C, D, H, S (trump), NT (no trump), pass, double or redouble"})

    @ma.validates_schema
    def _one_action(self, data, **_kwargs):
        if ("card" in data) == ("call" in data):
            raise ma.ValidationError("send exactly one of card and call", field_name="card")


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
