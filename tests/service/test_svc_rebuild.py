"""Boards are derived data: wiped and rebuilt from the stored submissions by replaying them, they
come back the same, equal scores in the order they were first verified, forged entries gone."""

from __future__ import annotations

from datetime import date

import pytest

import worker.jobs
from service.leaderboard import ALL_TIME, Leaderboard, day_board
from service.store import month_id, shard_of, week_id

from support.svc_helpers import headers, play_game


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
    board.record(date.fromisoformat(day), "f" * 24, "forger", 1700, f"20261202-{shard_of('f' * 24):02d}-" + "0" * 28)
    rclient.zrem(day_board(date.fromisoformat(day)).key, entries[0]["player"])
    rclient.zrem(ALL_TIME.key, entries[0]["player"])
    assert boards(client, day) != before

    assert worker.jobs.rebuild_boards() == {"days": 1, "verified": 3, "rejected": 0, "deferred": 0}
    assert boards(client, day) == before
    # a rebuild keeps when each was first verified (it orders the ties)
    assert {s: client.get(f"/api/v1/submissions/{s}").get_json()["verified_at"]
            for s in (twin_a, twin_b)} == first_verified
    assert worker.jobs.rebuild_boards() == {"days": 1, "verified": 3, "rejected": 0, "deferred": 0}
    assert boards(client, day) == before


def test_verifications_during_a_rebuild_are_deferred_to_it_and_count_once(client, rclient, monkeypatch):
    early, day = submit_game(client, "early", lambda legal: legal[0])
    assert worker.jobs.verify_submission(early)["status"] == "verified"
    racer, _ = submit_game(client, "racer", lambda legal: legal[-1])
    late = {}
    wipe, end = Leaderboard.wipe, Leaderboard.end_rebuild

    def racing_wipe(self):
        # another worker verifies while the boards are being wiped: turned away, not lost
        assert worker.jobs.verify_submission(racer).get("deferred") is True
        return wipe(self)

    def racing_end(self):
        if not late:  # a submission made and verified after the rebuild listed the stored ones
            late["id"], _ = submit_game(client, "late", lambda legal: legal[len(legal) // 2])
            assert worker.jobs.verify_submission(late["id"]).get("deferred") is True
        return end(self)

    monkeypatch.setattr(Leaderboard, "wipe", racing_wipe)
    monkeypatch.setattr(Leaderboard, "end_rebuild", racing_end)
    counts = worker.jobs.rebuild_boards()
    assert counts["verified"] == 2 and counts["deferred"] >= 2

    the_day = date.fromisoformat(day)
    page = client.get(f"/api/v1/leaderboards/days/{day}").get_json()
    assert sorted(e["nickname"] for e in page["entries"]) == ["early", "late", "racer"]
    assert client.get(f"/api/v1/leaderboards/days/{day}/histogram").get_json()["total"] == 3
    for entry in client.get("/api/v1/leaderboards/all-time").get_json()["entries"]:
        score = next(e["score"] for e in page["entries"] if e["player"] == entry["player"])
        assert (entry["days"], entry["margin"]) == (1, score - 1000)  # counted once each
    week = client.get(f"/api/v1/leaderboards/weeks/{week_id(the_day)}").get_json()
    assert [e["days"] for e in week["entries"]] == [1, 1, 1]
    for sub_id in (early, racer, late["id"]):
        assert client.get(f"/api/v1/submissions/{sub_id}").get_json()["rank"] is not None

    # the flag is down: the next verification is recorded at once; a second rebuild may start
    other, _ = submit_game(client, "after", lambda legal: legal[0])
    assert "deferred" not in worker.jobs.verify_submission(other)
    assert Leaderboard(rclient).begin_rebuild(60)


def test_one_rebuild_at_a_time(rclient):
    assert Leaderboard(rclient).begin_rebuild(60)
    with pytest.raises(RuntimeError):
        worker.jobs.rebuild_boards()
