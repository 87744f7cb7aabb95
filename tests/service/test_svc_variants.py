"""Free play of the rules with an auction (parlee-1, manillen-1): opening one, calling through the
plays endpoint, the typed refusals (which change nothing), a repeated call, and whole games over
real HTTP to a record that the verifier replayed from the player's actions alone."""

from __future__ import annotations

import json
import sys

import pytest
import requests

from service.app import create_app
from service.config import QUEUE_NAME
from service.replay import player_cards
from service.runs import Runs, unpack_actions
from service.store.compact import ALPHABET, CALLS

from support.svc_helpers import SECRET, TEST_BOTS, err, headers, live_service, snapshot


def open_run(client, body: dict, token: str | None = None) -> dict:
    r = client.post("/api/v1/runs", json=body, headers=headers(token) if token else {})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def open_calling(client, rules="parlee-1") -> dict:
    """A new run of ``rules`` where the player is to call first (the bots' calls came before)."""
    token = None
    for _ in range(40):
        run = open_run(client, {"kind": "random", "rules": rules}, token)
        token = run.get("player_token", token)
        if run["view"]["legal_calls"]:
            run["player_token"] = token
            return run
    raise AssertionError(f"40 {rules} runs and the player never spoke first")


def play(client, run: dict, token: str, **action):
    return client.post(f"/api/v1/runs/{run['run_id']}/plays", json={"turn": run["turn"], **action},
                       headers=headers(token))


@pytest.mark.parametrize("body, rules, target", [
    ({"kind": "random", "rules": "parlee-1"}, "parlee-1", 101),
    ({"kind": "random", "rules": "parlee-1", "target": 51}, "parlee-1", 51),
    ({"kind": "random", "rules": "manillen-1"}, "manillen-1", 21)])
def test_opening_a_variant_keeps_its_rules_target_bots_and_bidder(client, rclient, body, rules, target):
    run = open_run(client, body)
    assert (run["rules"], run["target"], run["bots"], run["bidder"]) == (rules, target, "expert-1", "bidder-1")
    view = run["view"]
    assert (view["rules"], view["target"], view["turned"], view["turned_holder"]) == (rules, target, None, None)
    start = run["events"][0]
    assert start["type"] == "deal_start" and start["turned"] is None and start["carry"] == 1
    said = [(e["seat"], e["call"]) for e in run["events"] if e["type"] == "call"]
    assert said == [(c["seat"], c["call"]) for c in view["calls"]]  # the bots' calls, as narrated
    if view["legal_calls"]:
        assert view["to_move"] == 0 and view["legal"] == [] and view["unplayable"] == {}
        assert view["contract"] is None
    else:  # the auction ended before the player's turn (manillen: the first choice ends it)
        contract = next(e for e in run["events"] if e["type"] == "contract")
        assert view["contract"] == contract["contract"] and view["factor"] == contract["factor"]
    stored = rclient.hgetall(Runs.key(run["run_id"]))
    assert (stored["rules"], stored["target"], stored["bidder"]) == (rules, str(target), "bidder-1")
    assert len(stored["plays"]) == len(said) + sum(e["type"] == "play" for e in run["events"])  # a character each


def test_muette_free_play_is_stored_a_character_a_card(client, rclient):
    run = open_run(client, {"kind": "random"})
    assert run["rules"] == "muette-1" and "target" not in run and "bidder" not in run
    assert not {"calls", "legal_calls", "contract", "factor"} & set(run["view"])
    token, card = run["player_token"], run["view"]["legal"][0]
    run = play(client, run, token, card=card.lower()).get_json()
    stored = rclient.hgetall(Runs.key(run["run_id"]))
    assert unpack_actions(stored["cards"]) == card and "=" not in unpack_actions(stored["plays"])
    assert len(stored["cards"]) == 1 and set(stored["plays"]) <= set(ALPHABET)  # a card's id as a base64 digit
    assert stored["rules"] == "muette-1" and "target" not in stored and "bidder" not in stored


