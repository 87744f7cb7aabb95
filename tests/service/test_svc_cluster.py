"""The service on a real Redis Cluster of its own (three masters, three replicas, real processes),
the queue on a Redis of its own: the master that holds the most of the day's shards (a sixteenth
of the day's runs each) is SIGKILLed while eight players play and submit through gunicorn.  Its replica takes over; every
play and submission the service accepted is there after, once; every submission is verified
once.  The figures (seconds of 503s, plays after the kill) are printed."""

from __future__ import annotations

import re
import sys
import threading
import time
import uuid
from collections import Counter

import pytest
import requests
import yaml
from prometheus_client.parser import text_string_to_metric_families
from redis.crc import key_slot

from service.redis_server import LocalCluster, RedisServer
from service.runs import Runs, unpack_actions
from service.store import DAY_SHARDS, connect_cluster, day_scope, key_for

from support.svc_helpers import LIMITS_OFF, ROOT, live_service

pytestmark = pytest.mark.stack  # starts the product's processes (pyproject.toml's markers)

PLAYERS = 8


@pytest.fixture
def stack(tmp_path):
    cluster = LocalCluster(tmp_path / "cluster").start()
    queue = RedisServer(tmp_path / "queue", aof=False).start()
    try:
        yield cluster, queue
    finally:
        cluster.stop()
        queue.stop()


class Player(threading.Thread):
    """Plays ranked games and submits them until told to stop, retrying what was not answered;
    notes every play (run, turn, card) and submission the service accepted, and every 503."""

    def __init__(self, base: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.base, self.stop = base, stop
        self.http = requests.Session()
        self.accepted: dict[str, dict[int, str]] = {}  # run id -> turn -> card
        self.submitted: dict[str, str] = {}  # run id -> submission id
        self.unavailable: list[float] = []
        self.error: str | None = None

    def call(self, method: str, path: str, body=None, token: str | None = None):
        """The answer to a request sent again until it is not a 503 (or a broken connection)."""
        headers = {"X-Player-Token": token} if token else {}
        while True:
            try:
                r = self.http.request(method, self.base + path, json=body, headers=headers, timeout=30)
            except requests.RequestException:
                self.unavailable.append(time.monotonic())
                time.sleep(0.1)
                continue
            if r.status_code != 503:
                return r
            self.unavailable.append(time.monotonic())
            time.sleep(0.1)

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.game()
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.error = repr(e)

    def game(self) -> None:
        r = self.call("POST", "/api/v1/runs", {})
        assert r.status_code == 201, r.text
        run = r.json()
        token, run_id = run["player_token"], run["run_id"]
        self.accepted[run_id] = {}
        while run["status"] != "finished":
            turn, card = run["turn"], run["view"]["legal"][0]
            r = self.call("POST", f"/api/v1/runs/{run_id}/plays", {"turn": turn, "card": card}, token)
            assert r.status_code == 200, r.text
            self.accepted[run_id][turn] = card
            run = r.json()
        r = self.call("POST", "/api/v1/submissions", {"run_id": run_id, "nickname": f"p{uuid.uuid4().hex[:8]}"}, token)
        assert r.status_code in (200, 202), r.text
        self.submitted[run_id] = r.json()["submission_id"]


def test_a_killed_master_loses_no_accepted_play_or_submission(stack, tmp_path):
    cluster, queue = stack
    env = {**LIMITS_OFF, "MANILLE_REDIS_CLUSTER": cluster.seeds, "MANILLE_VERIFY_RETRY": "1,2,4,8",
           "MANILLE_REDIS_TIMEOUT": "2", "WEB_CONCURRENCY": "3", "MANILLE_LOG_LEVEL": "warning"}
    with live_service(queue.url, tmp_path, [sys.executable, "-m", "worker", "--url", queue.url], **env) as base:
        today = requests.get(f"{base}/api/v1/challenges/today", timeout=10).json()["date"]
        # the master that holds the most of the day's shards (each holds a sixteenth of its runs)
        shard_keys = [key_for("run", day_scope(today, k), "x") for k in range(DAY_SHARDS)]
        held = Counter(cluster.master_of(k).port for k in shard_keys)
        victim = next(n for n in cluster.nodes if n.port == held.most_common(1)[0][0])
        day_key = next(k for k in shard_keys if cluster.master_of(k).port == victim.port)
        stop = threading.Event()
        players = [Player(base, stop) for _ in range(PLAYERS)]
        for p in players:
            p.start()
        time.sleep(3)
        plays_before = sum(len(t) for p in players for t in p.accepted.values())
        killed_at = time.monotonic()
        victim.kill()
        time.sleep(12)
        stop.set()
        for p in players:
            p.join(120)
        assert all(p.error is None for p in players), [p.error for p in players]
        plays = sum(len(t) for p in players for t in p.accepted.values())
        after = [t for p in players for t in p.unavailable if t >= killed_at]
        promoted = cluster.master_of(day_key)
        assert promoted.port != victim.port  # its replica serves those shards now
        print(f"\nkilled master :{victim.port}; replica :{promoted.port} took over; plays before the kill "
              f"{plays_before}, after {plays - plays_before}; 503s or broken answers: {len(after)} over "
              f"{(max(after) - killed_at) if after else 0:.2f} s after the kill")
        assert plays - plays_before > 100  # play went on after the failover

        # what ops see: the cluster answers again, and the master left without a replica (its
        # old master is dead) is the alert that says so; every cluster alert reads a served metric
        metrics = {s.name: s.value for f in text_string_to_metric_families(
            requests.get(f"{base}/metrics", timeout=10).text) for s in f.samples}
        assert metrics["manille_redis_cluster_state_ok"] == 1
        assert metrics["manille_redis_cluster_masters_without_replica"] == 1
        assert metrics["manille_redis_cluster_slots_ok"] == 16384
        rules = next(g for g in yaml.safe_load((ROOT / "deploy" / "alerts.yml").read_text())["groups"]
                     if g["name"] == "manille-cluster")["rules"]
        for rule in rules:
            for name in re.findall(r"\bmanille_[a-z_]+", rule["expr"]):
                assert name in metrics, f"{rule['alert']}: /metrics has no {name}"

        state = connect_cluster(cluster.seeds)
        accepted = {run: turns for p in players for run, turns in p.accepted.items()}
        for run_id, turns in accepted.items():
            stored = unpack_actions(state.hget(Runs.key(run_id), "cards") or "")
            cards = [stored[i:i + 2] for i in range(0, len(stored), 2)]
            assert len(cards) >= len(turns), (run_id, "an accepted play was lost")
            assert all(cards[turn] == card for turn, card in turns.items()), (run_id, cards, turns)
            assert len(cards) <= max(turns, default=-1) + 2, (run_id, "a play applied that nobody sent")
        subs = {sub for p in players for sub in p.submitted.values()}
        assert len(subs) >= PLAYERS
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            statuses = [requests.get(f"{base}/api/v1/submissions/{s}", timeout=10).json().get("status") for s in subs]
            if all(st == "verified" for st in statuses):
                break
            time.sleep(1)
        assert all(st == "verified" for st in statuses), statuses
        board = requests.get(f"{base}/api/v1/leaderboards/days/{today}?limit=100", timeout=10).json()
        assert board["total"] == len(subs)  # each counted once
        assert key_slot(day_key.encode()) == state.execute_command("CLUSTER KEYSLOT", day_key,
                                                                    target_nodes=state.get_random_node())
