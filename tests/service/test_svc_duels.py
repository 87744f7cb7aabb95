"""Duels ("Challenge a friend") on a real Redis (and a real cluster with MANILLE_TEST_CLUSTER=1):
a finished free or archive game made into a link that deals the same game (rules, seed, bots)
without carrying the seed; the friend plays it unranked, once; both results side by side deal by
deal with their matchpoints, and each one's record and analysis, shown to a friend only once
their own game is over; the link lasts 7 days."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from freezegun import freeze_time

from service.app import create_app
from service.duels import KEEP_SECONDS, MAX_FRIENDS, key as duel_key
from service.players import pid_of

from support.svc_helpers import LIMITS_OFF, SECRET, TEST_BOTS, err, headers, snapshot

NOON = "2026-12-02 11:00:00"  # UTC: 2026-12-02 is open in Brussels, 2026-11-28 long closed
ARCHIVE_DAY = "2026-11-28"


@pytest.fixture
def app(rclient, redis_server):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, **LIMITS_OFF})


@pytest.fixture(autouse=True)
def _the_day():
    with freeze_time(NOON, tick=True):
        yield


def new_token(client, nickname=None) -> str:
    token = client.post("/api/v1/runs", json={"kind": "random"}).get_json()["player_token"]
    if nickname:
        players = client.application.extensions["manille"].players  # as a verified game makes it theirs
        players.confirm_nickname(pid_of(token), players.claim_nickname(pid_of(token), nickname), valid=True)
    return token


def play_out(client, run, token, pick=lambda legal: legal[0], calls=lambda legal: legal[-1]) -> dict:
    while run["status"] != "finished":
        view = run["view"]
        action = {"call": calls(view["legal_calls"])} if view.get("legal_calls") else {"card": pick(view["legal"])}
        r = client.post(f"/api/v1/runs/{run['run_id']}/plays", json={"turn": run["turn"], **action},
                        headers=headers(token))
        assert r.status_code == 200, r.get_json()
        run = r.get_json()
    return run


def finished_game(client, token, **body) -> dict:
    r = client.post("/api/v1/runs", json=body or {"kind": "random"}, headers=headers(token))
    assert r.status_code == 201, r.get_json()
    return play_out(client, r.get_json(), token)


def make_duel(client, token, run_id, status=201) -> dict:
    r = client.post(f"/api/v1/runs/{run_id}/duel", headers=headers(token))
    assert r.status_code == status, r.get_json()
    return r.get_json()


def open_duel(client, token, code):
    return client.post("/api/v1/runs", json={"kind": "duel", "duel": code}, headers=headers(token) if token else {})


def record_of(client, token, run_id) -> dict:
    r = client.get(f"/api/v1/runs/{run_id}/record", headers=headers(token))
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_a_free_game_sent_to_a_friend(client, rclient):
    ada, bob = new_token(client, "Ada"), new_token(client, "Bob")
    mine = finished_game(client, ada)
    duel = make_duel(client, ada, mine["run_id"])
    code = duel["duel_id"]
    assert duel["url"] == f"/duel/{code}" and duel["you"] == "challenger" and duel["done"] is True
    assert duel["kind"] == "random" and duel["rules"] == "muette-1" and duel["bots"] == mine["bots"]
    assert duel["challenger"] == {"nickname": "Ada", "score": mine["result"]["rank_score"]}
    assert datetime.fromisoformat(duel["expires_at"]) - datetime.fromisoformat(duel["created_at"]) == timedelta(days=7)
    assert KEEP_SECONDS - 60 < rclient.ttl(duel_key(code)) <= KEEP_SECONDS
    # the link is a code of its own: nothing of the seed
    assert mine["seed"] not in json.dumps(duel) and mine["seed"][:8] not in code
    # making it again answers the same duel; the run says which
    assert make_duel(client, ada, mine["run_id"], status=200)["duel_id"] == code
    assert client.get(f"/api/v1/runs/{mine['run_id']}", headers=headers(ada)).get_json()["duel_id"] == code

    # the friend, before playing: who challenges and the score to beat, no deal, no result
    seen = client.get(f"/api/v1/duels/{code}", headers=headers(bob)).get_json()
    assert seen["you"] is None and seen["done"] is False and seen["results"] == [] and seen["players"] == 1
    assert seen["challenger"]["score"] == mine["result"]["rank_score"]
    assert client.get(f"/api/v1/duels/{code}").get_json()["results"] == []  # no token: the same
    rid = duel["results"][0]["result_id"]
    err(client.get(f"/api/v1/duels/{code}/results/{rid}/record", headers=headers(bob)), 403, "play_first")
    err(client.post(f"/api/v1/duels/{code}/results/{rid}/analysis", headers=headers(bob)), 403, "play_first")

    r = open_duel(client, bob, code)
    assert r.status_code == 201, r.get_json()
    theirs = r.get_json()
    assert theirs["kind"] == "duel" and theirs["ranked"] is False and theirs["duel_id"] == code
    assert theirs["seed"] is None and theirs["bots"] == mine["bots"] and theirs["rules"] == mine["rules"]
    # the same deal: the friend holds the challenger's first hand
    first_deal = record_of(client, ada, mine["run_id"])["deals"][0]
    assert sorted(theirs["view"]["hand"]) == sorted(first_deal["hands"]["0"])
    # once per friend: a second run is refused with the first one's id; the challenger plays none
    assert err(open_duel(client, bob, code), 409, "already_played")["run_id"] == theirs["run_id"]
    err(open_duel(client, ada, code), 409, "own_duel")
    while_playing = client.get(f"/api/v1/duels/{code}", headers=headers(bob)).get_json()
    assert while_playing["you"] == "friend" and while_playing["run_id"] == theirs["run_id"]
    assert while_playing["results"] == []
    err(client.get(f"/api/v1/duels/{code}/results/{rid}/record", headers=headers(bob)), 403, "play_first")

    theirs = play_out(client, theirs, bob, pick=lambda legal: legal[-1])
    assert theirs["seed"] == mine["seed"]  # shown once the game is over, as free play's
    assert record_of(client, bob, theirs["run_id"])["deals"][0]["hands"] == first_deal["hands"]
    # unranked: no submission, no board
    before = snapshot(rclient)
    err(client.post("/api/v1/submissions", json={"run_id": theirs["run_id"], "nickname": "Bob"}, headers=headers(bob)),
        409, "practice_run")
    assert snapshot(rclient) == before and not rclient.keys("manille:{boards*")

    both = client.get(f"/api/v1/duels/{code}", headers=headers(bob)).get_json()
    assert both["done"] is True and both["players"] == 2
    challenger, friend = both["results"]
    assert (challenger["challenger"], challenger["you"], friend["challenger"], friend["you"]) == (True, False, False, True)
    assert friend["nickname"] == "Bob" and friend["score"] == theirs["result"]["rank_score"]
    assert friend["totals"] == theirs["result"]["totals"]
    # deal by deal: each side's card points as its own game scored them, and their matchpoints
    for res, run in ((challenger, mine), (friend, theirs)):
        assert [(d["deal"], d["us"], d["them"]) for d in res["deals"]] == [
            (d["deal"], d["points"][0], d["points"][1]) for d in run["view"]["deals"]]
    for a, b in zip(challenger["deals"], friend["deals"]):
        expected = 100.0 if a["us"] > b["us"] else 50.0 if a["us"] == b["us"] else 0.0
        assert (a["mp"], b["mp"]) == (expected, 100.0 - expected)
    longer = challenger if len(challenger["deals"]) > len(friend["deals"]) else friend
    assert all(d["mp"] is None for d in longer["deals"][min(len(challenger["deals"]), len(friend["deals"])):])
    # the challenger sees the same results, the friend's included
    assert [r["result_id"] for r in client.get(f"/api/v1/duels/{code}", headers=headers(ada)).get_json()["results"]] \
        == [challenger["result_id"], friend["result_id"]]

    # each one's record and analysis
    for res, run, token in ((challenger, mine, ada), (friend, theirs, bob)):
        rec = client.get(f"/api/v1/duels/{code}/results/{res['result_id']}/record", headers=headers(bob))
        assert rec.status_code == 200
        assert rec.get_json()["deals"] == record_of(client, token, run["run_id"])["deals"]
        asked = client.post(f"/api/v1/duels/{code}/results/{res['result_id']}/analysis", headers=headers(bob))
        assert asked.status_code == 202
        own = client.post(f"/api/v1/runs/{run['run_id']}/analysis", headers=headers(token)).get_json()
        assert asked.get_json()["analysis_id"] == own["analysis_id"]  # the same game, the same analysis
    err(client.get(f"/api/v1/duels/{code}/results/0123456789abcdef/record", headers=headers(bob)), 404, "unknown_result")


def test_the_ids_of_players_never_reach_another(client):
    ada, bob = new_token(client, "Ada"), new_token(client, "Bob")
    mine = finished_game(client, ada)
    code = make_duel(client, ada, mine["run_id"])["duel_id"]
    theirs = play_out(client, open_duel(client, bob, code).get_json(), bob)
    texts = [client.get(f"/api/v1/duels/{code}", headers=headers(h)).get_data(as_text=True) for h in (ada, bob)]
    texts.append(client.get(f"/api/v1/runs/{theirs['run_id']}", headers=headers(bob)).get_data(as_text=True))
    for text in texts:
        for secret in (ada, bob, pid_of(ada), pid_of(bob)):
            assert secret not in text


def test_an_archive_game_and_a_variant_are_dealt_again_with_their_terms(client):
    ada, bob = new_token(client, "Ada"), new_token(client, "Bob")
    archived = finished_game(client, ada, date=ARCHIVE_DAY)
    duel = make_duel(client, ada, archived["run_id"])
    assert (duel["kind"], duel["date"]) == ("archive", ARCHIVE_DAY)
    theirs = open_duel(client, bob, duel["duel_id"]).get_json()
    assert theirs["date"] == ARCHIVE_DAY and theirs["kind"] == "duel" and theirs["seed"] is None
    assert sorted(theirs["view"]["hand"]) == sorted(record_of(client, ada, archived["run_id"])["deals"][0]["hands"]["0"])
    theirs = play_out(client, theirs, bob)
    assert theirs["seed"] == archived["seed"]

    variant = finished_game(client, ada, kind="random", rules="parlee-1", target=51)
    duel = make_duel(client, ada, variant["run_id"])
    assert (duel["rules"], duel["target"]) == ("parlee-1", 51)
    cyd = new_token(client, "Cyd")
    theirs = open_duel(client, cyd, duel["duel_id"]).get_json()
    assert (theirs["rules"], theirs["target"], theirs["bidder"]) == ("parlee-1", 51, variant["bidder"])
    theirs = play_out(client, theirs, cyd)
    res = client.get(f"/api/v1/duels/{duel['duel_id']}", headers=headers(cyd)).get_json()["results"]
    assert [r["totals"] for r in res] == [variant["result"]["totals"], theirs["result"]["totals"]]
    err(client.post(f"/api/v1/duels/{duel['duel_id']}/results/{res[0]['result_id']}/analysis", headers=headers(cyd)),
        422, "analysis_unsupported")
    rec = client.get(f"/api/v1/duels/{duel['duel_id']}/results/{res[0]['result_id']}/record", headers=headers(cyd))
    assert rec.status_code == 200 and rec.get_json()["rules"] == "parlee-1"


def test_what_cannot_be_a_duel(client):
    ada, bob = new_token(client, "Ada"), new_token(client, "Bob")
    started = client.post("/api/v1/runs", json={"kind": "random"}, headers=headers(ada)).get_json()
    err(client.post(f"/api/v1/runs/{started['run_id']}/duel", headers=headers(ada)), 409, "run_not_finished")
    ranked = play_out(client, client.post("/api/v1/runs", json={}, headers=headers(ada)).get_json(), ada)
    err(client.post(f"/api/v1/runs/{ranked['run_id']}/duel", headers=headers(ada)), 409, "ranked_run")
    free = finished_game(client, ada)
    err(client.post(f"/api/v1/runs/{free['run_id']}/duel", headers=headers(bob)), 404, "run_not_found")
    err(client.post(f"/api/v1/runs/{free['run_id']}/duel"), 401, "invalid_token")
    for code in ("x" * 22, "short", "{" * 22):
        err(open_duel(client, bob, code), 404, "unknown_duel")
        err(client.get(f"/api/v1/duels/{code}"), 404, "unknown_duel")
    err(client.post("/api/v1/runs", json={"kind": "duel"}, headers=headers(bob)), 422, "validation_error")
    err(client.post("/api/v1/runs", json={"duel": "x" * 22}, headers=headers(bob)), 422, "validation_error")


def test_a_duel_lasts_seven_days(client, rclient):
    ada, bob = new_token(client, "Ada"), new_token(client, "Bob")
    mine = finished_game(client, ada)
    code = make_duel(client, ada, mine["run_id"])["duel_id"]
    theirs = open_duel(client, bob, code).get_json()
    # its seven days pass (Redis's own expiry, as KEEP_SECONDS set it: a time in the past expires it now)
    rclient.pexpireat(duel_key(code), 1)
    err(client.get(f"/api/v1/duels/{code}", headers=headers(bob)), 404, "unknown_duel")
    err(open_duel(client, new_token(client), code), 404, "unknown_duel")
    # a friend's game that ends after that is not kept anywhere: no duel comes back without its TTL
    play_out(client, theirs, bob)
    assert not rclient.exists(duel_key(code))


def test_a_finished_game_reaches_its_duel_even_when_the_play_that_ended_it_did_not_say_so(client, rclient):
    """The result is written after the last play is stored (two slots): if the process died in
    between, the friend's next read of the duel finds the finished run and keeps it then."""
    ada, bob = new_token(client, "Ada"), new_token(client, "Bob")
    code = make_duel(client, ada, finished_game(client, ada)["run_id"])["duel_id"]
    play_out(client, open_duel(client, bob, code).get_json(), bob)
    assert rclient.hdel(duel_key(code), f"result:{pid_of(bob)}") == 1  # as if the write never came
    assert client.get(f"/api/v1/duels/{code}", headers=headers(ada)).get_json()["players"] == 1
    seen = client.get(f"/api/v1/duels/{code}", headers=headers(bob)).get_json()
    assert seen["done"] is True and seen["players"] == 2


