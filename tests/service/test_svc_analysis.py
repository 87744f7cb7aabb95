"""Analyses through the API on a real Redis and a real RQ worker: asked for, followed, cached,
refused while the day is open, limited; and the hidden-information check a verification queues."""

from __future__ import annotations

import json
import threading
import time
from datetime import date, datetime, timedelta

from freezegun import freeze_time

import pytest
from rq import Queue

from service.analysis import CHECK_QUEUE, FREE_KEEP_SECONDS, KEEP_SECONDS, POSITIONS_MARGIN_SECONDS, QUEUE, Analyses
from service.store import raw_client, shard_of

from support.svc_helpers import (LIMITS_OFF, OPS, OPS_TOKENS, SECRET, TEST_BOTS, burst_worker, err, headers, play_game,
                                 queue_of)


def _post(client):
    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs)
        return r.status_code, r.get_json()
    return post


def _finished_free_game(client) -> tuple[dict, str]:
    r = client.post("/api/v1/runs", json={"kind": "random"})
    assert r.status_code == 201, r.get_json()
    run = r.get_json()
    token = run["player_token"]
    return play_game(_post(client), run, token), token


def _analysis_worker(rclient, queue=QUEUE):
    import worker.jobs
    worker.jobs._settings = None
    conn = queue_of(rclient)
    return burst_worker([queue], conn)


def test_a_free_game_is_analysed_with_progress_and_answered_from_the_cache(app, client, rclient):
    run, token = _finished_free_game(client)
    url = f"/api/v1/runs/{run['run_id']}/analysis"
    r = client.post(url, headers=headers(token))
    assert r.status_code == 202, r.get_json()
    first = r.get_json()
    assert first["status"] == "queued" and first["status_url"] == f"/api/v1/analyses/{first['analysis_id']}"
    assert client.post(url, headers=headers(token)).get_json()["analysis_id"] == first["analysis_id"]
    assert Queue(QUEUE, connection=queue_of(rclient)).count == 1  # asked twice, queued once
    health = client.get("/api/v1/health/ready").get_json()
    assert health["analysis"] == {"workers": 0, "queued": 1, "waiting": 1, "max_waiting": 1000,
                                  "check_workers": 0, "check_queued": 0}
    assert "no_analysis_worker" in health["warnings"]

    seen, done = [], threading.Event()

    def watch():  # a page polling while the worker runs (RQ's worker wants the main thread)
        while not done.is_set():
            body = client.get(first["status_url"]).get_json()
            seen.append((body["status"], body["progress"]["done"], body["progress"]["total"]))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        _analysis_worker(rclient).work(burst=True)
    finally:
        done.set()
        watcher.join()
    body = client.get(first["status_url"]).get_json()
    assert body["status"] == "finished", body
    partial = [s for s in seen if s[0] == "started" and 0 < s[1] < s[2]]
    assert partial, seen  # the progress was visible while it ran
    assert [s[1] for s in partial] == sorted(s[1] for s in partial)
    doc = body["analysis"]
    assert body["progress"]["done"] == body["progress"]["total"] == len(doc["decisions"])
    assert doc["seed"] == run["seed"] and doc["rules"] == "muette-1" and doc["seats"] == [0, 2]
    record = client.get(f"/api/v1/runs/{run['run_id']}/record", headers=headers(token)).get_json()
    mine = [p["card"] for d in record["deals"] for t in d["tricks"] for p in t["plays"] if p["seat"] == 0]
    assert [d["played"] for d in doc["decisions"] if d["seat"] == 0] == mine
    for d in doc["decisions"]:
        assert d["played"] in d["legal"] and d["mark"] in ("forced", "best", "good", "inaccuracy", "mistake",
                                                           "blunder")
        if not d["forced"]:
            assert d["lost_open"] == max(v["open"] for v in d["legal"].values()) - d["legal"][d["played"]]["open"]
    assert set(doc["summary"]) == {"0", "2"}
    # a free game's seed is its own: its analysis is kept days, not a month, and its positions a day longer
    ttl = rclient.ttl(Analyses.key(first["analysis_id"]))
    assert 0 < ttl <= FREE_KEEP_SECONDS < KEEP_SECONDS
    positions = Analyses(rclient, client.application.extensions["manille"].settings).positions(bytes.fromhex(run["seed"]))
    assert ttl <= rclient.ttl(positions.first) <= FREE_KEEP_SECONDS + POSITIONS_MARGIN_SECONDS
    assert client.get("/api/v1/health/ready").get_json()["analysis"]["waiting"] == 0  # its place freed

    # asked again later: finished at once, nothing queued, the same document
    again = client.post(url, headers=headers(token))
    assert again.status_code == 202 and again.get_json()["status"] == "finished"
    assert Queue(QUEUE, connection=queue_of(rclient)).count == 0
    assert client.get(first["status_url"]).get_json()["analysis"] == doc


