#!/usr/bin/env python3
"""The most bytes one IPv6 /48 can add to Redis in a day without a token, at the configured limits
(not a test; about a minute on 2 cores).

    .venv/bin/python scripts/bench_attacker.py [--sample 40] [--bots expert-1]

On a private redis-server (no AOF, a free port) and an app in process behind one trusted proxy,
with the default limits (``service.config.DEFAULT_LIMITS``, each per-address one also counting
the /56 and /48: ``service.limits.WIDER_PREFIXES``), a client holding one /48 does, ``--sample``
times each, from /64s spread over its /56s and with a new token each time (a token's own limits
are dodged by taking another: only the address's bind), every write a tokenless client can make:

- ``free run``: a free-play run opened and played to its end (its token's player key too);
- ``ranked run + submission``: the day's ranked run opened, played, submitted and verified (the
  jobs run in process as ``make run``'s workers run them: verification, boards, and the
  hidden-information check's analysis of the day's first games), its name held (at most
  ``RANKED_SAMPLE`` of them: a /48's day has 40);
- ``league created`` and ``league joined``: a league made, and a join of one (the new token's key,
  the league's keys, the player's list of leagues).

Each kind's bytes are what its sample added to Redis (MEMORY USAGE of each key added or grown, and
50 bytes a key for its place in the keyspace), per request, once one of each has been made (what
the first adds once).  A key that lives less than a day counts for the share of a day it lives:
what a day of requests at a steady pace holds at its end (a minute's window, some 60 of the day's
86,400 seconds).  The per-address limits' windows aside: whatever the requests, the /48 holds at
most one set of them per /56 (256) and one of its own, counted once, each at the size of the
largest window seen.  A day's allowance of each for one /48 is read from the
limits: a limit's windows, their amounts times the /48's factor, each window filled as often as
it fits in a day, the smallest; runs of both kinds share ``runs_per_address``, ranked ones
``ranked_runs`` too, and a submission is a ranked run's.  The day's most is the allowance times
the bytes, the ranked runs spent on submissions (they cost more than free runs), the leagues'
allowance on whichever of create and join costs more.  Plays are no kind of their own: a run
holds at most a game's cards, and each sampled run is played to its end.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_memory import run_queues  # noqa: E402

from service.app import create_app  # noqa: E402
from service.config import DEFAULT_LIMITS  # noqa: E402
from service.api.limits import ADDRESS_LIMITS  # noqa: E402
from service.limits import WIDER_PREFIXES, parse  # noqa: E402
from service.redis_server import RedisServer  # noqa: E402
from service.store import connect  # noqa: E402

SECRET = "bench-attacker: the same day, so the same games, in every run"
#: A Wednesday, 12:00 in Brussels: the day is open.
DAY_START = datetime(2027, 3, 10, 11, 0, tzinfo=timezone.utc)
#: The attacker's /48.
NET48 = "2001:db8:4848"
DAY = 86400
#: What a key costs in the keyspace's own tables beside what MEMORY USAGE says it holds.
KEYSPACE_BYTES = 50
KEY_PREFIX = "manille:"
#: Ranked runs sampled at most: a /48 opens 40 a day (``ranked_runs``, twice a /64's 20).
RANKED_SAMPLE = 30


def address(i: int) -> str:
    """The i-th address: a /64 of its own, walking the /48's 256 /56s first."""
    return f"{NET48}:{(i % 256) << 8 | (i // 256) % 256:x}::{i + 1:x}"


def per_day(limit: str, factor: int) -> int:
    """How many requests a limit lets one /48 make in a day: each window's amount times
    ``factor``, as often as the window fits in a day, the smallest (no window: none at all)."""
    windows = parse(DEFAULT_LIMITS[limit])
    return min(w.amount * factor * math.ceil(DAY / w.seconds) for w in windows) if windows else math.inf


def address_window(key: str) -> bool:
    """Whether ``key`` is a window of a per-address limit (``{<limit>:<hash>}:limit:<seconds>``)."""
    return any(key.startswith(f"{KEY_PREFIX}{{{name}:") for name in ADDRESS_LIMITS)


def key_bytes(r) -> dict[str, tuple[int, float]]:
    """Every key: what it holds (MEMORY USAGE and ``KEYSPACE_BYTES`` for its place in the keyspace)
    and the share of a day it lives (its TTL over a day, at most 1; no TTL: 1)."""
    keys = list(r.scan_iter(count=1000))
    pipe = r.pipeline(transaction=False)
    for key in keys:
        pipe.memory_usage(key, samples=0)
        pipe.ttl(key)
    answers = pipe.execute()
    return {key: ((size or 0) + KEYSPACE_BYTES, 1.0 if ttl < 0 else min(ttl, DAY) / DAY)
            for key, size, ttl in zip(keys, answers[::2], answers[1::2])}


