"""Ratings on a real Redis, on fixed days: a day's close rates its players once (a retry counts
nothing twice), a disqualification rebuilds the later days, absence widens the deviation, the
provisional cut-off, the rating board's cut, the profile and board answers."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from freezegun import freeze_time

from service import duplicate
from service.config import Settings
from service.leaderboard import ALL_NAMES, Leaderboard
from service.ops import Ops
from service.players import Players, pid_of
from service.ratings import BOARD, BOARD_DEVIATION, PROVISIONAL_DEVIATION, THROUGH, Ratings, history_key, records
from service.ratings.glicko import Rating, _volatility, field_of, update
from service.store import shard_of

FIRST = date(2026, 12, 1)
#: Each player's card points on a day's deals: a beats b beats c beats d on every deal, e is
#: in the middle; so the order of their ratings is known.
#: Deals a day's game has.
DEALS = 10
STRENGTH = {"a": 50, "b": 40, "c": 30, "d": 20, "e": 35}


def _after(day: date) -> str:
    """Noon the day after ``day`` in Brussels: ``day`` has closed and its seed is public."""
    return f"{day + timedelta(days=1)}T11:00:00+00:00"


def _game(day: date, i: int, pid: str) -> str:
    return f"{day:%Y%m%d}-{shard_of(pid):02d}-{i:08d}{'0' * 20}"


def play_day(rclient, day: date, pids, *, strength: dict | None = None) -> None:
    """Every pid of ``pids`` verified on ``day``, its card points by its strength; then the day's
    final matchpoint board, built as the worker builds it once the day has closed."""
    lb = Leaderboard(rclient)
    for i, pid in enumerate(pids):
        points = (strength or STRENGTH)[pid]
        lb.record(day, pid, pid.upper(), 1000 + points, _game(day, i, pid), deals=[points - k % 3 for k in range(DEALS)])
        rclient.hset(ALL_NAMES, pid, pid.upper())
    with freeze_time(_after(day)):
        assert duplicate.build(Settings.from_env(), rclient, day)["final"] is True


def rate(rclient, upto: date, start: date = FIRST) -> list[date]:
    with freeze_time(_after(upto)):
        return Ratings(rclient).catch_up(Settings.from_env(), upto, start=start)


def test_glicko2_volatility_step_matches_glickmans_example():
    # "Example of the Glicko-2 system": phi 1.1513, delta -0.4834, v 1.7785, sigma 0.06 -> 0.05999
    assert _volatility(0.06, 200 / 173.7178, -0.4834, 1.7785) == pytest.approx(0.05999, abs=1e-5)


def test_a_better_day_against_the_field_raises_the_rating_more():
    field = field_of([Rating(), Rating()])
    good, bad = update(Rating(), field, 0.8, 2), update(Rating(), field, 0.2, 2)
    assert good.value > 1500 > bad.value and good.deviation < 350 and bad.deviation < 350


def test_a_days_close_rates_its_players_once_and_a_retry_counts_nothing_twice(rclient):
    play_day(rclient, FIRST, "abcd")
    assert rate(rclient, FIRST) == [FIRST]
    raw = Ratings(rclient).raw
    first = {p: raw.hget(history_key(p), p) for p in "abcd"}
    assert rate(rclient, FIRST) == []  # already rated
    # a run that died after writing half the players' records, before ``through``: done again,
    # the records written stay as they are and the others are the same as a whole run's
    rclient.delete(THROUGH)
    for p in "cd":
        raw.hdel(history_key(p), p)
    assert rate(rclient, FIRST) == [FIRST]
    assert {p: raw.hget(history_key(p), p) for p in "abcd"} == first
    hist = {p: records(raw.hget(history_key(p), p)) for p in "abcd"}
    assert all(len(h) == 1 and h[0].day == FIRST for h in hist.values())
    values = [hist[p][0].rating.value for p in "abcd"]
    assert values == sorted(values, reverse=True) and values[0] > 1500 > values[-1]


def test_days_are_rated_in_order_and_the_strongest_leads(rclient):
    for k in range(5):
        play_day(rclient, FIRST + timedelta(days=k), "abcde")
    assert rate(rclient, FIRST + timedelta(days=4)) == [FIRST + timedelta(days=k) for k in range(5)]
    r = Ratings(rclient)
    players = {p: r.player(p) for p in "abcde"}
    order = sorted("abcde", key=lambda p: -players[p]["rating"]["value"])
    assert order == ["a", "b", "e", "c", "d"]
    assert all(players[p]["days_played"] == 5 and players[p]["rating"]["games"] == 5 for p in "abcde")
    assert [h["date"] for h in players["a"]["history"]] == [(FIRST + timedelta(days=k)).isoformat() for k in range(5)]


def test_a_disqualification_rebuilds_the_later_days(rclient):
    for k in range(3):
        play_day(rclient, FIRST + timedelta(days=k), "abcd")
    rate(rclient, FIRST + timedelta(days=2))
    before = Ratings(rclient).player("b")
    # a is taken off day 1 (ops): b now leads that day; days 1 and 2 are rated again
    Leaderboard(rclient).remove(FIRST, "a", 1050)
    with freeze_time(_after(FIRST + timedelta(days=2))):
        duplicate.build(Settings.from_env(), rclient, FIRST)
    Ratings(rclient).request_rebuild(FIRST)
    assert rate(rclient, FIRST + timedelta(days=2)) == [FIRST + timedelta(days=k) for k in range(3)]
    a, b = Ratings(rclient).player("a"), Ratings(rclient).player("b")
    assert [h["date"] for h in a["history"]] == [(FIRST + timedelta(days=k)).isoformat() for k in (1, 2)]
    assert b["days_played"] == 3 and b["history"][0]["value"] > before["history"][0]["value"]
    assert b["rating"]["value"] != before["rating"]["value"]


def test_a_player_absent_for_a_week_has_a_wider_deviation(rclient):
    for k in range(10):
        play_day(rclient, FIRST + timedelta(days=k), "abcd" if k in (0, 1, 2) else "abc")
    rate(rclient, FIRST + timedelta(days=9))
    r = Ratings(rclient)
    d, c = r.player("d"), r.player("c")
    assert d["history"][-1]["date"] == (FIRST + timedelta(days=2)).isoformat()
    assert d["rating"]["deviation"] > d["history"][-1]["deviation"]  # widened by the 7 days not played
    assert d["rating"]["deviation"] > c["rating"]["deviation"]


def test_provisional_until_the_deviation_is_small_enough_and_the_boards_cut(rclient):
    play_day(rclient, FIRST, "abcd")
    rate(rclient, FIRST)
    r = Ratings(rclient)
    one_day = r.player("a")["rating"]
    assert one_day["deviation"] > BOARD_DEVIATION  # one day: not yet on the rating board
    assert r.page()["entries"] == []
    assert one_day["provisional"] == (one_day["deviation"] > PROVISIONAL_DEVIATION)
    for k in range(1, 16):
        play_day(rclient, FIRST + timedelta(days=k), "abcd")
    rate(rclient, FIRST + timedelta(days=15))
    ratings = {p: r.player(p)["rating"] for p in "abcd"}
    settled = sorted((p for p in "abcd" if r.player(p)["history"][-1]["deviation"] <= BOARD_DEVIATION),
                     key=lambda p: -ratings[p]["value"])
    assert "b" in settled and "c" in settled and ratings["b"]["provisional"] is False
    page = r.page()
    assert [e["nickname"] for e in page["entries"]] == [p.upper() for p in settled]
    assert page["entries"][0] == {"rank": 1, "player": settled[0], "nickname": settled[0].upper(),
                                  **ratings[settled[0]]}
    # nobody who last played more than 30 days before the last day rated stays on it
    for k in range(16, 48):
        play_day(rclient, FIRST + timedelta(days=k), "ab")
    rate(rclient, FIRST + timedelta(days=47))
    assert {e["player"] for e in r.page()["entries"]} <= {"a", "b"}


def _named(rclient, pid: str, name: str) -> None:
    players = Players(rclient)
    players.claim_nickname(pid, name)
    players.confirm_nickname(pid, name, valid=True)


def test_the_profile_and_the_board_over_http(rclient, client):
    for k in range(16):
        play_day(rclient, FIRST + timedelta(days=k), "abcd")
    rate(rclient, FIRST + timedelta(days=15))
    for pid in "abcd":
        _named(rclient, pid, f"Player{pid.upper()}")
    with freeze_time(_after(FIRST + timedelta(days=15))):
        r = client.get("/api/v1/players/playerb")  # a name confusable with the holder's finds it
        assert r.status_code == 200, r.get_json()
        assert r.headers["Cache-Control"].startswith("public, max-age=") and r.headers["ETag"]
        body = r.get_json()
        assert set(body) >= {"nickname", "rating", "history", "streak", "days_played"}
        assert body["nickname"] == "PlayerB" and body["days_played"] == 16 and body["streak"] == 16
        assert set(body["rating"]) == {"value", "deviation", "games", "provisional"}
        assert body["rating"]["games"] == 16 and body["rating"]["value"] == body["history"][-1]["value"]
        assert [h["date"] for h in body["history"]] == [(FIRST + timedelta(days=k)).isoformat() for k in range(16)]
        assert all(set(h) >= {"date", "value", "deviation"} for h in body["history"])
        again = client.get("/api/v1/players/playerb", headers={"If-None-Match": r.headers["ETag"]})
        assert again.status_code == 304
        for name in ("nobody", "me%2Fx", "x" * 200):
            missing = client.get(f"/api/v1/players/{name}")
            assert missing.status_code == 404 and missing.get_json()["error"] == "unknown_player", name
        me = client.get("/api/v1/players/me")  # the token's route, not a nickname's
        assert me.status_code == 401
        board = client.get("/api/v1/ratings?limit=1&offset=1")
        assert board.status_code == 200 and board.headers["Cache-Control"].startswith("public")
        entries = board.get_json()["entries"]
        assert len(entries) == 1 and all(set(e) >= {"rank", "nickname", "value", "deviation", "games"} for e in entries)
        assert [e["rank"] for e in entries] == list(range(2, 2 + len(entries)))
        bad = client.get("/api/v1/ratings?limit=0")
        assert bad.status_code == 422 and set(bad.get_json()) >= {"error", "message"}


def test_the_workers_final_build_rates_the_day_once_and_an_ops_change_rates_it_again(rclient, run_worker, queue_conn):
    days = [FIRST + timedelta(days=k) for k in range(3)]
    lb = Leaderboard(rclient)
    for day in days:
        for i, pid in enumerate("abcd"):
            points = STRENGTH[pid]
            lb.record(day, pid, pid.upper(), 1000 + points, _game(day, i, pid), deals=[points] * DEALS)
    settings = Settings.from_env()
    r = Ratings(rclient)
    with freeze_time(_after(days[0])):  # day 0 has closed: its final build, then its rating, by the worker
        duplicate.request_build(settings, rclient, days[0], force=True, queue=queue_conn)
        run_worker()
    assert r.through() == days[0] and [h["date"] for h in r.player("a")["history"]] == [days[0].isoformat()]
    with freeze_time(_after(days[2])):  # days 1 and 2 closed; the maintenance's builds of both
        assert duplicate.refresh(settings, rclient, queue=queue_conn)
        run_worker()
        assert r.through() == days[2]
        once = {p: r.history(p) for p in "abcd"}
        assert all(len(h) == 3 for h in once.values())
        # the same builds again (a retry, a late maintenance): nothing counted twice
        for day in days:
            duplicate.request_build(settings, rclient, day, force=True, queue=queue_conn)
        run_worker()
        assert {p: r.history(p) for p in "abcd"} == once
        # ops take a's game of day 1 off the boards: days 1 and 2 rated again without it
        Leaderboard(rclient).remove(days[1], "a", 1000 + STRENGTH["a"])
        Ops(rclient, settings)._rebuild_matchpoints(days[1])
        run_worker()
    assert r.through() == days[2]
    assert [rec.day for rec in r.history("a")] == [days[0], days[2]]
    assert r.history("b")[0] == once["b"][0] and r.history("b")[1] != once["b"][1]


def test_a_leagues_ratings_are_its_members_only(rclient, client):
    with freeze_time(_after(FIRST)):
        tokens = [client.post("/api/v1/runs", json={"kind": "random"}).get_json()["player_token"] for _ in range(3)]
    pids = [pid_of(t) for t in tokens]
    for day in (FIRST, FIRST + timedelta(days=1)):
        play_day(rclient, day, pids, strength=dict(zip(pids, (50, 30, 40))))
    rate(rclient, FIRST + timedelta(days=1))
    for pid, name in zip(pids, ("Owner", "Friend")):  # names their verified games made theirs
        Players(rclient).claim_nickname(pid, name)
        Players(rclient).confirm_nickname(pid, name, valid=True)
    with freeze_time(_after(FIRST + timedelta(days=1))):
        made = client.post("/api/v1/leagues", json={"name": "Famille", "nickname": "Owner"},
                           headers={"X-Player-Token": tokens[0]})
        assert made.status_code == 201, made.get_json()
        league = made.get_json()
        assert client.post("/api/v1/leagues/join", json={"invite": league["invite"], "nickname": "Friend"},
                           headers={"X-Player-Token": tokens[1]}).status_code == 200
        r = client.get(f"/api/v1/leagues/{league['league_id']}/ratings", headers={"X-Player-Token": tokens[1]})
        assert r.status_code == 200, r.get_json()
        assert r.headers["Cache-Control"] == "private, no-store"
        body = r.get_json()
        assert body["through"] == (FIRST + timedelta(days=1)).isoformat()
        assert [(e["rank"], e["nickname"], e["me"]) for e in body["entries"]] == [(1, "Owner", False), (2, "Friend", True)]
        assert all("player" not in e for e in body["entries"])
        stranger = client.get(f"/api/v1/leagues/{league['league_id']}/ratings", headers={"X-Player-Token": tokens[2]})
        assert stranger.status_code == 404 and stranger.get_json()["error"] == "unknown_league"


def test_a_rebuild_from_the_first_day_gives_the_same_bytes(rclient):
    for k in range(5):
        play_day(rclient, FIRST + timedelta(days=k), "abcde" if k % 2 else "abcd")
    rate(rclient, FIRST + timedelta(days=4))
    r = Ratings(rclient)
    before = {p: r.raw.hget(history_key(p), p) for p in "abcde"}
    board = rclient.zrange(BOARD, 0, -1, withscores=True)
    assert all(len(b) == 10 * (5 if p != "e" else 2) for p, b in before.items())
    with freeze_time(_after(FIRST + timedelta(days=4))):
        assert r.rebuild(Settings.from_env(), FIRST, FIRST + timedelta(days=4)) == [
            FIRST + timedelta(days=k) for k in range(5)]
    assert {p: r.raw.hget(history_key(p), p) for p in "abcde"} == before
    assert rclient.zrange(BOARD, 0, -1, withscores=True) == board


def test_manille_ratings_rebuild_rates_every_day_from_the_one_given(rclient, capsys):
    from cli.main import main

    for k in range(3):
        play_day(rclient, FIRST + timedelta(days=k), "abcd")
    rate(rclient, FIRST + timedelta(days=2))
    r = Ratings(rclient)
    before = {p: r.raw.hget(history_key(p), p) for p in "abcd"}
    rclient.set(THROUGH, str(FIRST.toordinal()))  # as if days 1 and 2 were lost (a restore)
    with freeze_time(_after(FIRST + timedelta(days=2))):
        assert main(["ratings", "rebuild", "--from", (FIRST + timedelta(days=1)).isoformat()]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rated"] == [(FIRST + timedelta(days=k)).isoformat() for k in (1, 2)]
    assert out["through"] == (FIRST + timedelta(days=2)).isoformat()
    assert {p: r.raw.hget(history_key(p), p) for p in "abcd"} == before  # nothing counted twice
    with freeze_time(_after(FIRST + timedelta(days=2))):
        assert main(["ratings", "rebuild", "--from", "2026-13-01"]) == 2  # not a day: refused


def test_the_first_run_starts_at_the_first_day_played_whichever_day_was_built_first(rclient, run_worker, queue_conn):
    days = [FIRST + timedelta(days=k) for k in range(3)]
    lb = Leaderboard(rclient)
    for day in days:
        for i, pid in enumerate("abcd"):
            lb.record(day, pid, pid.upper(), 1000 + STRENGTH[pid], _game(day, i, pid), deals=[STRENGTH[pid]] * DEALS)
    settings = Settings.from_env()
    with freeze_time(_after(days[2] + timedelta(days=3))):  # no worker ran for days: the last day is built first
        duplicate.request_build(settings, rclient, days[2], force=True, queue=queue_conn)
        run_worker()
    r = Ratings(rclient)
    assert r.through() == days[2] + timedelta(days=3)  # the closed days since, nobody's, rated too
    assert [rec.day for rec in r.history("a")] == days


def test_a_player_reads_their_own_rating_by_token_whatever_name_a_past_board_shows(rclient, client):
    with freeze_time(_after(FIRST)):
        token = client.post("/api/v1/runs", json={"kind": "random"}).get_json()["player_token"]
    pid = pid_of(token)
    play_day(rclient, FIRST, [pid, "a", "b"], strength={pid: 40, "a": 30, "b": 50})
    rate(rclient, FIRST)
    with freeze_time(_after(FIRST + timedelta(days=1))):
        mine = client.get("/api/v1/players/me/rating", headers={"X-Player-Token": token})
        assert mine.status_code == 200, mine.get_json()
        assert mine.headers["Cache-Control"] == "private, no-store"
        body = mine.get_json()
        assert body["nickname"] is None  # no name of theirs is held: none is shown
        assert [h["date"] for h in body["history"]] == [FIRST.isoformat()] and body["days_played"] == 1
        _named(rclient, pid, "Renamed")
        assert client.get("/api/v1/players/me/rating",
                          headers={"X-Player-Token": token}).get_json()["nickname"] == "Renamed"
        assert client.get("/api/v1/players/me/rating").status_code == 401
