"""Nothing accepted with a 2xx answer is lost when Redis dies: kill -9, restart from its AOF."""

from __future__ import annotations

import time

import pytest

from service.app import create_app
from service.config import QUEUE_NAME
from service.redis_server import RedisServer
from service.store import connect, raw_client

from support.svc_helpers import SECRET, TEST_BOTS, burst_worker, headers, play_game

pytestmark = pytest.mark.stack  # starts the product's processes (pyproject.toml's markers)


def test_accepted_plays_and_submissions_survive_a_redis_crash(tmp_path):
    server = RedisServer(tmp_path / "redis", aof=True).start()  # the settings make run uses
    try:
        app = create_app({"TESTING": True, "REDIS_URL": server.url, "MANILLE_SECRET": SECRET,
                          "MANILLE_BOTS": TEST_BOTS})
        client = app.test_client()

        def post(path, body, hdrs=None):
            r = client.post(path, json=body, headers=hdrs or {})
            return r.status_code, r.get_json()

        status, run = post("/api/v1/runs", {})
        assert status == 201
        token = run.pop("player_token")
        finished = play_game(post, run, token)
        status, accepted = post("/api/v1/submissions", {"run_id": run["run_id"], "nickname": "durable"},
                                headers(token))
        assert status == 202

        # everysec: Redis writes to the AOF before it answers, unless the last second's fsync is
        # still running, when it may answer first and write up to two seconds later (RUNBOOK,
        # "Backups and recovery"): the crash comes once what was answered is written
        probe, deadline = connect(server.url), time.monotonic() + 5
        while int(probe.info("persistence")["aof_buffer_length"]):
            assert time.monotonic() < deadline, "Redis did not write its AOF buffer"
            time.sleep(0.01)
        server.proc.kill()  # SIGKILL: no SHUTDOWN, no final fsync
        server.proc.wait()
        server.start()  # same directory and port: loads the AOF

        r = client.get(f"/api/v1/runs/{run['run_id']}", headers=headers(token))
        assert r.status_code == 200
        assert r.get_json()["turn"] == finished["turn"] and r.get_json()["status"] == "finished"
        assert r.get_json()["submission_id"] == accepted["submission_id"]
        assert client.get(accepted["status_url"]).get_json()["status"] == "queued"

        conn = raw_client(connect(server.url))
        assert burst_worker([QUEUE_NAME], conn).work(burst=True)
        sub = client.get(accepted["status_url"]).get_json()
        assert sub["status"] == "verified" and sub["score"] == finished["result"]["rank_score"]
    finally:
        server.stop()
