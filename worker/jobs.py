"""RQ jobs: thin top-level functions taking ids.  Run them with ``rq worker verify``.

The worker reads its settings from the environment (``REDIS_URL``, ``MANILLE_SECRET``,
``MANILLE_TZ``, ``MANILLE_GRACE_SECONDS``); the bot comes from the day's stored challenge.
"""

from __future__ import annotations

from datetime import date

from rq import get_current_job

from bots import get_bot
from service.challenges import Challenges
from service.config import Settings
from service.leaderboard import Leaderboard
from service.replay import SubmissionRejected, verify
from service.runs.table import parse_plays
from service.store import connect, text_client
from service.submissions import Submissions

_settings: Settings | None = None


def _context():
    global _settings
    if _settings is None:
        _settings = Settings.from_env()
    job = get_current_job()
    client = text_client(job.connection) if job is not None else connect(_settings.redis_url)
    return _settings, client


def verify_submission(submission_id: str) -> dict:
    """Replay a submission from the day's seed and its cards alone; store the verdict and, when
    valid, the score on every board (idempotent: running twice counts once)."""
    settings, client = _context()
    subs = Submissions(client, settings)
    sub = subs.get(submission_id)
    day = date.fromisoformat(sub["date"])
    challenge = Challenges(client, settings).get(day)
    seed = settings.seed(day)
    cards = [str(c) for c in parse_plays(sub["cards"])]
    now = settings.now()
    try:
        record = verify(seed, cards, get_bot(challenge.bots), sealed=challenge.seed is None)
    except SubmissionRejected as e:
        subs.mark_rejected(submission_id, e.rejection.to_json(), now)
        return {"status": "rejected", "reason": e.rejection.code}
    score = record["rank_score"]
    _counted, entry = Leaderboard(client).record(day, sub["pid"], sub["nickname"], score, submission_id)
    subs.mark_verified(submission_id, score, record, entry, now)
    return {"status": "verified", "score": score}


def reverify_day(day_text: str) -> int:
    """Enqueue a verification of every submission of a day (ops); returns how many."""
    settings, client = _context()
    subs = Submissions(client, settings)
    ids = subs.for_day(date.fromisoformat(day_text))
    for sub_id in ids:
        subs.requeue(sub_id)
    return len(ids)


def rebuild_boards() -> dict:
    """Rebuild every board from the stored submissions (ops; boards are derived data).

    Wipes the boards, then replays every submission of every day, in the order they were first
    verified, so that equal scores keep their order.  Verification is the truth: a stored score
    is never copied.  Idempotent and safe to run again; verifications by other workers meanwhile
    count once.
    """
    settings, client = _context()
    subs = Submissions(client, settings)
    Leaderboard(client).wipe()
    counts = {"days": 0, "verified": 0, "rejected": 0}
    for day in subs.days():
        counts["days"] += 1
        stored = [subs.get(sub_id) for sub_id in subs.for_day(day)]
        # never-verified ones last, in submission order
        stored.sort(key=lambda sub: (not sub.get("verified_at"), sub.get("verified_at", ""), sub["created_at"]))
        for sub in stored:
            counts[verify_submission(sub["id"])["status"]] += 1
    return counts
