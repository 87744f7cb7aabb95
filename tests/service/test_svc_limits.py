"""Rate limits on opening runs (per address for ranked runs of an open day, per token and per
address for every run), on plays and on submissions (per token and per address); 429 in the JSON
envelope with Retry-After; nothing stored or counted when refused; a repeat answered from what is
stored neither counted nor refused; the client address through MANILLE_TRUSTED_PROXIES."""

from __future__ import annotations

import math
import sys
import threading
import time
from datetime import date

import pytest
from freezegun import freeze_time

from service.app import create_app
from service.config import DEFAULT_LIMITS
from service.errors import TooManyRequests
from service.limits import Gate, Limits, parse
from service.runs import Runs, unpack_actions

from support.svc_helpers import SECRET, TEST_BOTS, headers


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
    from service.runs import Runs, unpack_actions
    from support.svc_helpers import state_client
    return state_client(redis_server.url).hget(Runs.key(run_id), "ip")


def test_the_default_limits_stop_a_burst_from_one_address(client):
    codes = [open_run(client).status_code for _ in range(40)]
    assert codes.count(201) >= 1 and 429 in codes
    first_refused = codes.index(429)
    assert set(codes[first_refused:]) == {429}


@pytest.mark.parametrize("value", ["off", "OFF"])
def test_a_limit_can_be_turned_off(redis_server, value):
    client = make_client(redis_server, MANILLE_LIMIT_RANKED_RUNS=value, MANILLE_LIMIT_RUNS_PER_ADDRESS=value)
    assert all(open_run(client).status_code == 201 for _ in range(30))



def play(client, run, token, addr="10.0.0.1", card=None, turn=None):
    body = {"turn": run["turn"] if turn is None else turn, "card": card or run["view"]["legal"][0]}
    return client.post(f"/api/v1/runs/{run['run_id']}/plays", json=body, headers=headers(token),
                       environ_base={"REMOTE_ADDR": addr})


def finish(client, run, token, addr="10.0.0.1"):
    while run["status"] != "finished":
        r = play(client, run, token, addr)
        assert r.status_code == 200, r.get_json()
        run = r.get_json()
    return run


def new_player(client, addr="10.0.0.1", **body):
    run = open_run(client, addr, **body).get_json()
    return run, run.pop("player_token")


def test_plays_per_token_then_429_storing_nothing_while_a_repeat_is_still_answered(redis_server, rclient):
    client = make_client(redis_server, MANILLE_LIMIT_PLAYS_PER_TOKEN="4 per hour")
    run, token = new_player(client, kind="random")
    for _ in range(3):
        last = play(client, run, token)
        assert last.status_code == 200
        run = last.get_json()
    # the page lost the answer to turn 2 and sends it again, five times: answered, counted nothing
    previous_card = unpack_actions(rclient.hget(Runs.key(run["run_id"]), "cards"))[-2:]
    for _ in range(5):
        repeat = play(client, run, token, card=previous_card, turn=run["turn"] - 1)
        assert repeat.status_code == 200 and repeat.get_json() == last.get_json()
    run = play(client, run, token).get_json()  # the 4th play: the repeats left room for it
    stored = rclient.hgetall(Runs.key(run["run_id"]))
    refused = play(client, run, token)
    assert_limited(refused, "plays_per_token")
    assert 3000 <= int(refused.headers["Retry-After"]) <= 3600
    assert rclient.hgetall(Runs.key(run["run_id"])) == stored  # nothing played, nothing stored
    # at the limit, the last play is still answered again
    repeat = play(client, run, token, card=unpack_actions(stored["cards"])[-2:], turn=run["turn"] - 1)
    assert repeat.status_code == 200 and repeat.get_json()["turn"] == run["turn"]
    # another player from the same address plays on
    other, other_token = new_player(client, kind="random")
    assert play(client, other, other_token).status_code == 200


def test_plays_per_address_whatever_the_token(redis_server):
    client = make_client(redis_server, MANILLE_LIMIT_PLAYS_PER_ADDRESS="4 per hour")
    players = [new_player(client, kind="random") for _ in range(2)]
    for i in range(4):
        run, token = players[i % 2]
        r = play(client, run, token)
        assert r.status_code == 200
        players[i % 2] = (r.get_json(), token)
    for run, token in players:
        assert_limited(play(client, run, token), "plays_per_address")
    run, token = players[0]
    assert play(client, run, token, addr="10.0.0.2").status_code == 200  # the same token elsewhere


