"""Submissions: a finished ranked run handed in for verification, stored before it is queued.

``submit`` writes the submission, marks the run as submitted and enqueues the RQ job (job id =
submission id) in one MULTI, watched on the run, so that what was accepted with a 202 is in
Redis (AOF) together with its job, and a run submits once.  The worker (``worker.jobs``)
marks it verified or rejected.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from datetime import date, datetime

import redis
from rq import Queue

from service.config import Settings
from service.errors import Conflict, NotFound
from service.runs import Runs, run_day
from service.store import day_of_id, day_scope, key_for, raw_client

SUB_ID_RE = re.compile(r"([0-9]{8})-[0-9a-f]{20}")  # [0-9]: \d also takes other scripts' digits
JOB = "worker.jobs.verify_submission"


def submission_day(sub_id: str) -> date | None:
    return day_of_id(SUB_ID_RE, sub_id)


class Submissions:
    def __init__(self, client, settings: Settings) -> None:
        self.r = client
        self.settings = settings
        self.raw = raw_client(client)
        self.queue = Queue(settings.queue_name, connection=self.raw)

    @staticmethod
    def key(sub_id: str) -> str:
        return key_for("submission", day_scope(submission_day(sub_id)), sub_id)

    @staticmethod
    def day_list_key(day: date) -> str:
        return key_for("submissions", day_scope(day))

    def submit(self, run_id: str, pid: str, claim: Callable[[], str], *, ip: str = "", user_agent: str = "",
               now: datetime | None = None) -> tuple[str, bool]:
        """Store and enqueue the submission of a finished ranked run; returns (id, created now).
        A run already submitted answers its existing submission id.  ``claim`` claims the nickname
        and returns it: called only once the run may be submitted, so a refused submission claims
        nothing."""
        now = now or self.settings.now()
        if run_day(run_id) is None:
            raise NotFound("no such run for this player", code="run_not_found")
        run_key = Runs.key(run_id)
        with self.raw.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(run_key)
                    run = {k.decode(): v.decode() for k, v in pipe.hgetall(run_key).items()}
                    if not run or not secrets.compare_digest(run.get("pid", ""), pid):
                        raise NotFound("no such run for this player", code="run_not_found")
                    if run.get("submission"):
                        return run["submission"], False
                    if run["ranked"] != "1":
                        raise Conflict("a practice run is not ranked and cannot be submitted",
                                       code="practice_run")
                    if run["status"] != "finished":
                        raise Conflict("only a finished run can be submitted", code="run_not_finished")
                    nickname = claim()
                    day = date.fromisoformat(run["date"])
                    sub_id = f"{day:%Y%m%d}-{secrets.token_hex(10)}"
                    fields = {
                        "id": sub_id, "run_id": run_id, "pid": pid, "nickname": nickname,
                        "date": run["date"], "bots": run["bots"], "rules": run["rules"],
                        "cards": run["cards"], "times": run["times"],
                        "run_created_at": run["created_at"], "run_finished_at": run["finished_at"],
                        "run_ip": run["ip"], "run_user_agent": run["user_agent"],
                        "ip": ip[:64], "user_agent": user_agent[:256],
                        "created_at": now.isoformat(), "status": "queued",
                    }
                    pipe.multi()
                    pipe.hset(self.key(sub_id), mapping=fields)
                    pipe.hset(run_key, "submission", sub_id)
                    pipe.rpush(self.day_list_key(day), sub_id)
                    self.queue.enqueue_call(JOB, args=(sub_id,), job_id=sub_id, pipeline=pipe,
                                            result_ttl=3600, failure_ttl=30 * 86400,
                                            description=f"verify {sub_id}")
                    pipe.execute()
                    return sub_id, True
                except redis.WatchError:
                    continue

    def get(self, sub_id: str) -> dict:
        sub = self.r.hgetall(self.key(sub_id)) if submission_day(sub_id) else None
        if not sub:
            raise NotFound("no such submission", code="submission_not_found")
        return sub

    def for_day(self, day: date) -> list[str]:
        return self.r.lrange(self.day_list_key(day), 0, -1)

    def days(self) -> list[date]:
        """Every day that has submissions, in order (an ops scan, for rebuilds)."""
        found = set()
        for key in self.r.scan_iter(match=key_for("submissions", "day:*"), count=1000):
            found.add(date.fromisoformat(key.split("{day:", 1)[1][:10]))
        return sorted(found)

    def mark_verified(self, sub_id: str, score: int, record: dict, entry: str, now: datetime, *,
                      flags: list | None = None, status: str = "verified") -> None:
        """A valid game: ``verified`` (on the boards, ``entry`` as counted), or ``held`` (flagged,
        off the boards until ops decide) or ``disqualified`` (by ops)."""
        self._mark(sub_id, now, status=status, score=score, counted=entry, reason="",
                   flags=json.dumps(flags or [], separators=(",", ":")),
                   record=json.dumps(record, separators=(",", ":")))

    def mark_rejected(self, sub_id: str, rejection: dict, now: datetime) -> None:
        self._mark(sub_id, now, status="rejected", reason=json.dumps(rejection, separators=(",", ":")))

    def _mark(self, sub_id: str, now: datetime, **fields) -> None:
        """Store a verdict.  ``verified_at`` keeps the first verdict's time (it orders equal scores
        on the boards, and a re-verification or rebuild must not move a player behind later ones);
        ``checked_at`` is the latest."""
        key = self.key(sub_id)
        with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping={**fields, "checked_at": now.isoformat()})
            pipe.hsetnx(key, "verified_at", now.isoformat())
            pipe.execute()

    def requeue(self, sub_id: str) -> None:
        """Enqueue the verification again (ops: re-verify); the job is idempotent."""
        self.queue.enqueue_call(JOB, args=(sub_id,), result_ttl=3600, failure_ttl=30 * 86400)
