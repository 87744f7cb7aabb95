"""Submissions: hand in a finished ranked run, follow its verification."""

from __future__ import annotations

import json
from datetime import date

from flask.views import MethodView

from service.errors import Conflict, NotFound
from service.freshness import Freshness
from service.leaderboard import day_board
from service.players import nickname as nicknames

from . import limits
from .blueprint import Blueprint
from .caching import cacheable, limited, public_read
from .links import link, responds
from .common import client_info, current_pid, services
from .schemas import (RecordSchema, SubmissionAcceptedSchema, SubmissionCreateSchema,
                      SubmissionStatusSchema)

PREFIX = "/submissions"
blp = Blueprint("submissions", __name__, description="Verification by replay")


def status_url(sub_id: str) -> str:
    return f"/api/v1/submissions/{sub_id}"


@blp.route("")
class SubmissionList(MethodView):
    @blp.arguments(SubmissionCreateSchema)
    @blp.response(202, SubmissionAcceptedSchema)
    @blp.doc(security=[{"playerToken": []}])
    @blp.doc(**responds(202, GetSubmission=link(
        "get", "/submissions/{sub_id}", "its verification status",
        parameters={"sub_id": "$response.body#/submission_id"}), GetSubmissionRecord=link(
        "get", "/submissions/{sub_id}/record", "its record, once verified and public",
        parameters={"sub_id": "$response.body#/submission_id"})))
    @limited(202)
    def post(self, body):
        """Submit a finished ranked run under a nickname (claimed for this token)

        Stored and queued before the 202; a run submits once (the same id is answered again, even
        at the limits on submissions per token and per address: 429 ``too_many_requests``).
        503 ``submission_unconfirmed``: it may have been stored; submit the same run again."""
        s = services()
        pid = current_pid()
        nickname = nicknames.parse(body["nickname"])  # 422 before anything else
        with limits.Admission(("submissions_per_token", pid),
                              ("submissions_per_address", limits.client_address())) as admission:

            def claim() -> str:  # only once the run may be submitted, and is not already
                admission.take()
                return s.players.claim_nickname(pid, nickname)

            sub_id, created = s.submissions.submit(body["run_id"], pid, claim, **client_info())
            if created:
                admission.keep()  # its leagues show the name once the game is verified (service.verification)
        status = s.submissions.get(sub_id)["status"]
        return {"submission_id": sub_id, "status_url": status_url(sub_id), "status": status}


@blp.route("/<string:sub_id>")
class SubmissionById(MethodView):
    @blp.response(200, SubmissionStatusSchema)
    def get(self, sub_id):
        """Status of a submission: queued, delayed (its verification crashed and waits to run
        again; kept), verified (score, current rank), rejected (reason), held, review (at the top
        of the day: checked, or held for a person, ``review.until`` at the latest) or disqualified"""
        s = services()
        sub = s.submissions.get(sub_id)
        out = {
            "submission_id": sub["id"], "run_id": sub["run_id"], "date": sub["date"],
            "nickname": sub["nickname"], "status": sub["status"], "score": None, "rank": None,
            "reason": json.loads(sub["reason"]) if sub.get("reason") else None,
            "created_at": sub["created_at"], "verified_at": sub.get("verified_at") or None, "review": None,
        }
        if sub["status"] in ("verified", "held", "review", "disqualified", "restricted"):
            out["score"] = int(sub["score"])
        if sub["status"] in ("disqualified", "restricted"):  # the reason ops chose to give, if any
            out["reason"] = {"code": sub["status"], "message": sub.get("ops_public_reason") or None}
        if sub["status"] == "review":  # the player is told, and until when: never silently
            out["review"] = {"phase": sub.get("review_phase") or "held", "until": sub.get("review_until")}
        if sub["status"] == "verified":
            entry = s.leaderboard.rank_of(day_board(date.fromisoformat(sub["date"])), sub["pid"])
            out["rank"] = entry["rank"] if entry else None
        return out


@blp.route("/<string:sub_id>/record")
class SubmissionRecord(MethodView):
    @blp.response(200, RecordSchema)
    @public_read
    def get(self, sub_id):
        """The full game record (docs/spec.md §9) of a verified submission, once its day's seed is public

        Before that it would show the bots' hands, so it is 409 ``record_sealed`` with ``reveal_at``
        (the record exists, it is not yet shown).  Replayed from
        the seed and the submitted cards (the same bytes as verification produced)."""
        s = services()
        sub = s.submissions.get(sub_id)
        challenge = s.challenges.get(date.fromisoformat(sub["date"]))
        if challenge.seed is None:
            raise Conflict("the record stays sealed until the day's seed is published",
                           code="record_sealed", reveal_at=challenge.reveal_at.isoformat())
        if sub["status"] != "verified":
            raise NotFound("this submission has no record (not verified)", code="no_record")
        record = s.submissions.record(sub)
        record["seed"] = challenge.seed
        cacheable(Freshness(s.settings).record())
        return record
