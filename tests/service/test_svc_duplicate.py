"""Duplicate results on a real Redis: the field of each deal, a game's matchpoints against it, the
travellers, the matchpoint boards; who may see what while the day is open; games held,
disqualified, restored and rebuilt; counted once whatever is retried."""

from __future__ import annotations

import random
from datetime import date

import pytest
from freezegun import freeze_time

from service import duplicate
from service.config import Settings
from service.duplicate import Field, Matchpoints
from service.leaderboard import Leaderboard, day_board
from service.store import shard_of
from service.submissions import Submissions
from service.verification import verify_submission as _verify

from support.svc_helpers import headers

DAY = date(2026, 12, 2)
OPEN = "2026-12-02T11:00:00+00:00"     # noon in Brussels: the day is open
CLOSED = "2026-12-03T11:00:00+00:00"   # the next noon: its seed is published
#: A scripted day: four games' card points deal by deal, recorded in this order.
GAMES = {"g1": [40, 30], "g2": [40, 20, 35], "g3": [21, 50], "g4": [40]}


def game_id(i: int, pid: str) -> str:
    """The submission id of the scripted day's game ``i``: in its player's shard, as every game's is."""
    return f"20261202-{shard_of(pid):02d}-0000000{i}{'0' * 20}"


def scripted_day(rclient) -> Leaderboard:
    lb = Leaderboard(rclient)
    for i, (pid, points) in enumerate(GAMES.items()):
        lb.record(DAY, pid, pid.upper(), 1000 + 10 * i, game_id(i, pid), deals=points)
    return lb


def test_the_field_of_a_scripted_day_by_hand(rclient):
    scripted_day(rclient)
    field = Field(rclient).deals(DAY)
    assert field["results"] == 4
    deal0, deal1, deal2 = field["deals"]
    assert [d["deal"] for d in field["deals"]] == [0, 1, 2]  # deal 3: nobody, absent
    assert deal0["results"] == 4 and deal0["mean"] == 35.25  # (3 × 40 + 21) / 4
    assert deal0["counts"][40] == 3 and deal0["counts"][21] == 1 and sum(deal0["counts"]) == 4
    assert len(deal0["counts"]) == 62
    assert deal1["results"] == 3 and deal1["mean"] == round((30 + 20 + 50) / 3, 2)
    assert deal2 == {"deal": 2, "results": 1, "mean": 35.0, "counts": [0] * 35 + [1] + [0] * 26}


def test_a_games_matchpoints_by_hand(rclient):
    scripted_day(rclient)
    field = Field(rclient)
    g1 = field.of_game(DAY, GAMES["g1"], counted=True)
    # deal 0: beats g3 (21), ties g2 and g4 (40): 100 × (1 + 2/2) / 3; deal 1: beats g2, loses to g3
    assert g1["deals"][0] == {"deal": 0, "us": 40, "them": 21, "results": 4, "beaten": 1, "tied": 2, "mp": 66.7}
    assert g1["deals"][1] == {"deal": 1, "us": 30, "them": 31, "results": 3, "beaten": 1, "tied": 0, "mp": 50.0}
    assert g1["mp"] == round((200 / 3 + 50) / 2, 2)
    g2 = field.of_game(DAY, GAMES["g2"], counted=True)
    assert g2["deals"][2] == {"deal": 2, "us": 35, "them": 26, "results": 1, "beaten": 0, "tied": 0, "mp": None}
    assert g2["mp"] == round((200 / 3 + 0) / 2, 2)  # deal 2, played alone, is not in the mean
    # a game outside the field (held) is one more result: ties the three 40s, beats the 21
    held = field.of_game(DAY, [40], counted=False)
    assert held["deals"][0] == {"deal": 0, "us": 40, "them": 21, "results": 5, "beaten": 1, "tied": 3, "mp": 62.5}


