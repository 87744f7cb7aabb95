"""Marshmallow schemas of every request and response body of /api/v1."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.leaderboard import MAX_PAGE, MAX_RADIUS
from service.replay import RULES
from service.seeds import InvalidDateError, parse_date


class StrictSchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE


# -- errors -------------------------------------------------------------------

class ErrorSchema(ma.Schema):
    """The one error envelope; the details present depend on the code."""

    class Meta:
        unknown = ma.INCLUDE  # open to details, so adding one never breaks a client's validation

    error = fields.String(required=True, metadata={"description": "stable error code"})
    message = fields.String(required=True, metadata={"description": "for people; may change"})
    fields_ = fields.Dict(data_key="fields", keys=fields.String(), metadata={
        "description": "validation_error: the offending fields and what is wrong with each"})
    card = fields.String(metadata={"description": "illegal_card, call_expected: the card refused"})
    call = fields.String(metadata={"description": "illegal_call, card_expected: the call refused"})
    obligation = fields.String(metadata={"description": "illegal_card: the obligation it breaks (RULES §7)"})
    legal = fields.List(fields.String(), metadata={
        "description": "illegal_card, card_expected: the cards that were legal; illegal_call, call_expected: "
                       "the calls that were"})
    allowed = fields.List(fields.Raw(), metadata={
        "description": "unknown_rules: the rules ids; unknown_target: the targets these rules allow"})
    expected_turn = fields.Integer(metadata={"description": "wrong_turn: the turn to play"})
    run_id = fields.String(metadata={"description": "already_played: the player's ranked run of the day"})
    reveal_at = fields.String(metadata={"description": "day_closed, record_sealed: when the seed is published"})


# -- challenges ---------------------------------------------------------------

class ChallengeSchema(ma.Schema):
    date = fields.String(required=True)
    rules = fields.String(required=True)
    bots = fields.String(required=True)
    commitment = fields.String(required=True, metadata={"description": "hex SHA-256 of the seed"})
    opens_at = fields.String(required=True)
    closes_at = fields.String(required=True)
    reveal_at = fields.String(required=True, metadata={"description": "when the seed is published"})
    status = fields.String(required=True, validate=validate.OneOf(["open", "closing", "closed"]))
    seed = fields.String(allow_none=True, metadata={"description": "null until the day has closed"})


# -- runs ---------------------------------------------------------------------

class RunCreateSchema(StrictSchema):
    kind = fields.String(load_default="daily", validate=validate.OneOf(["daily", "random"]), metadata={
        "description": "daily (default): today's ranked run, or the archive run of ``date``; "
                       "random: free play on a fresh random deal (no date)"})
    date = fields.String(load_default=None, validate=validate.Length(max=32),
                         metadata={"description": "YYYY-MM-DD; default today (ranked). "
                                                  "A past day whose seed is public gives an archive run."})
    # The allowed values are documented (``enum``), and checked by the service, which answers the
    # typed unknown_rules / unknown_target with ``allowed`` rather than a bare validation error.
    rules = fields.String(load_default=None, validate=validate.Length(1, 32), metadata={
        "enum": list(RULES), "description": "random only: muette-1 (default), parlee-1 or manillen-1; another id is 422 "
                       "unknown_rules with ``allowed``"})
    target = fields.Integer(load_default=None, strict=True, metadata={
        "enum": sorted({t for r in RULES.values() for t in r.targets}), "description": "random only: the game target (parlee-1: 101, the default, or 51; muette-1: 40; "
                       "manillen-1: 21); another is 422 unknown_target with ``allowed``"})

    @ma.validates_schema
    def _random_has_no_date(self, data, **_kwargs):
        if data.get("kind") == "random" and data.get("date") is not None:
            raise ma.ValidationError("a random deal has no date", field_name="date")
        for name in ("rules", "target"):
            if data.get(name) is not None and data.get("kind") != "random":
                raise ma.ValidationError("only free play (kind random) chooses its rules", field_name=name)

    @ma.validates("date")
    def _a_day(self, value, **_kwargs):
        if value is not None:
            try:
                parse_date(value)
            except InvalidDateError as e:
                raise ma.ValidationError(str(e)) from None


class PlaySchema(StrictSchema):
    """One action of the player: ``card``, or under rules with an auction ``call`` (exactly one)."""

    turn = fields.Integer(required=True, strict=True, validate=validate.Range(0, 10_000),
                          metadata={"description": "how many actions (cards and calls) the player had "
                                                   "taken before this one"})
    card = fields.String(validate=validate.Length(1, 16), metadata={"description": "e.g. TH"})
    call = fields.String(validate=validate.Length(1, 16), metadata={
        "description": "C, D, H, S (trump), NT (no trump), pass, double or redouble"})

    @ma.validates_schema
    def _one_action(self, data, **_kwargs):
        if ("card" in data) == ("call" in data):
            raise ma.ValidationError("send exactly one of card and call", field_name="card")


class PlaySeatSchema(ma.Schema):
    seat = fields.Integer()
    card = fields.String()


class CallSeatSchema(ma.Schema):
    seat = fields.Integer()
    call = fields.String(metadata={"description": "C D H S NT pass double redouble"})


class ContractSchema(ma.Schema):
    declarer = fields.Integer(metadata={"description": "the seat that named or chose the trump"})
    call = fields.String(metadata={"description": "C, D, H, S or NT"})
    trump = fields.String(allow_none=True, metadata={"description": "null: no trump"})
    doubled = fields.Integer(metadata={"description": "0, 1 (doubled) or 2 (redoubled)"})
    factor = fields.Integer(metadata={"description": "the contract's own factor: x2 no trump (where the "
                                                     "rules say), x2 a double"})


class TrickSchema(ma.Schema):
    deal = fields.Integer()
    leader = fields.Integer()
    plays = fields.List(fields.Nested(PlaySeatSchema))
    winner = fields.Integer()
    points = fields.Integer()


class DealSummarySchema(ma.Schema):
    deal = fields.Integer()
    dealer = fields.Integer()
    turned = fields.String(allow_none=True, metadata={"description": "null under rules with an auction"})
    calls = fields.List(fields.Nested(CallSeatSchema), metadata={"description": "rules with an auction: its calls"})
    contract = fields.Nested(ContractSchema)
    carry = fields.Integer(metadata={"description": "x2 per 30-30 deal just before it (parlee-1)"})
    factor = fields.Integer(metadata={"description": "what its score was multiplied by: contract x carry"})
    points = fields.List(fields.Integer(), metadata={"description": "card points [us, them]"})
    scored = fields.List(fields.Integer(), metadata={"description": "game points scored [us, them]"})
    totals = fields.List(fields.Integer(), metadata={"description": "game totals after it [us, them]"})


class ViewSchema(ma.Schema):
    """Seat 0's view; the keys from ``rules`` on are present only under rules with an auction."""

    seat = fields.Integer()
    deal = fields.Integer()
    dealer = fields.Integer()
    turned = fields.String(allow_none=True, metadata={"description": "null under rules with an auction"})
    trump = fields.String(allow_none=True, metadata={"description": "null while the auction goes on, and "
                                                                    "for no trump"})
    turned_holder = fields.Integer(allow_none=True,
                                   metadata={"description": "the dealer while the turned card is in hand"})
    hand = fields.List(fields.String())
    legal = fields.List(fields.String(), metadata={"description": "empty unless the player is to move"})
    unplayable = fields.Dict(keys=fields.String(), values=fields.String(), metadata={
        "description": "each card of the hand that may not be played now -> the obligation it "
                       "would break (RULES §7 codes); empty unless the player is to move"})
    to_move = fields.Integer(allow_none=True)
    trick = fields.Nested(TrickSchema)
    last_trick = fields.Nested(TrickSchema, allow_none=True)
    tricks = fields.List(fields.Nested(TrickSchema))
    points = fields.List(fields.Integer(), metadata={"description": "card points this deal [us, them]"})
    totals = fields.List(fields.Integer(), metadata={"description": "game points [us, them]"})
    counts = fields.List(fields.Integer(), metadata={"description": "cards in each seat's hand"})
    deals = fields.List(fields.Nested(DealSummarySchema), metadata={"description": "the deals already scored"})
    rules = fields.String(metadata={"description": "parlee-1 or manillen-1"})
    target = fields.Integer(metadata={"description": "the game target"})
    calls = fields.List(fields.Nested(CallSeatSchema), metadata={"description": "this deal's calls so far"})
    legal_calls = fields.List(fields.String(), metadata={
        "description": "the calls the player may make; empty unless a call of the player's is due"})
    contract = fields.Nested(ContractSchema, allow_none=True, metadata={"description": "null until the "
                                                                                        "auction is over"})
    factor = fields.Integer(metadata={"description": "what this deal's score will be multiplied by"})
    carry = fields.Integer(metadata={"description": "x2 per 30-30 deal just before this one (parlee-1)"})


