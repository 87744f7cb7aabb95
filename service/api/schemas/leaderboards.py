"""The boards and their histograms: /api/v1/leaderboards."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.leaderboard import MAX_DAYS, MAX_PAGE, MAX_RADIUS
from service.seeds import FIRST_DAY

from .common import Day, StrictSchema


class PageQuerySchema(StrictSchema):
    offset = fields.Integer(load_default=0, validate=validate.Range(0, 100_000_000))
    limit = fields.Integer(load_default=20, validate=validate.Range(1, MAX_PAGE))


class AroundQuerySchema(StrictSchema):
    radius = fields.Integer(load_default=5, validate=validate.Range(0, MAX_RADIUS))


class EntrySchema(ma.Schema):
    rank = fields.Integer(required=True)
    player = fields.String(required=True, metadata={"description": "public player id (not the token)"})
    nickname = fields.String(required=True)
    score = fields.Integer(metadata={"description": "day boards: the rank score"})
    margin = fields.Integer(metadata={"description": "period boards: summed score − 1000"})
    days = fields.Integer(metadata={"description": "period boards: days played"})
    position = fields.Integer()
    submission_id = fields.String(metadata={
        "description": "a closed day's board: the submission of each of the day's best games (above its 99th "
                       "percentile or in its first thousand), to open in the analysis (POST /submissions/{id}/analysis); "
                       "a day board's `me`: the caller's own game, whichever of the player's devices asks"})


class BoardPageSchema(ma.Schema):
    board = fields.String(required=True)
    period = fields.String(required=True)
    total = fields.Integer(required=True)
    offset = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    entries = fields.List(fields.Nested(EntrySchema), required=True)
    me = fields.Nested(EntrySchema, allow_none=True, metadata={
        "description": "the caller's entry (null when not on the board): only when a player token is sent"})


class DaysQuerySchema(StrictSchema):
    before = Day(load_default=None, allow_none=False, metadata={
        "description": "list the closed days before this one (absent, or any later day: today); "
                       f"the service's days begin {FIRST_DAY}: before it the list is empty"})
    limit = fields.Integer(load_default=30, validate=validate.Range(1, MAX_DAYS))


class DayEntrySchema(ma.Schema):
    rank = fields.Integer(required=True)
    score = fields.Integer(required=True, metadata={"description": "the rank score counted that day"})


class DayPlayedSchema(ma.Schema):
    date = fields.String(required=True)
    players = fields.Integer(required=True, metadata={"description": "players on the day's board"})
    me = fields.Nested(DayEntrySchema, allow_none=True, metadata={
        "description": "the caller's entry on the day's board (null: no counted score that day): only when "
                       "a player token is sent"})


class PlayedDaysSchema(ma.Schema):
    days = fields.List(fields.Nested(DayPlayedSchema), required=True)


class HistogramBinSchema(ma.Schema):
    score = fields.Integer()
    count = fields.Integer()


class HistogramSchema(ma.Schema):
    date = fields.String(required=True)
    total = fields.Integer(required=True)
    bins = fields.List(fields.Nested(HistogramBinSchema), required=True)
