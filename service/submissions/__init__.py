"""Submissions: a finished ranked run handed in for verification, stored before it is queued.

``submit`` writes the submission and marks the run as submitted in one script (one day's slot),
then enqueues the RQ job (job id = submission id) on the queue's Redis, which with a cluster is
another server: what was accepted with a 202 is stored with its job, and a run submits once (a
job not confirmed is a 503, and the same submission again queues it).  The worker (``service.verification``)
marks it verified or rejected.  What is stored, compactly and for good: ``codec``; the game
record is not stored but replayed when asked (``record``).

Until its verdict a submission is *pending*: ``queued``, or ``delayed`` when its verification
crashed (raised, or its process died) and RQ's retries (``Settings.verify_retry``, with
backoff) are spent, or its job is gone; ops ``requeue`` it.  The pending ones are indexed by
acceptance time in ``manille:{all}:pending`` (readiness reads the oldest), left once the verdict
is stored (after its MULTI: the index is another cluster slot; a verdict left in it by a crash
between the two is dropped by whoever reads the index).
"""

from __future__ import annotations

import functools
import json
import re
import secrets
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta, timezone

import redis
from rq import Callback, Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from service.config import Settings
from service.errors import Conflict, NotFound, Unavailable
from service.runs import AGENTS, Runs, ranked_id, run_day, run_dict, run_shard  # noqa: F401 (AGENTS)
from service.store import (EVERY_SHARD, day_of_id, day_scope, id_of, id_tail, key_for, load_script, pipelined,
                           run_replicated, shard_of_id)

from . import by_player, codec
from .hindsight import HindsightNotes
from .review import ReviewNotes

#: ``YYYYMMDD-KK-<8 hex: ms since the day began><20 hex>``: the day, the shard of its run (and of
#: its keys), when it was made (a day's lists over its shards merge in that order), random.
SUB_ID_RE = re.compile(r"([0-9]{8})-([0-9]{2})-[0-9a-f]{8}[0-9a-f]{20}")  # [0-9]: \d takes other digits
JOB = "worker.jobs.verify_submission"
#: Run by RQ when a verification raised or was abandoned: marks it delayed once no retry is left.
ON_FAILURE = "worker.jobs.verification_failed"
PENDING = key_for("pending", "all")
PENDING_STATUSES = ("queued", "delayed")
#: An index entry whose submission is not stored is taken out once this old (see ``_live``).
ORPHAN_GRACE_SECONDS = 60
#: How long RQ keeps a failed verification job (and its traceback) for ops to look at.
FAILURE_TTL = 7 * 86400
#: The job states in which RQ will still run a verification by itself.
ON_ITS_WAY = (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.STARTED, JobStatus.DEFERRED)


def submission_day(sub_id: str) -> date | None:
    return day_of_id(SUB_ID_RE, sub_id)


def new_submission_id(run_id: str, day: date, now: datetime) -> str:
    """A submission id in its run's shard, ordered by ``now`` within the day's ids."""
    # from the UTC midnight before the day's: a day in a zone east of UTC (Brussels) begins
    # before its UTC midnight, and ids clamped at 0 there lost their order; 8 hex digits of
    # milliseconds still last 49 days
    since = now - datetime(day.year, day.month, day.day, tzinfo=timezone.utc) + timedelta(days=1)
    ms = min(max(0, int(since.total_seconds() * 1000)), 16 ** 8 - 1)
    return f"{day:%Y%m%d}-{run_shard(run_id):02d}-{ms:08x}{secrets.token_hex(10)}"


@functools.lru_cache(maxsize=256)
def _replayed_record(seed: bytes, bots: str, cards: str) -> str:
    """A verified game's record replayed, as compact JSON (expert-1: 12 ms median, 20 ms p90 over
    40 games).  The last 256 are kept (about 9 KB each): a record asked for again and again (a
    shared link, a page reloaded) costs its replay once per process."""
    from bots import get_bot
    from service.replay import verify

    record = verify(seed, [cards[i:i + 2] for i in range(0, len(cards), 2)], get_bot(bots), sealed=True)
    return json.dumps(record, separators=(",", ":"))


