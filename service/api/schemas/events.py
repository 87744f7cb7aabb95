"""Each kind of event at the table, its own schema: the document's ``Event`` is one of them, told
apart by ``type`` (``service.api.contract``), so that a client reads a trick's ``winner`` as a seat
and a game's as a team.  The events are built by ``service.runs.table``."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .runs import ContractSchema


def _type(name: str):
    return fields.String(required=True, validate=validate.OneOf([name]))


class _Event(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE


class DealStartEventSchema(_Event):
    type = _type("deal_start")
    deal = fields.Integer(required=True)
    dealer = fields.Integer(required=True)
    turned = fields.String(required=True, allow_none=True, metadata={"description": "null under rules with an auction"})
    trump = fields.String(required=True, allow_none=True, metadata={"description": "null: no trump, or not named yet"})
    leader = fields.Integer(required=True)
    carry = fields.Integer(metadata={"description": "rules with an auction: x2 per 30-30 deal before"})


class CallEventSchema(_Event):
    type = _type("call")
    deal = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    call = fields.String(required=True, metadata={"description": "what ``seat`` said"})


class ContractEventSchema(_Event):
    type = _type("contract")
    deal = fields.Integer(required=True)
    contract = fields.Nested(ContractSchema, required=True)
    carry = fields.Integer(required=True, metadata={"description": "x2 per 30-30 deal just before, else 1"})
    factor = fields.Integer(required=True, metadata={"description": "the deal's score multiplier"})


class PlayEventSchema(_Event):
    type = _type("play")
    seat = fields.Integer(required=True)
    card = fields.String(required=True)


class TrickEventSchema(_Event):
    type = _type("trick")
    deal = fields.Integer(required=True)
    trick = fields.Integer(required=True)
    winner = fields.Integer(required=True, metadata={"description": "the seat that took the trick"})
    team = fields.String(required=True, validate=validate.OneOf(["us", "them"]))
    points = fields.Integer(required=True, metadata={"description": "the trick's card points"})


class DealEndEventSchema(_Event):
    type = _type("deal_end")
    deal = fields.Integer(required=True)
    points = fields.List(fields.Integer(), required=True, metadata={"description": "each team's card points"})
    scored = fields.List(fields.Integer(), required=True)
    totals = fields.List(fields.Integer(), required=True)
    factor = fields.Integer(metadata={"description": "rules with an auction: the factor the deal was scored with"})
    carry = fields.Integer(metadata={"description": "rules with an auction: the carry it leaves to the next deal"})


class GameEndEventSchema(_Event):
    type = _type("game_end")
    totals = fields.List(fields.Integer(), required=True)
    winner = fields.String(required=True, validate=validate.OneOf(["us", "them"]))
    rank_score = fields.Integer(required=True)


#: ``type`` -> the schema of its events.
EVENTS = {"deal_start": DealStartEventSchema, "call": CallEventSchema, "contract": ContractEventSchema,
          "play": PlayEventSchema, "trick": TrickEventSchema, "deal_end": DealEndEventSchema,
          "game_end": GameEndEventSchema}
