"""Duplicate results: the field of a day's deals, a game's deals against it, a deal's traveller,
the matchpoint boards."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.duplicate import BUCKETS, MAX_PAGE, MAX_TRAVELLER_PAGE

MP = "matchpoints of a result on a deal: 100 × (beaten + tied / 2) / (results − 1); null when it is alone"


class TravellerQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    offset = fields.Integer(load_default=0, validate=validate.Range(0, 100_000_000))
    limit = fields.Integer(load_default=20, validate=validate.Range(1, MAX_TRAVELLER_PAGE))


class MatchpointQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    offset = fields.Integer(load_default=0, validate=validate.Range(0, 100_000_000))
    limit = fields.Integer(load_default=20, validate=validate.Range(1, MAX_PAGE))


class DealFieldSchema(ma.Schema):
    deal = fields.Integer(required=True, metadata={"description": "the deal's index in the game record, from 0"})
    results = fields.Integer(required=True, metadata={"description": "counted games that played this deal"})
    mean = fields.Float(required=True, metadata={"description": "their mean card points (the player's side)"})
    counts = fields.List(fields.Integer(), required=True, validate=validate.Length(equal=BUCKETS), metadata={
        "description": "counts[p]: counted games whose side (seat 0 and its partner) took p card points"})


class DayFieldSchema(ma.Schema):
    date = fields.String(required=True)
    results = fields.Integer(required=True, metadata={"description": "counted games of the day"})
    deals = fields.List(fields.Nested(DealFieldSchema), required=True, metadata={
        "description": "the deals some counted game played, in order; the later deals of a day are "
                       "played by fewer games (a game ends at 40)"})


class GameDealSchema(ma.Schema):
    deal = fields.Integer(required=True)
    us = fields.Integer(required=True, metadata={"description": "card points of the player's side"})
    them = fields.Integer(required=True)
    results = fields.Integer(required=True, metadata={"description": "results on this deal, this game's included"})
    beaten = fields.Integer(required=True, metadata={"description": "other results with fewer card points"})
    tied = fields.Integer(required=True, metadata={"description": "other results with the same card points"})
    mp = fields.Float(required=True, allow_none=True, metadata={"description": MP + " (one decimal)"})


class SubmissionDealsSchema(ma.Schema):
    submission_id = fields.String(required=True)
    date = fields.String(required=True)
    counted = fields.Boolean(required=True, metadata={
        "description": "whether this game is in the field (a held or disqualified game is compared with it, "
                       "as one more result, but is not in it)"})
    mp = fields.Float(required=True, allow_none=True, metadata={
        "description": "the game's matchpoints: the mean over its deals that at least two played"})
    deals = fields.List(fields.Nested(GameDealSchema), required=True)


class TravellerEntrySchema(ma.Schema):
    rank = fields.Integer(required=True, metadata={"description": "shared by equal card points (1, 2, 2, 4)"})
    player = fields.String(required=True, metadata={"description": "public player id (not the token)"})
    nickname = fields.String(required=True)
    us = fields.Integer(required=True)
    them = fields.Integer(required=True)
    mp = fields.Float(required=True, allow_none=True, metadata={"description": MP + " (one decimal)"})
    submission_id = fields.String(required=True, allow_none=True, metadata={
        "description": "the game, whose record (GET /submissions/{id}/record) shows how this deal was played"})


class TravellerSchema(DealFieldSchema):
    date = fields.String(required=True)
    offset = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    entries = fields.List(fields.Nested(TravellerEntrySchema), required=True, metadata={
        "description": "best card points first; equal card points in the order the games were verified"})


class MatchpointEntrySchema(ma.Schema):
    rank = fields.Integer(required=True)
    player = fields.String(required=True)
    nickname = fields.String(required=True)
    mp = fields.Float(required=True, metadata={
        "description": "a day: the game's matchpoints (the mean over its deals); a week or a month: the mean of "
                       "the player's daily matchpoints"})
    days = fields.Integer(metadata={"description": "weeks and months: the days counted"})
    position = fields.Integer()


class MatchpointBoardSchema(ma.Schema):
    board = fields.String(required=True, metadata={"description": "day, week or month"})
    period = fields.String(required=True)
    scoring = fields.String(required=True, metadata={"description": "always matchpoints"})
    final = fields.Boolean(required=True, metadata={
        "description": "false while provisional: a day's board until the day has closed and every verification of "
                       "it is done; a week's or a month's until its last day's board is final"})
    built_at = fields.String(required=True, allow_none=True, metadata={
        "description": "when the board was computed (null: not yet); a day's is computed again at most every "
                       "MANILLE_MATCHPOINTS_SECONDS while the day is open, a verified game placed on it meanwhile "
                       "(placed)"})
    games = fields.Integer(required=True, metadata={"description": "games (a period: players) on the board"})
    placed = fields.Integer(metadata={
        "description": "a day: games verified since the board was built, each placed on it at once by its own "
                       "matchpoints against the field so far (as its result shows them), among the build's entries"})
    days_counted = fields.Integer(metadata={"description": "weeks and months: the closed days the board counts"})
    total = fields.Integer(required=True)
    offset = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    entries = fields.List(fields.Nested(MatchpointEntrySchema), required=True)
    me = fields.Nested(MatchpointEntrySchema, allow_none=True, metadata={
        "description": "the caller's entry (null when not on the board): only when a player token is sent"})