def test_the_matchpoint_board_of_a_scripted_day(rclient):
    scripted_day(rclient)
    with freeze_time(CLOSED):
        out = duplicate.build(Settings.from_env(), rclient, DAY)
    assert out["final"] is True and out["games"] == 4
    page = Matchpoints(rclient).page(day_board(DAY))
    by = [(e["rank"], e["nickname"], e["mp"]) for e in page["entries"]]
    assert by == [(1, "G4", 66.67), (2, "G1", 58.33), (3, "G3", 50.0), (4, "G2", 33.33)]
    assert page["final"] is True and page["games"] == 4 and page["total"] == 4


def test_equal_matchpoints_share_a_rank_earlier_verified_first(rclient):
    lb = Leaderboard(rclient)
    for pid, points in (("a", [30]), ("b", [31]), ("c", [31]), ("d", [29])):
        lb.record(DAY, pid, pid, 1000, f"s-{pid}", deals=points)
    with freeze_time(OPEN):
        duplicate.build(Settings.from_env(), rclient, DAY)
    page = Matchpoints(rclient).page(day_board(DAY))
    assert [(e["rank"], e["player"], e["mp"]) for e in page["entries"]] == [
        (1, "b", 83.33), (1, "c", 83.33), (3, "a", 33.33), (4, "d", 0.0)]
    assert page["final"] is False  # the day is open: provisional


def test_a_traveller_pages_by_card_points_ties_in_verification_order(rclient, client):
    scripted_day(rclient)
    with freeze_time(CLOSED):
        r = client.get(f"/api/v1/leaderboards/days/{DAY}/deals/0")
        assert r.status_code == 200, r.get_json()
        t = r.get_json()
        assert t["results"] == 4 and t["deal"] == 0 and len(t["counts"]) == 62
        assert [(e["rank"], e["nickname"], e["us"], e["them"], e["mp"]) for e in t["entries"]] == [
            (1, "G1", 40, 21, 66.7), (1, "G2", 40, 21, 66.7), (1, "G4", 40, 21, 66.7), (4, "G3", 21, 40, 0.0)]
        assert t["entries"][0]["submission_id"] == game_id(0, "g1")
        page = client.get(f"/api/v1/leaderboards/days/{DAY}/deals/0?offset=2&limit=1").get_json()
        assert [e["nickname"] for e in page["entries"]] == ["G4"] and page["entries"][0]["rank"] == 1
        page = client.get(f"/api/v1/leaderboards/days/{DAY}/deals/0?offset=3&limit=5").get_json()
        assert [e["nickname"] for e in page["entries"]] == ["G3"]
        assert client.get(f"/api/v1/leaderboards/days/{DAY}/deals/0?offset=4").get_json()["entries"] == []
        for missing in (3, 79, -1):
            r = client.get(f"/api/v1/leaderboards/days/{DAY}/deals/{missing}")
            assert r.status_code == 404 and r.get_json()["error"] == "unknown_deal", missing
        r = client.get(f"/api/v1/leaderboards/days/{DAY}/deals/0?limit=101")
        assert r.status_code == 422


def _post(client, addr):
    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs, environ_base={"REMOTE_ADDR": addr})
        return r.status_code, r.get_json()
    return post


def _ranked_game(client, addr: str, seed: int, nickname: str):
    """A ranked game of the day played with random legal cards (seeded), submitted: (token, the
    run with all its events, submission id)."""
    r = client.post("/api/v1/runs", json={}, environ_base={"REMOTE_ADDR": addr})
    assert r.status_code == 201, r.get_json()
    run = r.get_json()
    token, rng = run["player_token"], random.Random(seed)
    while run["status"] != "finished":
        status, run = _post(client, addr)(f"/api/v1/runs/{run['run_id']}/plays",
                                          {"turn": run["turn"], "card": rng.choice(run["view"]["legal"])},
                                          headers(token))
        assert status == 200, run
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                    headers=headers(token), environ_base={"REMOTE_ADDR": addr})
    assert r.status_code == 202, r.get_json()
    whole = client.get(f"/api/v1/runs/{run['run_id']}", headers=headers(token)).get_json()  # every event
    return token, whole, r.get_json()["submission_id"]