class ResultSchema(ma.Schema):
    totals = fields.List(fields.Integer())
    winner = fields.String()
    rank_score = fields.Integer(metadata={"description": "preview; the verifier's replay is the truth"})


class EventSchema(ma.Schema):
    """One thing that happened at the table: ``type`` is play, trick, deal_end, deal_start or game_end;
    under rules with an auction also call (``seat`` said ``call``) and contract (the auction is over)."""

    class Meta:
        unknown = ma.INCLUDE

    type = fields.String(required=True)
    seat = fields.Integer()
    card = fields.String()
    deal = fields.Integer()
    trick = fields.Integer()
    winner = fields.Raw()
    team = fields.String()
    points = fields.Raw()
    scored = fields.List(fields.Integer())
    totals = fields.List(fields.Integer())
    dealer = fields.Integer()
    turned = fields.String(allow_none=True)
    trump = fields.String(allow_none=True)
    leader = fields.Integer()
    rank_score = fields.Integer()
    call = fields.String(metadata={"description": "call: what ``seat`` said"})
    contract = fields.Nested(ContractSchema, metadata={"description": "contract: what the deal is played for"})
    factor = fields.Integer(metadata={"description": "contract, deal_end: the deal's score multiplier"})
    carry = fields.Integer(metadata={"description": "deal_start, contract: x2 per 30-30 deal before; "
                                                    "deal_end: the carry it leaves to the next deal"})