def test_refusals_change_nothing(client, rclient):
    r = client.post("/api/v1/runs", json={"kind": "random"})
    run = r.get_json()
    token = run["player_token"]
    err(client.post(f"/api/v1/runs/{run['run_id']}/analysis", headers=headers(token)), 409, "run_not_finished")
    err(client.post("/api/v1/runs/20261204-nope/analysis", headers=headers(token)), 404, "run_not_found")
    err(client.get("/api/v1/analyses/" + "0" * 32), 404, "analysis_not_found")
    err(client.get("/api/v1/analyses/not-an-id"), 404, "analysis_not_found")

    # today's ranked game: its day is open, so its analysis (every hand, every best card) is refused
    r = client.post("/api/v1/runs", json={})
    rtoken = r.get_json()["player_token"]
    ranked = play_game(_post(client), r.get_json(), rtoken)
    body = err(client.post(f"/api/v1/runs/{ranked['run_id']}/analysis", headers=headers(rtoken)),
               409, "day_open")
    assert body["reveal_at"]

    # a variant game: not analysed yet, said plainly
    r = client.post("/api/v1/runs", json={"kind": "random", "rules": "parlee-1"})
    v = r.get_json()
    vtoken = v["player_token"]
    while v["status"] != "finished":
        view = v["view"]
        body = ({"turn": v["turn"], "call": view["legal_calls"][0]} if view.get("legal_calls")
                else {"turn": v["turn"], "card": view["legal"][0]})
        v = client.post(f"/api/v1/runs/{v['run_id']}/plays", json=body, headers=headers(vtoken)).get_json()
    body = err(client.post(f"/api/v1/runs/{v['run_id']}/analysis", headers=headers(vtoken)),
               422, "analysis_unsupported")
    assert body["allowed"] == ["muette-1"]
    assert not rclient.keys("manille:{analysis:*")
    assert Queue(QUEUE, connection=queue_of(rclient)).count == 0


@pytest.fixture
def limited_app(rclient, redis_server):
    from service.app import create_app
    config = {"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET, "MANILLE_BOTS": TEST_BOTS,
              **LIMITS_OFF, "MANILLE_LIMIT_ANALYSES_PER_TOKEN": "1 per hour"}
    return create_app(config)


def test_analyses_are_limited_but_a_repeat_is_never_refused(limited_app, rclient):
    client = limited_app.test_client()
    run_a, token = _finished_free_game(client)
    first = client.post(f"/api/v1/runs/{run_a['run_id']}/analysis", headers=headers(token))
    assert first.status_code == 202
    r = client.post("/api/v1/runs", json={"kind": "random"}, headers=headers(token))
    run_b = play_game(_post(client), r.get_json(), token)
    refused = client.post(f"/api/v1/runs/{run_b['run_id']}/analysis", headers=headers(token))
    body = err(refused, 429, "too_many_requests")
    assert body["limit"] == "analyses_per_token" and int(refused.headers["Retry-After"]) >= 1
    assert Queue(QUEUE, connection=queue_of(rclient)).count == 1
    again = client.post(f"/api/v1/runs/{run_a['run_id']}/analysis", headers=headers(token))
    assert again.status_code == 202 and again.get_json()["analysis_id"] == first.get_json()["analysis_id"]


@pytest.fixture
def capped_app(rclient, redis_server):
    from service.app import create_app
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, **LIMITS_OFF, "MANILLE_ANALYSIS_QUEUE_MAX": "2",
                       "MANILLE_LIMIT_ANALYSES_PER_ADDRESS": "3 per hour"})


