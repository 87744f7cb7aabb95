"""``python -m worker``: an RQ worker on the verification queue with the engine and bots preloaded.

``rq worker`` imports a job's module in every forked work horse; importing ``worker.jobs`` (the
engine, the bots) here first lets every fork inherit them.  ``--simple`` runs jobs in this
process (no fork: faster, but a stuck job is not killed by its timeout).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from rq import Queue, SimpleWorker, Worker

import worker.jobs  # noqa: F401 - preload the engine and the bots before forking
from service.config import QUEUE_NAME, Settings
from service.store import raw_client
from service.telemetry import logs


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
    conn = raw_client(settings.redis())
    cls = SimpleWorker if args.simple else Worker
    w = cls([Queue(q, connection=conn) for q in args.queues], connection=conn, name=args.name)
    w.work(burst=args.burst, logging_level="WARNING")
    return 0


if __name__ == "__main__":
    sys.exit(main())
