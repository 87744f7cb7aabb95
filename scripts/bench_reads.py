#!/usr/bin/env python3
"""The boards read as a public API: a board page through deploy/nginx.conf's micro-cache beside a
hello-world route through gunicorn, and a 304 beside the page it stands for; same machine, same
run (not a test; bounded, about two minutes; starts and stops everything it uses).

    .venv/bin/python scripts/bench_reads.py [--seconds 3] [--rounds 5] [--connections 16]

Needs Debian's ``wrk`` (the load: one C process, so that the client's cost does not hide the
server's; ``apt-get install wrk``), ``nginx`` and ``openssl``.  On a private redis-server with
today's board of ``--board-size`` entries, it starts gunicorn as ``make run`` does
(``deploy/gunicorn.conf.py``: gevent, a process a core) twice, one serving a hello-world Flask route
(the baseline) and one the service (``MANILLE_TRUSTED_PROXIES=1``), and nginx with
deploy/nginx.conf made local as tests/service/test_svc_nginx.py makes it (HTTPS with a certificate
made for the run, the access log written, a process a core), in front of the service.  The
per-address bounds (limit_req, limit_conn) are taken out of nginx's copy: every request here
comes from 127.0.0.1, which in production would be one client among millions.

Each round measures, in turn, for ``--seconds`` with ``--connections`` keep-alive connections:

- ``hello``: the hello-world route through gunicorn (the baseline of the other benchmarks);
- ``board``: today's board, top 20, through gunicorn (the page a web process keeps a second);
- ``board 304``: the same with ``If-None-Match`` its ETag;
- ``nginx``: the same page through nginx over TLS (kept a second by nginx: one request in many
  reaches the service);
- ``nginx 304``: the same through nginx with its ETag.

Before those, what a page and a 304 cost the service alone: the same two requests in process
(Flask's test client, no network), the median time of each over ``--in-process`` of each, in turn.

It prints each kind's median requests/s over the rounds (and their range), p50 and p99 latency,
and the ratios the issue asks for: nginx over hello, a 304 over its page.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))  # the support package

from bench_speed import RAISED_LIMITS, Gunicorn  # noqa: E402
from service.redis_server import RedisServer, free_port  # noqa: E402

WRK = shutil.which("wrk")
SECRET = "bench-reads: the same days, so the same boards, in every run"


def wrk(url: str, seconds: float, connections: int, headers: dict | None = None) -> dict:
    """One wrk run: requests/s, p50 and p99 in ms, and how many answers were not 2xx or 3xx."""
    args = [WRK, "-t2", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency", "--timeout", "5s"]
    for name, value in (headers or {}).items():
        args += ["-H", f"{name}: {value}"]
    out = subprocess.run([*args, url], capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))
    lat = {p: _ms(re.search(rf"^\s+{p}%\s+(\S+)", out, re.M).group(1)) for p in ("50", "99")}
    bad = re.search(r"Non-2xx or 3xx responses:\s+([0-9]+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {"rate": rate, "p50": lat["50"], "p99": lat["99"], "bad": int(bad.group(1)) if bad else 0,
            "errors": errors.group(1) if errors else ""}


def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([0-9.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def fill_today(redis_url: str, size: int) -> str:
    """Today's board of ``size`` entries; its date."""
    from bulk_boards import fill_board
    from service.config import Settings
    from service.store import connect

    today = Settings.from_env({"MANILLE_SECRET": SECRET, "REDIS_URL": redis_url}).today()
    fill_board(connect(redis_url), today, size)
    return today.isoformat()


def first_answer(url: str, context: ssl.SSLContext | None = None) -> tuple[int, dict]:
    host, port = re.match(r"https?://([^:/]+):([0-9]+)", url).groups()
    conn = (http.client.HTTPSConnection(host, int(port), context=context, timeout=10) if context
            else http.client.HTTPConnection(host, int(port), timeout=10))
    conn.request("GET", url.split(port, 1)[1])
    resp = conn.getresponse()
    resp.read()
    conn.close()
    return resp.status, dict(resp.getheaders())


