"""The verdicts the workers count in Redis, which ``/metrics`` reads (``metrics.RedisCollector``).

Counted in Redis, not in the worker's memory: any number of workers on any machine add to one
hash, nothing is lost when a work horse exits, and no worker needs a port of its own to scrape.
"""

from __future__ import annotations

import logging

from service.store import key_for

log = logging.getLogger("service.metrics")

#: A hash: ``status:<verdict>``, ``reason:<rejection code>``, ``flag:<flag>`` -> count.
VERDICTS = key_for("verdicts", "metrics")


def count_verdict(client, result: dict) -> None:
    """Count one verification job's verdict: its status, a rejection's code, each flag.  A failure
    is logged, never raised: the verdict is stored already, and a failed job would run again."""
    fields = [f"status:{result.get('status', 'unknown')}"]
    if result.get("reason"):
        fields.append(f"reason:{result['reason']}")
    fields += [f"flag:{f}" for f in result.get("flags", ())]
    try:
        pipe = client.pipeline(transaction=False)
        for field in fields:
            pipe.hincrby(VERDICTS, field, 1)
        pipe.execute()
    except Exception as e:  # noqa: BLE001 - metrics never fail a job
        log.warning("could not count a verdict: %s", e)
