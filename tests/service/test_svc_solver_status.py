"""Whether the compiled solver is loaded, said by readiness, ``/metrics`` and the worker's log: a
real ``python -m worker`` with the normal install, then a whole stack (gunicorn and a worker) started
with ``MANILLE_NATIVE=0``, the switch ``bots.native`` reads, so that both search in Python."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from support.svc_helpers import ROOT, flush_state
from support.svc_helpers import live_service as svc_live_service

METRICS_TOKEN = "metrics-token-for-tests-0123456789"


def samples(text: str) -> dict:
    return {s.name: s.value for f in text_string_to_metric_families(text) for s in f.samples if not s.labels}


def ready_once_a_worker_is_seen(get) -> dict:
    """Readiness's details once the worker started has registered (its hash holds its solver)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        out = get()
        if out.get("workers") == 1:
            return out
        time.sleep(0.2)
    raise AssertionError(f"no worker seen in 60 s: {out}")


def test_with_the_normal_install_readiness_metrics_and_the_worker_say_the_compiled_solver_is_loaded(
        client, rclient, redis_server, tmp_path):
    log = tmp_path / "worker.log"
    worker = subprocess.Popen([sys.executable, "-m", "worker", "--url", redis_server.url], cwd=ROOT,
                              stdout=open(log, "w"), stderr=subprocess.STDOUT)
    try:
        out = ready_once_a_worker_is_seen(lambda: client.get("/api/v1/health/ready").get_json())
        assert out["compiled_solver"] is True and out["workers_without_compiled_solver"] == 0, out
        assert "solver_not_compiled" not in out["warnings"], out
        metrics = samples(client.get("/metrics").get_data(as_text=True))
        assert metrics["manille_solver_compiled"] == 1
        assert metrics["manille_queue_workers_without_compiled_solver"] == 0
    finally:
        worker.terminate()
        worker.wait(15)
    text = log.read_text()
    assert "compiled solver loaded" in text and "NOT loaded" not in text, text


@pytest.fixture(scope="module")
def python_search(redis_server, tmp_path_factory):
    flush_state(redis_server.url)
    logs = tmp_path_factory.mktemp("solver_off")
    with svc_live_service(redis_server.url, logs, [sys.executable, "-m", "worker", "--url", redis_server.url],
                          MANILLE_NATIVE="0", MANILLE_METRICS_TOKEN=METRICS_TOKEN) as base:
        yield base, logs


def test_without_the_compiled_solver_readiness_warns_metrics_say_0_and_the_worker_logs_why(python_search):
    base, logs = python_search
    bearer = {"Authorization": f"Bearer {METRICS_TOKEN}"}

    def ready():
        r = requests.get(f"{base}/api/v1/health/ready", headers=bearer, timeout=10)
        assert r.status_code == (200 if r.json()["status"] == "ok" else 503), r.text
        return r.json()

    out = ready_once_a_worker_is_seen(ready)
    assert out["status"] == "ok", out  # slower, not broken: still in the balancer
    assert out["compiled_solver"] is False and out["workers_without_compiled_solver"] == 1, out
    assert "solver_not_compiled" in out["warnings"], out
    r = requests.get(f"{base}/metrics", headers=bearer, timeout=10)
    metrics = samples(r.text)
    assert metrics["manille_solver_compiled"] == 0
    assert metrics["manille_queue_workers_without_compiled_solver"] == 1
    text = (logs / "worker.log").read_text()
    assert "compiled solver NOT loaded" in text and "MANILLE_NATIVE=0" in text, text