def test_the_players_queue_is_capped_and_never_delays_the_checks_queue(capped_app, rclient, run_worker):
    """However many players ask (each within their limits), at most MANILLE_ANALYSIS_QUEUE_MAX of
    their analyses wait; past it a new one is refused with Retry-After and nothing is stored.  The
    hidden-information check of a strong score goes on a queue of its own, which its worker runs
    while the players' queue is full.  A refused one counts nothing in the client's limits."""
    client = capped_app.test_client()
    games = [_finished_free_game(client) for _ in range(4)]
    asked = [client.post(f"/api/v1/runs/{run['run_id']}/analysis", headers=headers(token)) for run, token in games]
    assert [r.status_code for r in asked[:2]] == [202, 202]
    body = err(asked[2], 503, "analysis_queue_full")
    assert int(asked[2].headers["Retry-After"]) >= 1 and body["retry_after"] >= 1
    assert len(rclient.keys("manille:{analysis:*")) == 2  # nothing of the refused one
    again = client.post(f"/api/v1/runs/{games[0][0]['run_id']}/analysis", headers=headers(games[0][1]))
    assert again.status_code == 202 and again.get_json()["status"] == "queued"  # a repeat is answered

    r = client.post("/api/v1/runs", json={})
    token = r.get_json()["player_token"]
    ranked = play_game(_post(client), r.get_json(), token)
    sub_id = client.post("/api/v1/submissions", json={"run_id": ranked["run_id"], "nickname": "Strong"},
                         headers=headers(token)).get_json()["submission_id"]
    run_worker()  # the first score of the day: its check is queued, the players' queue full as it is
    conn = queue_of(rclient)
    assert Queue(CHECK_QUEUE, connection=conn).count == 1 and Queue(QUEUE, connection=conn).count == 2
    _analysis_worker(rclient, CHECK_QUEUE).work(burst=True)
    from service.config import Settings
    from service.submissions import Submissions
    sub = Submissions(rclient, Settings.from_env({"MANILLE_SECRET": SECRET})).get(sub_id)
    assert json.loads(sub["hindsight"])["analysis_id"] == sub["hindsight_analysis"]  # checked at once
    assert Queue(QUEUE, connection=conn).count == 2  # the players' still wait

    _analysis_worker(rclient).work(burst=True)
    third = client.post(f"/api/v1/runs/{games[2][0]['run_id']}/analysis", headers=headers(games[2][1]))
    assert third.status_code == 202 and third.get_json()["status"] == "queued"  # room again
    # the address's third analysis: the refused one was not counted; a fourth meets the limit
    body = err(client.post(f"/api/v1/runs/{games[3][0]['run_id']}/analysis", headers=headers(games[3][1])),
               429, "too_many_requests")
    assert body["limit"] == "analyses_per_address"


def test_a_game_on_both_queues_is_computed_once(app, rclient, monkeypatch):
    """A player's analysis waiting when the check asks for the same game: the check's queue gets it
    too, its worker computes it, and the players' job, when its turn comes, finds it done."""
    import postmortem
    from postmortem import analyse
    from bots import get_bot
    from service.replay import player_cards, simulate

    seed = bytes(range(32))
    cards = player_cards(simulate(seed, get_bot(TEST_BOTS)))
    with app.app_context():
        analyses = Analyses(rclient, app.extensions["manille"].settings)
        aid, queued = analyses.request(seed=seed, day=None, rules="muette-1", bots=TEST_BOTS, cards=cards)
        assert queued
        again, queued = analyses.request(seed=seed, day=None, rules="muette-1", bots=TEST_BOTS, cards=cards,
                                         purpose="flag")
        assert again == aid and not queued
    conn = queue_of(rclient)
    assert Queue(QUEUE, connection=conn).count == Queue(CHECK_QUEUE, connection=conn).count == 1
    _analysis_worker(rclient, CHECK_QUEUE).work(burst=True)
    assert rclient.hget(Analyses.key(aid), "status") == "finished"
    done = rclient.hgetall(Analyses.key(aid))
    computed = []
    monkeypatch.setattr(postmortem, "analyse", lambda *a, **k: computed.append(a) or analyse(*a, **k))
    _analysis_worker(rclient).work(burst=True)  # the players' job, in this process
    assert computed == [] and Queue(QUEUE, connection=conn).count == 0  # taken, and nothing computed again
    assert rclient.hgetall(Analyses.key(aid)) == done


