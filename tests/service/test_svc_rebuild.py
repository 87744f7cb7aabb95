"""Boards are derived data: wiped and rebuilt from the stored submissions by replaying them, they
come back the same, equal scores in the order they were first verified, forged entries gone."""

from __future__ import annotations

from datetime import date

import worker.jobs
from service.leaderboard import ALL_TIME, Leaderboard, day_board
from service.store import month_id, week_id

from svc_helpers import headers, play_game


def _post(client):
    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs)
        return r.status_code, r.get_json()
    return post


def submit_game(client, nickname, pick):
    run = client.post("/api/v1/runs", json={}).get_json()
    token = run.pop("player_token")
    play_game(_post(client), run, token, pick=pick)
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                    headers=headers(token))
    assert r.status_code == 202
    return r.get_json()["submission_id"], run["date"]


def boards(client, day):
    week = date.fromisoformat(day)
    paths = [f"/api/v1/leaderboards/days/{day}", f"/api/v1/leaderboards/days/{day}/histogram",
             f"/api/v1/leaderboards/weeks/{week_id(week)}", f"/api/v1/leaderboards/months/{month_id(week)}",
             "/api/v1/leaderboards/all-time"]
    return {p: client.get(p).get_json() for p in paths}


def test_rebuild_gives_the_same_boards_and_drops_forgeries(client, rclient, run_worker):
    # Twins play the same cards: the same game, the same score, a tie. The second twin submits
    # first but is verified second, so only the verification order can list the first twin first.
    twin_b, day = submit_game(client, "twin-b", lambda legal: legal[0])
    twin_a, _ = submit_game(client, "twin-a", lambda legal: legal[0])
    other, _ = submit_game(client, "other", lambda legal: legal[-1])
    for sub_id in (twin_a, twin_b, other):
        assert worker.jobs.verify_submission(sub_id)["status"] == "verified"
    run_worker()  # the queued jobs run too: they count nothing twice
    before = boards(client, day)
    entries = before[f"/api/v1/leaderboards/days/{day}"]["entries"]
    twins = [e["nickname"] for e in entries if e["nickname"].startswith("twin")]
    assert twins == ["twin-a", "twin-b"]
    assert len({e["rank"] for e in entries if e["nickname"].startswith("twin")}) == 1
    first_verified = {s: client.get(f"/api/v1/submissions/{s}").get_json()["verified_at"] for s in (twin_a, twin_b)}

    # A forged entry and a lost one.
    board = Leaderboard(rclient)
    board.record(date.fromisoformat(day), "f" * 24, "forger", 1700, "20261202-" + "0" * 20)
    rclient.zrem(day_board(date.fromisoformat(day)).key, entries[0]["player"])
    rclient.zrem(ALL_TIME.key, entries[0]["player"])
    assert boards(client, day) != before

    assert worker.jobs.rebuild_boards() == {"days": 1, "verified": 3, "rejected": 0}
    assert boards(client, day) == before
    # a rebuild keeps when each was first verified (it orders the ties)
    assert {s: client.get(f"/api/v1/submissions/{s}").get_json()["verified_at"]
            for s in (twin_a, twin_b)} == first_verified
    assert worker.jobs.rebuild_boards() == {"days": 1, "verified": 3, "rejected": 0}
    assert boards(client, day) == before
