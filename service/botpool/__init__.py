"""The bots' pool: the searches of a play computed by workers of their own, never by the web.

A play asks its bots to move until seat 0 is to play again.  Most of those decisions are cheap,
or the day's decision cache holds them (``service.botcache``, filled ahead by the warm); those
the web plays itself.  A decision that is a search and that no cache holds (free play at the
day's strength, an archive day's bots, a cold day) would take tens to hundreds of ms of the web
process that serves everyone's plays: the web stops at the first one (``SearchNeeded``) and hands
the rest of the bots' turn to the ``bots`` queue (RQ), where workers of their own (``python -m
worker bots``; ``make run`` starts one, at a lower CPU priority than the web) compute it.  The web
waits on the job's result in Redis (XREAD, no CPU of its own), then narrates the bots' actions on
its table and stores the play as before.

A job is pure: the run's terms (kind, day or free seed, bots, rules, target, bidder) and the plays
so far, the same code as the web's (``tbl.bots_until_player`` with ``Runs.bots_of``), so its
actions are the same bytes wherever computed.  Its id is a digest of those inputs: a play sent
again finds the job it queued, and two games of a day reaching the same position share one.  A
ranked run's job goes to the front of the queue: no free game makes a ranked play wait.

Back-pressure: at most ``Settings.bot_pool`` jobs wait for a worker; past it a new free game at
the day's strength is refused (503 ``bots_busy`` with how many wait, Retry-After, and the club's
table offered), while games already started go on.  The CPU a search costs (the worker's thread
time) counts against the player's token and address (``search_ms_per_token``,
``search_ms_per_address``, milliseconds), checked before a search starts.

``Settings.bot_pool`` 0: no pool, the web computes its searches itself (tests, ``manille``).
"""

from __future__ import annotations

import hashlib
import json
import time

from redis.exceptions import RedisError
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.results import Result

from service.botcache import CachedBot
from service.errors import Unavailable

QUEUE = "bots"
JOB = "worker.jobs.bots_think"
#: A job not started in this long was given up by its web request (which answered 503): dropped.
JOB_TTL = 120
#: How long a job's result stays readable: the web's retry of a play that timed out finds it.
RESULT_TTL = 120
#: A whole bots' turn is a few searches: far below this, unless the worker is starved.
JOB_TIMEOUT = 60
#: Each wait on the result blocks its connection at most this long (below ``MANILLE_REDIS_TIMEOUT``).
WAIT_STEP_MS = 1000
#: The run fields a job needs (the seed only for a free deal: a day's derives from the secret).
TERMS = ("kind", "date", "seed", "bots", "rules", "target", "bidder")


class SearchNeeded(Exception):
    """The next bot decision is a search no cache holds."""


class Probe:
    """``bot`` (bare or a ``CachedBot``) playing only what costs no search: a cheap decision, or a
    dear one its cache holds; raises SearchNeeded before the state changes otherwise."""

    def __init__(self, bot) -> None:
        self.bot = bot
        self.id = bot.id

    def choose(self, obs, rng):
        inner = self.bot.bot if isinstance(self.bot, CachedBot) else self.bot
        searches = getattr(inner, "searches", None)
        if searches is None or not searches(obs):
            return inner.choose(obs, rng)
        card = self.bot.lookup(obs) if isinstance(self.bot, CachedBot) else None
        if card is None:
            raise SearchNeeded
        return card

    def call(self, obs, rng):
        return self.bot.call(obs, rng)


def job_terms(run: dict) -> dict:
    """What of ``run`` (its ``kind`` set) a job needs to play its bots (nothing of the player's)."""
    return {k: run[k] for k in TERMS if run.get(k)}


def job_id(terms: dict, plays: str) -> str:
    """The job of these bots in this position: the same inputs, the same id (and answer)."""
    text = json.dumps([terms, plays], sort_keys=True)
    return "bots-" + hashlib.sha256(text.encode()).hexdigest()[:32]


