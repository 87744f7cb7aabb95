"""Requests too broken for the app to see, sent over a raw socket to gunicorn as ``make run``
starts it: a request line or headers beyond the limits, a broken chunked body, a bad method or
version.  Each is answered in the API's JSON envelope (gunicorn's HTML page replaced), with the
right status, read by the client in full (not lost to a reset while it was still sending), and
the server plays on."""

from __future__ import annotations

import json
import socket
import sys
from urllib.parse import urlparse

import pytest
import requests

from service.config import QUEUE_NAME

from support.svc_helpers import live_service

pytestmark = pytest.mark.stack  # starts the product's processes (pyproject.toml's markers)


@pytest.fixture(scope="module")
def base(redis_server, tmp_path_factory):
    with live_service(redis_server.url, tmp_path_factory.mktemp("badhttp"),
                      [sys.executable, "-m", "worker", "--url", redis_server.url, QUEUE_NAME]) as url:
        yield url


def send(base: str, data: bytes) -> tuple[int, dict, bytes]:
    """Send raw bytes, read the answer to the end; (status, headers, body)."""
    u = urlparse(base)
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode("latin1").split("\r\n")
    hdrs = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    return int(lines[0].split()[1]), hdrs, body


def request(method: str, path: str, headers: dict | None = None, body: bytes = b"", version="HTTP/1.1") -> bytes:
    h = {"Host": "localhost", "Connection": "close", **(headers or {})}
    if body and "Transfer-Encoding" not in h:
        h["Content-Length"] = str(len(body))
    return (f"{method} {path} {version}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items())
            + "\r\n").encode("latin1") + body


def envelope(status: int, hdrs: dict, body: bytes) -> dict:
    assert hdrs["content-type"].startswith("application/json"), (status, hdrs, body[:200])
    out = json.loads(body)
    assert isinstance(out["error"], str) and isinstance(out["message"], str), out
    return out


@pytest.mark.parametrize("raw,status,code", [
    (request("GET", "/api/v1/runs/" + "a" * 9000), 414, "uri_too_long"),
    (request("GET", "/api/v1/leaderboards/all-time?offset=" + "9" * 100_000), 414, "uri_too_long"),
    (request("GET", "/api/v1/health/live", {f"X-Pad-{i}": "1" for i in range(120)}), 431, "header_fields_too_large"),
    (request("GET", "/api/v1/health/live", {"X-Pad": "p" * 9000}), 431, "header_fields_too_large"),
    (request("POST", "/api/v1/runs", {"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
             b"zz\r\n{}\r\n0\r\n\r\n"), 400, "malformed_body"),
    (request("POST", "/api/v1/runs", {"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
             b"".join(b"1000\r\n" + b" " * 4096 + b"\r\n" for _ in range(6)) + b"0\r\n\r\n"), 413, "body_too_large"),
    (request("POST", "/api/v1/runs", {"Content-Type": "application/json"}, b" " * 200_000), 413, "body_too_large"),
    (request("G\x01T", "/api/v1/health/live"), 400, "bad_request"),
    (request("GET", "/api/v1/health/live", version="HTTP/9.9"), 400, "bad_request"),
    (request("GET", "/api/v1/health/\x00live"), 400, "bad_request"),
    (request("GET", "/api/v1/runs/%00", {"X-Player-Token": "x"}), 401, "invalid_token"),
    (request("BREW", "/api/v1/runs"), 405, "method_not_allowed"),
    (request("POST", "/api/v1/runs", {"Content-Type": "text/plain"}, b"{}"), 415, "unsupported_media_type"),
])
def test_broken_requests_are_answered_in_the_envelope(base, raw, status, code):
    got, hdrs, body = send(base, raw)
    assert got == status, (got, body[:300])
    assert envelope(got, hdrs, body)["error"] == code
    lower = {k.lower(): v for k, v in hdrs.items()}  # gunicorn's own answers as the app's
    assert lower["x-content-type-options"] == "nosniff", hdrs
    assert lower["cache-control"] == ("private, no-store" if b"X-Player-Token" in raw else "no-store"), hdrs
    assert requests.get(f"{base}/api/v1/health/live", timeout=10).status_code == 200  # and it plays on


def test_a_large_but_acceptable_body_still_plays(base):
    run = requests.post(f"{base}/api/v1/runs", json={"kind": "random"}, timeout=10).json()
    body = json.dumps({"turn": run["turn"], "card": run["view"]["legal"][0]}) + " " * 12_000
    r = requests.post(f"{base}/api/v1/runs/{run['run_id']}/plays", data=body, timeout=10,
                      headers={"Content-Type": "application/json", "X-Player-Token": run["player_token"]})
    assert r.status_code == 200 and r.json()["turn"] == 1