def test_a_refused_play_counts_nothing(redis_server):
    client = make_client(redis_server, MANILLE_LIMIT_PLAYS_PER_TOKEN="2 per hour")
    run, token = new_player(client, kind="random")
    illegal = sorted(set(run["view"]["hand"]) - set(run["view"]["legal"]))
    for _ in range(3):
        assert play(client, run, token, turn=run["turn"] + 1).status_code == 409  # wrong_turn
        assert play(client, run, token, card="ZZ").status_code == 422  # not a card
        if illegal:
            assert play(client, run, token, card=illegal[0]).get_json()["error"] == "illegal_card"
    for _ in range(2):
        r = play(client, run, token)
        assert r.status_code == 200
        run = r.get_json()
    assert_limited(play(client, run, token), "plays_per_token")


def test_the_default_limits_let_a_player_play_two_games_in_a_row_at_machine_speed(client):
    for _ in range(2):  # over 100 plays in a few seconds: no person is that fast
        run, token = new_player(client, kind="random")
        assert finish(client, run, token)["status"] == "finished"


def submit(client, run, token, nickname, addr="10.0.0.1"):
    return client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                       headers=headers(token), environ_base={"REMOTE_ADDR": addr})


def test_submissions_per_address_then_429_claiming_nothing_while_a_repeat_is_answered(redis_server, rclient):
    client = make_client(redis_server, MANILLE_LIMIT_SUBMISSIONS_PER_ADDRESS="2 per hour")
    players = [new_player(client) for _ in range(4)]
    finished = [(finish(client, run, token), token) for run, token in players]
    accepted = [submit(client, run, token, f"Owl{i}") for i, (run, token) in enumerate(finished[:2])]
    assert [r.status_code for r in accepted] == [202, 202]
    keys = set(rclient.keys("*"))
    run, token = finished[2]
    refused = submit(client, run, token, "Owl2")
    assert_limited(refused, "submissions_per_address")
    assert set(rclient.keys("*")) == keys  # no submission, no job, no nickname claimed
    assert not rclient.hget(Runs.key(run["run_id"]), "submission")
    # a run already submitted is answered its submission again, at the limit, counting nothing
    again = submit(client, *finished[0], "Owl0")
    assert again.status_code == 202
    assert again.get_json()["submission_id"] == accepted[0].get_json()["submission_id"]
    assert submit(client, run, token, "Owl2", addr="10.0.0.2").status_code == 202  # from elsewhere


def test_submissions_per_token_around_midnight(redis_server):
    """The one player who may submit twice in a short time: yesterday's run finished in the grace,
    and today's."""
    client = make_client(redis_server, MANILLE_LIMIT_SUBMISSIONS_PER_TOKEN="1 per hour",
                         MANILLE_TZ="Europe/Brussels")
    with freeze_time("2026-12-02T22:50:00+00:00"):  # 23:50 in Brussels
        yesterday, token = new_player(client)
    with freeze_time("2026-12-02T23:10:00+00:00"):  # 00:10: the next day, yesterday's grace running
        yesterday = finish(client, yesterday, token)
        today = finish(client, open_run(client, token=token).get_json(), token)
        assert today["date"] != yesterday["date"]
        assert submit(client, yesterday, token, "Lark").status_code == 202
        assert_limited(submit(client, today, token, "Lark"), "submissions_per_token")
        assert submit(client, yesterday, token, "Lark").status_code == 202  # the repeat


# -- the windows themselves (service.limits) ------------------------------------------------------

def test_a_window_holds_its_amount_for_its_length_then_has_room_again(rclient):
    limits = Limits(rclient)
    gate = Gate([("plays_per_token", "pid-1", parse("3 per minute"))])
    t0 = 1_800_000_000_000 + 250  # ms, a quarter of a bucket (1 s) in
    for i in range(3):
        limits.check(gate, now=t0 + 1000 * i)
        limits.count(gate, now=t0 + 1000 * i)
    with pytest.raises(TooManyRequests) as refused:
        limits.check(gate, now=t0 + 3000)
    # room comes back when the bucket of the first hit leaves the minute: 60 s after its start
    wait = t0 - 250 + 60_000 - (t0 + 3000)
    assert refused.value.details["retry_after"] == math.ceil(wait / 1000) == 57
    assert refused.value.details["limit"] == "plays_per_token"
    with pytest.raises(TooManyRequests):
        limits.check(gate, now=t0 + 3000 + wait - 1)
    limits.check(gate, now=t0 + 3000 + wait)
    # another subject, another window
    limits.check(Gate([("plays_per_token", "pid-2", parse("3 per minute"))]), now=t0 + 3000)