class BotPool:
    """The ``bots`` queue as the web uses it: ``admit`` a new free game, ``think`` a bots' turn."""

    def __init__(self, queue_conn, settings) -> None:
        self.settings = settings
        self.queue = Queue(QUEUE, connection=queue_conn)

    def waiting(self) -> int:
        """Jobs waiting for a worker (the one in hand not counted)."""
        return self.queue.count

    def health(self) -> dict:
        """Readiness's view: the queue's ``workers``, the bots' turns ``waiting``, ``max_waiting``."""
        from rq import Worker

        return {"workers": len(Worker.all(connection=self.queue.connection, queue=self.queue)),
                "waiting": self.waiting(), "max_waiting": self.settings.bot_pool}

    def admit(self) -> None:
        """Room for a new game at a searching table; Unavailable ``bots_busy`` (with ``waiting``,
        the jobs ahead, ``offer``, the club's table, and Retry-After) when the pool is full."""
        waiting = self.waiting()
        if waiting >= self.settings.bot_pool:
            from service.runs import CLUB_BOTS

            raise Unavailable(f"the strongest table is busy: {waiting} bots' turns wait for the "
                              f"pool; try again shortly, or play at the club's table ({CLUB_BOTS})",
                              code="bots_busy", waiting=waiting, offer={"kind": "random", "bots": CLUB_BOTS},
                              retry_after=max(1, waiting // max(1, self.settings.bot_pool)))

    def think(self, terms: dict, plays: str, *, urgent: bool = False) -> dict:
        """The bots' actions from ``plays`` (as stored) until seat 0's turn, computed by the pool:
        ``{"actions", "cpu_ms"}``.  ``urgent`` (a ranked run): queued in front.  Unavailable
        ``bots_busy`` (Retry-After) if no answer came within ``Settings.bot_pool_wait`` seconds
        (the job stays queued: the same play sent again waits on it), ``bots_failed`` if it failed."""
        jid = job_id(terms, plays)
        conn = self.queue.connection
        job = None
        try:
            job = Job.fetch(jid, connection=conn)
            if job.get_status(refresh=False) in (JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED):
                job = None
        except NoSuchJobError:
            job = None
        if job is None:
            job = self.queue.enqueue_call(JOB, args=(terms, plays), job_id=jid, at_front=urgent, ttl=JOB_TTL,
                                          result_ttl=RESULT_TTL, failure_ttl=RESULT_TTL, timeout=JOB_TIMEOUT,
                                          description=f"bots of {terms.get('kind')} {terms.get('bots')}")
        key = Result.get_key(jid)
        left_ms = max(1, round(self.settings.bot_pool_wait * 1000))
        while True:
            # XREAD on the job's results blocks this request's connection, not the process; the
            # wait is counted in its blocks, not read from a clock
            block = min(WAIT_STEP_MS, left_ms)
            if conn.xread({key: "0-0"}, count=1, block=block):
                result = Result.fetch_latest(job)
                if result is not None and result.type == Result.Type.SUCCESSFUL:
                    return result.return_value
                raise Unavailable("the bots could not play this position; send the same play again",
                                  code="bots_failed", retry_after=1)
            left_ms -= block
            if left_ms <= 0:
                raise Unavailable("the bots are still thinking: the pool is busy; send the same play "
                                  "again to wait for their answer", code="bots_busy",
                                  waiting=self.waiting(), retry_after=2)


def think(runs, terms: dict, plays: str) -> dict:
    """A pool job: the bots of a run with ``terms`` (``job_terms``) play from ``plays`` until seat
    0's turn, as the web would have (``runs``: a ``service.runs.Runs``).  Returns the actions as
    stored and the thread's CPU time they took, in ms."""
    from service.runs import bidder_of, game_terms, parse_stored, stored_actions
    from service.runs import table as tbl

    seed = runs.seed_of(terms)
    table = tbl.replay(seed, parse_stored(plays), **game_terms(terms))
    start = time.thread_time()
    actions = tbl.bots_until_player(table, runs.bots_of(terms["bots"], terms["kind"], seed), bidder_of(terms))
    return {"actions": stored_actions(actions), "cpu_ms": round((time.thread_time() - start) * 1000)}


__all__ = ["BotPool", "JOB", "Probe", "QUEUE", "SearchNeeded", "job_id", "job_terms", "think"]