def in_process(redis_url: str, path: str, n: int) -> tuple[float, float]:
    """The median seconds of ``path`` and of ``path`` with its ETag held (a 304), in process."""
    from service.app import create_app

    os.environ["MANILLE_LOG_LEVEL"] = "warning"  # as the servers below: no access line
    app = create_app({"REDIS_URL": redis_url, "MANILLE_SECRET": SECRET})
    client = app.test_client()
    etag = client.get(path).headers["ETag"]
    page, held = [], []
    for _ in range(n):
        t0 = time.perf_counter()
        r = client.get(path)
        t1 = time.perf_counter()
        c = client.get(path, headers={"If-None-Match": etag})
        t2 = time.perf_counter()
        assert r.status_code == 200 and c.status_code == 304 and r.headers["ETag"] == etag
        page.append(t1 - t0)
        held.append(t2 - t1)
    return statistics.median(page[n // 10:]), statistics.median(held[n // 10:])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=3, help="length of each measure")
    p.add_argument("--rounds", type=int, default=5, help="rounds of the five measures, taken in turn")
    p.add_argument("--connections", type=int, default=16)
    p.add_argument("--board-size", type=int, default=20_000)
    p.add_argument("--in-process", type=int, default=5000, help="requests of each kind in process")
    args = p.parse_args(argv)
    from support.nginx import NGINX, OPENSSL, certificate, running_nginx, site_config

    missing = [name for name, path in (("wrk", WRK), ("nginx", NGINX), ("openssl", OPENSSL)) if not path]
    if missing:
        print(f"bench_reads: needs {', '.join(missing)} (Debian: apt-get install {' '.join(missing)})")
        return 2
    print(f"bench_reads: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"commit {subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT, capture_output=True, text=True).stdout.strip() or '?'}")
    with tempfile.TemporaryDirectory(prefix="manille-bench-reads-") as tmp:
        tmp = Path(tmp)
        (tmp / "logs").mkdir()
        server = RedisServer(tmp / "redis", aof=True).start()
        servers = []
        try:
            env = {k: v for k, v in os.environ.items() if not k.startswith("MANILLE_")}
            env.update(REDIS_URL=server.url, MANILLE_SECRET=SECRET, MANILLE_LOG_LEVEL="warning", **RAISED_LIMITS)
            today = fill_today(server.url, args.board_size)
            page_s, held_s = in_process(server.url, f"/api/v1/leaderboards/days/{today}?limit=20", args.in_process)
            hello = Gunicorn("bench_speed:hello_app", env, tmp / "logs", "hello")
            web = Gunicorn("service.app:create_app()", dict(env, MANILLE_TRUSTED_PROXIES="1"), tmp / "logs", "web")
            servers = [hello, web]
            hello.wait("/hello")
            web.wait("/api/v1/health/live")
            port = free_port()
            site = site_config(web.port, port, tmp)
            for bound in ("    limit_conn manille_conn 20;\n", "    limit_req zone=manille_req burst=200 nodelay;\n"):
                assert site.count(bound) == 1, bound
                site = site.replace(bound, "")
            board_path = f"/api/v1/leaderboards/days/{today}?limit=20"
            with running_nginx(tmp, site, workers=os.cpu_count() or 1) as nginx:
                context = ssl.create_default_context(cafile=str(certificate(tmp)))
                deadline = time.monotonic() + 30
                while True:
                    try:
                        status, hdrs = first_answer(f"https://127.0.0.1:{port}{board_path}", context)
                        break
                    except OSError:
                        assert nginx.poll() is None and time.monotonic() < deadline, "nginx did not come up"
                        time.sleep(0.2)
                assert status == 200 and hdrs["Cache-Control"] == "public, max-age=1", (status, hdrs)
                status, direct = first_answer(f"http://127.0.0.1:{web.port}{board_path}")
                assert status == 200
                body_bytes = int(direct["Content-Length"])
                etag = direct["ETag"]
                kinds = {
                    "hello": (f"http://127.0.0.1:{hello.port}/hello", None),
                    "board": (f"http://127.0.0.1:{web.port}{board_path}", None),
                    "board 304": (f"http://127.0.0.1:{web.port}{board_path}", {"If-None-Match": etag}),
                    "nginx": (f"https://127.0.0.1:{port}{board_path}", None),
                    "nginx 304": (f"https://127.0.0.1:{port}{board_path}", {"If-None-Match": etag}),
                }
                for url, hdrs in kinds.values():  # warm-up
                    wrk(url, 1, args.connections, hdrs)
                got = {kind: [] for kind in kinds}
                for _round in range(args.rounds):
                    for kind, (url, hdrs) in kinds.items():
                        got[kind].append(wrk(url, args.seconds, args.connections, hdrs))
                log = tmp / "logs" / "access.log"
                counts = {status: log.read_bytes().count(f'"cache":"{status}"'.encode())
                          for status in ("HIT", "MISS", "EXPIRED", "REVALIDATED", "UPDATING")}
        finally:
            for s in servers:
                s.stop()
            server.stop()

    def med(kind, field="rate"):
        return statistics.median(r[field] for r in got[kind])

    base = med("hello")
    print(f"   today's board of {args.board_size} entries, top 20 ({body_bytes} bytes of JSON); "
          f"{args.connections} connections, {args.rounds} rounds of {args.seconds:.0f} s each kind, taken in turn")
    for kind in kinds:
        rates = [r["rate"] for r in got[kind]]
        bad = sum(r["bad"] for r in got[kind])
        errors = {r["errors"] for r in got[kind] if r["errors"]}
        print(f"   {kind:10s} {med(kind):8.0f} req/s (median; {min(rates):.0f}-{max(rates):.0f}) = {med(kind) / base:5.2f}x hello;"
              f" p50 {med(kind, 'p50'):.2f} ms, p99 {med(kind, 'p99'):.2f} ms"
              + (f"; {bad} answers not 2xx/3xx" if bad else "") + (f"; socket errors {errors}" if errors else ""))
    print(f"   nginx (micro-cache) over hello through gunicorn: {med('nginx') / base:.1f}x; per round: "
          + ", ".join(f"{n['rate'] / h['rate']:.1f}" for n, h in zip(got["nginx"], got["hello"])))
    print(f"   in process: the page {page_s * 1e6:.0f} µs, a 304 {held_s * 1e6:.0f} µs ({held_s / page_s:.2f}x; "
          f"medians of {args.in_process} each)")
    print(f"   a 304 over its page: through gunicorn {med('board 304') / med('board'):.2f}x the requests/s, "
          f"through nginx {med('nginx 304') / med('nginx'):.2f}x")
    print("   nginx's cache: " + ", ".join(f"{k} {v}" for k, v in counts.items())
          + f" (a request in {sum(counts.values()) / max(1, sum(counts.values()) - counts['HIT']):.0f} reached the service)")
    print(f"bench_reads: done, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
