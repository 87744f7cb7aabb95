"""RQ jobs: thin top-level functions taking ids.  Run them with ``rq worker verify``.

The worker reads its settings from the environment (``REDIS_URL``, ``MANILLE_SECRET``,
``MANILLE_TZ``, ``MANILLE_GRACE_SECONDS``); the bot comes from the day's stored challenge.
"""

from __future__ import annotations

import logging
from datetime import date

from rq import get_current_job

from service import duplicate, ratings, verification
from service.analysis import compute as compute_analysis
from service.config import Settings
from service.submissions import Submissions
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
    """Verify a submission (``service.verification.verify_submission``) and count its verdict."""
    settings, client = _context()
    out = verification.verify_submission(settings, client, submission_id)
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
    if out["final"]:  # the day's final matchpoints: its players are rated next (service.ratings)
        job = get_current_job()
        ratings.request(settings, client, date.fromisoformat(day_text), queue=job.connection if job else None)
    return out


def rate_days(day_text: str) -> list[str]:
    """Rate every day not rated yet up to a day whose matchpoint board became final
    (``service.ratings.Ratings.catch_up``); the days rated."""
    settings, client = _context()
    job = get_current_job()
    days = ratings.Ratings(client).catch_up(settings, date.fromisoformat(day_text),
                                            queue=job.connection if job is not None else None)
    return [d.isoformat() for d in days]


def rebuild_ratings(start_text: str) -> list[str]:
    """``manille ratings rebuild --from DATE --job``: every rating from a day on computed again."""
    from datetime import timedelta

    settings, client = _context()
    job = get_current_job()
    days = ratings.Ratings(client).rebuild(settings, date.fromisoformat(start_text),
                                           settings.today() - timedelta(days=1),
                                           queue=job.connection if job is not None else None)
    return [d.isoformat() for d in days]


def archive_month(month: str) -> dict:
    """Write a month's file of its closed days' games (``service.opendata.archive``)."""
    from service.opendata.archive import MonthArchive

    settings, client = _context()
    facts = MonthArchive(client, settings).build(month)
    log.info("archive %s: %s days, %s games, %s bytes", month, facts["days"], facts["games"], facts["bytes"])
    return {k: facts[k] for k in ("month", "games", "bytes", "sha256")}


def reverify_day(day_text: str) -> int:
    """Enqueue a verification of every submission of a day (ops); returns how many (not those
    RQ already has on their way)."""
    settings, client = _context()
    subs = Submissions(client, settings)
    return sum(subs.requeue(sub_id) for sub_id in subs.for_day(date.fromisoformat(day_text)))


def rebuild_boards() -> dict:
    """Rebuild every board from the stored submissions (ops): ``service.verification.rebuild_boards``."""
    settings, client = _context()
    return verification.rebuild_boards(settings, client)


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
    """Analyse a finished game card by card, then the hidden-information check of each submission
    waiting on it: ``service.analysis.compute``."""
    settings, client = _context()
    out = compute_analysis(settings, client, analysis_id)
    if "decisions" in out:  # computed now (a "finished" found done was computed by another job)
        log.info("analysis %s: %d decisions, hindsight checked for %s", analysis_id, out["decisions"], out["checked"])
    return out


def analysis_failed(job, connection, exc_type, exc_value, _traceback) -> None:
    """RQ's failure callback of an analysis (it raised, timed out, or its worker died): the
    analysis says so; asking for it again queues it anew."""
    from service.analysis import Analyses

    Analyses(_env_settings().state_beside(connection), _env_settings()).fail(
        job.args[0], {"error": "analysis_failed", "message": f"{getattr(exc_type, '__name__', 'error')}: {exc_value}"})


_runs: tuple = (None, None)  # (the job connection, its Runs): scripts and caches made once per worker


def bots_think(terms: dict, plays: str) -> dict:
    """The bots' pool: a run's bots play from ``plays`` until seat 0's turn (``service.botpool``)."""
    from service import botpool
    from service.runs import Runs

    global _runs
    job = get_current_job()
    conn = job.connection if job is not None else None
    if _runs[1] is None or _runs[0] is not conn:
        settings, client = _context()
        _runs = (conn, Runs(client, settings))
    return botpool.think(_runs[1], terms, plays)
