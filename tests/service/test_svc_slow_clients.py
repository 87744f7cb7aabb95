"""Slow clients (a slowloris) do not take the service down: with 40 connections each sending its
request header a byte a second, other clients are still served (gunicorn as make run starts it,
deploy/gunicorn.conf.py; the old gthread workers, 12 threads here, answered nothing)."""

from __future__ import annotations

import sys
import time
from urllib.parse import urlsplit

import pytest
import requests

from service.config import QUEUE_NAME

from support.svc_helpers import SlowClients, headers, live_service, timed_get

pytestmark = pytest.mark.stack  # starts the product's processes (pyproject.toml's markers)


@pytest.fixture(scope="module")
def service(redis_server, tmp_path_factory):
    with live_service(redis_server.url, tmp_path_factory.mktemp("slow"),
                      [sys.executable, "-m", "worker", "--url", redis_server.url, QUEUE_NAME],
                      WEB_CONCURRENCY="3", MANILLE_THREADS="4") as base:
        yield base


def test_40_slow_connections_leave_the_service_available(service):
    url = urlsplit(service)
    with SlowClients(url.hostname, url.port, n=40) as slow:
        time.sleep(1.5)  # accepted and stuck in their headers
        assert slow.held == 40
        latencies = [timed_get(requests, service + path, timeout=3)
                     for path in ("/api/v1/health/live", "/api/v1/challenges/today") * 10]
        run = requests.post(service + "/api/v1/runs", json={"kind": "random"}, timeout=3)
        assert run.status_code == 201
        run = run.json()
        played = requests.post(f"{service}/api/v1/runs/{run['run_id']}/plays",
                               json={"turn": run["turn"], "card": run["view"]["legal"][0]},
                               headers=headers(run["player_token"]), timeout=3)
        assert played.status_code == 200
        assert slow.held == 40  # still attacking
    assert None not in latencies, latencies
