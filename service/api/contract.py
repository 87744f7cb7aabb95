"""The API's contract beyond its schemas, written into the OpenAPI document that flask-smorest builds
from the views (``finish``): each operation's public name (``operationId``), every status it
answers and, for each, its error codes; ``servers``; and the examples of ``examples.json``.

The statuses are what the operation's own work answers (``OPERATIONS``) and what every operation of
its kind shares (``shared``): a body's 400, 413, 415 and 422, a player token's 401, an operator's
401, 403 and 429, a limited route's 429, and everyone's 500 and 503; each code is in
``service.api.codes`` with its status.  The test suite holds every answer it sees against the
finished document (tests/support/contract_check.py)."""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .codes import CODES
from .schemas.events import EVENTS


@dataclass(frozen=True)
class Operation:
    id: str
    #: The statuses the operation's own work answers, each with its codes (the shared ones aside).
    errors: dict[int, tuple[str, ...]] = field(default_factory=dict)
    #: Whether a player's token may be sent but need not be (the answer then shows the caller's own).
    token_optional: bool = False


def op(operation_id: str, *codes: str, token_optional: bool = False) -> Operation:
    """An operation answering ``codes`` (each under its status in ``CODES``)."""
    errors: dict[int, list[str]] = {}
    for code in codes:
        errors.setdefault(CODES[code][0], []).append(code)
    return Operation(operation_id, {status: tuple(c) for status, c in errors.items()}, token_optional)


_SEALED = ("record_sealed",)
_BOARD = ("unknown_date", "unknown_period")
_ME = ("unknown_date", "unknown_period", "not_on_board")
_NICKNAME = ("nickname_taken", "nickname_empty", "nickname_too_long", "nickname_control", "nickname_invisible",
             "nickname_unassigned", "nickname_mark_first", "nickname_mixed_script")
_LEAGUE = ("unknown_league",)

