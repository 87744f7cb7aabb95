"""Redis behind Sentinel (``REDIS_SENTINELS``): a master, a replica and three Sentinels, real
processes; the app, its rate limits (``service.limits``) and a ``python -m worker`` process
find the master through them, before and after a failover."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import redis

from service.app import create_app
from service.config import QUEUE_NAME
from service.redis_server import RedisServer, SentinelServer
from service.store import raw_client

from support.svc_helpers import ROOT, SECRET, TEST_BOTS, burst_worker, headers, play_game

pytestmark = pytest.mark.stack  # starts the product's processes (pyproject.toml's markers)

SERVICE = "manille"


def wait_for(what: str, check, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            got = check()
        except redis.RedisError:
            got = None
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def trio(tmp_path):
    """A master, its replica in sync, three Sentinels (quorum 2) that know both."""
    started = []
    try:
        master = RedisServer(tmp_path / "master", aof=True).start()
        started.append(master)
        replica = RedisServer(tmp_path / "replica", aof=True, replica_of=master.port).start()
        started.append(replica)
        sentinels = []
        for i in range(3):
            sentinels.append(SentinelServer(tmp_path / f"sentinel{i}", master.port, SERVICE, quorum=2).start())
            started.append(sentinels[-1])
        wait_for("the replica in sync", lambda: redis.Redis(port=replica.port).info("replication")
                 ["master_link_status"] == "up")
        for s in sentinels:
            wait_for("each sentinel to know the replica and the others", lambda s=s: (
                redis.Redis(port=s.port).sentinel_slaves(SERVICE)
                and len(redis.Redis(port=s.port).sentinel_sentinels(SERVICE)) == 2))
        yield master, replica, sentinels
    finally:
        for server in reversed(started):
            server.stop()


def master_port(sentinel: SentinelServer) -> int:
    return int(redis.Redis(port=sentinel.port).sentinel_get_master_addr_by_name(SERVICE)[1])


@pytest.mark.single_redis  # Sentinel serves one Redis; a cluster fails over by itself (test_svc_cluster.py)
def test_the_service_finds_the_master_through_sentinel_and_keeps_working_after_a_failover(trio, tmp_path):
    master, replica, sentinels = trio
    addresses = ",".join(f"127.0.0.1:{s.port}" for s in sentinels)
    env = {"REDIS_URL": "redis://unused.invalid:1/0", "REDIS_SENTINELS": addresses,
           "REDIS_SENTINEL_SERVICE": SERVICE, "MANILLE_SECRET": SECRET, "MANILLE_BOTS": TEST_BOTS}
    app = create_app({"TESTING": True, **env})
    client = app.test_client()
    worker_log = open(tmp_path / "worker.log", "w")
    worker = subprocess.Popen([sys.executable, "-m", "worker", "--url", env["REDIS_URL"]], cwd=ROOT,
                              env={**os.environ, **env}, stdout=worker_log, stderr=subprocess.STDOUT)

    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs)
        return r.status_code, r.get_json()

    def game(nickname: str) -> dict:
        r = client.post("/api/v1/runs", json={})
        assert r.status_code == 201, r.get_json()
        run = r.get_json()
        token = run.pop("player_token")
        play_game(post, run, token)
        status, sub = post("/api/v1/submissions", {"run_id": run["run_id"], "nickname": nickname}, headers(token))
        assert status == 202, sub
        return wait_for(f"{nickname}'s verdict", lambda: (
            lambda s: s if s["status"] != "queued" else None)(client.get(sub["status_url"]).get_json()), 60)

    try:
        assert game("before")["status"] == "verified"
        # It is all on the master the Sentinels named, and replicated.
        assert redis.Redis(port=master.port).dbsize() > 0
        assert redis.Redis(port=master.port).execute_command("WAIT", 1, 5000) == 1
        assert any(b":limit:" in k for k in redis.Redis(port=master.port).keys("*"))  # the limits too

        redis.Redis(port=sentinels[0].port).execute_command("SENTINEL", "FAILOVER", SERVICE)
        for s in sentinels:
            wait_for("every sentinel to name the replica", lambda s=s: master_port(s) == replica.port)
        wait_for("the new master to take writes", lambda: redis.Redis(port=replica.port).role()[0] == b"master")
        # Until the Sentinels have turned the old master into a replica, a client holding a
        # connection to it could still write there, and lose it at the resync: Sentinel's window
        # (min-replicas-to-write narrows it in production, deploy/redis.conf).
        wait_for("the old master to follow the new one", lambda: redis.Redis(port=master.port).role()[0] == b"slave"
                 and redis.Redis(port=master.port).info("replication")["master_link_status"] == "up")

        after = game("after")
        assert after["status"] == "verified"
        day = client.get("/api/v1/challenges/today").get_json()["date"]
        board = client.get(f"/api/v1/leaderboards/days/{day}").get_json()
        assert sorted(e["nickname"] for e in board["entries"]) == ["after", "before"]
        assert redis.Redis(port=replica.port).dbsize() > 0
        ready = client.get("/api/v1/health/ready").get_json()  # RQ's records, through the Sentinels too
        assert ready["status"] == "ok" and ready["workers"] == 1, ready
        # A worker in this process, on a client made from the settings, sees the same master.
        settings = app.extensions["manille"].settings
        conn = raw_client(settings.redis())
        burst_worker([QUEUE_NAME], conn).work(burst=True)
        assert int(conn.connection_pool.get_master_address()[1]) == replica.port
    finally:
        # An RQ worker stopped while idle in its blocking dequeue right after a failover may not
        # leave until that call times out (RUNBOOK); it holds no job then, so it is killed.
        worker.terminate()
        try:
            worker.wait(3)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        worker_log.close()