def test_an_invalid_game_fails_with_the_verifiers_rejection(app, rclient):
    with app.app_context():
        analyses = Analyses(rclient, app.extensions["manille"].settings)
        aid, queued = analyses.request(seed=bytes(32), day=None, rules="muette-1", bots="expert-1",
                                       cards=["7C", "7C"])
    assert queued
    _analysis_worker(rclient).work(burst=True)
    body = app.test_client().get(f"/api/v1/analyses/{aid}").get_json()
    assert body["status"] == "failed" and body["error"]["error"] == "invalid_game"
    assert body["error"]["rejection"]["code"] in ("not_in_hand", "must_follow_suit", "must_beat", "must_trump",
                                                  "must_overtrump")




@pytest.fixture
def ops_app(rclient, redis_server):
    from service.app import create_app
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": OPS_TOKENS})


def test_a_strong_ranked_score_gets_the_hidden_information_check(ops_app, rclient, run_worker):
    client = ops_app.test_client()
    r = client.post("/api/v1/runs", json={})
    run = r.get_json()
    token = run["player_token"]
    run = play_game(_post(client), run, token)
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "Checked"},
                    headers=headers(token))
    sub_id = r.get_json()["submission_id"]
    run_worker()  # verification: the first score of the day is in its top 1,000, so the check is queued
    assert Queue(CHECK_QUEUE, connection=queue_of(rclient)).count == 1  # on its own queue
    assert Queue(QUEUE, connection=queue_of(rclient)).count == 0
    from service.submissions import Submissions
    from service.config import Settings
    subs = Submissions(rclient, Settings.from_env({"MANILLE_SECRET": SECRET}))
    aid = subs.get(sub_id)["hindsight_analysis"]
    # the open day's analysis exists for the server only
    err(client.get(f"/api/v1/analyses/{aid}"), 404, "analysis_not_found")
    _analysis_worker(rclient, CHECK_QUEUE).work(burst=True)
    sub = subs.get(sub_id)
    evidence = json.loads(sub["hindsight"])
    assert evidence["analysis_id"] == aid and evidence["from_trick"] == 1
    # kept as a line of its numbers (no names, no analysis id: the submission has it), read back the same
    stored = rclient.hget(Submissions.key(sub_id), "hindsight")
    assert not stored.startswith("{") and aid not in stored and len(stored) < len(sub["hindsight"]) / 2
    assert {"z", "gain", "var", "drivers", "decisions"} <= set(evidence)
    flagged = [f for f in json.loads(sub["flags"]) if f["code"] == "hindsight"]
    assert bool(flagged) == (evidence["z"] >= evidence["z_threshold"] and evidence["gain"] >= evidence["gain_threshold"])
    assert date.fromisoformat(sub["date"])

    # ops see the figures, and the analysis on each of the player's cards in the replay
    bearer = {"Authorization": f"Bearer {OPS}"}
    detail = client.post(f"/api/v1/ops/submissions/{sub_id}/hands", json={"reason": "its check"},
                         headers=bearer).get_json()  # the day is open: the hands are read on purpose
    assert detail["hindsight"] == evidence and detail["hindsight_analysis"]["status"] == "finished"
    assert detail["hindsight_player"] is None  # the player's first checked game: nothing to add up yet
    marked = [p for d in detail["record"]["deals"] for t in d["tricks"] for p in t["plays"] if "analysis" in p]
    assert marked and all(p["seat"] == 0 and len(p["legal"]) > 1 for p in marked)
    assert all(p["analysis"]["mark"] in ("best", "good", "inaccuracy", "mistake", "blunder") for p in marked)
    # asked for by ops: the same game is analysed already, so the figures are there at once; audited
    r = client.post(f"/api/v1/ops/submissions/{sub_id}/analyse", json={"reason": "a look"}, headers=bearer)
    assert r.status_code == 202 and r.get_json()["analysis_id"] == aid
    assert Queue(QUEUE, connection=queue_of(rclient)).count == Queue(CHECK_QUEUE, connection=queue_of(rclient)).count == 0
    audit = client.get("/api/v1/ops/audit", headers=bearer).get_json()["entries"]
    assert audit[0]["action"] == "analyse" and audit[0]["target"] == sub_id

    # while the day is open its board names no game; once it has closed, the best games are
    # named and anyone opens one in the analysis, answered from the check's analysis at once
    day = sub["date"]
    page = client.get(f"/api/v1/leaderboards/days/{day}").get_json()
    assert page["entries"] and "submission_id" not in page["entries"][0]
    err(client.post(f"/api/v1/submissions/{sub_id}/analysis"), 409, "day_open")
    with freeze_time(datetime.fromisoformat(day) + timedelta(days=2)):
        page = client.get(f"/api/v1/leaderboards/days/{day}").get_json()
        assert page["entries"][0]["submission_id"] == sub_id
        r = client.post(f"/api/v1/submissions/{sub_id}/analysis")
        assert r.status_code == 202 and r.get_json()["analysis_id"] == aid and r.get_json()["status"] == "finished"
        doc = client.get(f"/api/v1/analyses/{aid}").get_json()["analysis"]
        assert [d["played"] for d in doc["decisions"] if d["seat"] == 0] == sub["cards"] if isinstance(
            sub["cards"], list) else True
        assert doc["totals"] and doc["rank_score"] == int(sub["score"]) and doc["from_trick"] == 0