#: Each operation by its endpoint and method.
OPERATIONS: dict[tuple[str, str], Operation] = {
    ("challenges.Today", "GET"): op("getTodaysChallenge"),
    ("challenges.ByDate", "GET"): op("getChallenge", "unknown_date"),
    ("runs.RunList", "POST"): op(
        "createRun", "already_played", "day_closed", "day_open", "unknown_date", "unknown_rules", "unknown_target",
        "unknown_bots", "unknown_duel", "own_duel", "duel_full", "bots_busy", "too_many_requests",
        token_optional=True),
    ("runs.RunById", "GET"): op("getRun", "run_not_found"),
    ("runs.RunRecord", "GET"): op("getRunRecord", "run_not_found", "run_not_finished", *_SEALED),
    ("runs.RunPlays", "POST"): op(
        "playCard", "run_not_found", "wrong_turn", "run_finished", "day_closed", "illegal_card", "unknown_card",
        "illegal_call",
        "unknown_call", "call_expected", "card_expected", "play_unconfirmed", "bots_busy", "bots_failed",
        "too_many_requests"),
    ("submissions.SubmissionList", "POST"): op(
        "submitRun", "run_not_found", "run_not_finished", "practice_run", "day_closed", *_NICKNAME,
        "submission_unconfirmed", "too_many_requests"),
    ("submissions.SubmissionById", "GET"): op("getSubmission", "submission_not_found"),
    ("submissions.SubmissionRecord", "GET"): op("getSubmissionRecord", "submission_not_found", "no_record",
                                                *_SEALED),
    ("analyses.RunAnalysis", "POST"): op(
        "analyseRun", "run_not_found", "run_not_finished", "ranked_run", "day_open", "analysis_unsupported",
        "analysis_queue_full", "too_many_requests"),
    ("analyses.SubmissionAnalysis", "POST"): op(
        "analyseSubmission", "submission_not_found", "not_verified", "day_open", "analysis_unsupported",
        "analysis_queue_full", "too_many_requests"),
    ("analyses.AnalysisById", "GET"): op("getAnalysis", "analysis_not_found"),
    ("leaderboards.Days", "GET"): op("listDays"),
    ("leaderboards.DayBoard", "GET"): op("getDayBoard", *_BOARD),
    ("leaderboards.DayBoardMe", "GET"): op("getMyDayEntry", *_ME),
    ("leaderboards.DayHistogram", "GET"): op("getDayHistogram", *_BOARD),
    ("leaderboards.PeriodBoard", "GET"): op("getPeriodBoard", *_BOARD),
    ("leaderboards.PeriodBoardMe", "GET"): op("getMyPeriodEntry", *_ME),
    ("leaderboards.AllTimeBoard", "GET"): op("getAllTimeBoard"),
    ("leaderboards.AllTimeBoardMe", "GET"): op("getMyAllTimeEntry", "not_on_board"),
    ("duplicate.DayDeals", "GET"): op("getDayDeals", "unknown_date", "unknown_period", "play_first",
                                      token_optional=True),
    ("duplicate.DayTraveller", "GET"): op("getTraveller", "unknown_date", "unknown_period", "unknown_deal",
                                          "play_first", "day_open",
                                          token_optional=True),
    ("duplicate.SubmissionDeals", "GET"): op("getSubmissionDeals", "submission_not_found", "play_first",
                                             "day_open", "not_verified",
                                             token_optional=True),
    ("duplicate.MatchpointBoard", "GET"): op("getMatchpointBoard", *_BOARD),
    ("duplicate.MatchpointBoardMe", "GET"): op("getMyMatchpointEntry", *_ME),
    ("leagues.LeagueList", "POST"): op(
        "createLeague", "nickname_not_held", *_NICKNAME, "too_many_leagues", "league_name_empty",
        "league_name_too_long",
        "league_name_control", "league_name_invisible", "league_name_unassigned", "league_name_mark_first",
        "league_name_mixed_script", "too_many_requests", token_optional=True),
    ("leagues.LeagueJoin", "POST"): op("joinLeague", "unknown_league", "nickname_not_held", *_NICKNAME, "league_full",
                                       "too_many_leagues", "too_many_requests", token_optional=True),
    ("leagues.InvitePreview", "GET"): op("previewInvite", "unknown_league", token_optional=True),
    ("leagues.MyLeagues", "GET"): op("listMyLeagues"),
    ("leagues.LeagueById", "GET"): op("getLeague", *_LEAGUE),
    ("leagues.LeagueById", "PATCH"): op(
        "renameLeague", "unknown_league", "not_league_owner", "league_name_empty", "league_name_too_long",
        "league_name_control", "league_name_invisible", "league_name_unassigned", "league_name_mark_first",
        "league_name_mixed_script"),
    ("leagues.LeagueById", "DELETE"): op("deleteLeague", "unknown_league", "not_league_owner"),
    ("leagues.LeagueLeave", "POST"): op("leaveLeague", "unknown_league", "cannot_remove_self"),
    ("leagues.LeagueInvite", "POST"): op("renewLeagueInvite", "unknown_league", "not_league_owner"),
    ("leagues.LeagueMember", "DELETE"): op("removeLeagueMember", "unknown_league", "not_league_owner",
                                           "unknown_member", "cannot_remove_self"),
    ("leagues.LeagueDayBoard", "GET"): op("getLeagueDayBoard", *_LEAGUE, *_BOARD),
    ("leagues.LeaguePeriodBoard", "GET"): op("getLeaguePeriodBoard", *_LEAGUE, *_BOARD),
    ("leagues.LeagueAllTimeBoard", "GET"): op("getLeagueAllTimeBoard", *_LEAGUE),
    ("duels.RunDuel", "POST"): op("createDuel", "run_not_found", "run_not_finished", "ranked_run"),
    ("duels.DuelById", "GET"): op("getDuel", "unknown_duel", token_optional=True),
    ("duels.DuelResultAnalysis", "POST"): op(
        "analyseDuelResult", "unknown_duel", "unknown_result", "play_first", "analysis_unsupported",
        "analysis_queue_full",
        "too_many_requests"),
    ("duels.DuelResultRecord", "GET"): op("getDuelResultRecord", "unknown_duel", "unknown_result", "play_first"),
    ("players.Me", "GET"): op("getMe"),
    ("players.Me", "DELETE"): op("erasePlayer"),
    ("players.MyData", "GET"): op("exportMyData"),
    ("devices.Links", "POST"): op("createDeviceLink", "too_many_requests"),
    ("devices.Link", "POST"): op("useDeviceLink", "unknown_link", "too_many_requests", token_optional=True),
    ("devices.MyDevices", "GET"): op("listMyDevices"),
    ("devices.MyDevice", "DELETE"): op("removeDevice", "unknown_device", "last_way_back"),
    ("devices.PasskeyOptions", "POST"): op("getPasskeyCreationOptions", "too_many_passkeys",
                                           "passkeys_unconfigured"),
    ("devices.MyPasskeys", "POST"): op("addPasskey", "invalid_credential", "passkey_refused", "passkey_exists",
                                       "too_many_passkeys", "passkeys_unconfigured"),
    ("devices.MyPasskey", "DELETE"): op("removePasskey", "unknown_passkey", "last_way_back"),
    ("devices.SignInOptions", "POST"): op("getPasskeySignInOptions", "passkeys_unconfigured", "too_many_requests"),
    ("devices.SignIn", "POST"): op("signInWithPasskey", "invalid_credential", "passkey_refused",
                                   "passkeys_unconfigured", "too_many_requests", token_optional=True),
    ("health.Live", "GET"): op("getLiveness"),
    ("health.Ready", "GET"): op("getReadiness", "unavailable"),
    ("ops.DaySubmissions", "GET"): op("opsListDaySubmissions", "unknown_date"),
    ("ops.Pending", "GET"): op("opsListPending"),
    ("ops.ReviewQueue", "GET"): op("opsListReview"),
    ("ops.RequeueDelayed", "POST"): op("opsRequeuePending", "ops_decider_only"),
    ("ops.DaySeed", "GET"): op("opsGetDaySeed", "unknown_date", "seed_sealed"),
    ("ops.DayReverify", "POST"): op("opsReverifyDay", "unknown_date", "ops_decider_only"),
    ("ops.DayRebuild", "POST"): op("opsRebuildDay", "unknown_date", "ops_decider_only"),
    ("ops.OpsJob", "GET"): op("opsGetJob", "job_not_found"),
    ("ops.SubmissionDetail", "GET"): op("opsGetSubmission", "submission_not_found"),
    ("ops.SubmissionRunsAround", "GET"): op("opsGetRunsAround", "submission_not_found", "game_rejected"),
    ("ops.SubmissionHands", "POST"): op("opsRevealHands", "submission_not_found"),
    ("ops.Disqualify", "POST"): op("opsDisqualify", "submission_not_found", "not_disqualifiable",
                                   "ops_decider_only"),
    ("ops.Restore", "POST"): op("opsRestore", "submission_not_found", "not_restorable", "ops_decider_only"),
    ("ops.Release", "POST"): op("opsRelease", "submission_not_found", "not_in_review", "ops_decider_only"),
    ("ops.Requeue", "POST"): op("opsRequeueSubmission", "submission_not_found", "ops_decider_only"),
    ("ops.Analyse", "POST"): op("opsAnalyseSubmission", "submission_not_found", "not_verified",
                                "analysis_unsupported", "analysis_queue_full"),
    ("ops.Audit", "GET"): op("opsGetAudit", "bad_since", "bad_cursor"),
    ("reports.ReportCreate", "POST"): op("createReport", "submission_not_found", "own_game", "already_reported",
                                         "too_many_requests"),
    ("appeals.AppealsOfPlayer", "GET"): op("listMyAppeals"),
    ("appeals.AppealsOfPlayer", "POST"): op("createAppeal", "nothing_to_appeal", "appeal_open"),
    ("ops_players.PlayerCase", "GET"): op("opsGetPlayer", "player_not_found"),
    ("ops_players.Restrict", "POST"): op("opsRestrictPlayer", "player_not_found", "bad_days", "ops_decider_only"),
    ("ops_players.Lift", "POST"): op("opsLiftRestriction", "player_not_found", "not_restricted",
                                     "ops_decider_only"),
    ("ops_players.Notes", "POST"): op("opsAddPlayerNote", "player_not_found"),
    ("ops_reports.ReportList", "GET"): op("opsListReports"),
    ("ops_appeals.AppealList", "GET"): op("opsListAppeals"),
    ("ops_appeals.Answer", "POST"): op("opsAnswerAppeal", "appeal_not_found", "appeal_answered", "same_operator",
                                       "ops_decider_only"),
    ("ops_cases.CaseFile", "GET"): op("opsExportCase", "submission_not_found", "player_not_found"),
    ("ratings.MyRating", "GET"): op("getMyRating"),
    ("ratings.Profile", "GET"): op("getProfile", "unknown_player"),
    ("ratings.RatingBoard", "GET"): op("getRatingBoard"),
    ("ratings.LeagueRatings", "GET"): op("getLeagueRatings", *_LEAGUE),
    ("days.DayGamesFile", "GET"): op("getDayGames", "unknown_date", "day_open"),
    ("archive.Months", "GET"): op("listArchiveMonths"),
    ("archive.Month", "GET"): op("getArchiveMonth", "unknown_month"),
}