def test_bad_rules_or_target_are_typed_and_store_nothing(client, rclient):
    before = snapshot(rclient)
    body = err(client.post("/api/v1/runs", json={"kind": "random", "rules": "belote-1"}), 422, "unknown_rules")
    assert body["allowed"] == ["muette-1", "parlee-1", "manillen-1"]
    body = err(client.post("/api/v1/runs", json={"kind": "random", "rules": "parlee-1", "target": 40}),
               422, "unknown_target")
    assert body["allowed"] == [101, 51]
    body = err(client.post("/api/v1/runs", json={"kind": "random", "target": 101}), 422, "unknown_target")
    assert body["allowed"] == [40]
    body = err(client.post("/api/v1/runs", json={"rules": "parlee-1"}), 422, "validation_error")
    assert "rules" in body["fields"]
    assert snapshot(rclient) == before


def test_a_call_and_its_refusals(client, rclient):
    run = open_calling(client)
    token, legal = run["player_token"], run["view"]["legal_calls"]
    key = Runs.key(run["run_id"])
    before = snapshot(rclient)
    card = run["view"]["hand"][0]
    body = err(play(client, run, token, card=card), 422, "call_expected")
    assert body["legal"] == legal and body["card"] == card
    body = err(play(client, run, token, call="belote"), 422, "unknown_call")
    wrong = next(c for c in ("redouble", "double", "NT", "pass") if c not in legal)
    body = err(play(client, run, token, call=wrong), 422, "illegal_call")
    assert body["legal"] == legal and body["call"] == wrong
    err(play(client, run, token, call="pass", card=card), 422, "validation_error")
    err(play(client, run, token), 422, "validation_error")
    assert snapshot(rclient) == before  # nothing refused was stored

    call = legal[-1]
    r = play(client, run, token, call=call.lower())  # any case, as the engine reads it
    assert r.status_code == 200, r.get_json()
    answer = r.get_json()
    assert answer["turn"] == run["turn"] + 1
    assert answer["events"][0] == {"type": "call", "deal": 0, "seat": 0, "call": call}
    stored = rclient.hgetall(key)
    assert unpack_actions(stored["cards"]).endswith({"C": "=C", "D": "=D", "H": "=H", "S": "=S", "NT": "=N",
                                                     "pass": "=P", "double": "=X", "redouble": "=R"}[call])
    assert stored["cards"][-1] == CALLS[call]  # a call, a letter after the cards' digits
    # the same call again: the same answer, nothing played twice
    again = play(client, run, token, call=call)
    assert again.status_code == 200 and again.get_json() == answer
    assert rclient.hgetall(key)["plays"] == stored["plays"]
    # and a call once a card is due
    if not answer["view"]["legal_calls"] and answer["view"]["to_move"] == 0:
        body = err(play(client, answer, token, call="pass"), 422, "card_expected")
        assert body["legal"] == answer["view"]["legal"]


def test_a_call_in_muette_is_card_expected(client):
    run = open_run(client, {"kind": "random"})
    body = err(play(client, run, run["player_token"], call="NT"), 422, "card_expected")
    assert body["legal"] == run["view"]["legal"]


def test_the_variant_bot_and_bidder_are_one_setting(rclient, redis_server):
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, "MANILLE_VARIANT_BOTS": "random-1",
                      "MANILLE_VARIANT_BIDDER": "longest-bidder-1"})
    run = open_run(app.test_client(), {"kind": "random", "rules": "manillen-1"})
    assert (run["bots"], run["bidder"]) == ("random-1", "longest-bidder-1")