def measure(url: str, sample: int, bots: str) -> int:
    from freezegun import freeze_time

    os.environ.update(REDIS_URL=url, MANILLE_SECRET=SECRET, MANILLE_BOTS=bots)  # the jobs read these
    app = create_app({"REDIS_URL": url, "MANILLE_SECRET": SECRET, "MANILLE_BOTS": bots, "MANILLE_TRUSTED_PROXIES": 1})
    client = app.test_client()
    r = connect(url)
    n = iter(range(10 ** 6))
    frozen = freeze_time(DAY_START)
    clock = frozen.start()

    def post(path, body, token=None):
        clock.tick(1.0)  # a request a second: the minute's and the ten minutes' windows never bind a sample
        hdrs = {"X-Forwarded-For": address(next(n))}
        if token:
            hdrs["X-Player-Token"] = token
        answer = client.post(path, json=body, headers=hdrs, environ_base={"REMOTE_ADDR": "127.0.0.1"})
        assert answer.status_code in (200, 201, 202), (path, answer.status_code, answer.get_json())
        return answer.get_json()

    def played(body) -> tuple[dict, str]:
        token, run = body["player_token"], body
        while run["status"] != "finished":
            run = post(f"/api/v1/runs/{run['run_id']}/plays", {"turn": run["turn"], "card": run["view"]["legal"][0]},
                       token)
        return run, token

    def free_run():
        played(post("/api/v1/runs", {"kind": "random"}))

    def ranked_and_submitted():
        run, token = played(post("/api/v1/runs", {}))
        post("/api/v1/submissions", {"run_id": run["run_id"], "nickname": f"Squat{next(n)}"}, token)

    host = post("/api/v1/leagues", {"name": "Host"})

    def league_created():
        post("/api/v1/leagues", {"name": "Spam"})

    def league_joined():
        post("/api/v1/leagues/join", {"invite": host["invite"]})

    kinds = [("free run", free_run), ("ranked run + submission", ranked_and_submitted),
             ("league created", league_created), ("league joined", league_joined)]
    cost, window_sizes = {}, []
    for _name, make in kinds:  # once each first: what the first of a kind adds once (the day's challenge)
        make()
    run_queues(r)
    for name, make in kinds:
        count = min(sample, RANKED_SAMPLE) if name.startswith("ranked") else sample
        before = key_bytes(r)
        for _ in range(count):
            make()
        if name.startswith("ranked"):
            run_queues(r)
        after = key_bytes(r)
        added = {k: (size - before.get(k, (0, 0))[0]) * share for k, (size, share) in after.items()
                 if not address_window(k)}
        cost[name] = sum(added.values()) / count
        window_sizes += [size for k, (size, _share) in after.items() if address_window(k)]
    frozen.stop()

    factor = dict(WIDER_PREFIXES)[48]
    runs, ranked = per_day("runs_per_address", factor), per_day("ranked_runs", factor)
    submitted = min(ranked, runs, per_day("submissions_per_address", factor))
    leagues = per_day("leagues_per_address", factor)
    plan = [("ranked run + submission", submitted), ("free run", runs - submitted),
            ("league created" if cost["league created"] >= cost["league joined"] else "league joined", leagues)]
    # the address windows: one set per /56 of the /48 and one for the /48, however many requests,
    # each at the largest size seen, for the share of a day it lives
    lengths = [w.seconds for name in ADDRESS_LIMITS for w in parse(DEFAULT_LIMITS[name])]
    windows = len(lengths) * (256 + 1)
    window_bytes = (256 + 1) * max(window_sizes) * sum(min(seconds, DAY) / DAY for seconds in lengths)
    print(f"bench_attacker: one /48 ({NET48}::/48, its limits at {factor} times a /64's), {sample} of each, "
          f"bots {bots}, redis {r.info('server')['redis_version']}")
    print(f"  {'kind (each from a new token)':30} {'bytes each':>10}  (each key's for the share of a day it lives)")
    for name, _make in kinds:
        print(f"  {name:30} {cost[name]:10.0f}")
    print(f"  {'a day at the limits':30} {'requests':>10} {'bytes':>12}")
    total = window_bytes
    for name, count in plan:
        total += count * cost[name]
        print(f"  {name:30} {count:10d} {count * cost[name]:12.0f}")
    print(f"  {'address windows (256 /56s)':30} {windows:10d} {window_bytes:12.0f}")
    print(f"  total: {total / 1e6:.2f} MB a day from one /48")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sample", type=int, default=40)
    p.add_argument("--bots", default="expert-1")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp) / "redis", aof=False).start()
        try:
            return measure(server.url, args.sample, args.bots)
        finally:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