class RunSchema(ma.Schema):
    run_id = fields.String(required=True)
    date = fields.String(required=True, metadata={"description": "the challenge's day; a random deal's opening day"})
    kind = fields.String(required=True, validate=validate.OneOf(["ranked", "archive", "random"]))
    ranked = fields.Boolean(required=True)
    rules = fields.String(required=True, metadata={"description": "muette-1; free play also parlee-1, manillen-1"})
    target = fields.Integer(metadata={"description": "the game target (rules with an auction only)"})
    bots = fields.String(required=True)
    bidder = fields.String(metadata={"description": "the bots' bidder (rules with an auction only)"})
    seed = fields.String(allow_none=True, metadata={
        "description": "hex; archive runs always, random deals once finished, ranked runs once revealed"})
    status = fields.String(required=True, validate=validate.OneOf(["playing", "finished"]))
    turn = fields.Integer(required=True, metadata={"description": "actions (cards and calls) the player has taken"})
    view = fields.Nested(ViewSchema, required=True)
    events = fields.List(fields.Nested(EventSchema), metadata={
        "description": "a play: what happened from the player's card on; opening: since the deal; "
                       "GET: everything since the run opened"})
    result = fields.Nested(ResultSchema, allow_none=True)
    submission_id = fields.String(allow_none=True)
    player_token = fields.String(metadata={"description": "only when a new token was issued"})


# -- submissions --------------------------------------------------------------

SUBMISSION_STATUSES = ["queued", "delayed", "verified", "rejected", "held", "disqualified"]


class SubmissionCreateSchema(StrictSchema):
    run_id = fields.String(required=True, validate=validate.Length(1, 64))
    nickname = fields.String(required=True, metadata={
        "description": "1-24 characters (grapheme clusters) of one script, nothing invisible; NFKC, "
                       "trimmed, inner spaces made one; claimed for this player's token. Refusals "
                       "(422): nickname_empty, nickname_too_long, nickname_control, nickname_invisible, "
                       "nickname_unassigned, nickname_mixed_script; 409 nickname_taken (it is, or looks "
                       "like, another player's)"})


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
                       "disqualified: taken off the boards by ops"})
    score = fields.Integer(allow_none=True)
    rank = fields.Integer(allow_none=True, metadata={"description": "current rank on the day's board"})
    reason = fields.Dict(allow_none=True, metadata={"description": "the rejection (RULES §7)"})
    created_at = fields.String()
    verified_at = fields.String(allow_none=True)


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


# -- leaderboards -------------------------------------------------------------

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
                       "percentile or in its first thousand), to open in the analysis (POST /submissions/{id}/analysis)"})


class BoardPageSchema(ma.Schema):
    board = fields.String(required=True)
    period = fields.String(required=True)
    total = fields.Integer(required=True)
    offset = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    entries = fields.List(fields.Nested(EntrySchema), required=True)
    me = fields.Nested(EntrySchema, allow_none=True, metadata={
        "description": "the caller's entry (null when not on the board): only when a player token is sent"})


class HistogramBinSchema(ma.Schema):
    score = fields.Integer()
    count = fields.Integer()


