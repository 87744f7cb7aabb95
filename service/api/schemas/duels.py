"""Duels ("Challenge a friend"): /api/v1/duels, /api/v1/runs/{id}/duel."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate


class DuelDealSchema(ma.Schema):
    deal = fields.Integer(required=True, metadata={"description": "the deal's index in the game, from 0"})
    us = fields.Integer(required=True, metadata={"description": "card points of the player's side"})
    them = fields.Integer(required=True)
    mp = fields.Float(required=True, allow_none=True, metadata={
        "description": "matchpoints against the duel's other results on this deal: 100 × (beaten + tied / 2) / "
                       "(results − 1); null when no other result played it"})


class DuelResultSchema(ma.Schema):
    result_id = fields.String(required=True, metadata={"description": "names the result (its analysis, its record)"})
    nickname = fields.String(required=True, allow_none=True, metadata={"description": "null: the player has none"})
    challenger = fields.Boolean(required=True)
    you = fields.Boolean(required=True, metadata={"description": "the caller's own result"})
    score = fields.Integer(required=True, metadata={"description": "rank score, 1000 + 10 × (us − them)"})
    totals = fields.List(fields.Integer(), required=True)
    winner = fields.String(required=True, validate=validate.OneOf(["us", "them"]))
    mp = fields.Float(required=True, allow_none=True, metadata={"description": "the mean of its deals' matchpoints"})
    deals = fields.List(fields.Nested(DuelDealSchema), required=True)


class DuelHeadSchema(ma.Schema):
    nickname = fields.String(required=True, allow_none=True)
    score = fields.Integer(required=True, allow_none=True, metadata={"description": "the score to beat"})


class DuelSchema(ma.Schema):
    duel_id = fields.String(required=True, metadata={"description": "the code of the link; no clue to the deals"})
    url = fields.String(required=True, metadata={"description": "the link's path on the site"})
    kind = fields.String(required=True, validate=validate.OneOf(["random", "archive"]),
                         metadata={"description": "the game it deals again: free play or an archive day"})
    date = fields.String(required=True, allow_none=True, metadata={"description": "an archive day's date"})
    rules = fields.String(required=True)
    target = fields.Integer(required=True, allow_none=True)
    bots = fields.String(required=True)
    created_at = fields.String(required=True)
    expires_at = fields.String(required=True, metadata={"description": "7 days after it was made"})
    challenger = fields.Nested(DuelHeadSchema, required=True)
    you = fields.String(required=True, allow_none=True, metadata={
        "description": "challenger, friend (a run of it opened) or null"})
    run_id = fields.String(required=True, allow_none=True, metadata={"description": "the caller's run of it"})
    done = fields.Boolean(required=True, metadata={
        "description": "whether the caller sees the results: the challenger, or a friend whose game is over"})
    players = fields.Integer(required=True, metadata={"description": "finished games on it, the challenger's included"})
    results = fields.List(fields.Nested(DuelResultSchema), required=True, metadata={
        "description": "every finished game deal by deal (empty until the caller is done): the challenger's, the "
                       "caller's, then the others as they finished"})
