"""A closed day's games as open data on a real Redis and worker: the file's lines are the board's
games, sealed while the day is open, gzip on request, ETag and 304, and a disqualification that
makes a new version."""

from __future__ import annotations

import gzip
import json
import random
from datetime import date

import pytest
from freezegun import freeze_time

from service.config import Settings
from service.submissions import Submissions

from support.svc_helpers import LIMITS_OFF, SECRET, TEST_BOTS, headers

DAY = date(2026, 12, 2)
OPEN = "2026-12-02T11:00:00+00:00"     # noon in Brussels: the day is open
CLOSED = "2026-12-03T11:00:00+00:00"   # the next noon: its seed is published
OPS = {"Authorization": "Bearer ops-token-for-the-day-games-tests"}
URL = f"/api/v1/days/{DAY}/games"


@pytest.fixture
def api(redis_server, rclient):
    from service.app import create_app
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": "alice ops-token-for-the-day-games-tests",
                      **LIMITS_OFF})
    return app.test_client()


def ranked_game(client, addr: str, seed: int, nickname: str) -> tuple[dict, str]:
    """A ranked game of the day played with seeded random legal cards, submitted: (the finished
    run with all its events, submission id)."""
    r = client.post("/api/v1/runs", json={}, environ_base={"REMOTE_ADDR": addr})
    assert r.status_code == 201, r.get_json()
    run = r.get_json()
    token, rng = run["player_token"], random.Random(seed)
    while run["status"] != "finished":
        r = client.post(f"/api/v1/runs/{run['run_id']}/plays", json={"turn": run["turn"],
                        "card": rng.choice(run["view"]["legal"])}, headers=headers(token),
                        environ_base={"REMOTE_ADDR": addr})
        assert r.status_code == 200, r.get_json()
        run = r.get_json()
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                    headers=headers(token), environ_base={"REMOTE_ADDR": addr})
    assert r.status_code == 202, r.get_json()
    whole = client.get(f"/api/v1/runs/{run['run_id']}", headers=headers(token)).get_json()
    return whole, r.get_json()["submission_id"]


def played_day(api, run_worker, n: int = 4) -> dict:
    """``n`` games played and verified on the open day: submission id -> (nickname, run)."""
    with freeze_time(OPEN):
        games = {}
        for i in range(n):
            run, sub_id = ranked_game(api, f"10.7.0.{i}", 700 + i, f"open{i}")
            games[sub_id] = (f"open{i}", run)
        run_worker()
    return games


def parse(body: bytes) -> tuple[dict, list[dict], dict]:
    lines = [json.loads(line) for line in body.decode().splitlines()]
    return lines[0], lines[1:-1], lines[-1]


def test_the_file_is_the_boards_games_sealed_until_the_seed_is_public(api, run_worker, rclient):
    games = played_day(api, run_worker)
    with freeze_time(OPEN):
        r = api.get(URL)
        assert r.status_code == 409 and r.get_json()["error"] == "day_open" and r.get_json()["reveal_at"]
    with freeze_time(CLOSED):
        r = api.get(URL)
        assert r.status_code == 200 and r.mimetype == "application/x-ndjson"
        head, lines, end = parse(r.data)
        challenge = api.get(f"/api/v1/challenges/{DAY}").get_json()
        assert head["format"] == "manille-day/1" and head["licence"] == "CC0-1.0" and head["date"] == str(DAY)
        assert head["games"] == 4 and head["final"] is True and head["commitment"] == challenge["commitment"]
        assert head["bots"] == challenge["bots"] == TEST_BOTS and head["rules"] == challenge["rules"]
        assert end == {"end": "manille-day/1", "games": 4}
        board = api.get(f"/api/v1/leaderboards/days/{DAY}?limit=100").get_json()["entries"]
        assert [(g["nickname"], g["score"]) for g in lines] == [(e["nickname"], e["score"]) for e in board]
        subs = Submissions(rclient, Settings.from_env())
        for line in lines:
            nickname, run = games[line["submission_id"]]
            assert line["nickname"] == nickname
            mine = [ev["card"] for ev in run["events"] if ev["type"] == "play" and ev["seat"] == 0]
            assert line["cards"] == mine and "".join(mine) == subs.get(line["submission_id"])["cards"]
            assert line["score"] == run["result"]["rank_score"]
            assert line["deals"] == [ev["points"][0] for ev in run["events"] if ev["type"] == "deal_end"]
            times = [int(t) for t in subs.get(line["submission_id"])["times"].split(",")]
            assert len(line["gaps"]) == len(line["cards"]) - 1 and sum(line["gaps"]) == times[-1] - times[0]
            assert line["rules"] == head["rules"] and line["bots"] == TEST_BOTS
            assert line["verification"] == "manille-game/1"
            assert set(line) == {"submission_id", "nickname", "cards", "gaps", "score", "deals", "rules", "bots",
                                 "verification"}  # nothing else about the player
        r = api.get("/api/v1/days/2026-13-01/games")
        assert r.status_code == 404 and r.get_json()["error"] == "unknown_date"


def test_etag_304_gzip_and_a_disqualification_is_a_new_version(api, run_worker, rclient):
    played_day(api, run_worker, 3)
    with freeze_time(CLOSED):
        first = api.get(URL)
        etag = first.headers["ETag"]
        assert first.headers["Cache-Control"] == "public, max-age=86400"
        assert "Accept-Encoding" in first.headers["Vary"] and first.headers["Access-Control-Allow-Origin"] == "*"
        again = api.get(URL, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == etag
        assert api.get(URL).data == first.data  # the same state, the same bytes
        zipped = api.get(URL, headers={"Accept-Encoding": "gzip"})
        assert zipped.headers["Content-Encoding"] == "gzip" and zipped.headers["ETag"] != etag
        assert gzip.decompress(zipped.data) == first.data
        head, lines, _end = parse(first.data)
        gone = lines[1]["submission_id"]
        r = api.post(f"/api/v1/ops/submissions/{gone}/disqualify", json={"reason": "test"}, headers=OPS)
        assert r.status_code == 200, r.get_json()
        run_worker()
        after = api.get(URL, headers={"If-None-Match": etag})
        assert after.status_code == 200 and after.headers["ETag"] != etag
        head2, lines2, end2 = parse(after.data)
        assert head2["version"] != head["version"] and head2["games"] == 2 and end2["games"] == 2
        assert [g["submission_id"] for g in lines2] == [g["submission_id"] for g in lines if g["submission_id"] != gone]
