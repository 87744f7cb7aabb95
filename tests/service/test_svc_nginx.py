"""The production proxy, deploy/nginx.conf, run by Debian's nginx in front of the service, over TLS
with a certificate made for the test: port 80 sends everything to HTTPS, the TLS settings refuse
old protocols and ciphers, every answer carries HSTS and no nginx version; requests pass through,
the app sees the client's own address (X-Forwarded-For, MANILLE_TRUSTED_PROXIES=1) whatever the
client claims, slow clients are cut by the header timeout, nginx's own refusals (body too large,
too many requests) keep the API's JSON envelope, its access log is JSON and never holds the ops
page's query string; and, in a network namespace of its own where one IPv6 /64 is local, a
client rotating through the addresses of its /64 is one client for nginx's bounds and the app's
limits.  Skipped without nginx (CI installs it, .ci/run)."""

from __future__ import annotations

import contextlib
import ctypes
import http.client
import json
import os
import re
import select
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
import warnings
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
import requests

from service.config import QUEUE_NAME
from service.leaderboard import Leaderboard
from bulk_boards import record_many
from service.players import Players
from service.redis_server import free_port
from service.runs import Runs

from support.nginx import HEADER_TIMEOUT, NGINX, OPENSSL, certificate, client_context, running_nginx, site_config
from support.svc_helpers import SlowClients, flush_state, headers, live_service, state_client, timed_get, wait_up

pytestmark = [pytest.mark.stack, pytest.mark.skipif(NGINX is None or OPENSSL is None,
                                                    reason="no nginx or openssl (Debian: apt-get install nginx openssl)")]


@pytest.fixture(scope="module")
def proxy(redis_server, tmp_path_factory):
    """The service behind nginx; yields (nginx's HTTPS port, its HTTP port, the Redis client, the
    directory of its logs and certificate, the service's Unix socket)."""
    tmp = tmp_path_factory.mktemp("nginx")
    (tmp / "logs").mkdir()
    flush_state(redis_server.url)
    rclient = state_client(redis_server.url)
    sock = tmp / "web.sock"
    with live_service(redis_server.url, tmp / "logs",
                      [sys.executable, "-m", "worker", "--url", redis_server.url, QUEUE_NAME], also_bind=f"unix:{sock}",
                      MANILLE_TRUSTED_PROXIES="1", MANILLE_LIMIT_RANKED_RUNS="1 per hour") as base:
        port, http_port = free_port(), free_port()
        with running_nginx(tmp, site_config(int(base.rsplit(":", 1)[1]), port, tmp, http_port=http_port)) as nginx:
            wait_up(f"https://127.0.0.1:{port}/api/v1/health/live", [nginx], tmp / "logs",
                    verify=str(certificate(tmp)))
            yield port, http_port, rclient, tmp, sock


def call(port, method, path, source, body=None, hdrs=None, tls=None):
    """One HTTPS request to nginx from the loopback address ``source`` (127.0.0.x): (status,
    headers, JSON or text)."""
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, source_address=(source, 0), context=tls)
    try:
        data = body if isinstance(body, bytes) else None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(hdrs or {})})
        resp = conn.getresponse()
        raw = resp.read()
        try:
            payload = json.loads(raw or b"null")
        except ValueError:
            payload = raw.decode("utf-8", "replace")
        return resp.status, dict(resp.getheaders()), payload
    finally:
        conn.close()


@pytest.fixture
def tls(proxy):
    return client_context(proxy[3])