def test_fifty_friends_then_the_duel_is_full(client, rclient):
    ada = new_token(client, "Ada")
    code = make_duel(client, ada, finished_game(client, ada)["run_id"])["duel_id"]
    for _ in range(MAX_FRIENDS):
        assert open_duel(client, None, code).status_code == 201
    before = snapshot(rclient)
    late = client.post("/api/v1/runs", json={"kind": "duel", "duel": code})
    assert err(late, 409, "duel_full")["limit"] == MAX_FRIENDS
    assert snapshot(rclient) == before


def test_a_duel_run_counts_as_a_run(redis_server, rclient):
    client = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                         "MANILLE_BOTS": TEST_BOTS, "MANILLE_LIMIT_RUNS_PER_TOKEN": "2 per hour"}).test_client()
    ada = new_token(client, "Ada")
    code = make_duel(client, ada, finished_game(client, ada)["run_id"])["duel_id"]
    bob = new_token(client)  # one run
    assert client.post("/api/v1/runs", json={"kind": "random"}, headers=headers(bob)).status_code == 201  # two
    before = snapshot(rclient)
    r = open_duel(client, bob, code)
    assert err(r, 429, "too_many_requests")["limit"] == "runs_per_token" and "Retry-After" in r.headers
    assert snapshot(rclient) == before  # no run, no place in the duel, nothing counted
