"""A player's report of a game: /api/v1/reports."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .common import StrictSchema


class ReportCreateSchema(StrictSchema):
    submission_id = fields.String(required=True, validate=validate.Length(1, 64))
    reason = fields.String(required=True, validate=validate.Length(1, 1000))


class ReportSchema(ma.Schema):
    report_id = fields.String(required=True)
    at = fields.String()
    submission_id = fields.String()
    reason = fields.String()
