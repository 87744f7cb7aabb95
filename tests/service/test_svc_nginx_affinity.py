"""deploy/nginx.conf's consistent hash on the run id, measured through Debian's nginx: three web
processes (one gunicorn each, WEB_CONCURRENCY=1, as deploy/compose.yaml runs them) behind it;
free games played through the proxy find their game in the process's cache of games in play
(``manille_play_cache_total{result}``, read from each process's /metrics) nearly every time,
where the same file without the hash (round robin) sends a player's next play to another process
(with one client playing, every time).  Skipped
without nginx (CI installs it, .ci/run)."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys

import pytest
import requests

from service.redis_server import free_port

from support.svc_helpers import BIN, LIMITS_OFF, ROOT, SECRET, TEST_BOTS, headers, play_game, wait_up
from support.nginx import NGINX, certificate, running_nginx, site_config

pytestmark = [pytest.mark.stack, pytest.mark.skipif(NGINX is None, reason="no nginx (Debian: apt-get install nginx)")]

PROCESSES = 3
GAMES = 6
HASH_LINE = "hash $manille_run consistent;"


@contextlib.contextmanager
def web_processes(redis_url: str, logs, n: int):
    """``n`` gunicorns of one process each on free ports; yields their ports."""
    ports = [free_port() for _ in range(n)]
    procs = []
    env = dict(os.environ, REDIS_URL=redis_url, MANILLE_SECRET=SECRET, MANILLE_BOTS=TEST_BOTS,
               MANILLE_TZ="Europe/Brussels", WEB_CONCURRENCY="1", MANILLE_LOG_LEVEL="warning",
               MANILLE_TRUSTED_PROXIES="1", **LIMITS_OFF)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # each gunicorn its own: its /metrics is its process's
    try:
        for port in ports:
            procs.append(subprocess.Popen(
                [str(BIN / "gunicorn"), "-c", str(ROOT / "deploy/gunicorn.conf.py"), "service.app:create_app()"],
                env={**env, "MANILLE_BIND": f"127.0.0.1:{port}"}, cwd=ROOT,
                stdout=open(logs / f"web-{port}.log", "w"), stderr=subprocess.STDOUT))
        for port in ports:
            wait_up(f"http://127.0.0.1:{port}/api/v1/health/live", procs, logs)
        yield ports
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()


@contextlib.contextmanager
def proxy(tmp, web_ports: list[int], hashed: bool):
    """deploy/nginx.conf in front of ``web_ports`` (its one server line made one per process),
    with its hash on the run id or without it; yields nginx's HTTPS port and its certificate."""
    port = free_port()
    text = site_config(web_ports[0], port, tmp)
    one = f"server 127.0.0.1:{web_ports[0]};"
    text = text.replace(one, "\n    ".join(f"server 127.0.0.1:{p};" for p in web_ports))
    assert text.count(HASH_LINE) == 1, "deploy/nginx.conf no longer hashes the run id"
    if not hashed:
        text = text.replace(HASH_LINE, "")
    # one client plays faster than a person: the per-address rate (test_svc_nginx's) is not tested here
    limit = "limit_req zone=manille_req burst=200 nodelay;"
    assert text.count(limit) == 1
    text = text.replace(limit, "")
    with running_nginx(tmp, text) as nginx:
        wait_up(f"https://127.0.0.1:{port}/api/v1/health/live", [nginx], tmp / "logs", verify=str(certificate(tmp)))
        yield port, str(certificate(tmp))

def cache_counts(web_ports: list[int]) -> tuple[int, int]:
    """Hits and misses of the games in play, summed over the processes."""
    hits = misses = 0
    for port in web_ports:
        text = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
        for result, value in re.findall(r'^manille_play_cache_total\{result="(hit|miss)"\} ([0-9.e+]+)$', text, re.M):
            if result == "hit":
                hits += int(float(value))
            else:
                misses += int(float(value))
    return hits, misses


def hit_rate(proxied: tuple[int, str], web_ports: list[int], games: int = GAMES) -> tuple[float, int, int]:
    """Free games played whole through the proxy (its port, its certificate): the share of their
    plays whose game was held."""
    port, cert = proxied
    http = requests.Session()
    http.trust_env = False  # else REQUESTS_CA_BUNDLE, where set, wins over the certificate below
    http.verify = cert
    base = f"https://127.0.0.1:{port}"

    def post(path, body, hdrs):
        r = http.post(base + path, json=body, headers=hdrs, timeout=30)
        return r.status_code, r.json()

    hits0, misses0 = cache_counts(web_ports)
    for _ in range(games):
        r = http.post(f"{base}/api/v1/runs", json={"kind": "random"}, timeout=30)
        assert r.status_code == 201, r.text
        run = r.json()
        play_game(post, run, run["player_token"])
        assert http.get(f"{base}/api/v1/runs/{run['run_id']}", headers=headers(run["player_token"]),
                        timeout=30).status_code == 200
    hits, misses = cache_counts(web_ports)
    hits, misses = hits - hits0, misses - misses0
    return hits / (hits + misses), hits + misses, misses


def test_a_runs_plays_reach_the_process_that_holds_its_game(redis_server, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    with web_processes(redis_server.url, logs, PROCESSES) as web_ports:
        rates = {}
        for hashed in (True, False):
            tmp = tmp_path / ("hashed" if hashed else "round-robin")
            tmp.mkdir()
            with proxy(tmp, web_ports, hashed) as proxied:
                rates[hashed] = hit_rate(proxied, web_ports)
    (hashed_rate, plays, misses), (rr_rate, rr_plays, _) = rates[True], rates[False]
    print(f"\nplay cache hit rate through nginx, {PROCESSES} web processes, {GAMES} games each: "
          f"hash on the run id {hashed_rate:.1%} of {plays} plays, round robin {rr_rate:.1%} of {rr_plays}",
          file=sys.stderr)
    assert plays >= GAMES * 8 and rr_plays >= GAMES * 8  # a game is 16 plays at the fewest
    # a run's first play may miss (its opening went round robin); every later one is held
    assert misses <= GAMES
    assert rr_rate <= 0.6  # the measure tells the two apart: round robin misses most plays