def test_a_window_keeps_at_most_61_buckets_and_expires_with_its_length(rclient):
    limits = Limits(rclient)
    gate = Gate([("plays_per_address", "10.0.0.1", parse("100000 per minute"))])
    t0 = 1_800_000_000_000
    for i in range(400):  # a hit every 0.7 s for 280 s: 280 buckets of 1 s touched
        limits.count(gate, now=t0 + 700 * i)
    [(_name, [key], _args, _windows)] = gate.limits
    assert "10.0.0.1" not in key and key.startswith("manille:{plays_per_address:")
    assert rclient.hlen(key) <= 61 and 0 < rclient.pttl(key) <= 60_000
    assert sum(int(v) for v in rclient.hvals(key)) <= 87  # the last minute's hits, one bucket more
    limits.uncount(gate, now=t0 + 700 * 399)
    limits.uncount(gate, now=t0 + 700 * 399)  # nothing left in that bucket: nothing taken
    assert rclient.hget(key, str((t0 + 700 * 399) // 1000)) is None


def _hits(rclient, limit: str, subject: str, windows: str) -> list[int]:
    """The hits in each window of ``limit`` for ``subject``, as Redis holds them."""
    return [sum(int(v) for v in rclient.hvals(key)) for _name, keys, _args, _w in
            Gate([(limit, subject, parse(windows))]).limits for key in keys]


def test_a_play_not_stored_gives_its_count_back(redis_server, rclient):
    """A play is counted as its run is read (take); when play.lua then finds the run changed (a
    request of the same player played meanwhile), nothing is stored and the count goes back,
    and the play read again is refused (wrong turn) counting nothing either."""
    client = make_client(redis_server, MANILLE_LIMIT_PLAYS_PER_TOKEN="5 per hour")
    run, token = new_player(client, kind="random")
    while len(run["view"]["legal"]) < 2:  # a deal where the two requests' cards differ
        run = open_run(client, token=token, kind="random").get_json()
    runs = client.application.extensions["manille"].runs
    pid = rclient.hget(Runs.key(run["run_id"]), "pid")
    real, raced = runs._play_once, []

    def racing(run_id, stale, *args):
        if not raced:  # the other request plays this very turn between the read and the store
            raced.append(run_id)
            runs.play(run_id, pid, run["turn"], run["view"]["legal"][-1])
        return real(run_id, stale, *args)
    runs._play_once = racing
    r = play(client, run, token, card=run["view"]["legal"][0])
    assert r.status_code == 409 and r.get_json()["error"] == "wrong_turn", r.get_json()
    assert unpack_actions(rclient.hget(Runs.key(run["run_id"]), "cards")) == run["view"]["legal"][-1]  # the other's play
    assert _hits(rclient, "plays_per_token", pid, "5 per hour") == [0]  # runs.play here: no limits


def test_a_play_refused_by_one_limit_gives_the_others_count_back(redis_server, rclient):
    """Each limit takes its hit in its own script call: the address's full, the token's had room
    and counted, and gives it back with the 429."""
    client = make_client(redis_server, MANILLE_LIMIT_PLAYS_PER_TOKEN="10 per hour",
                         MANILLE_LIMIT_PLAYS_PER_ADDRESS="2 per hour")
    run, token = new_player(client, kind="random")
    pid = rclient.hget(Runs.key(run["run_id"]), "pid")
    for _ in range(2):
        run = play(client, run, token).get_json()
    assert_limited(play(client, run, token), "plays_per_address")
    assert _hits(rclient, "plays_per_token", pid, "10 per hour") == [2]
    assert _hits(rclient, "plays_per_address", "10.0.0.1", "2 per hour") == [2]
    assert play(client, run, token, addr="10.0.0.2").status_code == 200
    assert _hits(rclient, "plays_per_token", pid, "10 per hour") == [3]


@pytest.mark.parametrize("text, windows", [
    ("12 per hour;30 per day", [(12, 3600), (30, 86400)]),
    ("6 per 10 minutes", [(6, 600)]),
    ("5/second ; 7 PER 2 Days", [(5, 1), (7, 172800)]),
    ("", []),
])
def test_limits_parse(text, windows):
    assert [(w.amount, w.seconds) for w in parse(text)] == windows


@pytest.mark.parametrize("text", ["12 per fortnight", "twelve per hour", "0 per hour", "3 per 0 minutes", "12"])
def test_a_limit_that_does_not_parse_stops_the_app_at_start(redis_server, text):
    with pytest.raises(ValueError):
        parse(text)
    with pytest.raises(ValueError):
        make_client(redis_server, MANILLE_LIMIT_PLAYS_PER_TOKEN=text)


def test_a_play_after_redis_forgot_its_scripts_loads_them_again(redis_server, rclient):
    """The limits are checked by a bare EVALSHA read with the run (no SCRIPT EXISTS each time):
    after Redis lost its scripts (a restart), the play loads them and reads again."""
    client = make_client(redis_server, MANILLE_LIMIT_PLAYS_PER_TOKEN="2 per hour")
    run, token = new_player(client, kind="random")
    run = play(client, run, token).get_json()
    rclient.script_flush()
    run = play(client, run, token).get_json()
    assert run["turn"] == 2
    rclient.script_flush()
    assert_limited(play(client, run, token), "plays_per_token")  # the check ran, and counted right


# -- an IPv6 client is its /64 ----------------------------------------------------------------------

def _addresses_of(net: str, n: int) -> list[str]:
    """``n`` different addresses of the /64 ``net`` ("2001:db8:a:b"), spread over its host bits."""
    return [f"{net}:{i:x}:{(i * 7919) % 65536:x}:{(i * 104729) % 65536:x}:{i + 1:x}" for i in range(n)]


def test_an_ipv6_client_rotating_through_its_64_meets_the_documented_ranked_runs_limit(redis_server, rclient):
    """A subscriber holds a whole /64 and may use any of its 2^64 addresses: 300 of them meet the
    default limit on ranked runs (the proxy forwards each), then 429; another /64 and an IPv4
    client each count on their own, an IPv4-mapped address as its IPv4."""
    client = make_client(redis_server, MANILLE_TRUSTED_PROXIES=1)
    documented = parse(DEFAULT_LIMITS["ranked_runs"])[0].amount
    codes = [open_run(client, addr="127.0.0.1", forwarded=a).status_code for a in _addresses_of("2001:db8:5:6", 300)]
    assert codes[:documented] == [201] * documented and set(codes[documented:]) == {429}
    assert_limited(open_run(client, addr="127.0.0.1", forwarded="2001:db8:5:6:ffff::1"), "ranked_runs")
    # the next /64 is of the same /56 (one household: service.limits.WIDER_PREFIXES); another /48's is another client
    assert_limited(open_run(client, addr="127.0.0.1", forwarded="2001:db8:5:7::1"), "ranked_runs")
    assert open_run(client, addr="127.0.0.1", forwarded="2001:db8:6:7::1").status_code == 201
    for _ in range(documented):
        assert open_run(client, addr="127.0.0.1", forwarded="192.0.2.44").status_code == 201
    assert_limited(open_run(client, addr="127.0.0.1", forwarded="::ffff:192.0.2.44"), "ranked_runs")
    # the flags see one client too: the day's runs of a network, indexed under it
    runs = client.application.extensions["manille"].runs
    day = date.fromisoformat(client.get("/api/v1/challenges/today").get_json()["date"])
    assert len(runs.address_runs(day, "2001:db8:5:6:dead:beef::1")) == documented


@pytest.mark.parametrize("limit, amount", [("runs_per_address", 5), ("plays_per_address", 5),
                                           ("submissions_per_address", 2), ("analyses_per_address", 2)])
def test_every_per_address_limit_counts_an_ipv6_client_by_its_64(redis_server, rclient, limit, amount):
    """Each write route's limit per address, with every request from another address of one /64."""
    client = make_client(redis_server, MANILLE_TRUSTED_PROXIES=1, MANILLE_LIMIT_RANKED_RUNS="off",
                         **{f"MANILLE_LIMIT_{limit.upper()}": f"{amount} per hour"})
    rotating = iter(_addresses_of("2001:db8:77:1", 300))
    kind = {} if limit == "submissions_per_address" else {"kind": "random"}

    def request():
        addr = next(rotating)
        if limit == "runs_per_address":
            return open_run(client, addr="127.0.0.1", forwarded=addr, **kind)
        run, token = new_player(client, addr="127.0.0.2", **kind)  # the game comes from elsewhere
        if limit == "plays_per_address":
            return client.post(f"/api/v1/runs/{run['run_id']}/plays", json={"turn": run["turn"],
                               "card": run["view"]["legal"][0]}, headers={**headers(token), "X-Forwarded-For": addr},
                               environ_base={"REMOTE_ADDR": "127.0.0.1"})
        run = finish(client, run, token, addr="127.0.0.2")
        path = "/api/v1/submissions" if limit == "submissions_per_address" else f"/api/v1/runs/{run['run_id']}/analysis"
        body = {"run_id": run["run_id"], "nickname": f"V6{next(rotating)[-4:]}"} if "submissions" in limit else None
        return client.post(path, json=body, headers={**headers(token), "X-Forwarded-For": addr},
                           environ_base={"REMOTE_ADDR": "127.0.0.1"})

    codes = [request().status_code for _ in range(amount)]
    assert set(codes) <= {200, 201, 202}, codes
    assert_limited(request(), limit)


# -- one take per request: requests arriving together ------------------------------------------------

@pytest.fixture(scope="module")
def gunicorn(redis_server, tmp_path_factory):
    """gunicorn (two gevent processes) with limits of 6 on ranked runs, submissions and analyses
    per address; and an app on the same Redis with no limits, to prepare games."""
    from support.svc_helpers import LIMITS_OFF, flush_state, live_service

    flush_state(redis_server.url)
    logs = tmp_path_factory.mktemp("gunicorn")
    with live_service(redis_server.url, logs, [sys.executable, "-c", "import time; time.sleep(3600)"],
                      MANILLE_LIMIT_RANKED_RUNS="6 per hour", MANILLE_LIMIT_SUBMISSIONS_PER_ADDRESS="6 per hour",
                      MANILLE_LIMIT_ANALYSES_PER_ADDRESS="6 per hour") as base:
        yield base, create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                                "MANILLE_BOTS": TEST_BOTS, **LIMITS_OFF}).test_client()


