"""A player's appeal of a restriction or a disqualification: /api/v1/appeals."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .common import StrictSchema


class AppealCreateSchema(StrictSchema):
    text = fields.String(required=True, validate=validate.Length(1, 4000))


class AppealSchema(ma.Schema):
    appeal_id = fields.String(required=True)
    at = fields.String()
    text = fields.String()
    kind = fields.String(metadata={"description": "restriction | disqualification"})
    submission_id = fields.String(allow_none=True, metadata={"description": "the disqualified game appealed"})
    status = fields.String(metadata={"description": "open | answered"})
    decision = fields.String(allow_none=True, metadata={
        "description": "upheld (the decision stands) | granted (undone); null while open"})
    answer = fields.String(allow_none=True, metadata={"description": "ops' answer"})
    answered_at = fields.String(allow_none=True)


class AppealListSchema(ma.Schema):
    appeals = fields.List(fields.Nested(AppealSchema), required=True)


class RestrictedSchema(ma.Schema):
    reason = fields.String(required=True, metadata={"description": "why, as ops wrote it for the player"})
    until = fields.String(allow_none=True, metadata={"description": "when it lapses; null: until lifted"})
    appeal = fields.Nested(AppealSchema, allow_none=True, metadata={
        "description": "the player's latest appeal of it (null: none; POST /appeals to appeal)"})
