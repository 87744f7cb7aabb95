#!/usr/bin/env python3
"""What the day's lines cost (``{day:D/KK}:lines``, the index of the runs around a game: each
ranked run's cards so far in a sorted set read by prefix; not a test; bounded, deterministic).

On a private redis-server (no AOF), ``--runs`` runs of one shard are given lines as play.lua keeps
them, a card a character then ' ' and the run id's 16 characters: the players of a day follow a
few common openings and part (a seeded stream: each card the line's most common one so far with
probability 0.7, else one of eight), three quarters to the end of the game (48 cards), a quarter
given up part-way.  Prints the set's bytes a run (``MEMORY USAGE``), and the reads of the runs
around one of the lines (``service.runs.around``'s: a ZLEXCOUNT at each of its 49 depths, then the
members from the shallowest depth with at most 500), medians of 20.

    .venv/bin/python scripts/bench_lines.py [--runs 1000,100000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import string
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.redis_server import RedisServer  # noqa: E402
from service.runs.around import LISTED, _AFTER  # noqa: E402
from service.store import connect  # noqa: E402
from service.store.compact import ALPHABET  # noqa: E402

CARDS = 48
KEY = "manille:{day:2026-12-02/00}:lines"


def lines(n: int, rng: random.Random) -> list[str]:
    out = []
    for _ in range(n):
        line = []
        length = CARDS if rng.random() < 0.75 else rng.randrange(1, CARDS)
        for k in range(length):
            line.append(ALPHABET[k % 8] if rng.random() < 0.7 else rng.choice(ALPHABET[:8]))
        tail = "".join(rng.choice(string.ascii_letters + string.digits + "-_") for _ in range(16))
        out.append("".join(line) + " " + tail)
    return out


def around_reads(r, line: str) -> int:
    pipe = r.pipeline(transaction=False)
    for k in range(len(line) + 1):
        pipe.zlexcount(KEY, "[" + line[:k], "[" + line[:k] + _AFTER)
    reached = pipe.execute()
    start = next((k for k, n in enumerate(reached) if n <= LISTED), len(line))
    return len(r.zrangebylex(KEY, "[" + line[:start], "[" + line[:start] + _AFTER, start=0, num=LISTED + 1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default="1000,100000")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(tmp, aof=False).start()
        try:
            r = connect(server.url)
            for n in (int(x) for x in a.runs.split(",")):
                r.flushall()
                members = lines(n, random.Random(n))
                for start in range(0, n, 10_000):
                    r.zadd(KEY, {m: 0 for m in members[start:start + 10_000]})
                size = r.memory_usage(KEY, samples=0)
                game = members[0].split(" ")[0]
                times, listed = [], 0
                for _ in range(20):
                    t = time.perf_counter()
                    listed = around_reads(r, game)
                    times.append(time.perf_counter() - t)
                print(f"{n:>7,} runs: {size / n:6.0f} B a run ({size / 2 ** 20:.1f} MiB); the runs around a "
                      f"game: {1000 * statistics.median(times):.1f} ms, {listed} listed")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
