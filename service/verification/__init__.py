"""Verification: a stored submission replayed from the day's seed and its cards alone, its verdict
stored and, when valid, its score carried to every board; and the rebuild of every board by
verifying every stored submission again.

A verification is idempotent (run twice, it counts once).  The suspicion flags are computed
once, when a game is first verified (``service.flags``), and kept.  The RQ jobs that run these
(``worker.jobs``) only fetch the ids, call them and log.
"""

from __future__ import annotations

import json
import logging
from datetime import date

from bots import get_bot
from service import duplicate
from service import flags as suspicion
from service import review
from service.analysis import request_check
from service.botcache import cached
from service.challenges import Challenges
from service.config import Settings
from service.leaderboard import BoardsRebuilding, Leaderboard
from service.leagues import Leagues
from service.players import Players
from service.replay import SubmissionRejected, simulate, verify
from service.restrictions import Restrictions
from service.review.queue import Reviews
from service.runs import Runs
from service.runs.around import around
from service.runs.table import parse_plays
from service.store import day_scope, key_for
from service.submissions import Submissions

#: The worker's lines: under the jobs' name, as the worker's log is read.
log = logging.getLogger("worker.jobs")


def _holds(settings: Settings, client, pid: str, nickname: str) -> None:
    """A valid game holds its name for good, and every league of its player shows it from then on
    (a name only claimed is shown nowhere: ``Players.held_name``)."""
    players = Players(client)
    players.confirm_nickname(pid, nickname, valid=True)
    if players.holds(pid, nickname):
        Leagues(client, wait_ms=settings.redis_wait_ms).member_renamed(pid, nickname)


def verify_submission(settings: Settings, client, submission_id: str, *, rebuilding: bool = False) -> dict:
    """Replay a submission from the day's seed and its cards alone; store the verdict and, when
    valid, the score on every board (idempotent: running twice counts once).  ``rebuilding``: a
    replay by ``rebuild_boards``, whose score is recorded though the rebuild's flag is up, and
    which queues nothing (the rebuild builds the matchpoint boards at its end)."""
    subs = Submissions(client, settings)
    sub = subs.get(submission_id)
    day = date.fromisoformat(sub["date"])
    challenge = Challenges(client, settings).get(day)
    seed = settings.seed(day)
    cards = [str(c) for c in parse_plays(sub["cards"])]
    now = settings.now()
    try:
        record = verify(seed, cards, cached(get_bot(challenge.bots), client, seed), sealed=challenge.seed is None)
    except SubmissionRejected as e:
        subs.mark_rejected(submission_id, e.rejection.to_json(), now)
        Players(client).confirm_nickname(sub["pid"], sub["nickname"], valid=False)
        return {"status": "rejected", "reason": e.rejection.code}
    score = record["rank_score"]
    points = [deal["points"][0] for deal in record["deals"]]  # the field of each deal: service.duplicate
    boards = Leaderboard(client, wait_ms=settings.redis_wait_ms)
    # Flags are computed once, when first verified, and kept: runs opened later change nothing.
    flags = json.loads(sub["flags"]) if sub.get("flags") else _flags(settings, client, sub, record, boards)
    Runs(client, settings).retire_path(sub["run_id"], cards, submission_id)
    _holds(settings, client, sub["pid"], sub["nickname"])
    decision = sub.get("ops_decision", "")
    if decision != "disqualified" and sub.get("status") != "review" \
            and Restrictions(client, settings).get(sub["pid"]) is not None:  # verified, not ranked: the player's mark
        subs.mark_verified(submission_id, score, now, flags=flags, status="restricted", deals=points)
        return {"status": "restricted", "score": score, "flags": [f["code"] for f in flags]}
    if decision != "disqualified" and (sub.get("status") == "review" or (
            not decision and not sub.get("review_outcome") and review.due(
                score, {b["score"]: b["count"] for b in boards.histogram(day)}, settings.review))):
        return Reviews(client, settings).begin(submission_id, sub, score, flags, points)  # ranked once clean
    if decision == "disqualified" or (decision not in ("restored", "released")
                                      and suspicion.held(flags, settings.flags)):
        status = "disqualified" if decision == "disqualified" else "held"
        subs.mark_verified(submission_id, score, now, flags=flags, status=status, deals=points)
        return {"status": status, "score": score, "flags": [f["code"] for f in flags]}
    out = {"status": "verified", "score": score, "flags": [f["code"] for f in flags]}
    try:
        boards.record(day, sub["pid"], sub["nickname"], score, submission_id, deals=points, rebuilding=rebuilding)
    except BoardsRebuilding:
        out["deferred"] = True  # the rebuild in progress records it before it ends
    subs.mark_verified(submission_id, score, now, flags=flags, deals=points)
    if not rebuilding:
        try:
            if not out.get("deferred"):
                duplicate.place(client, day, sub["pid"], points)
        except Exception:  # the next build puts it there: never costs a verdict
            log.exception("submission %s: could not be placed on the matchpoint board", submission_id)
        try:
            duplicate.request_build(settings, client, day)
        except Exception:  # the board is built again by the next game or the maintenance: never costs a verdict
            log.exception("submission %s: the matchpoint board's build could not be queued", submission_id)
        try:
            request_check(settings, client, submission_id, {**sub, "score": score})
        except Exception:  # the check is extra evidence: a failure to queue it never costs a verdict
            log.exception("submission %s: the hidden-information check could not be queued", submission_id)
    return out