def test_requests_pass_and_the_app_sees_the_address_the_proxy_saw(proxy, tls):
    port, _, rclient, _, _ = proxy
    # the client claims another address: the proxy appends the one it saw, which the app takes
    status, _, run = call(port, "POST", "/api/v1/runs", "127.0.0.2", {}, {"X-Forwarded-For": "198.51.100.7"}, tls)
    assert status == 201, run
    assert rclient.hget(Runs.key(run["run_id"]), "ip") == "127.0.0.2"
    status, _, played = call(port, "POST", f"/api/v1/runs/{run['run_id']}/plays", "127.0.0.2",
                             {"turn": run["turn"], "card": run["view"]["legal"][0]},
                             headers(run["player_token"]), tls)
    assert status == 200 and played["turn"] == run["turn"] + 1
    # the limit of one ranked run an hour is the address's, whatever it claims to be
    status, hdrs, refused = call(port, "POST", "/api/v1/runs", "127.0.0.2", {}, {"X-Forwarded-For": "198.51.100.8"},
                                 tls)
    assert status == 429 and refused["limit"] == "ranked_runs" and int(hdrs["Retry-After"]) > 0
    assert hdrs["Retry-After"] == str(refused["retry_after"])  # the app's own, not one nginx added
    status, _, other = call(port, "POST", "/api/v1/runs", "127.0.0.3", {}, tls=tls)
    assert status == 201 and rclient.hget(Runs.key(other["run_id"]), "ip") == "127.0.0.3"


def test_port_80_sends_everything_to_https_but_the_certificates_challenges(proxy):
    _, http_port, _, tmp, _ = proxy
    conn = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
    conn.request("POST", "/api/v1/runs?x=1", body=b"{}", headers={"Host": "manille.example"})
    resp = conn.getresponse()
    assert resp.status == 301 and resp.getheader("Location") == "https://manille.example/api/v1/runs?x=1"
    assert resp.getheader("Server") == "nginx"  # no version
    conn.close()
    challenge = tmp / "acme" / ".well-known" / "acme-challenge" / "token-123"
    challenge.parent.mkdir(parents=True, exist_ok=True)
    challenge.write_text("token-123.thumbprint")
    r = requests.get(f"http://127.0.0.1:{http_port}/.well-known/acme-challenge/token-123", timeout=10,
                     allow_redirects=False)
    assert r.status_code == 200 and r.text == "token-123.thumbprint"


def test_tls_is_modern_and_every_answer_says_hsts_and_no_version(proxy, tls):
    port, _, _, tmp, _ = proxy
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with tls.wrap_socket(raw, server_hostname="localhost") as s:
            assert s.version() == "TLSv1.3"
    twelve = client_context(tmp)
    twelve.maximum_version = ssl.TLSVersion.TLSv1_2
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with twelve.wrap_socket(raw, server_hostname="localhost") as s:
            name, version, _bits = s.cipher()
            assert version == "TLSv1.2" and ("GCM" in name or "CHACHA20" in name), name  # AEAD, forward secret
    for protocol, ciphers in ((ssl.TLSVersion.TLSv1_2, "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA384"),
                              (ssl.TLSVersion.TLSv1_1, "ALL:@SECLEVEL=0")):
        old = client_context(tmp)
        with warnings.catch_warnings():  # TLSv1_1 is deprecated: that is the point
            warnings.simplefilter("ignore", DeprecationWarning)
            old.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED
            old.maximum_version = protocol
        old.set_ciphers(ciphers)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            with pytest.raises(ssl.SSLError):
                old.wrap_socket(raw, server_hostname="localhost")
    answers = [call(port, "GET", "/api/v1/challenges/today", "127.0.0.7", tls=tls),
               call(port, "GET", "/", "127.0.0.7", tls=tls),
               call(port, "GET", "/metrics", "127.0.0.7", tls=tls),
               call(port, "POST", "/api/v1/runs", "127.0.0.7", b"{" + b" " * 20_000 + b"}", tls=tls)]
    assert [status for status, _, _ in answers] == [200, 200, 404, 413]
    for status, hdrs, _ in answers:
        assert hdrs["Strict-Transport-Security"] == "max-age=63072000", status
        assert hdrs["Server"] == "nginx" and hdrs["X-Content-Type-Options"] == "nosniff", (status, hdrs)
        assert "," not in hdrs["X-Content-Type-Options"] and hdrs.get("Cache-Control", "").count("=") <= 1  # once
    assert answers[0][1]["Cache-Control"].startswith("public, max-age=") and answers[1][1]["Cache-Control"] == "no-cache"
    assert answers[2][1]["Cache-Control"] == answers[3][1]["Cache-Control"] == "no-store"  # nginx's own