#: What every operation may answer: a fault, the data store down or full.
EVERYWHERE = ("internal_error", "store_unavailable", "store_full")
#: What an operation with a request body may answer about it.
BODY = ("malformed_json", "malformed_body", "body_too_large", "unsupported_media_type", "unsupported_encoding",
        "validation_error")
OPS = ("ops_unauthorized", "ops_forbidden", "too_many_requests")
PLAYER_TOKEN = ("invalid_token",)

_RATE_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")
_EXAMPLES = Path(__file__).with_name("examples.json")


def path_of(rule: str) -> str:
    """The document's path of a URL rule: ``/runs/<string:run_id>`` is ``/runs/{run_id}``."""
    return re.sub(r"<(?:[^<>:]+:)?([^<>:]+)>", r"{\1}", rule)


def shared(path: str, doc_op: dict) -> tuple[str, ...]:
    """The codes an operation shares with every operation of its kind (see the module's docstring);
    one with a path parameter answers ``not_found`` for a value that leaves no path of the API (a
    deal that is not a number, an id holding a slash)."""
    codes = list(EVERYWHERE)
    if "{" in path:
        codes.append("not_found")
    if doc_op.get("requestBody"):
        codes += BODY
    if doc_op.get("parameters") or "422" in doc_op.get("responses", {}):
        codes.append("validation_error")
    schemes = {name for requirement in doc_op.get("security") or () for name in requirement}
    if "opsToken" in schemes:
        codes += OPS
    if "playerToken" in schemes:
        codes += PLAYER_TOKEN
    return tuple(dict.fromkeys(codes))