def _deal_points(run: dict) -> list[int]:
    return [ev["points"][0] for ev in run["events"] if ev["type"] == "deal_end"]


@pytest.fixture
def many(redis_server, rclient):
    from service.app import create_app
    from support.svc_helpers import LIMITS_OFF, SECRET, TEST_BOTS
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, **LIMITS_OFF})
    return app.test_client()


def test_played_games_make_the_field_and_only_verified_players_see_it_while_open(many, run_worker, rclient):
    with freeze_time(OPEN):
        games = [_ranked_game(many, f"10.0.0.{i}", i, f"player{i}") for i in range(4)]
        token0, run0, sub0 = games[0]
        # nobody sees the field before their own game is verified: not the submitter, not a stranger
        for hdrs in ({}, headers(token0), headers("not-a-token-at-all-xxxxxxxx")):
            r = many.get(f"/api/v1/leaderboards/days/{DAY}/deals", headers=hdrs)
            assert r.status_code == 403 and r.get_json()["error"] == "play_first", r.get_json()
        r = many.get(f"/api/v1/submissions/{sub0}/deals", headers=headers(token0))
        assert r.status_code == 409 and r.get_json()["error"] == "not_verified"
        run_worker()
        field = many.get(f"/api/v1/leaderboards/days/{DAY}/deals", headers=headers(token0)).get_json()
        assert field["results"] == 4
        # the histogram of each deal is exactly the played games' card points
        for deal in field["deals"]:
            points = [_deal_points(run)[deal["deal"]] for _t, run, _s in games if len(_deal_points(run)) > deal["deal"]]
            assert deal["results"] == len(points)
            assert [deal["counts"][p] for p in range(62)] == [points.count(p) for p in range(62)]
        mine = many.get(f"/api/v1/submissions/{sub0}/deals", headers=headers(token0)).get_json()
        assert [d["us"] for d in mine["deals"]] == _deal_points(run0) and mine["counted"] is True
        assert all(d["us"] + d["them"] == 61 for d in mine["deals"])
        # still sealed to others: another player's deals and any traveller
        token1 = games[1][0]
        r = many.get(f"/api/v1/submissions/{sub0}/deals", headers=headers(token1))
        assert r.status_code == 409 and r.get_json()["error"] == "day_open" and r.get_json()["reveal_at"]
        r = many.get(f"/api/v1/submissions/{sub0}/deals")
        assert r.status_code == 409 and r.get_json()["error"] == "day_open"
        r = many.get(f"/api/v1/leaderboards/days/{DAY}/deals/0", headers=headers(token0))
        assert r.status_code == 409 and r.get_json()["error"] == "day_open"
        # a stranger who has not played still gets 403
        stranger = many.post("/api/v1/runs", json={}, environ_base={"REMOTE_ADDR": "10.9.9.9"}).get_json()
        r = many.get(f"/api/v1/leaderboards/days/{DAY}/deals", headers=headers(stranger["player_token"]))
        assert r.status_code == 403 and r.get_json()["error"] == "play_first"
        # the matchpoint board is public while open, and provisional
        board = many.get(f"/api/v1/leaderboards/days/{DAY}/matchpoints").get_json()
        assert board["scoring"] == "matchpoints" and board["final"] is False
    with freeze_time(CLOSED):
        assert many.get(f"/api/v1/leaderboards/days/{DAY}/deals").status_code == 200
        other = many.get(f"/api/v1/submissions/{sub0}/deals").get_json()
        assert other["deals"] == mine["deals"]
        t = many.get(f"/api/v1/leaderboards/days/{DAY}/deals/0").get_json()
        assert t["results"] == 4 and sorted(e["submission_id"] for e in t["entries"]) == sorted(s for *_x, s in games)
        assert [e["us"] for e in t["entries"]] == sorted((e["us"] for e in t["entries"]), reverse=True)
        # a result opens that player's play of the deal
        record = many.get(f"/api/v1/submissions/{t['entries'][0]['submission_id']}/record").get_json()
        assert record["deals"][0]["points"][0] == t["entries"][0]["us"]


