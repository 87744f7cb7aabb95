"""RQ jobs: thin top-level functions taking ids.  Run them with ``rq worker verify``.

The worker reads its settings from the environment (``REDIS_URL``, ``MANILLE_SECRET``,
``MANILLE_TZ``, ``MANILLE_GRACE_SECONDS``); the bot comes from the day's stored challenge.
"""

from __future__ import annotations

import json
import logging
from datetime import date

from rq import get_current_job

from bots import get_bot
from service.botcache import cached
from service.challenges import Challenges
from service.config import Settings
from service.leaderboard import BoardsRebuilding, Leaderboard
from service.replay import SubmissionRejected, simulate, verify
from service import duplicate
from service import flags as suspicion
from service.runs import Runs
from service.runs.table import parse_plays
from service.store import day_scope, key_for
from service.submissions import Submissions
from service.analysis import request_check
from service.telemetry.verdicts import count_verdict

log = logging.getLogger("worker.jobs")
_settings: Settings | None = None


def _env_settings() -> Settings:
    global _settings
    if _settings is None:
        _settings = Settings.from_env()
    return _settings


def _context():
    settings = _env_settings()
    job = get_current_job()
    client = settings.state_beside(job.connection) if job is not None else settings.redis()
    return settings, client


def verify_submission(submission_id: str) -> dict:
    """Replay a submission from the day's seed and its cards alone; store the verdict and, when
    valid, the score on every board (idempotent: running twice counts once)."""
    settings, client = _context()
    out = _verify(settings, client, submission_id)
    count_verdict(client, out)
    log.info("submission %s: %s", submission_id, out["status"])
    return out


def verification_failed(job, connection, exc_type, exc_value, _traceback) -> None:
    """RQ's failure callback of a verification (it raised, or a worker died with it and RQ's
    cleanup found it abandoned): once no retry is left, the submission shows ``delayed``.  A
    work horse killed outright runs no callback: ``python -m worker`` marks those itself, and
    ``Submissions.sweep`` finds any left."""
    if job.retries_left:  # RQ runs it again after its backoff
        return
    why = f"{getattr(exc_type, '__name__', 'error')}: {exc_value}"
    settings = _env_settings()
    Submissions(settings.state_beside(connection), settings).mark_delayed(job.args[0], why)


def _verify(settings: Settings, client, submission_id: str, *, rebuilding: bool = False) -> dict:
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
        return {"status": "rejected", "reason": e.rejection.code}
    score = record["rank_score"]
    points = [deal["points"][0] for deal in record["deals"]]  # the field of each deal: service.duplicate
    boards = Leaderboard(client, wait_ms=settings.redis_wait_ms)
    # Flags are computed once, when first verified, and kept: runs opened later change nothing.
    flags = json.loads(sub["flags"]) if sub.get("flags") else _flags(settings, client, sub, record, boards)
    Runs(client, settings).retire_path(sub["run_id"], cards, submission_id)
    decision = sub.get("ops_decision", "")
    if decision == "disqualified" or (decision != "restored" and suspicion.held(flags, settings.flags)):
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
        "explored": suspicion.explored(decisions, lambda q: runs.path_counts(day, q),
                                       lambda q: runs.path_counts(day, q, of="submitted"), fs)
        or (many and suspicion.explored_from_address(
            decisions, runs.unsubmitted_cards([r for r in address_runs if r != sub["run_id"]]), fs)),
        "many_runs": many,
        "speed": suspicion.speed([int(t) for t in sub.get("times", "").split(",") if t], fs),
        "outlier": suspicion.outlier(record["rank_score"], {b["score"]: b["count"] for b in boards.histogram(day)},
                                 fs),
        "oracle": suspicion.oracle(suspicion.agreement(settings.seed(day), record, fs.oracle_from_trick),
                                   _expert_agreement(settings, client, day, record["bots"]), fs),
    }
    return [{"code": code, "evidence": evidence} for code, evidence in found.items() if evidence]


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


def warm_decisions(day_text: str, bot_id: str, deal: int, first: str) -> dict:
    """Compute ahead the searched decisions of ``bot_id`` in deal ``deal`` of a day, every line
    of the player's from its first card ``first`` (``service.botcache.warm``)."""
    from service.botcache import warm
    from service.replay import Card

    settings, client = _context()
    seed = settings.seed(date.fromisoformat(day_text))
    counts = warm.warm_deal(client, seed, bot_id, deal, Card.parse(first))
    warm.done(client, seed, bot_id, counts)
    log.info("warm %s %s deal %d %s: %s", day_text, bot_id, deal, first, counts)
    return counts


