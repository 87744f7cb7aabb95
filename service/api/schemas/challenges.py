"""The days' challenges: /api/v1/challenges."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate


class ChallengeSchema(ma.Schema):
    date = fields.String(required=True)
    rules = fields.String(required=True)
    bots = fields.String(required=True)
    commitment = fields.String(required=True, metadata={"description": "hex SHA-256 of the seed"})
    opens_at = fields.String(required=True)
    closes_at = fields.String(required=True)
    reveal_at = fields.String(required=True, metadata={"description": "when the seed is published"})
    status = fields.String(required=True, validate=validate.OneOf(["open", "closing", "closed"]))
    seed = fields.String(allow_none=True, metadata={"description": "null until the day has closed"})
