"""``python -m worker [QUEUE …]``: an RQ worker on the verification queue (``verify``) and, once no
verification waits, the builds of the matchpoint boards (``boards``), then the warm of the day's
searched decisions (``warm``): the default; or on the players' analysis queue (``analysis``) or the
hidden-information check's (``analysis-check``), the engine and bots imported once.  Each queue
wants workers of its own: a worker takes its queues' jobs one after another, so a queue it shares
waits behind the others.

Jobs run in this process, one after another (RQ's ``SimpleWorker``): no fork per job, its imports
and Redis connections warm (a fork per job made a verification two thirds slower).
A job's timeout still holds (RQ's death penalty: SIGALRM in this, the main, thread), but a crash
that kills a job kills the worker: ``make run`` starts it again and the new worker, at once,
runs again (or marks delayed, with no retry left) the jobs that a dead worker of this machine was
running, rather than wait for RQ's cleanup to find them abandoned (their execution lapses the
job's timeout + 60 s after it started; that remains the path for a worker that died on another
machine).  ``--fork`` gives the forking worker back: a work horse per job, whose death the
worker survives and handles itself.

It also runs RQ's scheduler (a verification that crashed is retried after a backoff: the
scheduler puts it back on the queue) and, with RQ's maintenance every minute, the sweep that
marks delayed the verifications RQ will not run again by itself (``Submissions.sweep``) and
queues a build of each recent day's matchpoint board that lags its games (``service.duplicate``),
the warm of today's and tomorrow's searched decisions (``service.botcache.warm``) and the release
of the games held for review past their time (``service.review``).  Its
Redis connection rides out a Redis restart of a few seconds in the middle of a job; its
scheduler dies with it, even when it is killed with -9 (Linux).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys

from rq import Queue, SimpleWorker, Worker
from rq.executions import Execution
from rq.job import Job, JobStatus
from rq.utils import as_text, parse_composite_key

import worker.jobs  # noqa: F401 - the engine and the bots, imported once (inherited by forks)
from service import duplicate
from service.botcache import warm
from service.botcache.warm import QUEUE as WARM_QUEUE
from service.duplicate import QUEUE as BOARDS_QUEUE
from service.challenges import check_commitments
from service.analysis import JOB as ANALYSIS_JOB, Analyses
from service.config import QUEUE_NAME, Settings
from service.ops import Ops
from service.ops.player import PlayerDesk
from service.procs import PR_SET_PDEATHSIG, alive, prctl
from service.review.queue import Reviews
from service.privacy import retention

from service.submissions import JOB, Submissions
from service.telemetry import logs, solver

#: RQ's registry cleanup (abandoned jobs) and the sweep, in seconds (RQ's default is 10 minutes).
MAINTENANCE_SECONDS = 60
#: Connection retries, 0.1 s apart doubling up to 1 s: 3.5 s without Redis before a command fails
#: (longer would hold a stopping worker as long when Redis is gone for good).
REDIS_RETRIES = 6

#: The field of RQ's worker hash saying its jobs run in its own process (see ``dead_here``).
IN_PROCESS = "manille_in_process"

log = logging.getLogger("worker")


_forking_horse = False


def _scheduler_dies_with_worker() -> None:
    """In a child forked by the worker: RQ's scheduler is killed when the worker dies, even by
    kill -9, rather than live on holding a copy of the worker's Redis connection, blocked in
    BLMOVE, which would take the next job into a socket nobody reads (SIGKILL: at once; the
    scheduler lock it held lapses in a minute).  A work horse is left to finish its job."""
    if not _forking_horse:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Sweeping:
    """RQ's maintenance, after running again the jobs of dead workers of this machine, then the
    sweep of the verifications that would otherwise stay queued; a verification whose work horse
    died with no retry left is marked delayed at once."""

    def submissions(self) -> Submissions:
        settings = Settings.from_env()
        return Submissions(settings.state_beside(self.connection), settings)

    def dead_here(self, worker_name: str) -> bool:
        """Whether RQ's worker ``worker_name`` ran its jobs in its own process (no work horse that
        may still be finishing one), on this machine, and that process is gone (its pid is free,
        or is this very process: a restarted container); unknown: False."""
        if not worker_name or worker_name == self.name:
            return False
        host, pid, in_process = self.connection.hmget(self.redis_worker_namespace_prefix + worker_name,
                                                      ["hostname", "pid", IN_PROCESS])
        if host is None or pid is None or in_process != b"1" or as_text(host) != self.hostname:
            return False
        return int(pid) == os.getpid() or not alive(int(pid))

    def reap_dead_workers(self) -> list[str]:
        """Hand each job that a dead worker of this machine was running to RQ's cleanup of abandoned
        jobs now (retried if it has retries left, else failed); a verification out of retries is
        marked delayed with why.  Returns the job ids."""
        reaped = []
        for queue in self.queues:
            registry, dead = queue.started_job_registry, []
            for entry in self.connection.zrange(registry.key, 0, -1):
                job_id, execution_id = parse_composite_key(as_text(entry))
                try:
                    execution = Execution.fetch(execution_id, job_id, self.connection)
                except ValueError:  # gone: RQ's own cleanup deals with the entry
                    continue
                if self.dead_here(execution.worker_name):
                    dead.append((entry, job_id, execution.worker_name))
            if dead:
                # their executions lapse now, and the cleanup takes them (and only them: score 0)
                self.connection.zadd(registry.key, {entry: 0 for entry, _, _ in dead}, xx=True)
                registry.cleanup(timestamp=0)
                reaped += [(job_id, name) for _, job_id, name in dead]
        for job_id, name in reaped:
            job = Job.fetch(job_id, connection=self.connection)
            failed = job.get_status() == JobStatus.FAILED
            log.warning("job %s was running when worker %s died: %s", job_id, name,
                        "failed, no retry left" if failed else "to run again")
            if failed and job.func_name == JOB:
                self.submissions().mark_delayed(job.args[0], f"its worker {name} died in the middle "
                                                             "and no retry is left")
            elif failed and job.func_name == ANALYSIS_JOB:
                self.analysis_failed(job.args[0], f"its worker {name} died in the middle")
        return [job_id for job_id, _ in reaped]

    def serialize(self) -> dict:
        """RQ's worker hash, and whether this worker searches with the compiled solver (readiness
        and the metrics count those that do not)."""
        return {**super().serialize(), solver.WORKER_FIELD: "1" if solver.compiled() else "0"}

    def run_maintenance_tasks(self):
        try:
            self.reap_dead_workers()
        except Exception:  # noqa: BLE001 - RQ's cleanup finds them later; the worker must go on
            log.exception("running again the jobs of dead workers failed")
        super().run_maintenance_tasks()
        try:
            marked = self.submissions().sweep()
        except Exception:  # noqa: BLE001 - a failed sweep must not stop the worker; the next one runs
            log.exception("sweep of pending verifications failed")
            return
        if marked:
            log.warning("verifications marked delayed (requeue with `manille ops requeue`): %s",
                        " ".join(marked))
        try:
            settings = Settings.from_env()
            duplicate.refresh(settings, settings.state_beside(self.connection), queue=self.connection)
        except Exception:  # noqa: BLE001 - the next maintenance looks again
            log.exception("queueing the matchpoint boards' builds failed")
        try:
            settings = Settings.from_env()
            warm.refresh(settings, settings.state_beside(self.connection), queue=self.connection)
        except Exception:  # noqa: BLE001 - the next maintenance looks again; a play computes meanwhile
            log.exception("queueing the warm of the day's decisions failed")
        try:
            settings = Settings.from_env()
            lapsed = PlayerDesk(Ops(settings.state_beside(self.connection), settings)).lapse()
            if lapsed:
                log.info("restrictions lapsed (their games rank again): %s", " ".join(lapsed))
        except Exception:  # noqa: BLE001 - the next maintenance looks again; readers treat it as lapsed meanwhile
            log.exception("lifting the lapsed restrictions failed")
        try:
            settings = Settings.from_env()
            released = Reviews(settings.state_beside(self.connection), settings).sweep()
            if released:
                log.warning("games in review released with no decision in time: %s", " ".join(released))
        except Exception:  # noqa: BLE001 - the next maintenance looks again
            log.exception("the sweep of the review queue failed")
        try:
            settings = Settings.from_env()
            swept = retention.sweep(settings.state_beside(self.connection), settings)
            if swept["cleared"] or swept["decided"]:
                log.info("clients past their keep deleted: %s", swept)
        except Exception:  # noqa: BLE001 - the next maintenance goes on from the last day swept
            log.exception("the retention sweep failed")
        try:
            from service.opendata import archive

            settings = Settings.from_env()
            archive.refresh(settings, settings.state_beside(self.connection), queue=self.connection)
        except Exception:  # noqa: BLE001 - the next maintenance looks again
            log.exception("queueing last month's archive failed")

    @property
    def dequeue_timeout(self) -> int:
        """How long an idle worker waits on its queues before it looks again: RQ waits its TTL
        less 15 s (405 s), and the maintenance (the sweep, the matchpoint boards' builds) comes
        only between two waits; this worker waits no longer than its maintenance interval."""
        return max(1, min(super().dequeue_timeout, self.maintenance_interval))

    def fork_work_horse(self, job, queue):
        global _forking_horse
        _forking_horse = True
        try:
            super().fork_work_horse(job, queue)
        finally:
            _forking_horse = False

    #: Seconds the worker's pub/sub thread (RQ's commands to it: stop a job, kill its horse) waits
    #: for a message before it looks again whether to go on.  RQ gives 60, and redis-py (8.x)
    #: joins that thread when RQ stops it: a worker asked to stop waited up to a minute after
    #: its last job (an idle one, one in three stops here), past the stop timeouts of systemd
    #: and compose.  One second bounds that wait.
    PUBSUB_SLEEP = 1.0

    def subscribe(self):
        """RQ's ``subscribe`` with the shorter wait above."""
        self.log.info("Worker %s: subscribing to channel %s", self.name, self.pubsub_channel_name)
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(
            sleep_time=self.PUBSUB_SLEEP, daemon=True, exception_handler=self._pubsub_exception_handler)

    def analysis_failed(self, analysis_id: str, why: str) -> None:
        """An analysis whose job died says so at once (asking again queues it anew)."""
        try:
            Analyses(Settings.from_env().state_beside(self.connection), Settings.from_env()).fail(
                analysis_id, {"error": "analysis_failed", "message": why})
        except Exception:  # noqa: BLE001 - it goes stale and is queued anew when asked for again
            log.exception("could not mark analysis %s failed", analysis_id)

    def handle_work_horse_killed(self, job, retpid, ret_val, rusage):
        super().handle_work_horse_killed(job, retpid, ret_val, rusage)
        if job.func_name == ANALYSIS_JOB:
            self.analysis_failed(job.args[0], f"its work horse died (exit {ret_val})")
        if job.func_name == JOB and not job.retries_left:  # RQ fails it now, and runs no callback
            how = f"killed by {signal.Signals(os.WTERMSIG(ret_val)).name}" if os.WIFSIGNALED(ret_val or 0) \
                else f"exit status {ret_val}"
            try:
                self.submissions().mark_delayed(job.args[0], f"its work horse died ({how}) and no retry is left")
            except Exception:  # noqa: BLE001 - the sweep marks it later; RQ must go on failing the job
                log.exception("could not mark %s delayed", job.id)


class SweepingWorker(Sweeping, Worker):
    pass


class SweepingSimpleWorker(Sweeping, SimpleWorker):
    def serialize(self) -> dict:
        return {**super().serialize(), IN_PROCESS: "1"}  # what dead_here looks for


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m worker", description=__doc__.split("\n")[0])
    p.add_argument("queues", nargs="*", default=[QUEUE_NAME, BOARDS_QUEUE, WARM_QUEUE])
    p.add_argument("--url", default=os.environ.get("REDIS_URL"))
    p.add_argument("--burst", action="store_true", help="stop when the queues are empty")
    p.add_argument("--fork", action="store_true", help="run each job in a forked work horse (RQ's Worker)")
    p.add_argument("--name")
    args = p.parse_args(argv)
    if args.url:
        os.environ["REDIS_URL"] = args.url
    settings = Settings.from_env()  # fail now, not in the first job, if MANILLE_SECRET is missing
    # MANILLE_LOG_FORMAT lines, secrets scrubbed; a line per verdict (worker.jobs), RQ's own
    # bookkeeping only when it goes wrong.
    logs.configure()
    logging.getLogger("worker").setLevel(logging.INFO)
    client = settings.redis(retries=REDIS_RETRIES)  # the state: the cluster, or the queue's Redis
    check_commitments(client, settings)  # verifying with another day's secret would reject good games
    conn = settings.queue_connection(client, retries=REDIS_RETRIES)
    why_not = solver.why_not()
    if why_not is None:
        log.info("compiled solver loaded")
    else:  # the same answers, 35-81x slower: verifications and analyses lag (deploy/RUNBOOK.md)
        log.warning("compiled solver NOT loaded, the Python search is used: %s", why_not)
    os.register_at_fork(after_in_child=_scheduler_dies_with_worker)
    cls = SweepingWorker if args.fork else SweepingSimpleWorker
    w = cls([Queue(q, connection=conn) for q in args.queues], connection=conn, name=args.name,
            maintenance_interval=MAINTENANCE_SECONDS)
    w.work(burst=args.burst, logging_level="WARNING", with_scheduler=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
