"""The monthly archive: one gzip file of every closed day of a month, the days' files (the same
lines: ``service.opendata``) one after another, written on disk (``MANILLE_ARCHIVE_DIR``) beside
Redis, never in it: the service's state stays in Redis, the archive is derived from it.

A month is built once its last day's seed is published and none of its verifications is pending
(``refresh``, from the worker's maintenance, queues it), and built again when one of its days'
boards changes after that (a game disqualified or restored: its version is not the one the file
was built from).  A file is written beside its final name and renamed over it, so a reader gets the
old file or the new, never a part; its facts (size, SHA-256, the days' versions) are in a small
JSON file beside it, written after it.
"""

from __future__ import annotations

import calendar
import hashlib
import json
import os
from datetime import date, timedelta
from pathlib import Path

from service.config import Settings
from service.leaderboard import MONTH_RE, Leaderboard
from service.store import month_id
from service.submissions import Submissions, submission_day

from . import DayGames, gzipped

#: The RQ job that builds a month's file (on the boards' queue: derived data, like the boards).
JOB = "worker.jobs.archive_month"


def month_days(month: str) -> list[date]:
    """The days of ``YYYY-MM``; ValueError for anything else."""
    m = MONTH_RE.fullmatch(month or "")
    if not m or not 1 <= int(m.group(2)) <= 12:
        raise ValueError(f"not a month (YYYY-MM): {month!r}")
    year, mon = int(m.group(1)), int(m.group(2))
    return [date(year, mon, d) for d in range(1, calendar.monthrange(year, mon)[1] + 1)]


class MonthArchive:
    def __init__(self, client, settings: Settings) -> None:
        self.r = client
        self.settings = settings
        self.dir = Path(settings.archive_dir) if settings.archive_dir else None

    def file(self, month: str) -> Path | None:
        """The month's file, if the archive is kept and the month is built (ValueError: not a month)."""
        month_days(month)
        path = self.dir / f"manille-{month}.jsonl.gz" if self.dir else None
        return path if path is not None and path.is_file() else None

    def _facts_path(self, month: str) -> Path:
        return self.dir / f"manille-{month}.json"

    def facts(self, month: str) -> dict | None:
        try:
            return json.loads(self._facts_path(month).read_text())
        except (OSError, ValueError, TypeError):
            return None

    def listing(self) -> list[dict]:
        """Every month built, newest first: ``month``, ``days``, ``games``, ``bytes``, ``sha256``."""
        if not self.dir or not self.dir.is_dir():
            return []
        out = []
        for path in sorted(self.dir.glob("manille-*.json"), reverse=True):
            facts = self.facts(path.stem.removeprefix("manille-"))
            if facts and (self.dir / facts["file"]).is_file():
                out.append({k: facts[k] for k in ("month", "file", "days", "games", "bytes", "sha256")})
        return out

    def ready(self, month: str) -> bool:
        """The month has ended: its last day's seed is published and none of its verifications is pending."""
        days = month_days(month)
        if self.settings.clock.phase(days[-1]) != "closed":
            return False
        return not any((submission_day(s) or date.min) in days for s, _at in Submissions(self.r, self.settings).pending())

    def versions(self, month: str) -> tuple[dict, int]:
        """Each day's board version (the days' files' ``version``) and the games of the month."""
        boards = Leaderboard(self.r)
        out, games = {}, 0
        for day in month_days(month):
            v = boards.day_games_version(day)
            out[day.isoformat()], games = f"{v['epoch']}.{v['changes']}", games + v["games"]
        return out, games

    def build(self, month: str) -> dict:
        """Write the month's file (the days' files one after another, gzip) and its facts; returns
        the facts.  RuntimeError if no archive directory is set or the month has not ended."""
        if self.dir is None:
            raise RuntimeError("MANILLE_ARCHIVE_DIR is not set: no archive is kept")
        if not self.ready(month):
            raise RuntimeError(f"{month} has not ended: a day's seed is not published or a verification is pending")
        self.dir.mkdir(parents=True, exist_ok=True)
        games, name = DayGames(self.r, self.settings), f"manille-{month}.jsonl.gz"
        versions, counts = {}, {}

        def lines():
            for day in month_days(month):
                head = games.state(day)["head"]
                versions[day.isoformat()], counts[day.isoformat()] = head["version"], head["games"]
                yield from games.lines(day, head)

        digest, size = hashlib.sha256(), 0
        part = self.dir / f".{name}.part"
        with part.open("wb") as f:
            for chunk in gzipped(lines()):
                f.write(chunk)
                digest.update(chunk)
                size += len(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(part, self.dir / name)
        facts = {"month": month, "file": name, "days": len(counts), "games": sum(counts.values()), "bytes": size,
                 "sha256": digest.hexdigest(), "versions": versions, "built_at": self.settings.now().isoformat()}
        part = self._facts_path(month).with_suffix(".part")
        part.write_text(json.dumps(facts, indent=1) + "\n")
        os.replace(part, self._facts_path(month))
        return facts

    def stale(self, month: str) -> bool:
        """The month has ended and its file is missing (a month with no game has none) or was built
        from other boards."""
        if not self.ready(month):
            return False
        facts = self.facts(month)
        versions, games = self.versions(month)
        return games > 0 if facts is None else facts.get("versions") != versions


def refresh(settings: Settings, client, queue=None) -> str | None:
    """Queue the build of last month's file if it has ended and its file is missing or stale (the
    worker's maintenance, every minute); the month queued, or None.  Nothing without an archive
    directory."""
    if not settings.archive_dir:
        return None
    today = settings.clock.today(settings.now())
    last = month_id(today.replace(day=1) - timedelta(days=1))
    if not MonthArchive(client, settings).stale(last):
        return None
    from rq import Queue
    from rq.job import Job

    from service.duplicate import QUEUE as BOARDS_QUEUE

    conn = queue if queue is not None else settings.queue_connection(client)
    job_id = f"archive-{last}"
    if Job.exists(job_id, connection=conn):  # queued or running: once is enough
        return None
    Queue(BOARDS_QUEUE, connection=conn).enqueue_call(JOB, args=(last,), job_id=job_id, result_ttl=0,
                                                      description=f"archive {last}")
    return last
