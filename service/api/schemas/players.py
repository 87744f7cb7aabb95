"""A player's own page: /api/v1/players."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields

from .appeals import RestrictedSchema


class TodaySchema(ma.Schema):
    date = fields.String(required=True)
    run_id = fields.String(allow_none=True, metadata={"description": "the player's ranked run of today"})
    status = fields.String(allow_none=True, metadata={"description": "playing | finished, null without a run"})
    submission_id = fields.String(allow_none=True)


class PlayerSchema(ma.Schema):
    player = fields.String(required=True, metadata={"description": "public player id (as on the boards)"})
    nickname = fields.String(allow_none=True, metadata={"description": "the last nickname claimed"})
    streak = fields.Integer(required=True, metadata={"description": "days in a row with a verified score"})
    today = fields.Nested(TodaySchema, required=True)
    restricted = fields.Nested(RestrictedSchema, allow_none=True, metadata={
        "description": "ops restricted the player: their games are verified and not ranked; null: not restricted"})
