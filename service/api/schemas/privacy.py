"""A player's own data: /api/v1/players/me (DELETE) and /api/v1/players/me/export."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .common import StrictSchema


class EraseSchema(StrictSchema):
    confirm = fields.String(required=True, validate=validate.Equal("erase"), metadata={
        "description": 'the word "erase": an erasure cannot be undone'})


class ErasureSchema(ma.Schema):
    player = fields.String(required=True, metadata={"description": "the erased player id (the boards keep it)"})
    pseudonym = fields.String(required=True, metadata={"description": "the name boards, leagues and duels show"})
    erased = fields.Dict(keys=fields.String(), values=fields.Integer(), metadata={
        "description": "what each kind of data had of the player (counts)"})
    evidence_kept = fields.List(fields.String(), metadata={
        "description": "games held or awaiting their verdict: their addresses and agents are erased once decided"})


class ExportSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    format = fields.Integer(required=True)
    player = fields.String(required=True)
    exported_at = fields.String(required=True)
    profile = fields.Dict(required=True)
    nickname_history = fields.List(fields.Dict(), required=True)
    games = fields.List(fields.Dict(), required=True, metadata={
        "description": "every game indexed, as GET /submissions/<id> shows it, with its clients and its record's link"})
    runs = fields.List(fields.Dict(), required=True, metadata={"description": "runs still kept, with their clients"})
    leagues = fields.List(fields.Dict(), required=True)
    duels = fields.List(fields.Dict(), required=True)
    restriction = fields.Dict(allow_none=True)
    appeals = fields.List(fields.Dict(), required=True)
