"""The ratings: /api/v1/players/{nickname}, /api/v1/ratings, a league's ratings."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.ratings import MAX_PAGE

from .common import StrictSchema


class RatingsQuerySchema(StrictSchema):
    offset = fields.Integer(load_default=0, validate=validate.Range(0, 100_000_000))
    limit = fields.Integer(load_default=20, validate=validate.Range(1, MAX_PAGE))


class RatingSchema(ma.Schema):
    value = fields.Integer(required=True, metadata={"description": "the Glicko-2 rating (1500 at first)"})
    deviation = fields.Integer(required=True, metadata={
        "description": "its deviation (350 at first), widened by every day rated since the player's last"})
    games = fields.Integer(required=True, metadata={"description": "days rated"})
    provisional = fields.Boolean(required=True, metadata={"description": "deviation above 110"})


class HistoryPointSchema(ma.Schema):
    date = fields.String(required=True)
    value = fields.Integer(required=True, metadata={"description": "the rating after the day"})
    deviation = fields.Integer(required=True)
    mp = fields.Float(required=True, metadata={"description": "the day's matchpoints (%)"})
    change = fields.Integer(allow_none=True, required=True, metadata={
        "description": "the rating's change over the day (null on the first day rated)"})


class BestDaySchema(ma.Schema):
    date = fields.String(required=True)
    mp = fields.Float(required=True)
    value = fields.Integer(required=True)


class ProfileSchema(ma.Schema):
    nickname = fields.String(required=True, allow_none=True, metadata={
        "description": "null: the caller holds no nickname yet (GET /players/me/rating)"})
    rating = fields.Nested(RatingSchema, required=True)
    history = fields.List(fields.Nested(HistoryPointSchema), required=True, metadata={
        "description": "every day rated, oldest first"})
    streak = fields.Integer(required=True, metadata={"description": "days in a row with a verified score"})
    days_played = fields.Integer(required=True, metadata={"description": "days rated"})
    best_days = fields.List(fields.Nested(BestDaySchema), required=True, metadata={
        "description": "the three days of best matchpoints, best first"})


class RatingEntrySchema(ma.Schema):
    rank = fields.Integer(required=True)
    player = fields.String(required=True, metadata={"description": "public player id (not the token)"})
    nickname = fields.String(required=True)
    value = fields.Integer(required=True)
    deviation = fields.Integer(required=True)
    games = fields.Integer(required=True)
    provisional = fields.Boolean(required=True)


class RatingBoardSchema(ma.Schema):
    total = fields.Integer(required=True, metadata={"description": "players on the rating board"})
    offset = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    through = fields.String(allow_none=True, required=True, metadata={"description": "the last day rated"})
    entries = fields.List(fields.Nested(RatingEntrySchema), required=True)


class LeagueRatingEntrySchema(ma.Schema):
    rank = fields.Integer(required=True, metadata={"description": "among the league's members with a rating"})
    nickname = fields.String(required=True)
    value = fields.Integer(required=True)
    deviation = fields.Integer(required=True)
    games = fields.Integer(required=True)
    provisional = fields.Boolean(required=True)
    me = fields.Boolean(required=True, metadata={"description": "the caller's entry"})


class LeagueRatingsSchema(ma.Schema):
    league_id = fields.String(required=True)
    through = fields.String(allow_none=True, required=True)
    entries = fields.List(fields.Nested(LeagueRatingEntrySchema), required=True, metadata={
        "description": "the members with a rating, best first, ranked among them"})
