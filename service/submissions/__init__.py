"""Submissions: a finished ranked run handed in for verification, stored before it is queued.

``submit`` writes the submission, marks the run as submitted and enqueues the RQ job (job id =
submission id) in one MULTI, watched on the run, so that what was accepted with a 202 is in
Redis (AOF) together with its job, and a run submits once.  The worker (``worker.jobs``)
marks it verified or rejected.

Until its verdict a submission is *pending*: ``queued``, or ``delayed`` when its verification
crashed (raised, or its process died) and RQ's retries (``Settings.verify_retry``, with
backoff) are spent, or its job is gone; ops ``requeue`` it.  The pending ones are indexed by
acceptance time in ``manille:{all}:pending`` (readiness reads the oldest), left once the verdict
is stored (after its MULTI: the index is another cluster slot; a verdict left in it by a crash
between the two is dropped by whoever reads the index).
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from datetime import date, datetime

import redis
from rq import Callback, Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from service.config import Settings
from service.errors import Conflict, NotFound, Unavailable
from service.runs import Runs, run_day
from service.store import day_of_id, day_scope, key_for, load_script, raw_client

SUB_ID_RE = re.compile(r"([0-9]{8})-[0-9a-f]{20}")  # [0-9]: \d also takes other scripts' digits
JOB = "worker.jobs.verify_submission"
#: Run by RQ when a verification raised or was abandoned: marks it delayed once no retry is left.
ON_FAILURE = "worker.jobs.verification_failed"
PENDING = key_for("pending", "all")
PENDING_STATUSES = ("queued", "delayed")
#: The job states in which RQ will still run a verification by itself.
ON_ITS_WAY = (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.STARTED, JobStatus.DEFERRED)


def submission_day(sub_id: str) -> date | None:
    return day_of_id(SUB_ID_RE, sub_id)


class Submissions:
    def __init__(self, client, settings: Settings) -> None:
        self.r = client
        self.settings = settings
        self.raw = raw_client(client)
        self.queue = Queue(settings.queue_name, connection=self.raw)
        self._delay = load_script(client, __file__, "mark_delayed.lua")

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
        sent = False
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
                    pipe.zadd(PENDING, {sub_id: now.timestamp()})
                    self._enqueue(sub_id, pipe)
                    sent = True
                    pipe.execute()
                    return sub_id, True
                except redis.WatchError:
                    continue  # the run changed, or the connection broke while watching: look again
                except (redis.ConnectionError, redis.TimeoutError) as e:
                    if sent:  # the MULTI left: it may have been stored, and Redis said nothing
                        raise Unavailable(
                            "the data store did not confirm this submission: it may have been "
                            "accepted; submit the same run again (its submission id comes back if so)",
                            code="submission_unconfirmed", run_id=run_id, retry_after=1) from e
                    raise

    def _enqueue(self, sub_id: str, pipe) -> None:
        """Queue the verification of ``sub_id`` (job id = submission id) in ``pipe``, with RQ's
        retries with backoff and the callback that marks it delayed once they are spent."""
        intervals = list(self.settings.verify_retry)
        self.queue.enqueue_call(JOB, args=(sub_id,), job_id=sub_id, pipeline=pipe,
                                result_ttl=3600, failure_ttl=30 * 86400, description=f"verify {sub_id}",
                                retry=Retry(max=len(intervals), interval=intervals) if intervals else None,
                                on_failure=Callback(ON_FAILURE))

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
        # Out of the index after the MULTI, not in it: the index is another cluster slot than the
        # day's keys.  Left behind by a crash in between, it is dropped by its readers (_live).
        self.r.zrem(PENDING, sub_id)

    # -- pending verifications -----------------------------------------------------

    def mark_delayed(self, sub_id: str, reason: str, now: datetime | None = None) -> bool:
        """A pending verification that will not run again by itself: ``delayed`` until requeued
        (a verdict already stored is kept: False)."""
        now = now or self.settings.now()
        return bool(self._delay(keys=[self.key(sub_id)], args=[now.isoformat(), reason[:500]]))

    def requeue(self, sub_id: str) -> bool:
        """Enqueue the verification again (ops: a delayed one, or re-verify a verified one); the
        job is idempotent.  False, changing nothing, while RQ still has it on its way (queued,
        scheduled for a retry, running).  NotFound for an unknown id."""
        key = self.key(sub_id)
        self.get(sub_id)
        with self.raw.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(key, Job.key_for(sub_id))
                    status, created = (v.decode() if v else v for v in pipe.hmget(key, ["status", "created_at"]))
                    try:
                        job = Job.fetch(sub_id, connection=self.raw)
                    except NoSuchJobError:
                        job = None
                    if job is not None and job.get_status(refresh=False) in ON_ITS_WAY:
                        return False
                    pipe.multi()
                    if job is not None:
                        job.delete(pipeline=pipe)  # out of the failed registry, its old state gone
                    if status in PENDING_STATUSES:
                        pipe.hset(key, "status", "queued")
                        pipe.zadd(PENDING, {sub_id: datetime.fromisoformat(created).timestamp()})
                    self._enqueue(sub_id, pipe)
                    pipe.execute()
                    return True
                except redis.WatchError:
                    continue

    def pending(self) -> list[tuple[str, float]]:
        """Every pending verification (queued or delayed) with its acceptance time, oldest first."""
        return self._live(self.r.zrange(PENDING, 0, -1, withscores=True))

    def _live(self, entries: list[tuple[str, float]]) -> list[tuple[str, float]]:
        """``entries`` of the index whose submission is still pending; the others (a verdict stored
        by a process that died before taking it out of the index) are taken out now."""
        if not entries:
            return []
        with self.r.pipeline(transaction=False) as pipe:
            for sub_id, _at in entries:
                if submission_day(sub_id):
                    pipe.hget(self.key(sub_id), "status")
            found = iter(pipe.execute())
        statuses = [next(found) if submission_day(sub_id) else None for sub_id, _at in entries]
        stale = [sub_id for (sub_id, _at), status in zip(entries, statuses) if status not in PENDING_STATUSES]
        if stale:
            self.r.zrem(PENDING, *stale)
        return [entry for entry, status in zip(entries, statuses) if status in PENDING_STATUSES]

    def pending_summary(self) -> dict:
        """How many verifications are pending and when the oldest was accepted (epoch seconds)."""
        for _attempt in range(100):  # each pass drops one stale oldest entry, if any
            with self.r.pipeline(transaction=False) as pipe:
                pipe.zcard(PENDING)
                pipe.zrange(PENDING, 0, 0, withscores=True)
                count, oldest = pipe.execute()
            if not oldest or self._live(oldest):
                break
        return {"pending": count, "oldest": oldest[0][1] if oldest else None}

    def sweep(self, now: datetime | None = None) -> list[str]:
        """Mark delayed every queued verification that RQ will not run by itself: its job gone
        (expired, deleted), failed for good (its work horse killed with no retry left: RQ runs
        no callback then) or stopped.  The worker runs it with RQ's maintenance; returns the ids."""
        ids = [sub_id for sub_id, _at in self.pending()]
        if not ids:
            return []
        with self.r.pipeline(transaction=False) as pipe:
            for sub_id in ids:
                pipe.hget(self.key(sub_id), "status")
            statuses = pipe.execute()
        queued = [sub_id for sub_id, st in zip(ids, statuses) if st == "queued"]
        marked = []
        for sub_id, job in zip(queued, Job.fetch_many(queued, connection=self.raw)):
            state = job.get_status(refresh=False) if job is not None else None
            if state in ON_ITS_WAY:
                continue
            why = f"verification job {getattr(state, 'value', state) or 'missing'}"
            if state == JobStatus.FAILED:
                why = "verification failed and no retry is left"
            if self.mark_delayed(sub_id, why, now):
                marked.append(sub_id)
        return marked