def test_slow_clients_are_cut_by_the_header_timeout_and_others_served(proxy, tls):
    port = proxy[0]
    base = f"https://127.0.0.1:{port}"
    session = requests.Session()
    session.trust_env = False  # else REQUESTS_CA_BUNDLE, where set, wins over the certificate below
    session.verify = str(certificate(proxy[3]))
    with SlowClients("127.0.0.1", port, n=40, tls=tls) as slow:
        time.sleep(0.5)
        latencies = [timed_get(session, base + "/api/v1/challenges/today", timeout=3) for _ in range(10)]
        time.sleep(HEADER_TIMEOUT + 1.5)
        cut = slow.cut
    assert None not in latencies, latencies
    assert cut >= 40  # every one of the first 40 was cut once its header took too long


def test_the_proxy_refuses_in_the_api_envelope(proxy, tls):
    port = proxy[0]
    status, hdrs, body = call(port, "POST", "/api/v1/runs", "127.0.0.4", b"{" + b" " * 20_000 + b"}", tls=tls)
    assert status == 413 and body["error"] == "body_too_large" and "Retry-After" not in hdrs
    # a flood from one address meets the proxy's request rate (50 a second, bursts of 200)
    for sent in range(1, 1000):
        status, hdrs, body = call(port, "GET", "/api/v1/health/live", "127.0.0.5", tls=tls)
        if status != 200:
            break
    assert status == 429 and body["error"] == "too_many_requests" and hdrs["Retry-After"] == "1"
    assert hdrs["Cache-Control"] == "no-store" and hdrs["Strict-Transport-Security"]
    assert sent > 200  # the burst passed
    assert call(port, "GET", "/api/v1/health/live", "127.0.0.6", tls=tls)[0] == 200  # others are served


def test_the_proxy_names_each_request_and_keeps_metrics_inside(proxy, tls):
    port = proxy[0]
    status, hdrs, _ = call(port, "GET", "/api/v1/challenges/today", "127.0.0.6", hdrs={"X-Request-Id": "mine-12345678"},
                           tls=tls)
    assert status == 200 and re.fullmatch(r"[0-9a-f]{32}", hdrs["X-Request-Id"])  # nginx's $request_id, not ours
    status, _, body = call(port, "GET", "/metrics", "127.0.0.6", tls=tls)
    assert status == 404 and body["error"] == "not_found"  # scraped from each web process, not through here
    line = _access_lines(proxy[3], lambda rec: rec["request_id"] == hdrs["X-Request-Id"])
    assert len(line) == 1 and line[0]["uri"] == "/api/v1/challenges/today" and line[0]["tls"].startswith("TLSv1.")


def _access_lines(tmp: Path, keep=lambda rec: True) -> list[dict]:
    """nginx's access lines so far, each parsed as the JSON object it must be."""
    time.sleep(0.2)  # nginx writes a line as the request ends; the answer may come first
    return [rec for rec in map(json.loads, (tmp / "logs" / "access.log").read_text().splitlines()) if keep(rec)]


def test_the_ops_pages_query_string_never_reaches_a_log_and_every_line_is_json(proxy, tls):
    """The ops login form once sent the token as ?token=… when its script had not run: nginx answers
    such a URL with the page again, without its query, before any other work, and writes the path
    alone; whatever a request sends stays inside its JSON string."""
    port, _, _, tmp, _ = proxy
    secret = "ops-token-that-must-never-be-logged-0123456789"
    status, hdrs, _ = call(port, "GET", f"/ops?token={secret}", "127.0.0.8", tls=tls)
    assert status == 303 and hdrs["Location"] == f"https://127.0.0.1:{port}/ops"  # the page, its query dropped
    status, _, page = call(port, "GET", "/ops?lang=en", "127.0.0.8", tls=tls)
    assert status == 200 and "Ops review" in page
    status, _, _ = call(port, "GET", "/ops/" + "%0A%22x%22%09y?token=" + secret, "127.0.0.8", tls=tls)
    status, _, _ = call(port, "GET", "/api/v1/x%0A%7B%22forged%22%3A1%7D?q=%22%0A", "127.0.0.8",
                        hdrs={"User-Agent": 'evil"\\ agent'}, tls=tls)
    assert status == 404
    records = _access_lines(tmp)  # json.loads each: one object a line
    everything = (tmp / "logs" / "access.log").read_text() + (tmp / "logs" / "nginx-error.log").read_text()
    assert secret not in everything
    ops = [rec for rec in records if rec["uri"].startswith("/ops")]
    assert {rec["uri"] for rec in ops} >= {"/ops", '/ops/\n"x"\ty'} and all("?" not in rec["uri"] for rec in ops)
    forged = [rec for rec in records if rec["uri"].startswith("/api/v1/x")]
    assert forged and forged[-1]["uri"] == "/api/v1/x%0A%7B%22forged%22%3A1%7D?q=%22%0A"
    assert forged[-1]["agent"] == 'evil"\\ agent' and forged[-1]["status"] == "404"


