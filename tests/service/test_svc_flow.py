"""The vertical slice through the Flask test client and an in-process RQ worker."""

from __future__ import annotations

from datetime import date

from service.replay import verify
from service.submissions import codec
from service.submissions.codec import unpack_cards
from service.seeds import daily_seed
from service.submissions import Submissions

from support.svc_helpers import SECRET, TEST_BOTS, headers, play_game, queue_of


def _post(client):
    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs)
        return r.status_code, r.get_json()
    return post


def open_run(client, token=None, **body):
    r = client.post("/api/v1/runs", json=body, headers=headers(token) if token else {})
    return r


def test_open_play_submit_verify(client, run_worker, rclient):
    r = open_run(client)
    assert r.status_code == 201, r.get_json()
    run = r.get_json()
    token = run.pop("player_token")
    assert run["ranked"] is True and run["turn"] == 0 and run["status"] == "playing"
    assert run["view"]["legal"] and set(run["view"]["legal"]) <= set(run["view"]["hand"])
    assert run["events"][0]["type"] == "deal_start"
    assert "player_token" not in client.get(f"/api/v1/runs/{run['run_id']}", headers=headers(token)).get_json()

    final = play_game(_post(client), run, token)
    assert final["result"]["rank_score"] == 1000 + 10 * (final["result"]["totals"][0] - final["result"]["totals"][1])
    assert final["events"][-1]["type"] == "game_end"

    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "  Zoé  "},
                    headers=headers(token))
    assert r.status_code == 202, r.get_json()
    sub = r.get_json()
    assert sub["status"] == "queued" and sub["status_url"] == f"/api/v1/submissions/{sub['submission_id']}"
    # submitted twice: the same submission
    again = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "Zoé"},
                        headers=headers(token)).get_json()
    assert again["submission_id"] == sub["submission_id"]

    run_worker()
    status = client.get(sub["status_url"]).get_json()
    assert status["status"] == "verified", status
    assert status["score"] == final["result"]["rank_score"]
    assert status["rank"] == 1 and status["nickname"] == "Zoé"

    # the replay computed the score: check against the engine directly
    day = date.fromisoformat(run["date"])
    from bots import get_bot
    stored = codec.unpack_game(rclient.hget(Submissions.key(sub["submission_id"]), "game"))
    cards = unpack_cards(stored["played"])  # one character a card
    record = verify(daily_seed(SECRET.encode(), day), cards, get_bot(TEST_BOTS))
    assert record["rank_score"] == status["score"]

    board = client.get(f"/api/v1/leaderboards/days/{run['date']}").get_json()
    assert board["total"] == 1
    assert board["entries"][0]["score"] == status["score"]
    assert board["entries"][0]["nickname"] == "Zoé" and board["entries"][0]["rank"] == 1

    # one ranked run per player per day
    r = open_run(client, token)
    assert r.status_code == 409 and r.get_json()["error"] == "already_played"
    assert r.get_json()["run_id"] == run["run_id"]


def _finished_run(client):
    run = open_run(client).get_json()
    token = run.pop("player_token")
    return play_game(_post(client), run, token), token


def test_submission_is_stored_and_queued_before_202_and_a_job_run_twice_counts_once(client, rclient, run_worker):
    from rq import Queue

    from service.config import QUEUE_NAME
    from service.store import raw_client
    from worker.jobs import verify_submission

    run, token = _finished_run(client)
    sub_id = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "twice"},
                         headers=headers(token)).get_json()["submission_id"]
    stored = rclient.hgetall(Submissions.key(sub_id))
    assert stored["status"] == "queued" and len(codec.unpack_game(stored["game"])["played"]) >= 32
    # its run is the player's ranked run of the day, which the submission names without storing it
    assert client.get(f"/api/v1/submissions/{sub_id}").get_json()["run_id"] == run["run_id"]
    assert Queue(QUEUE_NAME, connection=queue_of(rclient)).job_ids == [sub_id]
    run_worker()
    verify_submission(sub_id)  # the same job again, e.g. after a worker crash
    board = client.get(f"/api/v1/leaderboards/days/{run['date']}").get_json()
    assert board["total"] == 1
    week = client.get("/api/v1/leaderboards/all-time").get_json()["entries"][0]
    assert week["days"] == 1 and week["margin"] == run["result"]["rank_score"] - 1000
    assert client.get("/api/v1/leaderboards/days/" + run["date"] + "/histogram").get_json()["total"] == 1


def test_tampered_cards_are_rejected_by_the_replay(client, rclient, run_worker):
    run, token = _finished_run(client)
    sub = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "cheat"},
                      headers=headers(token)).get_json()
    key = Submissions.key(sub["submission_id"])
    game = rclient.hget(key, "game")
    rclient.hset(key, "game", game[:game.index(" ") - 1] + game[game.index(" "):])  # as if the run had lost its last card
    run_worker()
    status = client.get(sub["status_url"]).get_json()
    assert status["status"] == "rejected" and status["reason"]["code"] == "game_incomplete"
    assert client.get(f"/api/v1/leaderboards/days/{run['date']}").get_json()["total"] == 0


def test_concurrent_plays_append_once(app, client):
    import threading

    run = open_run(client).get_json()
    token = run.pop("player_token")
    url = f"/api/v1/runs/{run['run_id']}/plays"
    legal = run["view"]["legal"] if len(run["view"]["legal"]) > 1 else run["view"]["legal"] * 2
    results = []

    def go(card):
        c = app.test_client()
        r = c.post(url, json={"turn": 0, "card": card}, headers=headers(token))
        results.append((r.status_code, r.get_json()))

    threads = [threading.Thread(target=go, args=(legal[i % 2],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    view = client.get(f"/api/v1/runs/{run['run_id']}", headers=headers(token)).get_json()
    assert view["turn"] == 1
    ok = [b for s, b in results if s == 200]
    assert ok and all(b["turn"] == 1 for b in ok)
    assert all(s == 409 and b["error"] == "wrong_turn" for s, b in results if s != 200)


def test_openapi_and_health(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    assert spec["info"]["title"] == "Manille daily challenge"
    for path in ("/api/v1/runs", "/api/v1/submissions", "/api/v1/leaderboards/days/{period}",
                 "/api/v1/challenges/today", "/api/v1/health/ready"):
        assert path in spec["paths"], path
    assert client.get("/api/v1/health/live").get_json() == {"status": "ok"}
    ready = client.get("/api/v1/health/ready")
    assert ready.status_code == 503 and ready.get_json()["status"] == "not_ready"  # no worker here