def test_held_disqualified_restored_and_rebuilt_games(many, run_worker, rclient):
    with freeze_time(OPEN):
        games = [_ranked_game(many, f"10.0.1.{i}", 100 + i, f"p{i}") for i in range(3)]
        run_worker()
        field = Field(rclient)
        before = field.counts(DAY)
        _token, run, sub_id = games[0]
        pid = rclient.hget(Submissions.key(sub_id), "pid")
        lb = Leaderboard(rclient)
        board = day_board(DAY)
        number = str(board.shift - 1 - int(rclient.zscore(board.key, pid)) % board.shift)  # the game's
        assert rclient.hget(board.games_key, number).startswith(pid + "|")
        assert lb.remove(DAY, pid, run["result"]["rank_score"])
        without = field.counts(DAY)
        for deal, points in enumerate(_deal_points(run)):
            assert without.get(deal, [0] * 62)[points] == before[deal][points] - 1
        assert field.game_of(DAY, pid) is None
        assert number not in rclient.lrange(board.deal_key(0, _deal_points(run)[0]), 0, -1)
        assert not rclient.hexists(board.games_key, number)
        # put back: the same field again; recorded twice: still once
        sub = {"deals": ",".join(map(str, _deal_points(run)))}
        for _ in range(2):
            lb.record(DAY, pid, "p0", run["result"]["rank_score"], sub_id, deals=duplicate.parse_points(sub["deals"]))
        assert field.counts(DAY) == before
        # verification run again (a retried job): counted once
        settings = Settings.from_env()
        for sub in (s for *_x, s in games):
            assert _verify(settings, rclient, sub)["status"] == "verified"
        assert field.counts(DAY) == before
        assert Field(rclient).deals(DAY)["results"] == 3


def test_disqualify_and_restore_over_the_ops_api_move_the_field_and_the_matchpoints(redis_server, rclient, run_worker):
    from service.app import create_app
    from support.svc_helpers import LIMITS_OFF, SECRET, TEST_BOTS
    token = "ops-token-for-the-duplicate-tests"
    ops = {"Authorization": f"Bearer {token}"}
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": f"alice {token}",
                      "MANILLE_MATCHPOINTS_SECONDS": "0", **LIMITS_OFF})
    client = app.test_client()
    with freeze_time(OPEN):
        games = [_ranked_game(client, f"10.0.2.{i}", 200 + i, f"q{i}") for i in range(3)]
        run_worker()  # the verifications, then the matchpoint build they queued
        board = client.get(f"/api/v1/leaderboards/days/{DAY}/matchpoints").get_json()
        assert board["games"] == 3 and board["total"] == 3
        _token, run, sub_id = games[1]
        r = client.post(f"/api/v1/ops/submissions/{sub_id}/disqualify", json={"reason": "test"}, headers=ops)
        assert r.status_code == 200, r.get_json()
        run_worker()
        field = client.get(f"/api/v1/leaderboards/days/{DAY}/deals", headers=headers(games[0][0])).get_json()
        assert field["results"] == 2
        board = client.get(f"/api/v1/leaderboards/days/{DAY}/matchpoints").get_json()
        assert board["total"] == 2 and "q1" not in [e["nickname"] for e in board["entries"]]
        # the disqualified player's own deals: compared with the field, not in it
        mine = client.get(f"/api/v1/submissions/{sub_id}/deals", headers=headers(games[1][0])).get_json()
        assert mine["counted"] is False and mine["deals"][0]["results"] == 3
        r = client.post(f"/api/v1/ops/submissions/{sub_id}/restore", json={"reason": "test"}, headers=ops)
        assert r.status_code == 200, r.get_json()
        run_worker()
        assert client.get(f"/api/v1/leaderboards/days/{DAY}/matchpoints").get_json()["total"] == 3
        assert client.get(f"/api/v1/submissions/{sub_id}/deals", headers=headers(games[1][0])).get_json()["counted"]