def test_a_players_checked_games_are_tested_together(rclient):
    """One open-handed game is weak evidence (z 1.78 here, under the flag's 3); the same player's
    checked games add up, newest first over the last seven: none below three, the flag from the
    fourth; a player who never left the bot's card gains nothing, however many games."""
    import hashlib
    import math

    from postmortem import analyse
    from postmortem.hindsight import score
    from bots import get_bot
    from cli.tournament import play_open
    from service.analysis import note_check
    from service.config import Settings
    from service.replay import player_cards, simulate
    from service.replay.record import build_record
    from service.store.compact import pack_cards
    from service.submissions import Submissions

    settings = Settings.from_env({"MANILLE_SECRET": SECRET})
    subs = Submissions(rclient, settings)
    seed = hashlib.sha256(b"together-2").digest()
    expert = get_bot("expert-1")
    games = {"open": player_cards(build_record(play_open(seed, (get_bot("oracle-1"), expert, expert, expert)),
                                               "expert-1")),
             "honest": player_cards(simulate(seed, expert))}
    for who, cards in games.items():
        doc = analyse(seed, cards, seats=(0,))  # the whole game, as the worker analyses it
        one = score(doc["decisions"], 0, settings.flags.hindsight_from_trick)
        assert (one["z"] > 1.5) == (who == "open") and one["z"] < settings.flags.hindsight_z
        ids = []
        for k in range(9):
            day = date(2026, 3, 1) + timedelta(days=k)
            sub_id = f"{day:%Y%m%d}-{shard_of(f'p-{who}'):02d}-{hashlib.sha256(who.encode()).hexdigest()[:20]}{k:08x}"
            rclient.hset(subs.key(sub_id), mapping={"pid": f"p-{who}", "played": pack_cards(cards),
                                                    "status": "verified"})
            assert note_check(settings, rclient, sub_id, f"an-{who}", doc)
            ids.insert(0, sub_id)
            sub = subs.get(sub_id)
            assert json.loads(sub["hindsight"])["z"] == one["z"]  # the game's own check, as ever
            flags = {f["code"]: f["evidence"] for f in json.loads(sub["flags"])}
            if k + 1 < settings.flags.hindsight_player_min:
                assert "hindsight_player" not in sub and "hindsight_player" not in flags
                continue
            together = json.loads(sub["hindsight_player"])
            assert not rclient.hget(subs.key(sub_id), "hindsight_player").startswith("{")  # stored as numbers
            n = min(k + 1, settings.flags.hindsight_player_games)
            assert [g["submission_id"] for g in together["games"]] == ids[:n]
            assert [g["date"] for g in together["games"]] == [i[:4] + "-" + i[4:6] + "-" + i[6:8] for i in ids[:n]]
            z = one["gain"] * n / math.sqrt(one["var"] * n) if one["var"] else 0.0
            assert together["z"] == pytest.approx(z, abs=0.02)
            # the open player's games add up to the flag's z within the games kept, the honest one's never
            assert ("hindsight_player" in flags) == (who == "open" and z >= settings.flags.hindsight_player_z)
            if "hindsight_player" in flags:
                assert flags["hindsight_player"] == together
        assert ("hindsight_player" in flags) == (who == "open")  # seven games: the open player is caught
