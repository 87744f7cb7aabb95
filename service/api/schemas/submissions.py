"""Submissions and the records they verify: /api/v1/submissions (and a run's record)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .common import NICKNAME_FIELD, StrictSchema


SUBMISSION_STATUSES = ["queued", "delayed", "verified", "rejected", "held", "review", "disqualified", "restricted"]


class SubmissionCreateSchema(StrictSchema):
    run_id = fields.String(required=True, validate=validate.Length(1, 64))
    nickname = fields.String(required=True, metadata={
        **NICKNAME_FIELD, "description": NICKNAME_FIELD["description"] + "; claimed for this player's token"})


class SubmissionAcceptedSchema(ma.Schema):
    submission_id = fields.String(required=True)
    status_url = fields.String(required=True)
    status = fields.String(required=True)


class SubmissionStatusSchema(ma.Schema):
    submission_id = fields.String(required=True)
    run_id = fields.String()
    date = fields.String()
    nickname = fields.String()
    status = fields.String(required=True, validate=validate.OneOf(SUBMISSION_STATUSES), metadata={
        "description": "delayed: the verification crashed (not a rejection) and waits to be run "
                       "again; the submission is kept; "
                       "held: valid, kept off the boards until ops have reviewed it; "
                       "review: valid and at the top of the day, off the boards while it is checked "
                       "or reviewed (review says until when); "
                       "disqualified: taken off the boards by ops; "
                       "restricted: valid, not ranked while ops restrict its player (GET /players/me)"})
    score = fields.Integer(allow_none=True)
    rank = fields.Integer(allow_none=True, metadata={"description": "current rank on the day's board"})
    reason = fields.Dict(allow_none=True, metadata={
        "description": "rejected: the rejection (docs/spec.md §10.3); disqualified, restricted: "
                       "{code, message}, message the reason ops chose to give the player (null if none)"})
    created_at = fields.String()
    verified_at = fields.String(allow_none=True)
    review = fields.Nested("SubmissionReviewSchema", allow_none=True, metadata={
        "description": "a game at the top of the day (status review): the review's phase and until when"})


class SubmissionReviewSchema(ma.Schema):
    phase = fields.String(required=True, validate=validate.OneOf(["checking", "held"]), metadata={
        "description": "checking: its check is running (minutes); held: a person reviews it"})
    until = fields.String(required=True, metadata={
        "description": "when it is ranked at the latest if no one decides otherwise (MANILLE_REVIEW_HOURS)"})


class RecordSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    format = fields.String()
    rules = fields.String()
    target = fields.Integer(metadata={"description": "rules with an auction: the game target"})
    bots = fields.String()
    bidders = fields.String(allow_none=True, metadata={"description": "rules with an auction: the bots' bidder"})
    commitment = fields.String()
    seed = fields.String(allow_none=True)
    deals = fields.List(fields.Dict())
    totals = fields.List(fields.Integer())
    winner = fields.String()
    rank_score = fields.Integer()