def test_a_rebuild_of_the_boards_rebuilds_the_field_and_the_matchpoints(many, run_worker, rclient):
    import worker.jobs
    with freeze_time(OPEN):
        [_ranked_game(many, f"10.0.3.{i}", 300 + i, f"r{i}") for i in range(3)]
        run_worker()
        with freeze_time(CLOSED):
            duplicate.build(Settings.from_env(), rclient, DAY)
            before_field, before_board = Field(rclient).deals(DAY), Matchpoints(rclient).page(day_board(DAY))
            worker.jobs._settings = None
            counts = worker.jobs.rebuild_boards()
            assert counts["verified"] == 3
            run_worker()  # the builds the rebuild queued
            assert Field(rclient).deals(DAY) == before_field
            after = Matchpoints(rclient).page(day_board(DAY))
            assert after["entries"] == before_board["entries"] and after["final"] is True


def test_week_and_month_matchpoints_are_the_mean_of_closed_days(rclient, client):
    lb, days = Leaderboard(rclient), [date(2026, 11, 30), date(2026, 12, 1), DAY]  # Mon, Tue, Wed of 2026-W49
    for day, scripted in zip(days, ([("a", [40]), ("b", [20])], [("a", [10]), ("b", [50]), ("c", [30])],
                                     [("a", [30]), ("c", [31])])):
        for pid, points in scripted:
            lb.record(day, pid, pid.upper(), 1000, f"s-{pid}-{day}", deals=points)
    with freeze_time(CLOSED):
        for day in days:
            duplicate.build(Settings.from_env(), rclient, day)
        week = client.get("/api/v1/leaderboards/weeks/2026-W49/matchpoints").get_json()
    # a: 100, 0, 0 -> 33.33 over 3 days; b: 0, 100 -> 50 over 2; c: 50, 100 -> 75 over 2
    assert [(e["rank"], e["nickname"], e["mp"], e["days"]) for e in week["entries"]] == [
        (1, "C", 75.0, 2), (2, "B", 50.0, 2), (3, "A", 33.33, 3)]
    assert week["days_counted"] == 3 and week["final"] is False  # the week goes on
    month = client.get("/api/v1/leaderboards/months/2026-12/matchpoints").get_json()
    # November 30 is November's: December has b 100 (one day), c 50 and 100, a 0 and 0
    assert [(e["nickname"], e["mp"], e["days"]) for e in month["entries"]] == [("B", 100.0, 1), ("C", 75.0, 2),
                                                                              ("A", 0.0, 2)]


def test_me_on_a_matchpoint_board(rclient, many, run_worker):
    with freeze_time(OPEN):
        token, _run, _sub = _ranked_game(many, "10.0.4.1", 7, "meee")
        r = many.get(f"/api/v1/leaderboards/days/{DAY}/matchpoints/me", headers=headers(token))
        assert r.status_code == 404 and r.get_json()["error"] == "not_on_board"
        run_worker()
        duplicate.build(Settings.from_env(), rclient, DAY)
        # a game alone on its day has no matchpoints: nobody to compare it with
        assert many.get(f"/api/v1/leaderboards/days/{DAY}/matchpoints/me", headers=headers(token)).status_code == 404
        _ranked_game(many, "10.0.4.2", 8, "other")
        run_worker()
        duplicate.build(Settings.from_env(), rclient, DAY)
        me = many.get(f"/api/v1/leaderboards/days/{DAY}/matchpoints/me", headers=headers(token)).get_json()
        assert me["me"]["nickname"] == "meee" and me["total"] == 2
        page = many.get(f"/api/v1/leaderboards/days/{DAY}/matchpoints", headers=headers(token)).get_json()
        assert page["me"]["nickname"] == "meee"
        assert "me" not in many.get(f"/api/v1/leaderboards/days/{DAY}/matchpoints").get_json()
