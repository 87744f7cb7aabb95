"""The operator's desk (/api/v1/ops/players, /ops/reports, /ops/appeals, /ops/export): a player's
case, restrictions, notes, reports, appeals and the case file."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .common import JsonInteger, StrictSchema
from .ops import OPS_MAX_LIST, OpsSubmissionSchema


class RestrictSchema(StrictSchema):
    reason = fields.String(required=True, validate=validate.Length(1, 1000), metadata={
        "description": "what the player reads (GET /players/me restricted.reason)"})
    days = JsonInteger(validate=validate.Range(1, 3650), metadata={
        "description": "the restriction lapses after this many days; without: until lifted"})


class NoteSchema(StrictSchema):
    text = fields.String(required=True, validate=validate.Length(1, 4000))


class NoteEntrySchema(ma.Schema):
    who = fields.String()
    at = fields.String()
    text = fields.String()


class RestrictionSchema(ma.Schema):
    reason = fields.String()
    since = fields.String(allow_none=True)
    until = fields.String(allow_none=True, metadata={"description": "null: until lifted"})
    by = fields.String(metadata={"description": "the operator who restricted (name@address)"})


class OpsReportSchema(ma.Schema):
    report_id = fields.String()
    at = fields.String()
    reporter = fields.String(metadata={"description": "the reporting player's id"})
    submission_id = fields.String()
    player = fields.String(metadata={"description": "the reported game's player"})
    reason = fields.String()
    reports_on_game = fields.Integer(metadata={"description": "how many players reported this game"})
    game = fields.Nested(OpsSubmissionSchema, allow_none=True, metadata={
        "description": "the game with its status, score, flags and evidence (ops' listing)"})


class OpsAppealSchema(ma.Schema):
    appeal_id = fields.String()
    at = fields.String()
    player = fields.String()
    text = fields.String()
    kind = fields.String(metadata={"description": "restriction | disqualification"})
    submission_id = fields.String(allow_none=True, metadata={"description": "the disqualified game"})
    decided_by = fields.String(metadata={"description": "who decided what is appealed: another operator answers"})
    status = fields.String(metadata={"description": "open | answered"})
    decision = fields.String(allow_none=True, metadata={"description": "upheld | granted"})
    answer = fields.String(allow_none=True)
    answered_by = fields.String(allow_none=True)
    answered_at = fields.String(allow_none=True)
    game = fields.Nested(OpsSubmissionSchema, allow_none=True)
    restricted = fields.Nested(RestrictionSchema, allow_none=True)


class PlayerCaseSchema(ma.Schema):
    player = fields.String(required=True)
    nickname = fields.String(allow_none=True)
    restricted = fields.Nested(RestrictionSchema, allow_none=True, metadata={"description": "null: not restricted"})
    games = fields.List(fields.Nested(OpsSubmissionSchema), metadata={
        "description": "every game indexed, newest first, with score, flags and decision"})
    notes = fields.List(fields.Nested(NoteEntrySchema), metadata={"description": "newest first"})
    addresses = fields.List(fields.Dict(), metadata={
        "description": "each address the games came from: address, network (/64 for IPv6), games, first, last"})
    user_agents = fields.List(fields.Dict(), metadata={"description": "user_agent, games, last"})
    others = fields.List(fields.Dict(), metadata={
        "description": "the other players who submitted from the same networks: player, nickname, "
                       "networks, restricted"})
    reports = fields.List(fields.Nested(OpsReportSchema), metadata={"description": "reports on the player's games"})
    appeals = fields.List(fields.Nested(OpsAppealSchema))
    caches_catch_up_at = fields.String(allow_none=True, metadata={
        "description": "in a restrict's or lift's answer: when every public copy of the boards it changed "
                       "shows the change at the latest (null: no board changed)"})


class OpsListPageSchema(StrictSchema):
    limit = fields.Integer(load_default=100, validate=validate.Range(1, OPS_MAX_LIST))
    offset = fields.Integer(load_default=0, validate=validate.Range(0, 100_000_000))


class OpsReportListSchema(ma.Schema):
    reports = fields.List(fields.Nested(OpsReportSchema), required=True)
    total = fields.Integer(required=True)


class OpsAppealsQuerySchema(OpsListPageSchema):
    status = fields.String(validate=validate.OneOf(["open", "answered"]))


class OpsAppealListSchema(ma.Schema):
    appeals = fields.List(fields.Nested(OpsAppealSchema), required=True)


class AnswerSchema(StrictSchema):
    decision = fields.String(required=True, validate=validate.OneOf(["upheld", "granted"]), metadata={
        "description": "granted undoes what was appealed (the restriction lifted, the game restored)"})
    text = fields.String(required=True, validate=validate.Length(1, 4000), metadata={
        "description": "the answer the player reads"})


class CaseFileSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    kind = fields.String(required=True, metadata={"description": "submission | player"})
    exported_at = fields.String()
    exported_by = fields.String()
    submission = fields.Dict(allow_none=True, metadata={
        "description": "the game in full (as GET /ops/submissions/{id}, record and replay included once "
                       "its day is closed), flags and evidence"})
    runs_around = fields.Raw(allow_none=True, metadata={
        "description": "the day's runs around the game (null: not available on this service)"})
    player = fields.Nested(PlayerCaseSchema)
    audit = fields.List(fields.Dict(), metadata={
        "description": "every audit entry on the game, the player and their games and appeals, newest first"})
