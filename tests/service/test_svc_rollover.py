"""Day rollover with freezegun: a run opened before midnight and finished after, a day closing,
its seed published only once the grace for open runs has passed."""

from __future__ import annotations

from datetime import date

from freezegun import freeze_time

from service.seeds import daily_seed

from support.svc_helpers import SECRET, headers

# Europe/Brussels in December is UTC+1: local midnight starting 2026-12-03 is 23:00 UTC.
BEFORE_MIDNIGHT = "2026-12-02T22:50:00+00:00"   # 23:50 local, day 2026-12-02
AFTER_MIDNIGHT = "2026-12-02T23:10:00+00:00"    # 00:10 local, day 2026-12-03, grace running
AFTER_GRACE = "2026-12-02T23:31:00+00:00"       # the grace (30 min) has passed: seed public
DAY = "2026-12-02"


def play(client, run, token, n=None):
    count = 0
    while run["status"] != "finished" and (n is None or count < n):
        r = client.post(f"/api/v1/runs/{run['run_id']}/plays",
                        json={"turn": run["turn"], "card": run["view"]["legal"][0]}, headers=headers(token))
        assert r.status_code == 200, r.get_json()
        run = r.get_json()
        count += 1
    return run


def test_run_opened_before_midnight_finished_after(client, run_worker):
    seed = daily_seed(SECRET.encode(), date(2026, 12, 2)).hex()
    with freeze_time(BEFORE_MIDNIGHT):
        today = client.get("/api/v1/challenges/today").get_json()
        assert today["date"] == DAY and today["status"] == "open" and today["seed"] is None
        run = client.post("/api/v1/runs", json={}).get_json()
        token = run.pop("player_token")
        assert run["date"] == DAY and run["ranked"]
        run = play(client, run, token, 5)
        late = client.post("/api/v1/runs", json={}).get_json()  # opened in time, never finished
        late_token = late.pop("player_token")

    with freeze_time(AFTER_MIDNIGHT):
        assert client.get("/api/v1/challenges/today").get_json()["date"] == "2026-12-03"
        closing = client.get(f"/api/v1/challenges/{DAY}").get_json()
        assert closing["status"] == "closing" and closing["seed"] is None
        # no new run on the closed day, not even practice, until the seed is public
        r = client.post("/api/v1/runs", json={"date": DAY})
        assert r.status_code == 409 and r.get_json()["error"] == "day_closed"
        # a new run without a date is on the new day
        assert client.post("/api/v1/runs", json={}, headers=headers(token)).get_json()["date"] == "2026-12-03"
        # the run opened before midnight plays on and is submitted
        run = play(client, run, token)
        r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "owl"},
                        headers=headers(token))
        assert r.status_code == 202
        run_worker()
        sub = client.get(r.get_json()["status_url"]).get_json()
        assert sub["status"] == "verified" and sub["score"] == run["result"]["rank_score"]
        board = client.get(f"/api/v1/leaderboards/days/{DAY}").get_json()
        assert [e["nickname"] for e in board["entries"]] == ["owl"]
        sealed = client.get(f"/api/v1/submissions/{sub['submission_id']}/record")
        assert sealed.status_code == 409 and sealed.get_json()["error"] == "record_sealed"
        for path in ("/api/v1/challenges/today", f"/api/v1/challenges/{DAY}", r.get_json()["status_url"]):
            assert seed not in client.get(path).get_data(as_text=True)

    with freeze_time(AFTER_GRACE):
        closed = client.get(f"/api/v1/challenges/{DAY}").get_json()
        assert closed["status"] == "closed" and closed["seed"] == seed
        record = client.get(f"/api/v1/submissions/{sub['submission_id']}/record").get_json()
        assert record["seed"] == seed and record["rank_score"] == sub["score"]
        # the run left unfinished can no longer be played: its day's seed is public
        r = client.post(f"/api/v1/runs/{late['run_id']}/plays",
                        json={"turn": late["turn"], "card": late["view"]["legal"][0]}, headers=headers(late_token))
        assert r.status_code == 409 and r.get_json()["error"] == "day_closed"
        # practice on the closed day: unranked, not submittable
        practice = client.post("/api/v1/runs", json={"date": DAY}, headers=headers(token)).get_json()
        assert practice["ranked"] is False
        practice = play(client, practice, token)
        r = client.post("/api/v1/submissions", json={"run_id": practice["run_id"], "nickname": "owl"},
                        headers=headers(token))
        assert r.status_code == 409 and r.get_json()["error"] == "practice_run"


def test_challenge_keeps_the_bot_it_was_created_with(app, client, rclient, redis_server):
    from service.app import create_app
    with freeze_time(BEFORE_MIDNIGHT):
        first = client.get("/api/v1/challenges/today").get_json()
        other = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                            "MANILLE_BOTS": "random-1"}).test_client()
        assert other.get("/api/v1/challenges/today").get_json()["bots"] == first["bots"]
    with freeze_time(AFTER_MIDNIGHT):
        assert other.get("/api/v1/challenges/today").get_json()["bots"] == "random-1"


def test_a_new_bot_plays_from_its_configured_day_and_the_days_before_keep_the_old(rclient, redis_server):
    """MANILLE_BOTS=expert-2 from MANILLE_BOTS_SINCE: the day before it, even one never opened until
    now (the archive), plays MANILLE_BOTS_BEFORE; from it on, the new bot; a bad date is refused."""
    import pytest

    from service.app import create_app
    from service.config import Settings
    config = {"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
              "MANILLE_BOTS": "expert-2", "MANILLE_BOTS_SINCE": "2026-12-03"}
    with freeze_time(AFTER_MIDNIGHT):  # day 2026-12-03: the first of expert-2
        client = create_app(config).test_client()
        assert client.get("/api/v1/challenges/today").get_json()["bots"] == "expert-2"
        assert client.get("/api/v1/challenges/2026-12-01").get_json()["bots"] == "expert-1"
    with freeze_time("2026-12-04T12:00:00+00:00"):
        assert client.get("/api/v1/challenges/2026-12-02").get_json()["bots"] == "expert-1"
        assert client.get("/api/v1/challenges/2026-12-03").get_json()["bots"] == "expert-2"
    with pytest.raises(ValueError, match="MANILLE_BOTS_SINCE"):
        Settings.from_env({"MANILLE_SECRET": SECRET, "MANILLE_BOTS_SINCE": "3 Dec"})