class Submissions(HindsightNotes, ReviewNotes):
    def __init__(self, client, settings: Settings, queue=None) -> None:
        self.r = client
        self.settings = settings
        #: RQ's connection: the queue's Redis (``Settings.queue_connection``), bytes.
        self.raw = queue if queue is not None else settings.queue_connection(client)
        self.queue = Queue(settings.queue_name, connection=self.raw)
        self._delay = load_script(client, __file__, "mark_delayed.lua")
        self._verdict = load_script(client, __file__, "store_verdict.lua")
        self._store = load_script(client, __file__, "store_submission.lua")

    @staticmethod
    def key(sub_id: str) -> str:
        """``manille:{day:D/KK}:submission:<id without its day and shard>``."""
        return key_for("submission", day_scope(submission_day(sub_id), shard_of_id(SUB_ID_RE, sub_id)), id_tail(sub_id))

    @staticmethod
    def day_list_key(day: date, shard: int) -> str:
        """The submissions of the day's ``shard`` in the order made, without the day and shard
        their ids begin with."""
        return key_for("submissions", day_scope(day, shard))

    def submit(self, run_id: str, pid: str, claim: Callable[[], str], *, ip: str = "", user_agent: str = "",
               now: datetime | None = None) -> tuple[str, bool]:
        """Store and enqueue the submission of a finished ranked run; returns (id, created now).
        A run already submitted answers its existing submission id (queued again if its job
        never reached the queue).  ``claim`` claims the nickname and returns it: called only once
        the run may be submitted, so a refused submission claims nothing.

        Three steps, none of which loses what the one before did: the user agent's text and the
        pending index first (each alone harmless: an index entry with no submission is dropped by
        its readers once it is a minute old); then the submission, atomically with its run's mark
        (``store_submission.lua``: the day's slot), waited for on a cluster replica; then the job,
        on the queue's Redis.  If the job is not confirmed, the answer is 503
        ``submission_unconfirmed`` and the same submission again queues it."""
        now = now or self.settings.now()
        if run_day(run_id) is None:
            raise NotFound("no such run for this player", code="run_not_found")
        run_key = Runs.key(run_id)
        stored = self.r.hgetall(run_key)
        if not stored or not secrets.compare_digest(stored.get("pid", ""), pid):
            raise NotFound("no such run for this player", code="run_not_found")
        run = run_dict(run_id, stored)
        if run.get("submission"):
            self._ensure_queued(run["submission"], run_id)
            return run["submission"], False
        self._refuse("practice_run" if run.get("ranked") != "1"
                     else "run_not_finished" if run.get("status") != "finished" else "")
        nickname = claim()
        day = date.fromisoformat(run["date"])
        sub_id = new_submission_id(run_id, day, now)
        fields, agents = codec.encode(run, pid=pid, nickname=nickname, ip=ip[:64], user_agent=user_agent[:256],
                                      created_at=now.isoformat())
        with self.r.pipeline(transaction=False) as pipe:
            for agent, text in agents.items():
                pipe.hsetnx(AGENTS, agent, text)
            pipe.zadd(PENDING, {sub_id: now.timestamp()})
            # before the submission, like the index above: an entry with none is skipped by its readers
            by_player.note(pipe, pid, day, sub_id, (stored.get("ip", ""), ip), now.timestamp())
            pipe.execute()
        args = [pid, id_tail(sub_id)]
        for name, value in fields.items():
            args += [name, value]
        try:
            (stored, got), _acked = run_replicated(self.r, self._store, [run_key, self.key(sub_id),
                                                                          self.day_list_key(day, run_shard(run_id))], args,
                                                   self.settings.redis_wait_ms)
        except (redis.ConnectionError, redis.TimeoutError) as e:  # sent, and Redis said nothing
            raise self._unconfirmed(run_id) from e
        if stored == 0:
            self._refuse(got)
        if stored == 2:  # submitted meanwhile (the same player, twice at once): that one stands
            got = id_of(day, run_shard(run_id), got)
            self._ensure_queued(got, run_id)
            return got, False
        try:
            self._enqueue(sub_id)
        except (redis.ConnectionError, redis.TimeoutError) as e:
            raise self._unconfirmed(run_id) from e
        return sub_id, True

    @staticmethod
    def _refuse(code: str) -> None:
        if code == "run_not_found":
            raise NotFound("no such run for this player", code="run_not_found")
        if code == "practice_run":
            raise Conflict("a practice run is not ranked and cannot be submitted", code="practice_run")
        if code == "run_not_finished":
            raise Conflict("only a finished run can be submitted", code="run_not_finished")

    @staticmethod
    def _unconfirmed(run_id: str) -> Unavailable:
        return Unavailable("the data store did not confirm this submission: it may have been "
                           "accepted; submit the same run again (its submission id comes back if so)",
                           code="submission_unconfirmed", run_id=run_id, retry_after=1)

    def _ensure_queued(self, sub_id: str, run_id: str) -> None:
        """A queued submission whose job is not in the queue's Redis (its enqueue was not
        confirmed) is enqueued now; anything else is left as it is."""
        try:
            if self.r.hget(self.key(sub_id), "status") == "queued" and not Job.exists(sub_id, connection=self.raw):
                self._enqueue(sub_id)
        except (redis.ConnectionError, redis.TimeoutError) as e:
            raise self._unconfirmed(run_id) from e

    def _enqueue(self, sub_id: str, pipe=None) -> None:
        """Queue the verification of ``sub_id`` (job id = submission id), in ``pipe`` (of the
        queue's Redis) if given, with RQ's retries with backoff and the callback that marks it
        delayed once they are spent.

        The verdict lives in the submission, so RQ keeps nothing of a verification that succeeded
        (``result_ttl=0``: its job is deleted as it finishes; an hour of results was 6.6 KB a
        player).  A failed one stays in RQ's failed registry, with its traceback, for a week: the
        submission is ``delayed`` with the reason meanwhile, and ``requeue`` needs no old job."""
        intervals = list(self.settings.verify_retry)
        self.queue.enqueue_call(JOB, args=(sub_id,), job_id=sub_id, pipeline=pipe,
                                result_ttl=0, failure_ttl=FAILURE_TTL, description=f"verify {sub_id}",
                                retry=Retry(max=len(intervals), interval=intervals) if intervals else None,
                                on_failure=Callback(ON_FAILURE))

    def get(self, sub_id: str) -> dict:
        """The submission, in the one shape of ``codec.decode``; NotFound ``submission_not_found``."""
        day = submission_day(sub_id)
        sub = self.r.hgetall(self.key(sub_id)) if day else None
        if not sub:
            raise NotFound("no such submission", code="submission_not_found")
        return codec.decode(sub_id, day.isoformat(), sub, self._agents(codec.agent_ids(sub)),
                            self._run_id(day, sub.get("pid")))

    def get_fields(self, sub_ids: list[str], fields: list[str]) -> list[dict]:
        """Some fields of each submission (pipelined), decoded as ``get`` does; {} for one missing."""
        asked = codec.stored_fields(fields)
        pipe = self.r.pipeline(transaction=False)
        for sub_id in sub_ids:
            pipe.hmget(self.key(sub_id), asked)
        stored = [{k: v for k, v in zip(asked, values) if v is not None} for values in pipe.execute()]
        agents = self._agents([a for one in stored for a in codec.agent_ids(one)])
        out = []
        for sub_id, one in zip(sub_ids, stored):
            day = submission_day(sub_id)
            out.append(codec.decode(sub_id, day.isoformat(), one, agents,
                                    self._run_id(day, one.get("pid")) if "run_id" in fields else None) if one else {})
        return out

    def _run_id(self, day: date, pid: str | None) -> str | None:
        """A submission's run: the player's ranked run of its day (``service.runs``)."""
        return ranked_id(self.settings.seed(day), day, pid) if pid else None

    def _agents(self, ids: list[str]) -> dict:
        """The user agents of these digests (digest -> text)."""
        ids = list(dict.fromkeys(ids))
        return dict(zip(ids, (text or "" for text in self.r.hmget(AGENTS, ids)))) if ids else {}

    def record(self, sub: dict) -> dict:
        """The game record (docs/spec.md §9) of a verified submission (``get``'s shape), as verification
        produced it: replayed from the day's seed, its bot and the cards (the engine and bots are
        frozen: the same bytes), ``seed`` null as while sealed.  Its ``rank_score`` is the stored
        score."""
        from service.challenges import Challenges

        day = date.fromisoformat(sub["date"])
        bots = Challenges(self.r, self.settings).stored_terms(day, create=False)["bots"]
        return json.loads(_replayed_record(self.settings.seed(day), bots, sub["cards"]))

    def for_day(self, day: date) -> list[str]:
        """The day's submissions in the order made: every shard's merged by the time their ids carry."""
        shards = pipelined(self.r, lambda pipe: [pipe.lrange(self.day_list_key(day, shard), 0, -1)
                                                 for shard in EVERY_SHARD])
        return sorted((id_of(day, shard, tail) for shard, tails in zip(EVERY_SHARD, shards) for tail in tails),
                      key=lambda sub_id: sub_id[12:20])

    def days(self) -> list[date]:
        """Every day that has submissions, in order (an ops scan, for rebuilds)."""
        found = set()
        for key in self.r.scan_iter(match=key_for("submissions", "day:*"), count=1000):
            found.add(date.fromisoformat(key.split("{day:", 1)[1][:10]))
        return sorted(found)

    def mark_verified(self, sub_id: str, score: int, now: datetime, *, flags: list | None = None,
                      status: str = "verified", deals: list[int] = ()) -> None:
        """A valid game: ``verified`` (on the boards), or ``held`` (flagged, off the boards until
        ops decide), ``review`` (at the top, off the boards: ``service.review``) or ``disqualified`` (by ops), with its card points deal by deal (``deals``,
        ``51,22,33``: what the field compares).  The record is not kept: ``record`` replays it."""
        self._mark(sub_id, now, status=status, score=score, reason="",
                   flags=json.dumps(flags, separators=(",", ":")) if flags else "", deals=",".join(map(str, deals)))

    def mark_rejected(self, sub_id: str, rejection: dict, now: datetime) -> None:
        self._mark(sub_id, now, status="rejected", reason=json.dumps(rejection, separators=(",", ":")))

    def _mark(self, sub_id: str, now: datetime, **fields) -> None:
        """Store a verdict (``store_verdict.lua``): ``verified_at`` keeps the first verdict's time,
        ``checked_at`` the latest once it differs; empty fields are not kept (no flags: none)."""
        kept = {name: str(value) for name, value in fields.items() if value != ""}
        drop = [name for name in fields if name not in kept]
        args = [sub_id, codec.pack_time(now.isoformat()), len(drop), *drop]
        for name, value in kept.items():
            args += [name, value]
        run_replicated(self.r, self._verdict, [self.key(sub_id)], args, self.settings.redis_wait_ms)
        # Out of the index after the verdict, not in its script: the index is another cluster slot
        # than the day's keys.  Left behind by a crash in between, it is dropped by its readers (_live).
        self.r.zrem(PENDING, sub_id)

    # -- pending verifications -----------------------------------------------------

    def mark_delayed(self, sub_id: str, reason: str, now: datetime | None = None) -> bool:
        """A pending verification that will not run again by itself: ``delayed`` until requeued
        (a verdict already stored is kept: False)."""
        now = now or self.settings.now()
        return bool(self._delay(keys=[self.key(sub_id)], args=[codec.pack_time(now.isoformat()), reason[:500]]))

    def requeue(self, sub_id: str) -> bool:
        """Enqueue the verification again (ops: a delayed one, or re-verify a verified one); the
        job is idempotent.  False, changing nothing, while RQ still has it on its way (queued,
        scheduled for a retry, running).  NotFound for an unknown id.

        The submission is marked queued (and indexed pending) before the job is made, in the
        queue's Redis under a watch of the job: two requeues at once enqueue it once."""
        self.get(sub_id)  # NotFound first: an id of no submission's form has no key
        key = self.key(sub_id)
        if self._on_its_way(sub_id):
            return False
        sub = self.get_fields([sub_id], ["status", "created_at"])[0]
        if sub.get("status") in PENDING_STATUSES:
            self.r.zadd(PENDING, {sub_id: datetime.fromisoformat(sub["created_at"]).timestamp()})
            self.r.hset(key, "status", "queued")
        with self.raw.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(Job.key_for(sub_id))
                    if self._on_its_way(sub_id):
                        return False
                    try:
                        job = Job.fetch(sub_id, connection=self.raw)
                    except NoSuchJobError:
                        job = None
                    pipe.multi()
                    if job is not None:
                        job.delete(pipeline=pipe)  # out of the failed registry, its old state gone
                    self._enqueue(sub_id, pipe)
                    pipe.execute()
                    return True
                except redis.WatchError:
                    continue

    def _on_its_way(self, sub_id: str) -> bool:
        try:
            job = Job.fetch(sub_id, connection=self.raw)
        except NoSuchJobError:
            return False
        return job.get_status(refresh=False) in ON_ITS_WAY

    def pending(self) -> list[tuple[str, float]]:
        """Every pending verification (queued or delayed) with its acceptance time, oldest first."""
        return self._live(self.r.zrange(PENDING, 0, -1, withscores=True))

    def _live(self, entries: list[tuple[str, float]]) -> list[tuple[str, float]]:
        """``entries`` of the index whose submission is still pending; the others are taken out now:
        a verdict stored by a process that died before taking it out of the index, or an entry
        with no submission a minute after it was made (``submit`` indexes before it stores: a
        younger one may be a submission on its way, left in the index and not counted)."""
        if not entries:
            return []
        with self.r.pipeline(transaction=False) as pipe:
            for sub_id, _at in entries:
                if submission_day(sub_id):
                    pipe.hget(self.key(sub_id), "status")
            found = iter(pipe.execute())
        statuses = [next(found) if submission_day(sub_id) else None for sub_id, _at in entries]
        young = time.time() - ORPHAN_GRACE_SECONDS
        stale = [sub_id for (sub_id, at), status in zip(entries, statuses)
                 if status not in PENDING_STATUSES and (status is not None or at < young)]
        if stale:
            self.r.zrem(PENDING, *stale)
        return [entry for entry, status in zip(entries, statuses) if status in PENDING_STATUSES]

    def pending_summary(self) -> dict:
        """How many verifications are pending and when the oldest was accepted (epoch seconds)."""
        skip = 0  # entries on their way (``_live``), left in the index and not counted
        for _attempt in range(100):  # each pass drops one stale oldest entry, if any
            with self.r.pipeline(transaction=False) as pipe:
                pipe.zcard(PENDING)
                pipe.zrange(PENDING, skip, skip, withscores=True)
                count, oldest = pipe.execute()
            if not oldest or self._live(oldest):
                break
            skip += self.r.zscore(PENDING, oldest[0][0]) is not None
        return {"pending": count - skip, "oldest": oldest[0][1] if oldest else None}

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
