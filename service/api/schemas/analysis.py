"""Analyses of a finished game: /api/v1/runs/…/analysis, /api/v1/analyses/…."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate


class AnalysisProgressSchema(ma.Schema):
    done = fields.Integer(required=True, metadata={"description": "decisions analysed"})
    total = fields.Integer(required=True, metadata={"description": "decisions in the game (0 until it starts)"})


class AnalysisAcceptedSchema(ma.Schema):
    analysis_id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["queued", "started", "finished", "failed"]))
    status_url = fields.String(required=True)
    progress = fields.Nested(AnalysisProgressSchema, required=True)


class CardValuesSchema(ma.Schema):
    open = fields.Integer(required=True, metadata={
        "description": "exact card points the seat's team takes from this trick to the end of the deal "
                       "after this card, all four hands open (with hindsight)"})
    seat = fields.Float(allow_none=True, required=True, metadata={
        "description": "the same, averaged over the deals of the hidden cards that agreed with what the seat "
                       "knew (from the seat); null for a forced card"})
    seat_se = fields.Float(allow_none=True, required=True, metadata={"description": "standard error of seat"})


class DecisionSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    deal = fields.Integer(required=True)
    trick = fields.Integer(required=True)
    seat = fields.Integer(required=True, metadata={"description": "0 the player, 2 the partner"})
    played = fields.String(required=True)
    forced = fields.Boolean(required=True, metadata={"description": "one legal card: no decision"})
    legal = fields.Dict(keys=fields.String(), values=fields.Nested(CardValuesSchema), required=True)
    best_open = fields.List(fields.String(), required=True)
    best_seat = fields.List(fields.String(), required=True)
    lost_open = fields.Integer(required=True, metadata={"description": "best open value less the played card's"})
    lost_seat = fields.Float(required=True, metadata={"description": "best from-the-seat value less the played card's"})
    lost_seat_se = fields.Float(required=True, metadata={"description": "its standard error (paired, same deals)"})
    mark = fields.String(required=True, validate=validate.OneOf(
        ["forced", "best", "good", "inaccuracy", "mistake", "blunder"]), metadata={
        "description": "by lost_seat, only when beyond the sampling error (docs/analysis.md)"})
    hindsight = fields.String(required=True, metadata={"description": "the same bands on lost_open"})
    exact = fields.Boolean(metadata={"description": "every consistent deal was solved"})
    baseline = fields.String(metadata={"description": "the day's bot's card here: the hidden-information check's reference"})
    luck = fields.Dict(metadata={"description": "the check's gain over the baseline and its null variance"})
    worlds = fields.Integer(metadata={"description": "deals the seat values are the mean of"})
    consistent = fields.String(metadata={"description": "how many deals agreed with the seat's knowledge"})


class AnalysisDocumentSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    format = fields.String(required=True)
    analysis = fields.String(required=True, metadata={"description": "the settings' id (analysis-1)"})
    rules = fields.String(required=True)
    bots = fields.String(required=True)
    seed = fields.String(required=True)
    seats = fields.List(fields.Integer(), required=True)
    from_trick = fields.Integer(metadata={"description": "the first trick of each deal analysed (0: all)"})
    totals = fields.List(fields.Integer(), metadata={"description": "the game's final totals, us and them"})
    rank_score = fields.Integer()
    decisions = fields.List(fields.Nested(DecisionSchema), required=True)
    summary = fields.Dict(keys=fields.String(), values=fields.Dict(), required=True, metadata={
        "description": "by seat: accuracy, accuracy_open, lost_seat, lost_open, marks, by_deal, costliest, "
                       "hindsight"})


class AnalysisStatusSchema(ma.Schema):
    analysis_id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["queued", "started", "finished", "failed"]))
    progress = fields.Nested(AnalysisProgressSchema, required=True)
    error = fields.Dict(allow_none=True, required=True, metadata={
        "description": "failed: error (invalid_game with the verifier's rejection, analysis_unsupported, "
                       "analysis_failed) and message"})
    analysis = fields.Nested(AnalysisDocumentSchema, allow_none=True, required=True)