def build_matchpoints(day_text: str) -> dict:
    """Build a day's matchpoint board from its deals' fields (and, once final, its week's and
    month's): ``service.duplicate.build``."""
    settings, client = _context()
    out = duplicate.build(settings, client, date.fromisoformat(day_text))
    log.info("matchpoints %s: %s games%s", day_text, out["games"], " (final)" if out["final"] else "")
    return out


def reverify_day(day_text: str) -> int:
    """Enqueue a verification of every submission of a day (ops); returns how many (not those
    RQ already has on their way)."""
    settings, client = _context()
    subs = Submissions(client, settings)
    return sum(subs.requeue(sub_id) for sub_id in subs.for_day(date.fromisoformat(day_text)))


#: The rebuild flag lapses this long after the rebuild last showed progress (if it died).
REBUILD_TTL = 600


def rebuild_boards() -> dict:
    """Rebuild every board from the stored submissions (ops; boards are derived data).

    Raises the rebuild flag (other verifications meanwhile are deferred to this job), wipes the
    boards, then replays every stored submission in the order they were first verified, so that
    equal scores keep their order, then the deferred ones.  Verification is the truth: a stored
    score is never copied.  Safe to run again, e.g. after a rebuild died.
    """
    settings, client = _context()
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
        counts[_verify(settings, client, item[-1], rebuilding=True)["status"]] += 1
        if i % 100 == 99:
            boards.keep_rebuilding(REBUILD_TTL)
    while True:
        for sub_id in boards.take_deferred():
            counts["deferred"] += 1
            _verify(settings, client, sub_id, rebuilding=True)
        if boards.end_rebuild():
            for day in days:  # the matchpoint boards, from the fields just rebuilt
                duplicate.request_build(settings, client, day, force=True)
            return counts


def ops_reverify_day(day_text: str) -> dict:
    """Ops: replay every submission of a day again, changing nothing; the differences."""
    from service.ops import Ops
    settings, client = _context()
    return Ops(client, settings).reverify(date.fromisoformat(day_text))


def ops_rebuild_day(day_text: str, who: str, why: str = "") -> dict:
    """Ops: take a day's scores off the boards and record its verified games again."""
    from service.ops import Ops
    settings, client = _context()
    return Ops(client, settings).rebuild_day(date.fromisoformat(day_text), who, why)


# -- analyses (queue "analysis": verification never waits behind one) -------------------------------


def analyse_game(analysis_id: str) -> dict:
    """Analyse a finished game card by card (``analysis.analyse``), with the positions already
    analysed for its seed taken from Redis, progress written as it goes; then, for each submission
    waiting on it, the hidden-information check (``service.flags.hindsight``)."""
    from analysis import AnalysisError, analyse
    from service.analysis import Analyses, note_check

    settings, client = _context()
    analyses = Analyses(client, settings)
    job = analyses.job(analysis_id)
    seed = job["seed_bytes"]
    analyses.started(analysis_id)
    try:
        # a day's bots through the day's decision cache, read only (a free deal's: nothing there)
        doc = analyse(seed, job["cards"], bots=job["bots"], rules=job["rules"],
                      bot=cached(get_bot(job["bots"]), client, seed, write=False),
                      cache=analyses.positions(seed),
                      progress=lambda done, total: analyses.progress(analysis_id, done, total))
    except SubmissionRejected as e:
        analyses.fail(analysis_id, {"error": "invalid_game", "message": e.rejection.message,
                                    "rejection": e.rejection.to_json()})
        return {"status": "failed", "reason": e.rejection.code}
    except AnalysisError as e:
        analyses.fail(analysis_id, {"error": "analysis_unsupported", "message": str(e)})
        return {"status": "failed", "reason": "analysis_unsupported"}
    analyses.finish(analysis_id, doc)
    checked = [sub_id for sub_id in analyses.watchers(analysis_id) if note_check(settings, client, sub_id, analysis_id, doc)]
    log.info("analysis %s: %d decisions, hindsight checked for %s", analysis_id, len(doc["decisions"]), checked)
    return {"status": "finished", "decisions": len(doc["decisions"]), "checked": checked}


def analysis_failed(job, connection, exc_type, exc_value, _traceback) -> None:
    """RQ's failure callback of an analysis (it raised, timed out, or its worker died): the
    analysis says so; asking for it again queues it anew."""
    from service.analysis import Analyses

    Analyses(_env_settings().state_beside(connection), _env_settings()).fail(
        job.args[0], {"error": "analysis_failed", "message": f"{getattr(exc_type, '__name__', 'error')}: {exc_value}"})
