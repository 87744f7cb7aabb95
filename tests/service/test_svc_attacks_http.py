"""The two attacks on the day measured before the defences, run for real over HTTP against
gunicorn and a separate worker process, behind one trusted proxy hop (X-Forwarded-For): from one
address the runs meet 429; spread over many addresses the search is flagged and held off the
boards; honest players of the same day, each from their own address, are neither."""

from __future__ import annotations

import os
import sys
import time

import pytest
import requests

from service.config import QUEUE_NAME

from support.svc_helpers import FLAGS, OPS, OPS_TOKENS, flush_state, live_service

pytestmark = pytest.mark.stack  # starts the product's processes (pyproject.toml's markers)



@pytest.fixture(scope="module")
def service(redis_server, tmp_path_factory):
    from service.store import connect
    flush_state(redis_server.url)
    # the limits as make run has them: the defaults, whatever the environment says
    defaults = {k: None for k in os.environ if k.startswith("MANILLE_LIMIT_")}
    with live_service(redis_server.url, tmp_path_factory.mktemp("attacks"),
                      [sys.executable, "-m", "worker", "--url", redis_server.url, QUEUE_NAME],
                      MANILLE_TRUSTED_PROXIES="1", MANILLE_OPS_TOKENS=OPS_TOKENS, **FLAGS, **defaults) as base:
        yield base


class Client:
    """One player (or probe): a token and an address, as the proxy forwards it."""

    def __init__(self, base, address):
        self.base, self.address, self.token = base, address, None

    def call(self, method, path, body=None):
        hdrs = {"X-Forwarded-For": self.address}
        if self.token:
            hdrs["X-Player-Token"] = self.token
        r = requests.request(method, self.base + path, json=body, headers=hdrs, timeout=30)
        return r

    def open(self):
        r = self.call("POST", "/api/v1/runs", {})
        if r.status_code == 201:
            self.token = r.json()["player_token"]
        return r

    def play(self, run, pick, stop_after=None):
        bodies = [run]
        while run["status"] != "finished" and (stop_after is None or run["turn"] < stop_after):
            r = self.call("POST", f"/api/v1/runs/{run['run_id']}/plays",
                          {"turn": run["turn"], "card": pick(run["turn"], run["view"]["legal"])})
            assert r.status_code == 200, r.text
            run = r.json()
            bodies.append(run)
        return bodies

    def submit(self, run, nickname):
        r = self.call("POST", "/api/v1/submissions", {"run_id": run["run_id"], "nickname": nickname})
        assert r.status_code == 202, r.text
        return r.json()["submission_id"]


def wait_verified(base, sub_ids, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        states = [requests.get(f"{base}/api/v1/submissions/{s}", timeout=10).json() for s in sub_ids]
        if all(s["status"] != "queued" for s in states):
            return {s["submission_id"]: s for s in states}
        time.sleep(0.3)
    raise AssertionError("verification did not finish")


def first(turn, legal):
    return legal[0]


def test_a_search_from_one_address_meets_the_limit(service):
    opened, refused = 0, None
    for i in range(30):
        r = Client(service, "203.0.113.50").open()
        if r.status_code != 201:
            refused = r
            break
        opened += 1
    assert refused is not None and refused.status_code == 429, "30 ranked runs from one address"
    assert refused.json()["error"] == "too_many_requests" and int(refused.headers["Retry-After"]) > 0
    assert opened == 6  # the default: 6 per 10 minutes, 20 a day
    # the household next door still plays
    assert Client(service, "203.0.113.51").open().status_code == 201


def test_a_search_spread_over_addresses_is_held_and_honest_players_are_not(service):
    scout = Client(service, "198.51.100.1")
    bodies = scout.play(scout.open().json(), first)
    decisions = [b["turn"] for b in bodies[:-1] if len(b["view"]["legal"]) > 1]
    probed = decisions[2:7]
    for i, k in enumerate(probed):  # each probe from its own address: no limit applies
        probe = Client(service, f"198.51.100.{20 + i}")
        probe.play(probe.open().json(), lambda turn, legal, k=k: legal[-1] if turn == k else legal[0])
    honest = []
    for i in range(4):
        player = Client(service, f"192.0.2.{30 + i}")
        run = player.open().json()
        pick = (lambda turn, legal, i=i: legal[(turn * (i + 1)) % len(legal)])
        honest.append(player.submit(player.play(run, pick)[-1], f"Honest{i}"))
    searcher = Client(service, "198.51.100.99")  # a fresh token and address for the final line
    final = searcher.play(searcher.open().json(), first)[-1]
    cheat = searcher.submit(final, "Searcher")
    states = wait_verified(service, honest + [cheat])
    assert states[cheat]["status"] == "held" and states[cheat]["rank"] is None
    day = final["date"]
    listed = requests.get(f"{service}/api/v1/ops/days/{day}/submissions", headers={"Authorization": f"Bearer {OPS}"},
                          timeout=10).json()["submissions"]
    by_id = {s["submission_id"]: s for s in listed}
    explored = [f for f in by_id[cheat]["flags"] if f["code"] == "explored"]
    assert explored and [b["index"] for b in explored[0]["evidence"]["branches"]] == probed
    for sub_id in honest:
        assert states[sub_id]["status"] == "verified" and states[sub_id]["rank"] is not None
        assert not [f for f in by_id[sub_id]["flags"] if f["code"] in ("explored", "many_runs")], by_id[sub_id]
    board = requests.get(f"{service}/api/v1/leaderboards/days/{day}?limit=100", timeout=10).json()
    assert "Searcher" not in [e["nickname"] for e in board["entries"]] and board["total"] == len(honest)
