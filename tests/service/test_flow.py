"""The vertical slice through the Flask test client and an in-process RQ worker."""

from __future__ import annotations

from datetime import date, datetime, timezone

from service.leaderboard import day_board
from service.replay import verify
from service.seeds import daily_seed

from .conftest import SECRET, TEST_BOTS
from .helpers import headers, play_game


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
    stored = rclient.hget(f"manille:{{day:{day}}}:submission:{sub['submission_id']}", "cards")
    cards = [stored[i:i + 2] for i in range(0, len(stored), 2)]
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
