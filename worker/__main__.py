"""``python -m worker``: an RQ worker on the verification queue with the engine and bots preloaded.

``rq worker`` imports a job's module in every forked work horse; importing ``worker.jobs`` (the
engine, the bots) here first lets every fork inherit them.  ``--simple`` runs jobs in this
process (no fork: faster, but a stuck job is not killed by its timeout).

It also runs RQ's scheduler (a verification that crashed is retried after a backoff: the
scheduler puts it back on the queue) and, with RQ's maintenance every minute, the sweep that
marks delayed the verifications RQ will not run again by itself (``Submissions.sweep``).  Its
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

import worker.jobs  # noqa: F401 - preload the engine and the bots before forking
from service.config import QUEUE_NAME, Settings
from service.procs import PR_SET_PDEATHSIG, prctl
from service.store import raw_client, text_client
from service.submissions import JOB, Submissions
from service.telemetry import logs

#: RQ's registry cleanup (abandoned jobs) and the sweep, in seconds (RQ's default is 10 minutes).
MAINTENANCE_SECONDS = 60
#: Connection retries, 0.1 s apart doubling up to 1 s: 3.5 s without Redis before a command fails
#: (longer would hold a stopping worker as long when Redis is gone for good).
REDIS_RETRIES = 6

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
    """RQ's maintenance, then the sweep of the verifications that would otherwise stay queued; a
    verification whose work horse died with no retry left is marked delayed at once."""

    def submissions(self) -> Submissions:
        return Submissions(text_client(self.connection), Settings.from_env())

    def run_maintenance_tasks(self):
        super().run_maintenance_tasks()
        try:
            marked = self.submissions().sweep()
        except Exception:  # noqa: BLE001 - a failed sweep must not stop the worker; the next one runs
            log.exception("sweep of pending verifications failed")
            return
        if marked:
            log.warning("verifications marked delayed (requeue with `manille ops requeue`): %s",
                        " ".join(marked))

    def fork_work_horse(self, job, queue):
        global _forking_horse
        _forking_horse = True
        try:
            super().fork_work_horse(job, queue)
        finally:
            _forking_horse = False

    def handle_work_horse_killed(self, job, retpid, ret_val, rusage):
        super().handle_work_horse_killed(job, retpid, ret_val, rusage)
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
    pass


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m worker", description=__doc__.split("\n")[0])
    p.add_argument("queues", nargs="*", default=[QUEUE_NAME])
    p.add_argument("--url", default=os.environ.get("REDIS_URL"))
    p.add_argument("--burst", action="store_true", help="stop when the queues are empty")
    p.add_argument("--simple", action="store_true", help="run jobs in this process, no fork")
    p.add_argument("--name")
    args = p.parse_args(argv)
    if args.url:
        os.environ["REDIS_URL"] = args.url
    settings = Settings.from_env()  # fail now, not in the first job, if MANILLE_SECRET is missing
    # MANILLE_LOG_FORMAT lines, secrets scrubbed; a line per verdict (worker.jobs), RQ's own
    # bookkeeping only when it goes wrong.
    logs.configure()
    logging.getLogger("worker").setLevel(logging.INFO)
    conn = raw_client(settings.redis(retries=REDIS_RETRIES))
    os.register_at_fork(after_in_child=_scheduler_dies_with_worker)
    cls = SweepingSimpleWorker if args.simple else SweepingWorker
    w = cls([Queue(q, connection=conn) for q in args.queues], connection=conn, name=args.name,
            maintenance_interval=MAINTENANCE_SECONDS)
    w.work(burst=args.burst, logging_level="WARNING", with_scheduler=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