def _flags(settings: Settings, client, sub: dict, record: dict, boards: Leaderboard) -> list[dict]:
    """The suspicion flags of a verified game, with their evidence (service.flags)."""
    fs, runs = settings.flags, Runs(client, settings)
    day = date.fromisoformat(sub["date"])
    decisions = suspicion.player_decisions(record)
    address_runs = runs.address_runs(day, sub.get("run_ip", ""))
    many = suspicion.many_runs(sub.get("run_ip", ""), address_runs, sub["run_id"], fs)
    found = {
        "explored": suspicion.explored(decisions, lambda q: runs.path_counts(day, q), fs)
        or (many and suspicion.explored_from_address(
            decisions, runs.unsubmitted_cards([r for r in address_runs if r != sub["run_id"]]), fs)),
        "probed": _probed(settings, client, sub, record, decisions),
        "many_runs": many,
        "speed": suspicion.speed([int(t) for t in sub.get("times", "").split(",") if t], fs),
        "outlier": suspicion.outlier(record["rank_score"], {b["score"]: b["count"] for b in boards.histogram(day)},
                                 fs),
        "oracle": suspicion.oracle(suspicion.agreement(settings.seed(day), record, fs.oracle_from_trick),
                                   _expert_agreement(settings, client, day, record["bots"]), fs),
    }
    return [{"code": code, "evidence": evidence} for code, evidence in found.items() if evidence]


def _probed(settings: Settings, client, sub: dict, record: dict, decisions) -> dict | None:
    """The ``probed`` flag from the runs around the game (``service.runs.around``)."""
    found = around(client, settings, sub["id"], sub=sub, record=record)
    return suspicion.probed(decisions, found["runs"], settings.flags, {e["index"]: e["runs"] for e in found["earlier"]})


def _expert_agreement(settings: Settings, client, day: date, bots: str) -> dict:
    """expert-1's agreement with the oracle from seat 0 on ``day``'s game, against the day's bots
    ``bots`` (their cards read from the day's decision cache): computed once a day and kept (the
    engine and the bots are frozen, and a day's bots never change, so it never changes)."""
    fs = settings.flags
    key = key_for("oracle_ref", day_scope(day), f"from{fs.oracle_from_trick}")
    kept = client.get(key)
    if kept:
        return json.loads(kept)
    seed = settings.seed(day)
    game = simulate(seed, cached(get_bot(bots), client, seed, write=False), player=get_bot("expert-1"))
    ref = suspicion.agreement(seed, game, fs.oracle_from_trick)
    ref.pop("choices")
    client.set(key, json.dumps(ref))
    return ref


#: The rebuild flag lapses this long after the rebuild last showed progress (if it died).
REBUILD_TTL = 600


def rebuild_boards(settings: Settings, client) -> dict:
    """Rebuild every board from the stored submissions (ops; boards are derived data).

    Raises the rebuild flag (other verifications meanwhile are deferred to this job), wipes the
    boards, then replays every stored submission in the order they were first verified, so that
    equal scores keep their order, then the deferred ones.  Verification is the truth: a stored
    score is never copied.  Safe to run again, e.g. after a rebuild died.
    """
    boards, subs = Leaderboard(client, wait_ms=settings.redis_wait_ms), Submissions(client, settings)
    if not boards.begin_rebuild(REBUILD_TTL):
        raise RuntimeError("a rebuild of the boards is already running")
    boards.wipe()
    days = subs.days()
    order = []
    for day in days:
        for sub_id in subs.for_day(day):
            sub = subs.get(sub_id)
            # never-verified ones last, in submission order
            order.append((not sub.get("verified_at"), sub.get("verified_at", ""), sub["created_at"], sub_id))
    order.sort()
    counts = {"days": len(days), "verified": 0, "rejected": 0, "deferred": 0}
    for i, item in enumerate(order):
        status = verify_submission(settings, client, item[-1], rebuilding=True)["status"]
        counts[status] = counts.get(status, 0) + 1  # held, disqualified, restricted counted as they come
        if i % 100 == 99:
            boards.keep_rebuilding(REBUILD_TTL)
    while True:
        for sub_id in boards.take_deferred():
            counts["deferred"] += 1
            verify_submission(settings, client, sub_id, rebuilding=True)
        if boards.end_rebuild():
            for day in days:  # the matchpoint boards, from the fields just rebuilt
                duplicate.request_build(settings, client, day, force=True)
            return counts