def _together(base: str, requests_: list[tuple[str, dict | None, dict]]) -> list[int]:
    """The statuses of ``requests_`` (path, JSON body, headers), all sent at once, each on its own
    connection, released together by a barrier."""
    import requests

    barrier = threading.Barrier(len(requests_))
    statuses = [None] * len(requests_)

    def send(i, path, body, hdrs):
        session = requests.Session()
        session.get(f"{base}/api/v1/health/live", timeout=30)  # connected before the barrier
        barrier.wait()
        statuses[i] = session.post(f"{base}{path}", json=body, headers=hdrs, timeout=60).status_code
    threads = [threading.Thread(target=send, args=(i, *req)) for i, req in enumerate(requests_)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


@pytest.mark.stack
def test_thirty_ranked_runs_opened_at_once_from_one_address_meet_a_limit_of_six(gunicorn):
    base, _ = gunicorn
    statuses = _together(base, [("/api/v1/runs", {}, {})] * 30)
    assert statuses.count(201) == 6 and statuses.count(429) == 24, statuses


@pytest.mark.stack
def test_thirty_submissions_at_once_from_one_address_meet_a_limit_of_six(gunicorn):
    base, prepare = gunicorn
    games = []
    for _ in range(30):
        run, token = new_player(prepare, addr="10.30.0.1")
        games.append((finish(prepare, run, token, addr="10.30.0.1"), token))
    statuses = _together(base, [("/api/v1/submissions", {"run_id": run["run_id"], "nickname": f"Rush{i}"},
                                 headers(token)) for i, (run, token) in enumerate(games)])
    assert statuses.count(202) == 6 and statuses.count(429) == 24, statuses


@pytest.mark.stack
def test_thirty_analyses_asked_at_once_from_one_address_meet_a_limit_of_six(gunicorn):
    base, prepare = gunicorn
    games = []
    for _ in range(30):
        run, token = new_player(prepare, addr="10.30.0.2", kind="random")
        games.append((finish(prepare, run, token, addr="10.30.0.2"), token))
    statuses = _together(base, [(f"/api/v1/runs/{run['run_id']}/analysis", None, headers(token))
                                for run, token in games])
    assert statuses.count(202) == 6 and statuses.count(429) == 24, statuses
