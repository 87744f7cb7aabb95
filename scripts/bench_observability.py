#!/usr/bin/env python3
"""What the request id, the JSON access line and the metrics cost a play (not a test; bounded).

    .venv/bin/python scripts/bench_observability.py [--games 20]

One process, a private redis-server, the Flask test client, games played card by card on two
apps alike but for the observability hooks (``service.telemetry.web``): one with them, as
served, one with them taken off.  As under gunicorn, the metrics are in multi-process mode (files
in a temporary PROMETHEUS_MULTIPROC_DIR) and every log line is formatted as JSON and written (to
/dev/null).  The games alternate between the apps so that both meet the same machine.  Prints the
median and p90 of one play with and without, the hooks' own time a request, and what one
/metrics scrape costs.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="manille-bench-metrics-")  # before any import

from service.app import create_app  # noqa: E402
from service.config import DEFAULT_LIMITS  # noqa: E402
from service.redis_server import RedisServer  # noqa: E402
from service.telemetry import logs  # noqa: E402
from service.telemetry import web as telemetry  # noqa: E402


#: Seconds spent inside each hook, one entry per request (the app with them).
HOOK_TIMES: dict[str, list[float]] = {"_begin": [], "_end": []}


def timed(hook):
    def run(*args):
        t0 = time.perf_counter()
        try:
            return hook(*args)
        finally:
            HOOK_TIMES[hook.__name__].append(time.perf_counter() - t0)
    return run


def make_app(url: str, hooks: bool):
    config = {"REDIS_URL": url, "MANILLE_SECRET": "bench-observability: the same days in every run",
              **{f"MANILLE_LIMIT_{n.upper()}": "off" for n in DEFAULT_LIMITS}}
    app = create_app(config)
    before, after = app.before_request_funcs[None], app.after_request_funcs[None]
    i, j = before.index(telemetry._begin), after.index(telemetry._end)
    if hooks:
        before[i], after[j] = timed(telemetry._begin), timed(telemetry._end)
    else:
        del before[i], after[j]
    return app


def play_game(client) -> list[float]:
    r = client.post("/api/v1/runs", json={})  # today's deal, a new player: the same plays every game
    run = r.get_json()
    hdrs = {"X-Player-Token": run["player_token"]}
    times = []
    while run["status"] != "finished":
        body = {"turn": run["turn"], "card": run["view"]["legal"][0]}
        t0 = time.perf_counter()
        r = client.post(f"/api/v1/runs/{run['run_id']}/plays", json=body, headers=hdrs)
        times.append(time.perf_counter() - t0)
        assert r.status_code == 200, r.get_json()
        run = r.get_json()
    return times


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=20)
    args = p.parse_args(argv)
    logs.configure("json", "info", stream=open(os.devnull, "w"))
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(tmp, aof=False).start()
        try:
            apps = {"with": make_app(server.url, True), "without": make_app(server.url, False)}
            clients = {name: app.test_client() for name, app in apps.items()}
            for client in clients.values():  # warm up: scripts loaded, imports done
                play_game(client)
            times = {name: [] for name in apps}
            for spent in HOOK_TIMES.values():
                spent.clear()
            for game in range(args.games):
                order = list(clients.items()) if game % 2 == 0 else list(clients.items())[::-1]
                for name, client in order:
                    times[name] += play_game(client)
            hooks = {name: statistics.median(spent) for name, spent in HOOK_TIMES.items()}
            for name, ts in times.items():
                ts.sort()
                print(f"play {name:<7} observability: median {statistics.median(ts) * 1000:.3f} ms, "
                      f"p90 {ts[int(0.9 * len(ts))] * 1000:.3f} ms over {len(ts)} plays")
            print(f"the hooks' own time a request: median {hooks['_begin'] * 1e6:.0f} µs before it "
                  f"(request id) + {hooks['_end'] * 1e6:.0f} µs after it (access line, metrics)")
            diff = statistics.median(times["with"]) - statistics.median(times["without"])
            print(f"difference of the medians: {diff * 1e6:+.0f} µs a play "
                  f"({diff / statistics.median(times['without']) * 100:+.1f}%)")
            scrape = []
            for _ in range(50):
                t0 = time.perf_counter()
                assert clients["with"].get("/metrics").status_code == 200
                scrape.append(time.perf_counter() - t0)
            print(f"one /metrics scrape: median {statistics.median(scrape) * 1000:.2f} ms")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
