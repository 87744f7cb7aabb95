"""Metrics and logs of the real thing: gunicorn (two processes, multi-process metrics) and a
``python -m worker`` process, over HTTP; the queue gauges and the redaction in-process."""

from __future__ import annotations

import json
import re
import sys
import time
from datetime import date

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families
from rq import Queue

from service.config import QUEUE_NAME
from service.seeds import DayClock, daily_seed
from service.runs import Runs
from service.telemetry.logs import REDACTED, Redactor

from support.svc_helpers import SECRET, headers, play_game, queue_of, flush_state, state_client
from support.svc_helpers import live_service as svc_live_service

METRICS_TOKEN = "metrics-token-for-tests-0123456789"
OPS_TOKEN = "ops-token-for-tests-0123456789abcdef"
PLAYS_ROUTE = "/api/v1/runs/<string:run_id>/plays"


# In-process tests first: the live service's worker, once started, would take their jobs.

def test_queue_depth_and_the_oldest_jobs_age_are_read_from_redis(client, rclient):
    from service.store import raw_client

    queue = Queue(QUEUE_NAME, connection=queue_of(rclient))
    queue.enqueue_call("worker.jobs.verify_submission", args=("20260101-00",))
    time.sleep(1.1)
    queue.enqueue_call("worker.jobs.verify_submission", args=("20260101-01",))
    text = client.get("/metrics").get_data(as_text=True)  # the test client is a loopback address
    samples = {s.name: s.value for f in text_string_to_metric_families(text) for s in f.samples if not s.labels}
    assert samples["manille_queue_jobs"] == 2
    assert 1.0 <= samples["manille_queue_oldest_job_age_seconds"] < 30
    assert samples["manille_queue_workers"] == 0 and samples["manille_redis_up"] == 1


def test_without_a_token_metrics_answer_loopback_only(client):
    assert client.get("/metrics").status_code == 200
    r = client.get("/metrics", environ_base={"REMOTE_ADDR": "203.0.113.7"})
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"


def test_the_redactor_scrubs_secrets_and_their_shapes():
    redact = Redactor(["a-long-server-secret"])
    token = "Abcdefghijklmnopqrstuvwxyz012_-9"  # token_urlsafe(24): 32 characters
    line = (f"secret=a-long-server-secret seed={'ab' * 32} Authorization: Bearer xyz.123 "
            f"X-Player-Token: {token} id=20261202-0123456789abcdef0123 pid=0123456789abcdef01234567")
    out = redact(line)
    for gone in ("a-long-server-secret", "ab" * 32, "xyz.123", token):
        assert gone not in out
    assert "20261202-0123456789abcdef0123" in out and "0123456789abcdef01234567" in out  # ids stay
    assert out.count(REDACTED) == 4


def test_readiness_tells_anyone_ready_or_not_and_its_details_only_to_the_metrics_readers(redis_server, rclient):
    """Redis's memory and layout, the queues and the workers are for those who read the metrics:
    anyone else learns ready (200) or not (503), nothing more."""
    from service.app import create_app

    def ready(app, addr, hdrs=None):
        r = app.test_client().get("/api/v1/health/ready", headers=hdrs or {}, environ_base={"REMOTE_ADDR": addr})
        assert r.status_code == (200 if r.get_json()["status"] == "ok" else 503), r.get_json()
        return r.get_json()

    base = {"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET}
    with_token = create_app({**base, "MANILLE_METRICS_TOKEN": METRICS_TOKEN})
    bearer = {"Authorization": f"Bearer {METRICS_TOKEN}"}
    full = ready(with_token, "203.0.113.9", bearer)
    assert {"redis", "workers", "pending", "redis_memory_bytes", "analysis", "warnings"} <= full.keys()
    for addr, hdrs in (("203.0.113.9", {}), ("203.0.113.9", {"Authorization": "Bearer wrong"}), ("127.0.0.1", {})):
        assert ready(with_token, addr, hdrs) == {"status": full["status"]}, (addr, hdrs)
    without_token = create_app(base)
    assert ready(without_token, "203.0.113.9") == {"status": full["status"]}
    assert ready(without_token, "127.0.0.1").keys() == full.keys()  # loopback: the operator's own machine


def test_a_text_log_line_stays_one_line_whatever_a_request_sends(redis_server, rclient):
    """A percent-decoded path, a header, an error's message: written with their control
    characters escaped, and a traceback's lines indented, so no request can forge a log line."""
    import io
    import logging

    from service.app import create_app
    from service.telemetry.logs import TextFormatter

    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(TextFormatter(Redactor([])))
    logger = logging.getLogger("service")
    logger.addHandler(handler)
    try:
        client = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET}).test_client()
        forged = "2026-12-02 10:00:00 ERROR service.ops [-] ops: forged"
        client.get(f"/api/v1/ops/submissions/x%0A{forged.replace(' ', '%20')}%0D%1B[31m")  # no token: logged with the path
        try:
            raise ValueError(f"bad input\n{forged}")
        except ValueError:
            logger.exception("failed on %s", "x\u2028y")
    finally:
        logger.removeHandler(handler)
    lines = out.getvalue().splitlines()
    assert any("ops: no token" in line and "\\n2026-12-02 10:00:00 ERROR" in line and "\\r\\x1b[31m" in line
               for line in lines), lines
    assert not any(line.startswith(forged) for line in lines), lines
    assert "\u2028" not in out.getvalue()
    stamp = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} ")
    for line in lines:  # a line of its own, or a traceback's, indented
        assert stamp.match(line) or line.startswith("    "), line


