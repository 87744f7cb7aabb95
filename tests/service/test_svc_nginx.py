"""The production proxy, deploy/nginx.conf, run by Debian's nginx in front of the service: requests
pass through, the app sees the client's own address (X-Forwarded-For, MANILLE_TRUSTED_PROXIES=1)
whatever the client claims, slow clients are cut by the header timeout, and nginx's own refusals
(body too large, too many requests) keep the API's JSON envelope.  Skipped without nginx (CI
installs it, .ci/run)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from service.config import QUEUE_NAME
from service.redis_server import free_port
from service.runs import Runs

from svc_helpers import ROOT, SlowClients, flush_state, headers, live_service, state_client, timed_get, wait_up

NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
HEADER_TIMEOUT = 2  # deploy/nginx.conf says 10 s; shortened so that the test waits little

pytestmark = pytest.mark.skipif(NGINX is None, reason="no nginx (Debian: apt-get install nginx)")


def site_config(upstream_port: int, port: int) -> str:
    """deploy/nginx.conf with the test's ports and header timeout: each line swapped must be there."""
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    for old, new in (("listen 80;", f"listen 127.0.0.1:{port};"), ("listen [::]:80;", ""),
                     ("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream_port};"),
                     ("client_header_timeout 10s;", f"client_header_timeout {HEADER_TIMEOUT}s;")):
        assert text.count(old) == 1, f"deploy/nginx.conf no longer has {old!r}"
        text = text.replace(old, new)
    return text


MAIN = """daemon off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/logs/nginx-error.log warn;
{user}
events {{ worker_connections 512; }}
http {{
    access_log {tmp}/logs/nginx-access.log;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {tmp}/manille.conf;
}}
"""


@pytest.fixture(scope="module")
def proxy(redis_server, tmp_path_factory):
    """The service behind nginx; yields (nginx's port, the Redis client)."""
    tmp = tmp_path_factory.mktemp("nginx")
    (tmp / "logs").mkdir()
    flush_state(redis_server.url)
    rclient = state_client(redis_server.url)
    with live_service(redis_server.url, tmp / "logs",
                      [sys.executable, "-m", "worker", "--url", redis_server.url, QUEUE_NAME],
                      MANILLE_TRUSTED_PROXIES="1", MANILLE_LIMIT_RANKED_RUNS="1 per hour") as base:
        port = free_port()
        with running_nginx(tmp, site_config(int(base.rsplit(":", 1)[1]), port)) as nginx:
            wait_up(f"http://127.0.0.1:{port}/api/v1/health/live", [nginx], tmp / "logs")
            yield port, rclient


@contextlib.contextmanager
def running_nginx(tmp, site: str):
    """Debian's nginx with ``site`` (deploy/nginx.conf made local) in the directory ``tmp``
    (its logs in ``tmp/logs``); yields the process, stopped after."""
    (tmp / "logs").mkdir(exist_ok=True)
    (tmp / "manille.conf").write_text(site)
    # as root, nginx would hand its workers to "nobody", who may not enter this directory
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
    (tmp / "nginx.conf").write_text(MAIN.format(tmp=tmp, user=user))
    nginx = subprocess.Popen([NGINX, "-p", str(tmp), "-c", str(tmp / "nginx.conf"), "-e",
                              str(tmp / "logs" / "nginx-error.log")],
                             stdout=open(tmp / "logs" / "nginx.log", "w"), stderr=subprocess.STDOUT)
    try:
        yield nginx
    finally:
        nginx.terminate()
        nginx.wait(15)

def call(port, method, path, source, body=None, hdrs=None):
    """One request to nginx from the loopback address ``source`` (127.0.0.x): (status, headers, JSON)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        data = body if isinstance(body, bytes) else None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(hdrs or {})})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), json.loads(resp.read() or b"null")
    finally:
        conn.close()


def test_requests_pass_and_the_app_sees_the_address_the_proxy_saw(proxy):
    port, rclient = proxy
    # the client claims another address: the proxy appends the one it saw, which the app takes
    status, _, run = call(port, "POST", "/api/v1/runs", "127.0.0.2", {}, {"X-Forwarded-For": "198.51.100.7"})
    assert status == 201, run
    assert rclient.hget(Runs.key(run["run_id"]), "ip") == "127.0.0.2"
    status, _, played = call(port, "POST", f"/api/v1/runs/{run['run_id']}/plays", "127.0.0.2",
                             {"turn": run["turn"], "card": run["view"]["legal"][0]},
                             headers(run["player_token"]))
    assert status == 200 and played["turn"] == run["turn"] + 1
    # the limit of one ranked run an hour is the address's, whatever it claims to be
    status, hdrs, refused = call(port, "POST", "/api/v1/runs", "127.0.0.2", {}, {"X-Forwarded-For": "198.51.100.8"})
    assert status == 429 and refused["limit"] == "ranked_runs" and int(hdrs["Retry-After"]) > 0
    status, _, other = call(port, "POST", "/api/v1/runs", "127.0.0.3", {})
    assert status == 201 and rclient.hget(Runs.key(other["run_id"]), "ip") == "127.0.0.3"


def test_slow_clients_are_cut_by_the_header_timeout_and_others_served(proxy):
    port, _ = proxy
    base = f"http://127.0.0.1:{port}"
    with SlowClients("127.0.0.1", port, n=40) as slow:
        time.sleep(0.5)
        latencies = [timed_get(requests, base + "/api/v1/challenges/today", timeout=3) for _ in range(10)]
        time.sleep(HEADER_TIMEOUT + 1.5)
        cut = slow.cut
    assert None not in latencies, latencies
    assert cut >= 40  # every one of the first 40 was cut once its header took too long


def test_the_proxy_refuses_in_the_api_envelope(proxy):
    port, _ = proxy
    status, _, body = call(port, "POST", "/api/v1/runs", "127.0.0.4", b"{" + b" " * 20_000 + b"}")
    assert status == 413 and body["error"] == "body_too_large"
    # a flood from one address meets the proxy's request rate (50 a second, bursts of 200)
    for sent in range(1, 1000):
        status, hdrs, body = call(port, "GET", "/api/v1/health/live", "127.0.0.5")
        if status != 200:
            break
    assert status == 429 and body["error"] == "too_many_requests" and hdrs["Retry-After"] == "1"
    assert sent > 200  # the burst passed
    assert call(port, "GET", "/api/v1/health/live", "127.0.0.6")[0] == 200  # others are served


def test_the_proxy_names_each_request_and_keeps_metrics_inside(proxy):
    port, _ = proxy
    status, hdrs, _ = call(port, "GET", "/api/v1/challenges/today", "127.0.0.6", hdrs={"X-Request-Id": "mine-12345678"})
    assert status == 200 and re.fullmatch(r"[0-9a-f]{32}", hdrs["X-Request-Id"])  # nginx's $request_id, not ours
    status, _, body = call(port, "GET", "/metrics", "127.0.0.6")
    assert status == 404 and body["error"] == "not_found"  # scraped from each web process, not through here
