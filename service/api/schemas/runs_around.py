"""The day's runs around a game: /api/v1/ops/submissions/{id}/runs (``service.runs.around``)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields


class LeftSchema(ma.Schema):
    index = fields.Integer(required=True, metadata={"description": "the player's card number in the game (0-based)"})
    deal = fields.Integer(required=True, metadata={"description": "the deal, counted from 0 as everywhere in the API"})
    trick = fields.Integer(required=True, metadata={"description": "the trick of that deal, counted from 0"})
    played = fields.String(required=True, metadata={"description": "the card the game played there"})
    tried = fields.String(required=True, metadata={"description": "the card the run played instead"})
    decision = fields.Boolean(required=True, metadata={"description": "false where the game's card was forced"})


class PaceSchema(ma.Schema):
    median_ms = fields.Integer(allow_none=True, metadata={"description": "median time between the run's cards"})
    seconds = fields.Float(required=True, metadata={"description": "from the run's first card to its last"})


class AroundRunSchema(ma.Schema):
    run_id = fields.String(required=True)
    followed = fields.Integer(required=True, metadata={"description": "how many of the game's cards the run played first"})
    left = fields.Nested(LeftSchema, allow_none=True, metadata={
        "description": "where the run left the game's line; null if it played it whole or stopped on it"})
    whole = fields.Boolean(required=True, metadata={"description": "the run played exactly the game's cards"})
    cards = fields.Integer(required=True, metadata={"description": "the run's cards"})
    finished = fields.Boolean(required=True)
    submitted = fields.Boolean(required=True)
    submission_id = fields.String(allow_none=True)
    opened_at = fields.String(required=True)
    finished_at = fields.String(allow_none=True)
    pace = fields.Nested(PaceSchema, required=True)
    network = fields.String(required=True, metadata={"description": "the client's IPv4 address or IPv6 /64"})
    user_agent = fields.String(required=True)
    token_age_seconds = fields.Integer(allow_none=True, metadata={
        "description": "how long the run's token had existed when the run opened"})


class EarlierSchema(ma.Schema):
    index = fields.Integer(required=True)
    deal = fields.Integer(required=True)
    trick = fields.Integer(required=True)
    runs = fields.Integer(required=True, metadata={
        "description": "runs of the day that left the game's line at this card or stopped there, whenever opened"})


class RunsAroundSchema(ma.Schema):
    submission_id = fields.String(required=True)
    runs = fields.List(fields.Nested(AroundRunSchema), required=True, metadata={
        "description": "the day's runs, of any token or address, opened before the game was submitted, that "
                       "followed at least followed_from of its cards; the deepest first"})
    followed_from = fields.Integer(required=True, metadata={
        "description": "the shallowest depth at which at most 500 runs are listed (0, every run of the day, unless the day has more)"})
    earlier = fields.List(fields.Nested(EarlierSchema), required=True, metadata={
        "description": "runs that left sooner, counted by the card where they left, not listed"})