def statuses(operation: Operation, path: str, doc_op: dict) -> dict[int, tuple[str, ...]]:
    """Every error status of an operation, each with its codes."""
    out: dict[int, list[str]] = {}
    for code in (*shared(path, doc_op), *(c for codes in operation.errors.values() for c in codes)):
        out.setdefault(CODES[code][0], [])
        if code not in out[CODES[code][0]]:
            out[CODES[code][0]].append(code)
    if operation.token_optional:
        out.setdefault(401, ["invalid_token"])
    return {status: tuple(codes) for status, codes in sorted(out.items())}


def _error_answer(status: int, codes: tuple[str, ...], limited: bool) -> dict:
    lines = "\n".join(f"- `{code}`: {CODES[code][1]}" for code in codes)
    answer = {"description": f"{_REASONS.get(status, 'Error')}:\n\n{lines}", "x-error-codes": list(codes),
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    if status == 429:
        answer["headers"] = {name: {"$ref": f"#/components/headers/{name}"}
                             for name in ("Retry-After", *(_RATE_HEADERS if limited else ()))}
    if status == 503:
        answer["headers"] = {"Retry-After": {"$ref": "#/components/headers/Retry-After"}}
    return answer


_REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 409: "Conflict",
            413: "Content Too Large", 415: "Unsupported Media Type", 422: "Unprocessable Content",
            429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable"}


def finish(doc: dict, rules, public_url: str | None) -> dict:
    """The document flask-smorest built (``doc``, not changed), finished: ``rules`` are the app's
    (endpoint, methods, rule) under /api/v1.  Raises KeyError for a view with no operation above."""
    doc = copy.deepcopy(doc)
    doc["servers"] = [{"url": public_url.rstrip("/") if public_url else "/",
                       "description": "this service" if public_url else "the server that serves this document"}]
    doc["info"]["description"] += ERRORS_NOTE
    schemas = doc["components"]["schemas"]
    # A string, not an enum: a client built from this document keeps reading the errors of a later
    # version with a code it does not know (each answer lists its own codes: x-error-codes)
    schemas["Error"]["properties"]["error"]["description"] = (
        "stable error code: one of those the answer's status lists for its operation (x-error-codes)")
    schemas["Event"] = {
        "description": "One thing that happened at the table, told apart by ``type``",
        "oneOf": [{"$ref": f"#/components/schemas/{_event_name(kind)}"} for kind in EVENTS],
        "discriminator": {"propertyName": "type",
                          "mapping": {kind: f"#/components/schemas/{_event_name(kind)}" for kind in EVENTS}}}
    examples = json.loads(_EXAMPLES.read_text()) if _EXAMPLES.exists() else {}
    for endpoint, methods, rule in rules:
        where = path_of(rule)
        path = doc["paths"].get(where)
        if path is None:
            continue
        for method in methods:
            doc_op = path.get(method.lower())
            if doc_op is None:
                continue
            operation = OPERATIONS[(endpoint, method)]
            doc_op["operationId"] = operation.id
            responses = doc_op["responses"]
            responses.pop("default", None)
            limited = "429" in responses or "too_many_requests" in operation.errors.get(429, ())
            if operation.token_optional:
                doc_op.pop("security", None)
                doc_op["description"] = (doc_op.get("description", "") + TOKEN_NOTE).lstrip()
            for status, codes in statuses(operation, where, doc_op).items():
                if _own_body(responses.get(str(status))):
                    continue  # an answer of its own (readiness's 503 is its report), not an error
                responses[str(status)] = _error_answer(status, codes, limited)
            if limited:
                for status, answer in responses.items():
                    if status.startswith("2"):
                        headers = answer.setdefault("headers", {})
                        for name in _RATE_HEADERS:
                            headers.setdefault(name, {"$ref": f"#/components/headers/{name}"})
            _examples(doc_op, examples.get(operation.id))
    return doc


def _own_body(answer: dict | None) -> bool:
    schema = (answer or {}).get("content", {}).get("application/json", {}).get("schema", {})
    return bool(schema) and schema != {"$ref": "#/components/schemas/Error"}


def _examples(doc_op: dict, example: dict | None) -> None:
    """An operation's request and answer examples (``examples.json``: real answers, their lists of
    objects cut to two items, written by scripts/api_examples.py; ``answers``: those of its other
    success statuses); none for an answer that is not JSON (NDJSON, gzip, 204)."""
    if not example:
        return
    if "request" in example and doc_op.get("requestBody"):
        for media in doc_op["requestBody"].get("content", {}).values():
            media["example"] = example["request"]
    answers = dict(example.get("answers", {}))
    if "response" in example:
        answers[str(example.get("status", ""))] = example["response"]
    for status, body in answers.items():
        for media in doc_op["responses"].get(status, {}).get("content", {}).values():
            media["example"] = body


ERRORS_NOTE = ("\n\nEach operation lists every status it answers and, for an error, its codes "
               "(`x-error-codes`, each explained in the answer's description).")
TOKEN_NOTE = ("\n\nA player's token (`X-Player-Token`) is optional here: sent, the answer is the caller's "
              "(their own entry, their membership); an unknown one is 401 `invalid_token`.")


def _event_name(kind: str) -> str:
    return EVENTS[kind].__name__.removesuffix("Schema")


def init_app(app, api) -> None:
    """Serve the finished document (``/api/v1/openapi.json``, ``flask openapi write``): built
    once, on the first read."""
    for schema in EVENTS.values():
        api.spec.components.schema(schema.__name__.removesuffix("Schema"), schema=schema)
    built = api.spec.to_dict
    rules = [(rule.endpoint, sorted(rule.methods - {"HEAD", "OPTIONS"}), rule.rule) for rule in app.url_map.iter_rules()
             if rule.rule.startswith("/api/v1/") and rule.endpoint != "api-docs.openapi_json"]
    kept: list[dict] = []

    def to_dict() -> dict:
        if not kept:
            services = app.extensions.get("manille")
            kept.append(finish(built(), rules, services.settings.public_url if services else ""))
        return kept[0]

    api.spec.to_dict = to_dict
