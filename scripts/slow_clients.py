#!/usr/bin/env python3
"""Does `make run` stay available while slow clients hold connections?  (Not a test; bounded.)

    .venv/bin/python scripts/slow_clients.py [--clients 40] [--seconds 10] [--classes gthread,gevent]

For each gunicorn worker class (``MANILLE_WORKER_CLASS``, read by deploy/gunicorn.conf.py) it starts
`make run`'s own launcher (service.run_local: Redis, a worker, gunicorn with its default process
count) in a temporary directory on free ports, then measures normal requests, one at a time on a
fresh connection each, to /api/v1/health/live and /api/v1/challenges/today: first alone, then while
``--clients`` connections each send a request header one byte a second and never finish it (one
the server cuts is opened again at once).  Prints, per class and phase: answered/sent (a request
not answered 200 within ``--timeout`` fails), p50/p90/max latency of the answered ones, and how
many slow connections were held at the end and cut by the server meanwhile.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from stats import pct  # noqa: E402
from service.redis_server import free_port  # noqa: E402
from service.run_local import Launcher  # noqa: E402
from support.svc_helpers import SlowClients, timed_get  # noqa: E402

ENDPOINTS = ("/api/v1/health/live", "/api/v1/challenges/today")


def probe(base: str, seconds: float, timeout: float) -> dict[str, list]:
    """Each endpoint in turn for ``seconds``; per endpoint the latencies (None: failed)."""
    out = {path: [] for path in ENDPOINTS}
    stop_at = time.monotonic() + seconds
    while time.monotonic() < stop_at:
        for path in ENDPOINTS:
            out[path].append(timed_get(requests, base + path, timeout))
    return out


def report(worker_class: str, phase: str, results: dict[str, list]) -> None:
    for path, lat in results.items():
        ok = [x for x in lat if x is not None]
        figures = (f"p50 {pct(ok, 50) * 1000:7.1f} ms  p90 {pct(ok, 90) * 1000:7.1f} ms  "
                   f"max {max(ok) * 1000:7.1f} ms" if ok else "no answer")
        print(f"{worker_class:8} {phase:24} {path:26} {len(ok):4}/{len(lat):<4} answered  {figures}",
              flush=True)


def measure(worker_class: str, clients: int, seconds: float, timeout: float, var: Path) -> None:
    port = free_port()
    os.environ.update(MANILLE_WORKER_CLASS=worker_class, MANILLE_VAR=str(var / worker_class),
                      MANILLE_BIND=f"127.0.0.1:{port}", MANILLE_REDIS_PORT=str(free_port()),
                      MANILLE_LOG_LEVEL="warning")
    launcher = Launcher()
    try:
        if launcher.start():
            raise SystemExit(f"{worker_class}: make run did not come up")
        base = f"http://127.0.0.1:{port}"
        report(worker_class, "alone", probe(base, seconds, timeout))
        with SlowClients("127.0.0.1", port, clients) as slow:
            time.sleep(2)  # every slow connection accepted and stuck in its header
            results = probe(base, seconds, timeout)
            held, cut = slow.held, slow.cut
        report(worker_class, f"{held} slow held, {cut} cut", results)
    finally:
        launcher.stop()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clients", type=int, default=40)
    p.add_argument("--seconds", type=float, default=10.0, help="of measuring, per phase")
    p.add_argument("--timeout", type=float, default=5.0, help="a request slower than this fails")
    p.add_argument("--classes", default="gthread,gevent")
    args = p.parse_args(argv)
    os.environ.pop("REDIS_URL", None)  # each run gets its own embedded Redis
    print(f"slow clients: {args.clients} connections, {args.seconds:g} s per phase, "
          f"timeout {args.timeout:g} s, {os.cpu_count()} cores, gunicorn processes: "
          f"{os.environ.get('WEB_CONCURRENCY', 'one a core (gthread: cores + 1)')}", flush=True)
    with tempfile.TemporaryDirectory(prefix="manille-slow-") as tmp:
        for worker_class in args.classes.split(","):
            measure(worker_class.strip(), args.clients, args.seconds, args.timeout, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
