"""``manille ratings rebuild --from DATE``: every rating from DATE on computed again, on the service's
Redis (``REDIS_URL`` and the day settings as the service has them), after a disqualification or a
restore of a backup.  ``--job`` queues it for a worker instead (``worker.jobs.rebuild_ratings``).
Standard output holds the result (JSON).
"""

from __future__ import annotations

import json
from datetime import timedelta

from rq import Queue

from service.config import Settings
from service.duplicate import QUEUE
from service.seeds import parse_date

from . import Ratings

REBUILD_JOB = "worker.jobs.rebuild_ratings"


def add_parser(sub) -> None:
    r = sub.add_parser("ratings", help="the players' ratings (derived from the days' matchpoints)")
    rsub = r.add_subparsers(dest="ratings_command", required=True)
    b = rsub.add_parser("rebuild", help="compute every rating from a day on again (after a disqualification, a restore)")
    b.add_argument("--from", dest="start", required=True, help="the first day computed again (YYYY-MM-DD)")
    b.add_argument("--job", action="store_true", help="queue it for a worker (boards queue) instead of running it here")
    r.set_defaults(func=cmd_ratings)


def cmd_ratings(args) -> int:
    settings = Settings.from_env()
    client = settings.redis(timeout=settings.redis_timeout)
    start = parse_date(args.start)
    if args.job:
        job = Queue(QUEUE, connection=settings.queue_connection(client)).enqueue_call(
            REBUILD_JOB, args=(start.isoformat(),), result_ttl=86400, failure_ttl=86400,
            description=f"ratings rebuild from {start}")
        print(json.dumps({"job_id": job.id, "from": start.isoformat()}))
        return 0
    upto = settings.today() - timedelta(days=1)
    days = Ratings(client).rebuild(settings, start, upto)
    print(json.dumps({"from": start.isoformat(), "rated": [d.isoformat() for d in days],
                      "through": (Ratings(client).through() or start).isoformat()}))
    return 0
