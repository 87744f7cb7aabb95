"""Duplicate results: every game of a day is played on the same deals, so each deal compares the
player with everyone who played it.

- ``field``: the field of each deal (a histogram of the card points taken on it, and its games
  in order), kept by the day board's own step (``day_change.lua``), read for a day's deals, a
  game's deals against the field (matchpoints), and a deal's traveller;
- ``matchpoints``: the boards of a day's games by their mean matchpoints, and of a week's and a
  month's players by their mean daily matchpoints, built by a worker job (``build``), never per
  game;
- ``place``: a verified game put on its day's board at once by its own matchpoints against the
  field so far, among the last build's entries, until the next build.

Like the margin boards, all of it is derived data: a verified game counted on its day's board is
in it, a game taken off (held, disqualified) is not, and a rebuild of the boards rebuilds it.
"""

from __future__ import annotations

import logging
from datetime import date, timedelta

from rq import Queue

from service.config import Settings
from service.leaderboard import Board, day_board
from service.store import month_id, week_id

from .field import BUCKETS, MAX_DEALS, MAX_TRAVELLER_PAGE, Field, game_matchpoints, matchpoints, parse_points
from .matchpoints import MAX_PAGE, MAX_RADIUS, Matchpoints
from .place import place

JOB = "worker.jobs.build_matchpoints"
#: The builds' queue: the verification workers take its jobs once no verification waits.
QUEUE = "boards"
#: Once a day has closed, its final board is built this soon after its last change at most.
CLOSED_EVERY_SECONDS = 60
#: Days looked at by the worker's maintenance: today, yesterday (closing after midnight) and the
#: day before (a verification late in the queue).
RECENT_DAYS = 3

log = logging.getLogger("service.duplicate")


def request_build(settings: Settings, client, day: date, *, force: bool = False, queue=None) -> bool:
    """Queue a build of ``day``'s matchpoint board unless one was queued within
    ``MANILLE_MATCHPOINTS_SECONDS`` (a minute once the day has closed); ``force``: now whatever
    (ops changed the day).  True if queued."""
    closed = settings.clock.phase(day, settings.now()) == "closed"
    every = min(settings.matchpoints_seconds, CLOSED_EVERY_SECONDS) if closed else settings.matchpoints_seconds
    if not Matchpoints(client).due(day, every, force=force):
        return False
    connection = queue if queue is not None else settings.queue_connection(client)
    Queue(QUEUE, connection=connection).enqueue_call(
        JOB, args=(day.isoformat(),), result_ttl=0, failure_ttl=86400, description=f"matchpoints {day}")
    return True


def build(settings: Settings, client, day: date) -> dict:
    """Build ``day``'s matchpoint board (final once the day has closed and none of its
    verifications is pending), and with a final one the boards of its week and its month."""
    from service.submissions import Submissions, submission_day

    now = settings.now()
    closed = settings.clock.phase(day, now) == "closed"
    pending = closed and any(submission_day(sub_id) == day for sub_id, _at in Submissions(client, settings).pending())
    mp = Matchpoints(client)
    meta = mp.build_day(day, now=now, final=closed and not pending)
    out = {"date": day.isoformat(), **meta}
    if meta["final"]:
        for board in (Board("week", week_id(day)), Board("month", month_id(day))):
            days = [d for d in board.days if settings.clock.phase(d, now) == "closed"]
            period_final = all(d == day or mp.meta(day_board(d))["final"] for d in board.days)
            out[board.kind] = mp.build_period(board, days, now=now, final=period_final)
    return out


def refresh(settings: Settings, client, queue=None) -> list[date]:
    """Queue a build of each recent day whose board lags its games or is not final once the day
    has closed (the worker's maintenance, every minute); the days queued."""
    now = settings.now()
    today = settings.clock.today(now)
    mp, queued = Matchpoints(client), []
    for back in range(RECENT_DAYS):
        day = today - timedelta(days=back)
        closed = settings.clock.phase(day, now) == "closed"
        if mp.stale(day, closed) and request_build(settings, client, day, queue=queue):
            queued.append(day)
    return queued


__all__ = ["BUCKETS", "Field", "JOB", "QUEUE", "MAX_DEALS", "MAX_PAGE", "MAX_RADIUS", "MAX_TRAVELLER_PAGE", "Matchpoints",
           "build", "game_matchpoints", "matchpoints", "parse_points", "place", "refresh", "request_build"]