# -- the micro-cache of public reads --------------------------------------------------------------

def _board_day(rclient, day: date, n: int, prefix: str) -> None:
    """``n`` scores on ``day``'s board (a day long closed: its answers say max-age=300)."""
    record_many(Leaderboard(rclient), day, [(f"{prefix}-{i}", f"{prefix}{i}", 1000 + 10 * i, f"sub-{prefix}-{i}")
                                           for i in range(n)])


def _player(rclient) -> tuple[str, str]:
    token, pid = Players.new_token()
    Players(rclient).opened(pid, datetime.now(timezone.utc).isoformat())
    return token, pid


def test_a_tokens_answer_never_meets_the_cache_and_two_tokens_see_their_own_me(proxy, tls):
    port, _, rclient, tmp, _ = proxy
    day = date(2025, 1, 6)
    (token_a, pid_a), (token_b, pid_b) = _player(rclient), _player(rclient)
    _board_day(rclient, day, 30, "cachea")
    Leaderboard(rclient).record(day, pid_a, "Alpha", 1700, "sub-alpha")
    Leaderboard(rclient).record(day, pid_b, "Bravo", 1600, "sub-bravo")
    path = f"/api/v1/leaderboards/days/{day}?limit=5"
    for _round in range(3):  # public reads between the tokens' own, which the cache holds meanwhile
        status, hdrs, body = call(port, "GET", path, "127.0.0.20", tls=tls)
        assert status == 200 and "me" not in body and hdrs["Cache-Control"] == "public, max-age=300"
        assert hdrs["X-Cache-Status"] in ("MISS", "HIT", "EXPIRED") and hdrs["Access-Control-Allow-Origin"] == "*"
        for token, pid in ((token_a, pid_a), (token_b, pid_b)):
            for sent in (headers(token), {"Authorization": f"Bearer {token}"}):
                status, hdrs, body = call(port, "GET", path, "127.0.0.20", hdrs=sent, tls=tls)
                assert status == 200 and body["me"]["player"] == pid, (sent, body.get("me"))
                assert hdrs["X-Cache-Status"] == "BYPASS" and hdrs["Cache-Control"] == "private, no-store"
                assert "ETag" not in hdrs and "Access-Control-Allow-Origin" not in hdrs
    # an answer the app did not say public is never stored, though asked without a token: each is a MISS
    for other in ("/api/v1/health/live", "/api/v1/openapi.json", "/leaderboard", "/embed/board?limit=99"):
        for _read in range(2):
            status, hdrs, _ = call(port, "GET", other, "127.0.0.20", tls=tls)
            assert hdrs["X-Cache-Status"] == "MISS" and status in (200, 400), (other, status, hdrs)
    # what the cache holds: the public page, never an answer with a `me`
    kept = [f.read_bytes() for f in (tmp / "cache").rglob("*") if f.is_file()]
    assert any(b'"Alpha"' in data for data in kept)
    assert not any(b'"me":' in data for data in kept)


def _timely_pair(port, tls, path: str, source: str):
    """Two reads of ``path`` in a row: both answers, and whether they came within 0.8 s (then the
    second must be the first as the cache kept it)."""
    started = time.monotonic()
    first = call(port, "GET", path, source, tls=tls)
    second = call(port, "GET", path, source, tls=tls)
    return first, second, time.monotonic() - started < 0.8