class HistogramSchema(ma.Schema):
    date = fields.String(required=True)
    total = fields.Integer(required=True)
    bins = fields.List(fields.Nested(HistogramBinSchema), required=True)


# -- players ------------------------------------------------------------------

class TodaySchema(ma.Schema):
    date = fields.String(required=True)
    run_id = fields.String(allow_none=True, metadata={"description": "the player's ranked run of today"})
    status = fields.String(allow_none=True, metadata={"description": "playing | finished, null without a run"})
    submission_id = fields.String(allow_none=True)


class PlayerSchema(ma.Schema):
    player = fields.String(required=True, metadata={"description": "public player id (as on the boards)"})
    nickname = fields.String(allow_none=True, metadata={"description": "the last nickname claimed"})
    streak = fields.Integer(required=True, metadata={"description": "days in a row with a verified score"})
    today = fields.Nested(TodaySchema, required=True)


# -- ops ----------------------------------------------------------------------

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


class FlagSchema(ma.Schema):
    code = fields.String(required=True, metadata={"description": "explored | many_runs | speed | outlier"})
    evidence = fields.Dict(required=True)


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
    delayed_at = fields.String(allow_none=True, metadata={"description": "when the verification was found crashed"})
    delay_reason = fields.String(allow_none=True, metadata={"description": "why (the error, or the job's state)"})


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
    record = fields.Dict(allow_none=True, metadata={
        "description": "the game; the player's plays carry oracle (perfect-information choice) and, once the "
                       "hidden-information check's analysis is done, analysis (mark, losses, gain)"})
    reason = fields.Dict(allow_none=True)
    hindsight = fields.Dict(allow_none=True, metadata={
        "description": "the hidden-information check's figures (z, gain, var, decisions, departures, drivers, "
                       "thresholds), whether or not they flag; null until computed"})
    hindsight_analysis = fields.Dict(allow_none=True, metadata={
        "description": "the analysis the check reads: analysis_id, status, progress; null if none was asked"})
    hindsight_player = fields.Dict(allow_none=True, metadata={
        "description": "the player's most recent checked games together as of this game's check (games, z, "
                       "gain, var, thresholds), whether or not they flag; null below the minimum of games"})


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


class JobSchema(ma.Schema):
    job_id = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "queued, started, finished, failed …"})
    description = fields.String(allow_none=True)
    result = fields.Raw(allow_none=True, metadata={"description": "once finished: the job's report"})
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


# -- health -------------------------------------------------------------------

class HealthSchema(ma.Schema):
    status = fields.String(required=True)
    redis = fields.Boolean(metadata={"description": "the state's Redis answered (a cluster: every master, state ok)"})
    queue_redis = fields.Boolean(metadata={"description": "the queue's Redis answered"})
    redis_cluster = fields.Dict(allow_none=True, metadata={
        "description": "the state's cluster: state, slots_ok, masters, masters_without_replica; null: one Redis"})
    workers = fields.Integer()
    last_worker_seen_seconds = fields.Float(allow_none=True)
    pending = fields.Integer(allow_none=True, metadata={"description": "verifications without a verdict"})
    oldest_queued_seconds = fields.Float(allow_none=True, metadata={
        "description": "since the oldest pending verification (queued or delayed) was accepted"})
    failed = fields.Integer(allow_none=True, metadata={"description": "jobs in RQ's failed registry of the queue"})
    redis_memory_bytes = fields.Integer(allow_none=True, metadata={"description": "Redis's used_memory"})
    redis_maxmemory_bytes = fields.Integer(allow_none=True, metadata={
        "description": "Redis's maxmemory; null when none is set"})
    warnings = fields.List(fields.String(), metadata={
        "description": "redis_memory: Redis uses MANILLE_MEMORY_WARN (default 0.8) of its maxmemory or more; "
                       "no_analysis_worker: analyses are queued and no worker takes the analysis queue; "
                       "redis_unreplicated: a cluster master has no replica connected"})
    analysis = fields.Dict(metadata={"description": "the analysis queue: workers, queued jobs"})


# -- analyses -----------------------------------------------------------------

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


class AnalysisSchema(ma.Schema):
    analysis_id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["queued", "started", "finished", "failed"]))
    progress = fields.Nested(AnalysisProgressSchema, required=True)
    error = fields.Dict(allow_none=True, required=True, metadata={
        "description": "failed: error (invalid_game with the verifier's rejection, analysis_unsupported, "
                       "analysis_failed) and message"})
    analysis = fields.Nested(AnalysisDocumentSchema, allow_none=True, required=True)
