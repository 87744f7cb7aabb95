"""The monthly archive's list."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields


class ArchiveMonthSchema(ma.Schema):
    month = fields.String(required=True, metadata={"description": "YYYY-MM"})
    url = fields.String(required=True, metadata={"description": "the file: gzip JSON lines, the month's days' files"})
    days = fields.Integer(required=True)
    games = fields.Integer(required=True, metadata={"description": "games in the file, all days together"})
    bytes = fields.Integer(required=True, metadata={"description": "the file's size"})
    sha256 = fields.String(required=True, metadata={"description": "SHA-256 of the file's bytes, hex"})


class ArchiveMonthsSchema(ma.Schema):
    licence = fields.String(required=True)
    months = fields.List(fields.Nested(ArchiveMonthSchema), required=True)
