#!/usr/bin/env python3
"""Load test: ``make run`` on 127.0.0.1 under locust's realistic mix (scripts/locustfile.py), bounded
in time; prints each endpoint's requests a second, p50/p95/p99 and failures, and what /metrics
says of the verification queue after.  Not a test: a measurement (pip install -e '.[bench]').

    .venv/bin/python scripts/load_test.py [--users 60] [--spawn-rate 10] [--seconds 60]
                                          [--host http://127.0.0.1:8000]

Without ``--host`` it starts its own ``make run`` (``python -m service.run_local``: embedded Redis,
the workers, the bots' pool, gunicorn) in a temporary directory, on free ports, with every
``MANILLE_LIMIT_*`` off (every simulated player comes from 127.0.0.1), and stops it after.  It
loads it twice: first as a cold day (nothing warmed: the day's warm queued by the workers and
running beside), then, once today's warm is done and no warm runs (``warm_up``, with two extra
warm workers), as the day opens; a table for each.  With ``--host`` (a loopback
address only) it loads that service, whose limits must be off.  The machine's load average is
printed before and after: locust runs on the same machine and takes its share of the cores.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.config import DEFAULT_LIMITS  # noqa: E402
from service.redis_server import free_port  # noqa: E402

BIN = Path(sys.executable).parent
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def wait_live(base: str, proc: subprocess.Popen | None, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"make run exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{base}/api/v1/health/ready", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"{base} did not become ready")


def start_make_run(tmp: Path, port: int, web_concurrency: str | None, **extra: str) -> subprocess.Popen:
    env = dict(os.environ, MANILLE_VAR=str(tmp / "var"), MANILLE_BIND=f"127.0.0.1:{port}",
               MANILLE_REDIS_PORT=str(free_port()), MANILLE_LOG_LEVEL="warning")
    env.update(extra)
    env.pop("REDIS_URL", None)
    for name in DEFAULT_LIMITS:
        env[f"MANILLE_LIMIT_{name.upper()}"] = "off"
    if web_concurrency:
        env["WEB_CONCURRENCY"] = web_concurrency
    log = open(tmp / "make-run.log", "w")
    return subprocess.Popen([sys.executable, "-m", "service.run_local"], cwd=ROOT, env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def warm_up(redis_url: str, secret: str, helpers: int = 2, timeout: float = 900) -> float:
    """Queue today's warm (``service.botcache.warm``) and wait until it is done, with ``helpers``
    extra warm workers beside ``make run``'s; then no warm runs (tomorrow's, queued with it, is
    dropped, as if done: it would otherwise run under the load).  Returns the seconds it took."""
    from rq import Queue

    from service.botcache import warm
    from service.challenges import Challenges
    from service.config import Settings
    from service.store import connect, raw_client

    settings = Settings.from_env({"MANILLE_SECRET": secret, "REDIS_URL": redis_url})
    client = connect(redis_url)
    today = settings.today()
    t0, left = time.monotonic(), []
    warm.refresh(settings, client)
    procs = [subprocess.Popen([sys.executable, "-m", "worker", "--url", redis_url, "--name",
                               f"load-warm-{os.getpid()}-{i}", warm.QUEUE],
                              cwd=ROOT, env=dict(os.environ, MANILLE_SECRET=secret, MANILLE_LOG_FORMAT="text"),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(helpers)]
    try:
        while time.monotonic() - t0 < timeout:
            left = []
            bot = Challenges(client, settings).stored_terms(today, create=False)["bots"]
            got = warm.progress(client, settings.seed(today), bot)
            if got["jobs"] and got["done"] >= got["jobs"]:
                queue = Queue(warm.QUEUE, connection=raw_client(client))
                queue.empty()  # tomorrow's
                while queue.started_job_registry.count and time.monotonic() - t0 < timeout:
                    time.sleep(0.5)
                return time.monotonic() - t0
            left = [f"{today}: {got['done']}/{got['jobs']}"]
            time.sleep(1)
        raise SystemExit(f"the warm did not finish in {timeout:.0f} s: {left}")
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(30)


def scrape(base: str) -> dict:
    with urllib.request.urlopen(f"{base}/metrics", timeout=10) as r:
        text = r.read().decode()
    out = {}
    for line in text.splitlines():
        if line.startswith("manille_") and "{" not in line.split(" ")[0]:
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
        elif line.startswith(("manille_verifications_total{", "manille_flags_total{")):
            out[line.rsplit(" ", 1)[0]] = float(line.rsplit(" ", 1)[1])
    return out


def report(stats_csv: Path, seconds: float) -> None:
    rows = list(csv.DictReader(stats_csv.open()))
    print(f"\n{'endpoint':<44} {'req':>7} {'req/s':>7} {'fail':>5} {'p50':>6} {'p95':>6} {'p99':>6} {'max':>6}  (ms)")
    for row in rows:
        name = row["Name"] if row["Type"] else "(all)"
        if row["Name"] == "Aggregated":
            name = "ALL"
        print(f"{name:<44} {row['Request Count']:>7} {float(row['Requests/s']):>7.1f} {row['Failure Count']:>5} "
              f"{row['50%']:>6} {row['95%']:>6} {row['99%']:>6} {float(row['Max Response Time']):>6.0f}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--users", type=int, default=60)
    p.add_argument("--spawn-rate", type=float, default=10)
    p.add_argument("--seconds", type=int, default=60)
    p.add_argument("--host", help="a running service on a loopback address (limits off)")
    p.add_argument("--web-concurrency", help="WEB_CONCURRENCY of the make run started here")
    args = p.parse_args(argv)
    if args.host and urlparse(args.host).hostname not in LOOPBACK:
        p.error("--host must be a loopback address (127.0.0.1, localhost, ::1)")
    if not 1 <= args.seconds <= 600:
        p.error("--seconds: 1 to 600")

    with tempfile.TemporaryDirectory(prefix="manille-load-") as tmp_name:
        tmp = Path(tmp_name)
        service, secret, redis_port = None, secrets.token_hex(32), free_port()
        if args.host:
            base = args.host.rstrip("/")
        else:
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            service = start_make_run(tmp, port, args.web_concurrency, MANILLE_SECRET=secret,
                                     MANILLE_REDIS_PORT=str(redis_port))
        try:
            wait_live(base, service)
            if service is not None:
                if load(base, tmp, args, "a cold day: nothing warmed, the day's warm running beside") is None:
                    return 1
                took = warm_up(f"redis://127.0.0.1:{redis_port}/0", secret)
                print(f"\ntoday's warm done in {took:.0f} s", flush=True)
            return 0 if load(base, tmp, args, "the day warmed (today's warm done, none running)") else 1
        finally:
            if service is not None:
                os.killpg(service.pid, signal.SIGINT)  # make run's Ctrl-C: web, worker, then Redis
                try:
                    service.wait(60)
                except subprocess.TimeoutExpired:
                    os.killpg(service.pid, signal.SIGKILL)
                    service.wait()


def load(base: str, tmp: Path, args, title: str) -> bool | None:
    """One run of locust's mix against ``base``, its table printed under ``title``; None if
    locust wrote no statistics."""
    tag = f"load{len(list(tmp.glob('load*_stats.csv')))}"
    before = scrape(base)
    load0 = os.getloadavg()
    print(f"\n{title}\nload average before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} ({os.cpu_count()} cores); "
          f"{args.users} users, {args.seconds} s, against {base}", flush=True)
    t0, cpu0 = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [str(BIN / "locust"), "-f", str(ROOT / "scripts" / "locustfile.py"), "--headless",
         "--users", str(args.users), "--spawn-rate", str(args.spawn_rate), "--run-time", f"{args.seconds}s",
         "--stop-timeout", "10", "--host", base, "--csv", str(tmp / tag), "--only-summary",
         "--loglevel", "WARNING"],
        cwd=ROOT, capture_output=True, text=True, timeout=args.seconds + 120)
    elapsed = time.monotonic() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    locust_cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
    load1 = os.getloadavg()
    if not (tmp / f"{tag}_stats.csv").exists():
        print(out.stdout[-3000:], out.stderr[-3000:], file=sys.stderr)
        return None
    report(tmp / f"{tag}_stats.csv", elapsed)
    time.sleep(3)  # the last submissions' verifications
    after = scrape(base)
    print(f"\nload average after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    print(f"locust itself used {locust_cpu:.0f} s of CPU in {elapsed:.0f} s "
          f"({locust_cpu / elapsed:.2f} of the {os.cpu_count()} cores)")
    verdicts = {k.split('"')[1]: v - before.get(k, 0) for k, v in after.items()
                if k.startswith("manille_verifications_total{") and v - before.get(k, 0)}
    print(f"verifications during the run: {verdicts}; queue after: "
          f"{after.get('manille_queue_jobs', 0):.0f} waiting, oldest "
          f"{after.get('manille_queue_oldest_job_age_seconds', 0):.1f} s; failed jobs "
          f"{after.get('manille_queue_failed_jobs', 0):.0f}; redis used "
          f"{after.get('manille_redis_used_memory_bytes', 0) / 2**20:.1f} MiB")
    failures = tmp / f"{tag}_failures.csv"
    lines = failures.read_text().splitlines()[1:] if failures.exists() else []
    for line in lines[:10]:
        print("failure:", line[:300])
    return True


if __name__ == "__main__":
    sys.exit(main())