def test_public_reads_are_kept_a_second_whatever_their_max_age(proxy, tls):
    """A closed day's page says max-age=300 for the caches after nginx; nginx itself keeps it a
    second (proxy_cache_valid), so a new score shows within a few seconds; a held ETag is a 304."""
    port, _, rclient, _, _ = proxy
    day = date(2025, 1, 7)
    _board_day(rclient, day, 10, "cacheb")
    timely = 0
    for limit in range(2, 12):  # a new page each time: its first read is the cache's miss
        (s1, h1, b1), (s2, h2, b2), in_time = _timely_pair(port, tls, f"/api/v1/leaderboards/days/{day}?limit={limit}",
                                                           "127.0.0.21")
        assert s1 == s2 == 200 and h1["X-Cache-Status"] == "MISS"
        if in_time:
            timely += 1
            assert h2["X-Cache-Status"] == "HIT" and b2 == b1 and h2["ETag"] == h1["ETag"]
    assert timely, "no two reads came within 0.8 s of each other: the machine is too busy to tell"
    etag = call(port, "GET", f"/api/v1/leaderboards/days/{day}?limit=3", "127.0.0.21", tls=tls)[1]["ETag"]
    status, hdrs, body = call(port, "GET", f"/api/v1/leaderboards/days/{day}?limit=3", "127.0.0.21",
                              hdrs={"If-None-Match": etag}, tls=tls)
    assert status == 304 and body is None and hdrs["ETag"] == etag
    Leaderboard(rclient).record(day, "cacheb-new", "Newcomer", 1900, "sub-cacheb-new")
    deadline = time.monotonic() + 10
    while True:
        status, hdrs, body = call(port, "GET", f"/api/v1/leaderboards/days/{day}?limit=3", "127.0.0.21", tls=tls)
        if body["entries"][0]["nickname"] == "Newcomer":
            break
        assert time.monotonic() < deadline, "nginx kept a closed day's page longer than its second"
        time.sleep(0.2)
    assert hdrs["ETag"] != etag and hdrs["Cache-Control"] == "public, max-age=300"


def test_many_readers_of_a_page_not_kept_wait_for_one_fetch(proxy, tls):
    """proxy_cache_lock: twelve reads of a page nginx does not hold, sent at once on open
    connections, make one request to the app; the others get its answer."""
    port, _, rclient, _, _ = proxy
    day = date(2025, 1, 8)
    _board_day(rclient, day, 200, "cachec")
    timely = 0
    for limit in range(20, 25):
        path = f"/api/v1/leaderboards/days/{day}?limit={limit}"
        conns = [http.client.HTTPSConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.22", 0),
                                             context=tls) for _ in range(12)]
        for conn in conns:
            conn.connect()  # the TLS handshakes first: then the requests go out together
        gate, statuses = threading.Barrier(len(conns)), []

        def read(conn):
            gate.wait()
            conn.request("GET", path)
            resp = conn.getresponse()
            resp.read()
            statuses.append((resp.status, resp.getheader("X-Cache-Status")))
        started = time.monotonic()
        threads = [threading.Thread(target=read, args=(conn,)) for conn in conns]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for conn in conns:
            conn.close()
        assert all(status == 200 for status, _ in statuses), statuses
        if time.monotonic() - started < 0.8:  # all within the second the answer is kept
            timely += 1
            assert sorted(cache for _, cache in statuses) == ["HIT"] * 11 + ["MISS"], statuses
    assert timely, "no round of reads came within 0.8 s: the machine is too busy to tell"


def test_variants_by_language_are_kept_apart_and_only_the_embedded_board_may_be_framed(proxy, tls):
    port, _, rclient, _, _ = proxy
    day = date(2025, 1, 9)
    _board_day(rclient, day, 5, "cached")
    path = f"/embed/board?period={day}&limit=3"
    for lang in ("fr", "nl", "fr", "en", "nl"):
        status, hdrs, page = call(port, "GET", path, "127.0.0.23", hdrs={"Accept-Language": lang}, tls=tls)
        assert status == 200 and f'<html lang="{lang}">' in page, (lang, hdrs.get("X-Cache-Status"))
        assert hdrs["Vary"] == "Accept-Language" and "frame-ancestors *" in hdrs["Content-Security-Policy"]
    status, hdrs, _ = call(port, "GET", "/", "127.0.0.23", tls=tls)
    assert status == 200 and "frame-ancestors 'none'" in hdrs["Content-Security-Policy"]