@pytest.fixture(scope="module")
def live(redis_server, tmp_path_factory):
    flush_state(redis_server.url)
    logs = tmp_path_factory.mktemp("observability")
    with svc_live_service(redis_server.url, logs, [sys.executable, "-m", "worker", "--url", redis_server.url],
                          MANILLE_METRICS_TOKEN=METRICS_TOKEN, MANILLE_OPS_TOKENS=f"olga {OPS_TOKEN}",
                          MANILLE_LOG_FORMAT="json", PROMETHEUS_MULTIPROC_DIR=None) as base:
        yield base, logs, state_client(redis_server.url)


def scrape(base) -> dict:
    """Every sample of a scrape, by (name, sorted labels); each scrape on a new connection, so
    that either gunicorn process may answer it."""
    r = requests.get(f"{base}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/plain"), r.text
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(r.text) for s in family.samples}


def play_one(base, nickname: str, *, tamper=None) -> tuple[str, int, str]:
    """Open a ranked run, play it through (each request on a new connection), submit it; returns
    (token, plays made, submission status URL).  ``tamper(run_id)`` runs before the submission."""
    def post(path, body, hdrs):
        r = requests.post(base + path, json=body, headers=hdrs, timeout=10)
        return r.status_code, r.json()

    status, run = post("/api/v1/runs", {}, {})
    assert status == 201, run
    token = run["player_token"]
    bodies: list = []
    play_game(post, run, token, bodies=bodies)
    if tamper:
        tamper(run["run_id"])
    status, sub = post("/api/v1/submissions", {"run_id": run["run_id"], "nickname": nickname}, headers(token))
    assert status == 202, sub
    return token, len(bodies), sub["status_url"]


def wait_verdict(base, url, token) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = requests.get(base + url, headers=headers(token), timeout=10).json()["status"]
        if status != "queued":
            return status
        time.sleep(0.1)
    raise AssertionError("no verdict in 60 s")


@pytest.mark.stack
def test_metrics_sum_every_process_and_count_the_workers_verdicts(live):
    base, _logs, rclient = live
    before = scrape(base)
    token, plays, url = play_one(base, "counted")
    assert wait_verdict(base, url, token) == "verified"

    def drop_last_card(run_id):  # as if the stored run had lost its last card: the replay rejects it
        key = Runs.key(run_id)
        rclient.hset(key, "cards", rclient.hget(key, "cards")[:-2])

    token2, plays2, url2 = play_one(base, "tampered", tamper=drop_last_card)
    assert wait_verdict(base, url2, token2) == "rejected"

    def delta(after, name, **labels):
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0) - before.get(key, 0)

    # Several scrapes, each on its own connection: whichever process answers, the sums agree.
    scrapes = [scrape(base) for _ in range(6)]
    for after in scrapes:
        assert delta(after, "manille_plays_total") == plays + plays2
        assert delta(after, "manille_http_requests_total", method="POST", route=PLAYS_ROUTE,
                     status="200") == plays + plays2
        assert delta(after, "manille_http_request_duration_seconds_count", method="POST",
                     route=PLAYS_ROUTE) == plays + plays2
        assert delta(after, "manille_http_requests_total", method="POST", route="/api/v1/submissions",
                     status="202") == 2
        assert delta(after, "manille_verifications_total", status="verified") == 1
        assert delta(after, "manille_verifications_total", status="rejected") == 1
        assert delta(after, "manille_rejections_total", code="game_incomplete") == 1
        assert after[("manille_redis_up", ())] == 1
        assert after[("manille_redis_used_memory_bytes", ())] > 100_000
        assert after[("manille_queue_workers", ())] == 1
        assert after[("manille_queue_jobs", ())] == 0
    # The latency histogram's buckets are cumulative and end at the count.
    last = scrapes[-1]
    buckets = sorted((float(dict(k[1])["le"]), v) for k, v in last.items()
                     if k[0] == "manille_http_request_duration_seconds_bucket"
                     and dict(k[1])["route"] == PLAYS_ROUTE)
    assert [v for _, v in buckets] == sorted(v for _, v in buckets)
    assert buckets[-1][1] == last[("manille_http_request_duration_seconds_count",
                                   (("method", "POST"), ("route", PLAYS_ROUTE)))]


