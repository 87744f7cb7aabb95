"""The ops' review, flags and actions: /api/v1/ops."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.flags import DESCRIPTIONS
from service.ops.audit import CURSOR_RE

from .common import StrictSchema
from .submissions import SUBMISSION_STATUSES


OPS_MAX_LIST = 1000


class OpsListQuerySchema(StrictSchema):
    limit = fields.Integer(load_default=500, validate=validate.Range(1, OPS_MAX_LIST))
    offset = fields.Integer(load_default=0, validate=validate.Range(0, 100_000_000))


class OpsSubmissionsQuerySchema(OpsListQuerySchema):
    status = fields.String(validate=validate.OneOf(SUBMISSION_STATUSES),
                           metadata={"description": "only the submissions of this status"})


class OpsPendingQuerySchema(StrictSchema):
    status = fields.String(validate=validate.OneOf(["queued", "delayed"]))


class ReasonSchema(StrictSchema):
    reason = fields.String(required=True, validate=validate.Length(1, 1000))


class DisqualifySchema(ReasonSchema):
    public_reason = fields.String(validate=validate.Length(1, 1000), metadata={
        "description": "what the player reads (GET /submissions/{id} reason.message); reason stays ops'"})


class AuditQuerySchema(StrictSchema):
    limit = fields.Integer(load_default=100, validate=validate.Range(1, OPS_MAX_LIST))
    offset = fields.Integer(load_default=0, validate=validate.Range(0, 100_000_000))
    before = fields.String(validate=validate.Length(1, 41), metadata={
        "pattern": f"^{CURSOR_RE.pattern}$",
        "description": "the cursor: entries older than this entry id (a page's next); 422 bad_cursor otherwise"})
    who = fields.String(validate=validate.Length(1, 200), metadata={"description": "an operator's name, or name@address"})
    target = fields.String(validate=validate.Length(1, 200), metadata={"description": "a submission, a player, a day…"})
    action = fields.String(validate=validate.Length(1, 64), metadata={"description": "disqualify, restrict, note…"})
    since = fields.String(validate=validate.Length(1, 40), metadata={
        "anyOf": [{"format": "date"}, {"format": "date-time"}],
        "description": "entries at or after a day (from its UTC midnight) or a date-time; 422 bad_since otherwise"})


class FlagSchema(ma.Schema):
    code = fields.String(required=True, metadata={"description": "; ".join(
        f"{code}: {text}" for code, text in DESCRIPTIONS.items())})
    evidence = fields.Dict(required=True)
    description = fields.String(metadata={"description": "what the flag means, in a sentence"})


class OpsSubmissionSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    submission_id = fields.String(required=True)
    run_id = fields.String()
    player = fields.String()
    nickname = fields.String()
    date = fields.String()
    status = fields.String(required=True)
    score = fields.Integer(allow_none=True)
    flags = fields.List(fields.Nested(FlagSchema), required=True,
                        metadata={"description": "suspicions with their evidence; empty when clean"})
    created_at = fields.String()
    verified_at = fields.String(allow_none=True)
    address = fields.String()
    submit_address = fields.String()
    user_agent = fields.String()
    decision = fields.String(allow_none=True)
    decision_reason = fields.String(allow_none=True)
    public_reason = fields.String(allow_none=True, metadata={
        "description": "a disqualification's reason as its player reads it (null: none given)"})
    delayed_at = fields.String(allow_none=True, metadata={"description": "when the verification was found crashed"})
    delay_reason = fields.String(allow_none=True, metadata={"description": "why (the error, or the job's state)"})
    review = fields.Dict(allow_none=True, metadata={
        "description": "the review of the top: phase (checking, held; null once out), until (released with no "
                       "action then), why (the flags, z: the check's evidence), outcome (clean, released, "
                       "auto_released, disqualified); null for a game never reviewed"})


class OpsSubmissionListSchema(ma.Schema):
    submissions = fields.List(fields.Nested(OpsSubmissionSchema), required=True)


class OpsSubmissionDetailSchema(OpsSubmissionSchema):
    cards = fields.List(fields.String())
    play_times_ms = fields.List(fields.Integer())
    run_created_at = fields.String(allow_none=True)
    run_finished_at = fields.String(allow_none=True)
    submit_user_agent = fields.String(metadata={"description": "the submitting client's (user_agent: the run's)"})
    address_runs = fields.List(fields.String())
    token_runs = fields.List(fields.String())
    runs_kept_until = fields.String(metadata={
        "description": "when the day's runs expire (its seed's reveal + MANILLE_RUN_KEEP_HOURS)"})
    runs_expired = fields.Boolean(metadata={
        "description": "the day's runs are gone: address_runs and token_runs are empty; the flags "
                       "keep their evidence"})
    hands_sealed = fields.Boolean(metadata={
        "description": "true while the day is open: record is null and the oracle flag's evidence has no "
                       "choices (the day's hands); POST …/hands with a reason reads them, audited"})
    record = fields.Dict(allow_none=True, metadata={
        "description": "the game; the player's plays carry oracle (perfect-information choice) and, once the "
                       "hidden-information check's analysis is done, analysis (mark, losses, gain); null for "
                       "a game not valid, or while the day is open (hands_sealed)"})
    reason = fields.Dict(allow_none=True)
    hindsight = fields.Dict(allow_none=True, metadata={
        "description": "the hidden-information check's figures (z, gain, var, decisions, departures, drivers, "
                       "thresholds), whether or not they flag; null until computed"})
    hindsight_analysis = fields.Dict(allow_none=True, metadata={
        "description": "the analysis the check reads: analysis_id, status, progress; null if none was asked"})
    hindsight_player = fields.Dict(allow_none=True, metadata={
        "description": "the player's most recent checked games together as of this game's check (games, z, "
                       "gain, var, thresholds), whether or not they flag; null below the minimum of games"})
    caches_catch_up_at = fields.String(metadata={
        "description": "in the answer of an action that changed the boards (disqualify, restore): when every "
                       "public copy of the day's boards, field and travellers, and of its week's, month's and the "
                       "all-time board, shows the change at the latest (a closed day's are kept "
                       "MANILLE_CLOSED_MAX_AGE by caches); the boards by matchpoints follow their rebuild"})


class OpsAnalyseSchema(ma.Schema):
    submission_id = fields.String()
    analysis_id = fields.String()
    analysis = fields.Dict(allow_none=True)


class SeedSchema(ma.Schema):
    date = fields.String()
    seed = fields.String()


class AuditEntrySchema(ma.Schema):
    id = fields.String()
    who = fields.String()
    at = fields.String()
    action = fields.String()
    target = fields.String()
    why = fields.String()
    details = fields.String()


class AuditSchema(ma.Schema):
    entries = fields.List(fields.Nested(AuditEntrySchema))
    next = fields.String(allow_none=True, metadata={
        "description": "the before of the next page of the same filters; null: no older entry matches"})


class JobSchema(ma.Schema):
    job_id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(
        ["queued", "started", "deferred", "scheduled", "finished", "failed", "stopped", "canceled"]))
    description = fields.String(allow_none=True)
    result = fields.Dict(keys=fields.String(), allow_none=True, metadata={
        "description": "once finished: the job's report (a day's rebuild: removed, recorded and "
                       "caches_catch_up_at, when every public copy of its boards shows it at the latest)"})
    status_url = fields.String()


class OptionalReasonSchema(StrictSchema):
    reason = fields.String(load_default="", validate=validate.Length(max=1000))


class RequeueSchema(ma.Schema):
    submission_id = fields.String(required=True)
    requeued = fields.Boolean(required=True, metadata={
        "description": "false: RQ already had it queued, scheduled for a retry or running (nothing changed)"})
    status = fields.String(required=True)


class RequeueListSchema(ma.Schema):
    requeued = fields.List(fields.Nested(RequeueSchema), required=True)


class OpsReviewQuerySchema(StrictSchema):
    limit = fields.Integer(load_default=200, validate=validate.Range(1, OPS_MAX_LIST))


class OpsReviewEntrySchema(OpsSubmissionSchema):
    hindsight = fields.Dict(allow_none=True, metadata={
        "description": "the check's figures and the decisions that drove them (drivers); null while it runs"})
    hindsight_player = fields.Dict(allow_none=True)
    pace = fields.Dict(metadata={"description": "cards, median_ms and fastest_ms between them, game_seconds"})
    fast_runs = fields.List(fields.Dict(), metadata={
        "description": "the day's runs from the game's address (an IPv6 /64) never submitted and played "
                       "within 120 s of their opening: run_id, cards, status, created_at, finished_at, seconds"})


class OpsReviewSchema(ma.Schema):
    submissions = fields.List(fields.Nested(OpsReviewEntrySchema), required=True, metadata={
        "description": "the games in review, the highest score first"})
