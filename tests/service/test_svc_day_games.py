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


def tamper(body: bytes, how: str) -> bytes:
    """The day's file with one thing changed: the last card of line 2's game (a card it cannot
    play there: its hand holds one card), line 3's score, line 2 removed, line 2 added again."""
    lines = body.decode().splitlines()
    if how == "card":
        game = json.loads(lines[2])
        game["cards"][-1] = next(c for c in ("7S", "8S", "9S") if c != game["cards"][-1])
        lines[2] = json.dumps(game, separators=(",", ":"))
    elif how == "score":
        game = json.loads(lines[3])
        game["score"] += 10
        lines[3] = json.dumps(game, separators=(",", ":"))
    elif how == "removed":
        del lines[2]
    elif how == "added":
        lines.insert(4, lines[2])
    return ("\n".join(lines) + "\n").encode()


def test_verify_day_stands_on_the_file_and_fails_naming_each_change(api, run_worker, tmp_path, capsys):
    from cli.main import main
    played_day(api, run_worker, 4)
    with freeze_time(CLOSED):
        body = api.get(URL).data
        zipped = api.get(URL, headers={"Accept-Encoding": "gzip"}).data
        seed = api.get(f"/api/v1/challenges/{DAY}").get_json()["seed"]
    ids = [json.loads(line)["submission_id"] for line in body.decode().splitlines()[1:-1]]
    for name, data in (("day.jsonl", body), ("day.jsonl.gz", zipped)):
        (tmp_path / name).write_bytes(data)
        assert main(["verify-day", str(tmp_path / name), "--seed", seed, "--jobs", "2"]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[:4] == [f"line {n + 2} ({ids[n]}): stands, score {json.loads(body.decode().splitlines()[n + 1])['score']}"
                           for n in range(4)]
        assert out[-1] == "4 games: every one stands, and the file holds the board's games"
    expected = {"card": f"line 3 ({ids[1]}): FAILS: the cards are not a game",
                "score": f"line 4 ({ids[2]}): FAILS: score",
                "removed": "file: FAILS: 3 games in the file, the board had 4 (first line) and 4 were written "
                           "(last line): 1 missing",
                "added": f"line 5 ({ids[1]}): FAILS: the same game as line 3"}
    for how, says in expected.items():
        path = tmp_path / f"{how}.jsonl"
        path.write_bytes(tamper(body, how))
        assert main(["verify-day", str(path), "--seed", seed, "--jobs", "2"]) == 1, how
        out = capsys.readouterr().out.splitlines()
        assert [line for line in out if "FAILS" in line][0].startswith(says), (how, out)
        assert out[-1].endswith("FAILED")
    # the extra line is also counted against the board's
    assert "1 extra" in [line for line in out if line.startswith("file:")][0]
    # another day's seed is refused by the commitment; a bad seed is a usage error
    assert main(["verify-day", str(tmp_path / "day.jsonl"), "--seed", "00" * 32]) == 1
    assert "not the day's" in capsys.readouterr().out
    assert main(["verify-day", str(tmp_path / "day.jsonl"), "--seed", "xyz"]) == 2