@pytest.mark.stack
def test_metrics_need_the_token(live):
    base, _logs, _r = live
    for hdrs in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": METRICS_TOKEN}):
        r = requests.get(f"{base}/metrics", headers=hdrs, timeout=10)
        assert r.status_code == 401 and r.json()["error"] == "unauthorized", r.text
        assert "manille_" not in r.text


@pytest.mark.stack
def test_request_ids_are_echoed_and_logged_and_no_secret_reaches_a_log(live):
    base, logs, _r = live
    day = DayClock("Europe/Brussels").today()
    seed = daily_seed(SECRET.encode(), day).hex()
    token, _plays, url = play_one(base, "logged")
    assert wait_verdict(base, url, token) == "verified"
    # A sane id is kept and echoed; anything else is replaced by a fresh one.
    r = requests.get(f"{base}/api/v1/challenges/today", headers={"X-Request-Id": "probe-1234-abcd"}, timeout=10)
    assert r.headers["X-Request-Id"] == "probe-1234-abcd"
    r = requests.get(f"{base}/api/v1/challenges/today", headers={"X-Request-Id": "bad id\u00e9!"}, timeout=10)
    assert len(r.headers["X-Request-Id"]) == 16 and r.headers["X-Request-Id"] != "bad id"
    # Secrets handed to the service where it would log them: as a request id (so on the access
    # line), in a refused ops call, as the metrics token, in a path.
    for rid in (token, seed[:64]):
        requests.get(f"{base}/api/v1/challenges/today", headers={"X-Request-Id": rid}, timeout=10)
    requests.get(f"{base}/api/v1/ops/audit", headers={"Authorization": f"Bearer {OPS_TOKEN}"}, timeout=10)
    requests.get(f"{base}/api/v1/runs/{seed}", headers=headers(token), timeout=10)
    scrape(base)
    time.sleep(0.5)  # the worker's last line and gunicorn's buffers

    lines = {}
    for name in ("web.log", "worker.log"):
        lines[name] = [line for line in (logs / name).read_text().splitlines() if line.strip()]
        text = "\n".join(lines[name])
        for secret in (token, seed, SECRET, OPS_TOKEN, METRICS_TOKEN):
            assert secret not in text, f"{name} shows a secret"
    records = {name: [json.loads(line) for line in ls] for name, ls in lines.items()}  # each line is JSON
    for name, recs in records.items():
        for rec in recs:
            assert {"ts", "level", "logger", "message", "request_id"} <= rec.keys(), rec
    access = [rec for rec in records["web.log"] if rec["logger"] == "service.access"]
    assert {"method", "route", "status", "duration_ms"} <= access[-1].keys()
    probe = [rec for rec in access if rec["request_id"] == "probe-1234-abcd"]
    assert len(probe) == 1 and probe[0]["route"] == "/api/v1/challenges/today" and probe[0]["status"] == 200
    assert sum(rec["request_id"] == REDACTED for rec in access) >= 2  # the token and the seed as ids
    assert any(rec["logger"] == "gunicorn.error" for rec in records["web.log"])  # gunicorn's own lines
    verdicts = [rec for rec in records["worker.log"] if rec["logger"] == "worker.jobs"]
    assert verdicts and all(rec["request_id"].startswith("job:") for rec in verdicts)
