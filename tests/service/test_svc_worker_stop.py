"""A worker asked to stop leaves at once: RQ's pub/sub thread (how ops' commands reach a worker)
is stopped and, with redis-py 8, joined; with RQ's own 60 s wait in that thread a stop could hang
for a minute after the unsubscribe, past systemd's and compose's stop timeouts (one stop in
three to sixteen of an idle ``python -m worker --fork``)."""

from __future__ import annotations

import time

from rq import Queue

from service.config import QUEUE_NAME
from worker.__main__ import SweepingSimpleWorker, SweepingWorker

from support.svc_helpers import queue_of


def test_unsubscribing_a_worker_never_waits_for_its_pub_sub_thread(rclient):
    conn = queue_of(rclient)
    for cls in (SweepingWorker, SweepingSimpleWorker):
        for _ in range(12):
            worker = cls([Queue(QUEUE_NAME, connection=conn)], connection=conn)
            worker.subscribe()
            time.sleep(0.05)  # the thread in its wait for a message
            started = time.monotonic()
            worker.unsubscribe()
            took = time.monotonic() - started
            assert took < 5, f"{cls.__name__}: unsubscribing took {took:.1f} s"
            assert not worker.pubsub_thread.is_alive()
