#!/usr/bin/env python3
"""Benchmark the running service on this machine (not a test; bounded, stops by itself).

    MANILLE_LIMIT_RANKED_RUNS=off MANILLE_LIMIT_RUNS_PER_ADDRESS=off MANILLE_LIMIT_PLAYS_PER_ADDRESS=off \
        MANILLE_LIMIT_SUBMISSIONS_PER_ADDRESS=off make run &   # another terminal
    .venv/bin/python scripts/bench_service.py

(every client of the benchmark comes from 127.0.0.1: with the default limits per address on
opening runs, plays and submissions, it would meet 429 after a few runs)

Reports:
- plays per second with several concurrent clients, and p50/p99 latency of one play
  (each client opens ranked runs on today's challenge and plays them to the end);
- p50/p99 latency of a leaderboard page on a day board filled with 100,000 entries
  (filled directly through service.leaderboard on a past "bench day", removed afterwards);
- verifications per second of one worker: the finished runs are submitted, then their
  verification jobs are run again on a private queue by one ``rq worker --burst`` process
  (a fork per job), one ``python -m worker --burst`` (jobs in its own process, as ``make run``
  starts it) and by one SimpleWorker in this process.  (scripts/bench_speed.py measures the
  speed figures of issue 11 on a private stack, each beside its baseline.)

Talks only to 127.0.0.1. ``REDIS_URL`` defaults to make run's embedded Redis
(redis://127.0.0.1:6399/0); ``MANILLE_SECRET`` to ./var/secret (the worker needs it).
The plays go on today's board under nicknames ``bench-…``: run it on a dev instance.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import threading
import time
from datetime import date
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from stats import pct  # noqa: E402
from rq import Queue, SimpleWorker  # noqa: E402

from service.leaderboard import Leaderboard  # noqa: E402
from bulk_boards import record_many, remove_players  # noqa: E402
from service.store import connect, raw_client  # noqa: E402

BENCH_DAY = date(2001, 1, 1)


def ms(x):
    return f"{x * 1000:.1f} ms"


def play_phase(base, clients, games, deadline_s):
    latencies, runs, lock = [], [], threading.Lock()
    counter = {"games": 0}
    stop_at = time.monotonic() + deadline_s

    def client_loop():
        s = requests.Session()
        while time.monotonic() < stop_at:
            with lock:
                if counter["games"] >= games:
                    return
                counter["games"] += 1
            run = s.post(f"{base}/api/v1/runs", json={}, timeout=30).json()
            token = run["player_token"]
            h = {"X-Player-Token": token}
            while run["status"] != "finished" and time.monotonic() < stop_at:
                t0 = time.perf_counter()
                r = s.post(f"{base}/api/v1/runs/{run['run_id']}/plays",
                           json={"turn": run["turn"], "card": random.choice(run["view"]["legal"])},
                           headers=h, timeout=30)
                dt = time.perf_counter() - t0
                if r.status_code != 200:
                    raise RuntimeError(r.text)
                run = r.json()
                with lock:
                    latencies.append(dt)
            if run["status"] == "finished":
                with lock:
                    runs.append((run["run_id"], token))

    t0 = time.perf_counter()
    threads = [threading.Thread(target=client_loop) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - t0, latencies, runs


def submit_all(base, runs):
    ids = []
    s = requests.Session()
    for i, (run_id, token) in enumerate(runs):
        r = s.post(f"{base}/api/v1/submissions", json={"run_id": run_id, "nickname": f"bench-{run_id[-8:]}"},
                   headers={"X-Player-Token": token}, timeout=30)
        r.raise_for_status()
        ids.append(r.json()["submission_id"])
    deadline = time.monotonic() + 120
    pending = set(ids)
    while pending and time.monotonic() < deadline:
        for sid in list(pending):
            if s.get(f"{base}/api/v1/submissions/{sid}", timeout=30).json()["status"] != "queued":
                pending.discard(sid)
        time.sleep(0.2)
    return ids, pending


def verify_phase(redis_url, secret, ids, n):
    client = connect(redis_url)
    raw = raw_client(client)
    out = {}
    for name in ("rq worker (fork per job)", "python -m worker (in its own process)",
                 "SimpleWorker (in this process)"):
        q = Queue("bench-verify", connection=raw)
        q.empty()
        jobs = [q.enqueue("worker.jobs.verify_submission", ids[i % len(ids)], result_ttl=60) for i in range(n)]
        t0 = time.perf_counter()
        env = dict(os.environ, REDIS_URL=redis_url, MANILLE_SECRET=secret)
        if name.startswith("rq worker"):
            subprocess.run([str(Path(sys.executable).parent / "rq"), "worker", "--burst", "--quiet",
                            "--url", redis_url, "bench-verify"], env=env, cwd=ROOT, check=True, timeout=600,
                           stdout=subprocess.DEVNULL)
        elif name.startswith("python -m worker"):
            subprocess.run([sys.executable, "-m", "worker", "--burst", "--url", redis_url, "bench-verify"],
                           env=env, cwd=ROOT, check=True, timeout=600)
        else:
            os.environ.update(REDIS_URL=redis_url, MANILLE_SECRET=secret)
            SimpleWorker([q], connection=raw).work(burst=True, logging_level="WARNING")
        wall = time.perf_counter() - t0
        for j in jobs:
            j.refresh()
        done = [j for j in jobs if j.get_status() == "finished"]
        starts = [j.started_at for j in done if j.started_at]
        ends = [j.ended_at for j in done if j.ended_at]
        busy = (max(ends) - min(starts)).total_seconds() if starts and ends else wall
        out[name] = (len(done), wall, busy)
    return out


def board_phase(base, redis_url, size, pages, keep):
    lb = Leaderboard(connect(redis_url))
    pids = [f"bench-{i:06d}" for i in range(size)]
    rng = random.Random(1)
    t0 = time.perf_counter()
    record_many(lb, BENCH_DAY, ((pid, pid, 1000 + 10 * rng.randint(-70, 70), f"bench{i}")
                              for i, pid in enumerate(pids)))
    fill = time.perf_counter() - t0
    s = requests.Session()
    lat_page, lat_deep = [], []
    for i in range(pages):
        offset = rng.randrange(0, size - 100)
        t0 = time.perf_counter()
        r = s.get(f"{base}/api/v1/leaderboards/days/{BENCH_DAY}?offset={offset}&limit=100", timeout=30)
        lat_page.append(time.perf_counter() - t0)
        assert r.status_code == 200 and len(r.json()["entries"]) == 100, r.text[:200]
        total = r.json()["total"]
    for i in range(pages // 5):
        t0 = time.perf_counter()
        r = s.get(f"{base}/api/v1/leaderboards/days/{BENCH_DAY}?offset=0&limit=20", timeout=30)
        lat_deep.append(time.perf_counter() - t0)
    if not keep:
        remove_players(lb, BENCH_DAY, pids)
    return fill, total, lat_page, lat_deep


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--base", default="http://127.0.0.1:8000")
    p.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6399/0"))
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--games", type=int, default=48)
    p.add_argument("--max-seconds", type=float, default=180)
    p.add_argument("--board-size", type=int, default=100_000)
    p.add_argument("--pages", type=int, default=500)
    p.add_argument("--verifications", type=int, default=300)
    p.add_argument("--keep-board", action="store_true")
    args = p.parse_args(argv)
    if not args.base.startswith(("http://127.", "http://localhost")):
        p.error("this benchmark only talks to a service on this machine")
    secret = os.environ.get("MANILLE_SECRET") or (ROOT / "var" / "secret").read_text().strip()
    requests.get(f"{args.base}/api/v1/health/live", timeout=5).raise_for_status()
    print(f"bench: service {args.base}, redis {args.redis_url}, {os.cpu_count()} cores")

    wall, lat, runs = play_phase(args.base, args.clients, args.games, args.max_seconds)
    print(f"plays: {len(lat)} plays in {len(runs)} finished games by {args.clients} clients in {wall:.1f} s: "
          f"{len(lat) / wall:.0f} plays/s; play latency p50 {ms(pct(lat, 50))}, p99 {ms(pct(lat, 99))}")

    ids, pending = submit_all(args.base, runs)
    print(f"submit: {len(ids)} submissions verified by the service's worker ({len(pending)} still queued)")

    fill, total, lat_page, lat_top = board_phase(args.base, args.redis_url, args.board_size, args.pages,
                                                 args.keep_board)
    print(f"board: {total} entries on {BENCH_DAY} (filled in {fill:.1f} s); page of 100 at random offsets: "
          f"p50 {ms(pct(lat_page, 50))}, p99 {ms(pct(lat_page, 99))} ({len(lat_page)} requests); "
          f"top 20: p50 {ms(pct(lat_top, 50))}, p99 {ms(pct(lat_top, 99))}")

    if ids:
        for name, (done, wall, busy) in verify_phase(args.redis_url, secret, ids, args.verifications).items():
            print(f"verify: {name}: {done} verifications, {done / busy:.0f}/s while busy "
                  f"({done / wall:.0f}/s counting worker start-up, {wall:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