# -- an IPv6 client is its /64 ------------------------------------------------------------------------

CLONE_NEWNET = 0x40000000
IPV6_FREEBIND = 78  # linux/in6.h: bind to an address the host does not hold
#: The namespace's own addresses: every address of 2001:db8:6::/48 is local there.
NET48 = "2001:db8:6::/48"


@contextlib.contextmanager
def ipv6_namespace():
    """A network namespace of its own (unshare(1), as root) where ``NET48`` is local: any of its
    addresses can be a client's; yields the path of the namespace, or skips where none can be made."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        pytest.skip("a network namespace needs root, unshare and ip")
    holder = subprocess.Popen(["unshare", "--net", "sh", "-c", f"ip link set lo up && ip -6 route add local {NET48} "
                               "dev lo && echo ready && exec sleep 3600"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if holder.stdout.readline().strip() != "ready":
            pytest.skip(f"no network namespace here: {holder.stderr.read()[:200]}")
        yield f"/proc/{holder.pid}/ns/net"
    finally:
        holder.kill()
        holder.wait()


def in_namespace(path: str, work):
    """``work()`` run in a thread that entered the network namespace at ``path`` (setns(2) moves
    the calling thread only); its result, or its exception raised here."""
    libc = ctypes.CDLL(None, use_errno=True)
    out = {}

    def run():
        fd = os.open(path, os.O_RDONLY)
        try:
            if libc.setns(fd, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns")
            out["value"] = work()
        except BaseException as e:  # noqa: BLE001 - raised again in the caller
            out["error"] = e
        finally:
            os.close(fd)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def connect_from(source: str, port: int, tls: ssl.SSLContext) -> ssl.SSLSocket:
    """A TLS connection to nginx on [::1]:``port`` from the address ``source`` (in the namespace)."""
    sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_IPV6, IPV6_FREEBIND, 1)
    sock.settimeout(30)
    sock.bind((source, 0))
    sock.connect(("::1", port))
    return tls.wrap_socket(sock, server_hostname="localhost")


def answer(sock: ssl.SSLSocket, data: bytes = b"") -> tuple[int, dict]:
    """The status and JSON body of the one answer on ``sock`` (Connection: close), after ``data``
    already read of it."""
    while chunk := sock.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body or b"null")


def read_now(sock: ssl.SSLSocket) -> tuple[bytes, bool]:
    """What ``sock`` has of its answer now, without waiting, and whether it has ended (TLS 1.3 makes
    a socket readable for its session tickets alone: readable says nothing of an answer)."""
    data = b""
    sock.setblocking(False)
    try:
        while chunk := sock.recv(65536):
            data += chunk
        return data, True
    except ssl.SSLWantReadError:
        return data, False
    finally:
        sock.settimeout(30)


def test_an_ipv6_client_rotating_through_its_64_is_one_client_for_the_proxy_and_the_app(proxy):
    """Twenty-five connections from twenty-five addresses of one /64, each holding a request whose
    body has not come yet: nginx keeps twenty in progress (its per-client bound) and refuses the
    other five at once, 429 in the envelope; the twenty then reach the app, whose limit of one
    ranked run an hour is the /64's: one run, nineteen 429s.  Another /56 of the /48 (which has room
    for two: ``service.limits.WIDER_PREFIXES``) is another client."""
    tmp = proxy[3]
    ns_tmp = tmp / "ipv6"
    ns_tmp.mkdir(exist_ok=True)
    (ns_tmp / "logs").mkdir(exist_ok=True)
    shutil.copytree(tmp / "tls", ns_tmp / "tls", dirs_exist_ok=True)
    port = free_port()
    site = site_config(f"unix:{proxy[4]}", port, ns_tmp, ipv6=True, body_timeout=120)
    tls = client_context(ns_tmp)
    head = b"POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" \
           b"Content-Length: 2\r\nConnection: close\r\n\r\n"
    net = "2001:db8:6:64"
    with ipv6_namespace() as ns, running_nginx(ns_tmp, site, ["nsenter", f"--net={ns}"]) as nginx:
        def up():
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                assert nginx.poll() is None, (ns_tmp / "logs" / "nginx-error.log").read_text()
                try:
                    with connect_from(f"{net}:ffff::1", port, tls) as s:
                        s.sendall(b"GET /api/v1/health/live HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                        return answer(s)[0]
                except OSError:
                    time.sleep(0.2)
            raise AssertionError("nginx did not come up in the namespace")
        assert in_namespace(ns, up) == 200

        def rotate():
            socks = [connect_from(f"{net}:{i:x}:{i * 7919 % 65536:x}::{i + 1:x}", port, tls) for i in range(25)]
            for s in socks:
                s.sendall(head)
            refused, deadline = {}, time.monotonic() + 60
            while len(refused) < 5 and time.monotonic() < deadline:
                ready, _, _ = select.select([s for s in socks if s not in refused], [], [], 1)
                for s in ready:
                    data, ended = read_now(s)
                    if data:
                        refused[s] = answer(s, data)
            held = [s for s in socks if s not in refused]
            quiet = [s for s in held if read_now(s)[0]]  # none answered: the twenty wait for their bodies
            for s in held:
                s.sendall(b"{}")
            passed = [answer(s) for s in held]
            with connect_from("2001:db8:6:165::1", port, tls) as other:  # a /64 of the next /56
                other.sendall(head + b"{}")
                elsewhere = answer(other)
            for s in socks:
                s.close()
            return list(refused.values()), quiet, passed, elsewhere
        refused, quiet, passed, elsewhere = in_namespace(ns, rotate)
    assert len(refused) == 5 and quiet == [] and len(passed) == 20
    assert all(status == 429 and body["limit"] == "proxy" for status, body in refused), refused
    assert sorted(status for status, _ in passed) == [201] + [429] * 19, passed
    assert all(body["limit"] == "ranked_runs" for status, body in passed if status == 429)
    run = next(body for status, body in passed if status == 201)
    assert proxy[2].hget(Runs.key(run["run_id"]), "ip").startswith(net + ":")  # the client's own address
    assert elsewhere[0] == 201, elsewhere


def test_no_secret_a_path_carries_reaches_a_log(proxy, tls):
    """An invite's code and a duel's admit whoever holds them: nginx writes [secret] in their place
    (the path as routed, so a percent-encoded one too), and the app's own lines never hold them."""
    port, _, _, tmp, _ = proxy
    invite = "LgIdLgIdLgIdLgId" + "s3cr3tInv1teS3cr3tInv1"  # an id and a 22-character secret
    duel = "DuelS3cr3tC0deDuelS3cr"
    paths = [f"/leagues/join/{invite}", f"/api/v1/leagues/invites/{invite}", f"/duel/{duel}?lang=en",
             f"/api/v1/duels/{duel}", f"/api/v1/duels/{duel}/results/0123456789abcdef/record",
             f"/%6Ceagues/join/{invite}", f"/api/v1/duels/{duel[:5]}%{ord(duel[5]):02X}{duel[6:]}"]
    for path in paths:
        status, hdrs, _ = call(port, "GET", path, "127.0.0.9", tls=tls)
        assert status in (200, 401, 404), (path, status)
    records = _access_lines(tmp)
    logged = [rec["uri"] for rec in records if "secret" in rec["uri"]]
    assert "/leagues/join/[secret]" in logged and "/api/v1/leagues/invites/[secret]" in logged
    assert "/duel/[secret]" in logged and "/api/v1/duels/[secret]/results/0123456789abcdef/record" in logged
    everything = "".join(f.read_text(errors="replace") for f in (tmp / "logs").iterdir() if f.is_file())
    for secret in ("s3cr3tInv1teS3cr3tInv1", duel, duel[6:]):
        assert secret not in everything