def test_a_finished_variant_games_record_is_built_once_and_served_from_storage(client, rclient, monkeypatch):
    """The verifier's record replays every bot decision of the game: the first reading builds and
    stores it, beside the run and as long as it; readings after, and readings at the same moment
    as the first, are answered from storage, the same bytes."""
    import threading

    import service.runs as runs_module

    run = open_run(client, {"kind": "random", "rules": "parlee-1", "target": 51})
    token = run["player_token"]
    while run["status"] != "finished":
        v = run["view"]
        run = play(client, run, token, **({"call": v["legal_calls"][0]} if v["legal_calls"]
                                          else {"card": v["legal"][0]})).get_json()
    built, real = [], runs_module.verify
    monkeypatch.setattr(runs_module, "verify", lambda *a, **k: built.append(1) or real(*a, **k))
    url = f"/api/v1/runs/{run['run_id']}/record"
    bodies = [None] * 8

    def read(i):
        bodies[i] = client.get(url, headers=headers(token)).get_data()
    readers = [threading.Thread(target=read, args=(i,)) for i in range(8)]
    for t in readers:
        t.start()
    for t in readers:
        t.join()
    assert len(built) == 1 and len(set(bodies)) == 1  # eight readers at once: one build
    for _ in range(3):
        assert client.get(url, headers=headers(token)).get_data() == bodies[0]
    assert len(built) == 1
    stored = rclient.get(Runs.record_key(run["run_id"]))
    assert json.loads(stored) == json.loads(bodies[0]) and player_cards(json.loads(stored))
    assert 0 < rclient.pttl(Runs.record_key(run["run_id"])) <= rclient.pttl(Runs.key(run["run_id"])) + 1000


# -- whole games over HTTP ------------------------------------------------------

@pytest.fixture(scope="module")
def base(redis_server, tmp_path_factory):
    with live_service(redis_server.url, tmp_path_factory.mktemp("variants"),
                      [sys.executable, "-m", "worker", "--url", redis_server.url, QUEUE_NAME]) as url:
        yield url


@pytest.mark.stack
@pytest.mark.parametrize("rules, target", [("parlee-1", 51), ("parlee-1", None), ("manillen-1", None)])
def test_a_whole_variant_game_over_http_to_its_verified_record(base, rules, target):
    s = requests.Session()
    body = {"kind": "random", "rules": rules, **({"target": target} if target else {})}
    r = s.post(f"{base}/api/v1/runs", json=body, timeout=30)
    assert r.status_code == 201, r.text
    run = r.json()
    s.headers["X-Player-Token"] = run["player_token"]
    url = f"{base}/api/v1/runs/{run['run_id']}"
    assert s.get(f"{url}/record", timeout=10).json()["error"] == "run_not_finished"
    events, mine = list(run["events"]), []
    while run["status"] != "finished":
        v = run["view"]
        action = {"call": v["legal_calls"][0]} if v["legal_calls"] else {"card": v["legal"][-1]}
        r = s.post(f"{url}/plays", json={"turn": run["turn"], **action}, timeout=30)
        assert r.status_code == 200, r.text
        run = r.json()
        mine.append(next(iter(action.values())))
        events += run["events"]
    assert run["turn"] == len(mine) and run["seed"]
    assert max(run["result"]["totals"]) >= (target or {"parlee-1": 101, "manillen-1": 21}[rules])

    record = s.get(f"{url}/record", timeout=30).json()
    assert (record["rules"], record["target"], record["bots"], record["bidders"]) == (
        rules, run["target"], run["bots"], run["bidder"])
    assert record["seed"] == run["seed"] and record["totals"] == run["result"]["totals"]
    assert player_cards(record) == mine  # the verifier replayed exactly the player's actions
    # the record's calls, contracts and cards are what the table narrated
    assert [(c["seat"], c["call"]) for d in record["deals"] for c in d["calls"]] == [
        (e["seat"], e["call"]) for e in events if e["type"] == "call"]
    assert [d["contract"] for d in record["deals"]] == [e["contract"] for e in events if e["type"] == "contract"]
    assert [(d["factor"], d["scored"]) for d in record["deals"]] == [
        (e["factor"], e["scored"]) for e in events if e["type"] == "deal_end"]
    assert [p["card"] for d in record["deals"] for t in d["tricks"] for p in t["plays"]] == [
        e["card"] for e in events if e["type"] == "play"]
    # the view's finished deals say the same, factor and carry included
    assert [(d["factor"], d["contract"]) for d in run["view"]["deals"]] == [
        (d["factor"], d["contract"]) for d in record["deals"]]
    # GET draws the same table again from nothing
    again = s.get(url, timeout=30).json()
    assert again["view"] == run["view"] and [e for e in again["events"] if e["type"] == "call"] == [
        e for e in events if e["type"] == "call"]
