"""Rate limits on opening runs: per address for ranked runs of an open day, per token and per
address for every run; 429 in the JSON envelope with Retry-After; nothing stored or counted when
refused; the client address through MANILLE_TRUSTED_PROXIES."""

from __future__ import annotations

import pytest

from service.app import create_app

from svc_helpers import SECRET, TEST_BOTS, headers


@pytest.fixture(autouse=True)
def _fresh(rclient):
    """Every test starts from an empty Redis: no counts left by another."""


def make_client(redis_server, **config):
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, **config})
    return app.test_client()


def open_run(client, addr="10.0.0.1", token=None, forwarded=None, **body):
    hdrs = headers(token) if token else {}
    if forwarded:
        hdrs["X-Forwarded-For"] = forwarded
    return client.post("/api/v1/runs", json=body, headers=hdrs, environ_base={"REMOTE_ADDR": addr})


def assert_limited(resp, limit):
    assert resp.status_code == 429, resp.get_json()
    body = resp.get_json()
    assert body["error"] == "too_many_requests" and body["limit"] == limit and body["message"]
    assert 0 < int(resp.headers["Retry-After"]) == body["retry_after"]


def test_ranked_runs_per_address_then_429_while_others_still_play(redis_server, rclient):
    client = make_client(redis_server, MANILLE_LIMIT_RANKED_RUNS="3 per hour")
    for _ in range(3):
        assert open_run(client).status_code == 201
    keys = set(rclient.keys("*"))
    refused = open_run(client)
    assert_limited(refused, "ranked_runs")
    assert 3000 <= int(refused.headers["Retry-After"]) <= 3600
    assert set(rclient.keys("*")) == keys  # no token, no run, nothing counted
    # free play from the same address is not a simulator of the day: still open
    assert open_run(client, kind="random").status_code == 201
    # another household is not affected
    assert open_run(client, addr="10.0.0.2").status_code == 201


def test_a_player_who_already_played_is_told_so_not_limited(redis_server):
    client = make_client(redis_server, MANILLE_LIMIT_RANKED_RUNS="1 per hour")
    token = open_run(client).get_json()["player_token"]
    again = open_run(client, token=token)
    assert again.status_code == 409 and again.get_json()["error"] == "already_played"


def test_runs_per_token(redis_server):
    client = make_client(redis_server, MANILLE_LIMIT_RUNS_PER_TOKEN="2 per hour")
    token = open_run(client, kind="random").get_json()["player_token"]
    assert open_run(client, token=token, kind="random").status_code == 201
    assert_limited(open_run(client, token=token, kind="random"), "runs_per_token")
    assert_limited(open_run(client, token=token), "runs_per_token")
    assert open_run(client, kind="random").status_code == 201  # a new player


def test_forwarded_addresses_count_only_behind_trusted_proxies(redis_server):
    direct = make_client(redis_server, MANILLE_LIMIT_RANKED_RUNS="2 per hour")
    for i in range(2):
        assert open_run(direct, forwarded=f"192.0.2.{i}").status_code == 201
    # without trusted proxies, X-Forwarded-For is the client's say-so: ignored
    assert_limited(open_run(direct, forwarded="192.0.2.9"), "ranked_runs")

    proxied = make_client(redis_server, MANILLE_LIMIT_RANKED_RUNS="2 per hour", MANILLE_TRUSTED_PROXIES=1)
    for _ in range(2):
        assert open_run(proxied, addr="10.9.9.9", forwarded="198.51.100.0").status_code == 201
    assert_limited(open_run(proxied, addr="10.9.9.9", forwarded="198.51.100.0"), "ranked_runs")
    # one hop trusted: the last address the proxy saw is the client, whatever the client prepended
    assert open_run(proxied, addr="10.9.9.9", forwarded="198.51.100.0, 198.51.100.7").status_code == 201
    r = proxied.post("/api/v1/runs", json={}, headers={"X-Forwarded-For": "198.51.100.8"},
                     environ_base={"REMOTE_ADDR": "10.9.9.9"})
    run = r.get_json()
    assert r.status_code == 201 and rclient_ip(redis_server, run["run_id"]) == "198.51.100.8"


def rclient_ip(redis_server, run_id):
    from service.runs import Runs
    from service.store import connect
    return connect(redis_server.url).hget(Runs.key(run_id), "ip")


def test_the_default_limits_stop_a_burst_from_one_address(client):
    codes = [open_run(client).status_code for _ in range(40)]
    assert codes.count(201) >= 1 and 429 in codes
    first_refused = codes.index(429)
    assert set(codes[first_refused:]) == {429}


@pytest.mark.parametrize("value", ["off", "OFF"])
def test_a_limit_can_be_turned_off(redis_server, value):
    client = make_client(redis_server, MANILLE_LIMIT_RANKED_RUNS=value, MANILLE_LIMIT_RUNS_PER_ADDRESS=value)
    assert all(open_run(client).status_code == 201 for _ in range(30))

