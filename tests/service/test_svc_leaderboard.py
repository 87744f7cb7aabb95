"""Boards on a real Redis: shared ranks, earlier verification first among equals, idempotent
writes, period boards of summed margins, around-me, histogram, exact composites."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from service.leaderboard import (ALL_TIME, SHIFT, Board, Leaderboard, day_board, month_board,
                                 week_board)
from bulk_boards import record_many, remove_players

DAY = date(2026, 12, 2)


@pytest.fixture
def lb(rclient):
    return Leaderboard(rclient)


def test_ties_share_a_rank_and_the_earlier_is_listed_first(lb):
    for pid, score in [("a", 1100), ("b", 1240), ("c", 1100), ("d", 970), ("e", 1100), ("f", 1240)]:
        assert lb.record(DAY, pid, pid.upper(), score, f"sub-{pid}")
    page = lb.page(day_board(DAY), 0, 10)
    assert page["total"] == 6
    assert [(e["rank"], e["player"], e["score"]) for e in page["entries"]] == [
        (1, "b", 1240), (1, "f", 1240), (3, "a", 1100), (3, "c", 1100), (3, "e", 1100), (6, "d", 970)]
    # a page starting inside a tie still shows the shared rank
    assert [(e["rank"], e["player"]) for e in lb.page(day_board(DAY), 3, 2)["entries"]] == [(3, "c"), (3, "e")]
    assert lb.rank_of(day_board(DAY), "e")["rank"] == 3
    assert lb.rank_of(day_board(DAY), "zz") is None


def test_recording_twice_counts_once(lb):
    assert lb.record(DAY, "a", "A", 1100, "s1") is True
    assert lb.record(DAY, "a", "A", 1100, "s1") is False
    assert lb.record(DAY, "a", "A", 1500, "s2") is False
    assert lb.total(day_board(DAY)) == 1 and lb.rank_of(day_board(DAY), "a")["score"] == 1100
    for board in (Board("week", "2026-W49"), Board("month", "2026-12"), ALL_TIME):
        entry = lb.page(board)["entries"][0]
        assert (entry["margin"], entry["days"]) == (100, 1)
    assert lb.histogram(DAY) == [{"score": 1100, "count": 1}]


def test_period_boards_sum_margins_with_days_played(lb):
    # 2026-11-30 is a Monday: the three days share ISO week 49; 2026-12-07 is the next week
    lb.record(date(2026, 11, 30), "a", "A", 1100, "1")   # +100
    lb.record(date(2026, 12, 1), "a", "A", 940, "2")     # -60
    lb.record(date(2026, 12, 1), "b", "B", 1040, "3")    # +40
    lb.record(date(2026, 12, 2), "c", "C", 900, "4")     # -100
    lb.record(date(2026, 12, 7), "b", "B", 1300, "5")    # +300, week 50
    week = lb.page(week_board("2026-W49"))["entries"]
    assert [(e["rank"], e["player"], e["margin"], e["days"]) for e in week] == [
        (1, "a", 40, 2), (1, "b", 40, 1), (3, "c", -100, 1)]
    month = lb.page(month_board("2026-12"))["entries"]
    assert [(e["player"], e["margin"], e["days"]) for e in month] == [("b", 340, 2), ("a", -60, 1), ("c", -100, 1)]
    everything = lb.page(ALL_TIME)["entries"]
    assert [(e["rank"], e["player"], e["margin"], e["days"]) for e in everything] == [
        (1, "b", 340, 2), (2, "a", 40, 2), (3, "c", -100, 1)]


def test_a_weeks_or_months_days_are_its_day_boards_that_hold_the_player(lb, rclient):
    """Only the all-time board counts days; a week's or a month's are read from its day boards,
    and a score taken off leaves a period once none of its days holds the player."""
    lb.record(date(2026, 11, 30), "a", "A", 1100, "1")  # week 49, November
    lb.record(date(2026, 12, 1), "a", "A", 940, "2")    # week 49, December
    lb.record(date(2026, 12, 7), "a", "A", 1300, "3")   # week 50, December
    lb.record(date(2026, 12, 7), "b", "B", 1000, "4")
    assert set(rclient.keys("manille:{boards}:days:*")) == {ALL_TIME.days_key}

    def days(board):
        return {e["player"]: (e["margin"], e["days"]) for e in lb.page(board)["entries"]}
    assert days(week_board("2026-W49")) == {"a": (40, 2)}
    assert days(week_board("2026-W50")) == {"a": (300, 1), "b": (0, 1)}
    assert days(month_board("2026-11")) == {"a": (100, 1)}
    assert days(month_board("2026-12")) == {"a": (240, 2), "b": (0, 1)}
    assert days(ALL_TIME) == {"a": (340, 3), "b": (0, 1)}
    assert lb.rank_of(month_board("2026-12"), "a")["days"] == 2
    assert lb.remove(date(2026, 12, 1), "a", 940)
    assert days(week_board("2026-W49")) == {"a": (100, 1)}
    assert days(month_board("2026-12")) == {"a": (300, 1), "b": (0, 1)}
    assert lb.remove(date(2026, 12, 7), "a", 1300)  # no day of week 50 or of December is left
    assert days(week_board("2026-W50")) == {"b": (0, 1)} and days(month_board("2026-12")) == {"b": (0, 1)}
    assert days(ALL_TIME) == {"a": (100, 1), "b": (0, 1)} and lb.rank_of(ALL_TIME, "a")["nickname"] == "A"


def test_around_me_and_histogram(lb):
    for i in range(30):
        lb.record(DAY, f"p{i:02d}", f"P{i}", 1000 + 10 * (i % 7), f"s{i}")
    board = day_board(DAY)
    me = lb.rank_of(board, "p10")
    around = lb.around(board, "p10", radius=3)
    assert around["me"]["player"] == "p10" and around["me"]["rank"] == me["rank"]
    assert len(around["entries"]) == 7
    assert around["entries"][3]["player"] == "p10"
    top = lb.around(board, lb.page(board, 0, 1)["entries"][0]["player"], radius=2)
    assert len(top["entries"]) == 3
    hist = lb.histogram(DAY)
    assert sum(b["count"] for b in hist) == 30 and [b["score"] for b in hist] == sorted(b["score"] for b in hist)


def test_composites_stay_exact(lb, rclient):
    lb.record(DAY, "hi", "H", 1700, "x")
    lb.record(DAY, "lo", "L", 300, "y")
    raw = dict(rclient.zrange(day_board(DAY).key, 0, -1, withscores=True))
    assert raw["hi"] == 1700 * SHIFT + SHIFT - 2 and raw["hi"] < 2 ** 53
    assert raw["lo"] == 300 * SHIFT + SHIFT - 3


def test_board_api(client, rclient):
    lb = Leaderboard(rclient)
    today = client.get("/api/v1/challenges/today").get_json()["date"]
    day = date.fromisoformat(today)
    for i in range(25):
        lb.record(day, f"p{i:02d}", f"P{i}", 1000 + 10 * i, f"s{i}")
    page = client.get(f"/api/v1/leaderboards/days/{today}?offset=20&limit=10").get_json()
    assert page["total"] == 25 and [e["rank"] for e in page["entries"]] == [21, 22, 23, 24, 25]
    hist = client.get(f"/api/v1/leaderboards/days/{today}/histogram").get_json()
    assert hist["total"] == 25 and len(hist["bins"]) == 25
    r = client.get(f"/api/v1/leaderboards/days/{today}/me")
    assert r.status_code == 401
    run = client.post("/api/v1/runs", json={}).get_json()
    r = client.get(f"/api/v1/leaderboards/days/{today}/me", headers={"X-Player-Token": run["player_token"]})
    assert r.status_code == 404 and r.get_json()["error"] == "not_on_board"
    for path in ("/api/v1/leaderboards/all-time", f"/api/v1/leaderboards/months/{today[:7]}",
                 f"/api/v1/leaderboards/weeks/{day.isocalendar()[0]}-W{day.isocalendar()[1]:02d}"):
        body = client.get(path).get_json()
        assert body["total"] == 25 and body["entries"][0]["margin"] == 240, path


def test_around_with_the_widest_radius_is_centred(lb):
    for i in range(200):
        lb.record(DAY, f"p{i:03d}", f"P{i}", 1000 + i, f"s{i}")
    around = lb.around(day_board(DAY), "p100", radius=50)  # 99 players above p100
    names = [e["player"] for e in around["entries"]]
    assert len(names) == 101 and names[0] == "p150" and names[50] == "p100" and names[-1] == "p050"


def test_around_survives_the_board_moving_under_it(lb, monkeypatch):
    for i in range(10):
        lb.record(DAY, f"p{i}", f"P{i}", 1000 + i, f"s{i}")
    page = Leaderboard.page
    moved = []

    def page_after_a_better_score_lands(self, *args, **kwargs):
        if not moved:  # between reading the rank and reading the page, someone goes ahead
            moved.append(lb.record(DAY, "fast", "F", 1700, "s-fast"))
        return page(self, *args, **kwargs)

    monkeypatch.setattr(Leaderboard, "page", page_after_a_better_score_lands)
    around = lb.around(day_board(DAY), "p5", radius=0)
    assert [e["player"] for e in around["entries"]] == ["p5"] and around["me"]["rank"] == 6


def test_period_boards_show_nicknames(lb):
    lb.record(date(2026, 12, 1), "a", "Anna", 1100, "1")
    lb.record(date(2026, 12, 2), "b", "Bert", 1040, "2")
    for board in (week_board("2026-W49"), month_board("2026-12"), ALL_TIME):
        assert [(e["player"], e["nickname"]) for e in lb.page(board)["entries"]] == [("a", "Anna"), ("b", "Bert")]
        assert lb.around(board, "b", 1)["me"]["nickname"] == "Bert"


def test_equal_totals_on_every_board_list_whoever_reached_it_first(lb):
    # members chosen so that member order (Redis's order among equal scores) is the wrong one
    lb.record(DAY, "aa-first", "First", 1100, "1")
    lb.record(DAY, "zz-second", "Second", 1100, "2")
    # on the next day both gain the same: "late" reaches 200 after "aa-first" did
    nxt = DAY + timedelta(days=1)
    lb.record(nxt, "aa-first", "First", 1100, "3")
    lb.record(nxt, "mm-late", "Late", 1200, "4")
    lb.record(nxt, "zz-second", "Second", 1100, "5")
    for board in (week_board("2026-W49"), month_board("2026-12"), ALL_TIME):
        entries = lb.page(board)["entries"]
        assert [(e["rank"], e["player"], e["margin"]) for e in entries] == [
            (1, "aa-first", 200), (1, "mm-late", 200), (1, "zz-second", 200)], board
    assert [e["player"] for e in lb.page(day_board(DAY))["entries"]] == ["aa-first", "zz-second"]


def test_a_removed_score_leaves_every_board_and_comes_back(lb):
    nxt = DAY + timedelta(days=1)
    lb.record(DAY, "a", "A", 1100, "1")
    lb.record(DAY, "b", "B", 1240, "2")
    lb.record(nxt, "b", "B", 1040, "3")
    before = {b: lb.page(b)["entries"] for b in (week_board("2026-W49"), month_board("2026-12"), ALL_TIME)}
    assert lb.remove(DAY, "b", 1240) and not lb.remove(DAY, "b", 1240)
    assert [e["player"] for e in lb.page(day_board(DAY))["entries"]] == ["a"]
    assert lb.histogram(DAY) == [{"score": 1100, "count": 1}]
    for board in before:
        assert [(e["player"], e["margin"], e["days"]) for e in lb.page(board)["entries"]] == [
            ("a", 100, 1), ("b", 40, 1)], board
    assert lb.remove(nxt, "b", 1040)
    for board in before:
        assert [e["player"] for e in lb.page(board)["entries"]] == ["a"]
    lb.record(DAY, "b", "B", 1240, "2")
    lb.record(nxt, "b", "B", 1040, "3")
    for board, entries in before.items():
        assert [(e["player"], e["margin"], e["days"], e["nickname"]) for e in lb.page(board)["entries"]] == [
            (e["player"], e["margin"], e["days"], e["nickname"]) for e in entries]


# -- a day's board and the period boards are two slots: the steps between them ----------------

def margins(lb) -> list:
    """The player a's margin and days on the week, month and all-time boards (None: not there)."""
    out = []
    for board in (Board("week", "2026-W49"), Board("month", "2026-12"), ALL_TIME):
        entry = lb.rank_of(board, "a")
        out.append(entry and (entry["margin"], entry["days"]))
    return out


def day_step(lb, sign, score=1100):
    """Only the day's step of a change, as a process dying right after it leaves it."""
    return lb._day(keys=lb._day_keys(DAY), args=[sign, "a", score, "Ann", SHIFT])


def test_every_days_weeks_and_months_board_has_a_slot_of_its_own():
    from redis.crc import key_slot

    def slot(key):
        return key_slot(key.encode())
    d, other = day_board(DAY), day_board(DAY + timedelta(days=1))
    assert len({slot(d.key), slot(d.names_key), slot(d.seq_key), slot(d.key_of("histogram")),
                slot(d.key_of("pending"))}) == 1
    assert slot(d.key) != slot(other.key) and slot(d.key) != slot(ALL_TIME.key)
    week, month = Board("week", "2026-W49"), Board("month", "2026-12")
    assert len({slot(b.key) for b in (week, Board("week", "2026-W50"), month, Board("month", "2027-01"),
                                      ALL_TIME)}) == 5
    assert {slot(k) for k in Leaderboard._all_keys(DAY)} == {slot(ALL_TIME.key)}
    for board in (week, month):
        assert {slot(k) for k in Leaderboard._period_keys(board, DAY, 0)} == {slot(board.key)}


def test_a_change_left_after_the_days_step_is_carried_once_by_the_next_call(lb, rclient):
    changed, note = day_step(lb, "+")  # the process died here: the day's board has it, no period
    assert changed == 1 and lb.rank_of(day_board(DAY), "a")["score"] == 1100
    assert margins(lb) == [None, None, None]
    assert lb.record(DAY, "a", "Ann", 1100, "s1") is True  # the verification's retry
    assert margins(lb) == [(100, 1), (100, 1), (100, 1)]
    assert not rclient.hgetall(day_board(DAY).key_of("pending"))
    assert lb.record(DAY, "a", "Ann", 1100, "s1") is False and margins(lb) == [(100, 1), (100, 1), (100, 1)]


def test_a_change_carried_but_not_cleared_is_not_carried_twice(lb, rclient):
    _changed, note = day_step(lb, "+")
    lb._carry(DAY, "a", note, "s1", False)
    rclient.hset(day_board(DAY).key_of("pending"), "a", note)  # as if the clearing never happened
    assert lb.record(DAY, "a", "Ann", 1100, "s1") is True
    assert margins(lb) == [(100, 1), (100, 1), (100, 1)]
    assert not rclient.hgetall(day_board(DAY).key_of("pending"))


def test_a_removal_left_after_the_days_step_is_finished_by_the_next(lb, rclient):
    assert lb.record(DAY, "a", "Ann", 1100, "s1")
    assert lb.record(DAY + timedelta(days=1), "a", "Ann", 1050, "s2")
    changed, _note = day_step(lb, "-")
    assert changed == 1 and lb.rank_of(day_board(DAY), "a") is None
    # the margins not yet taken out (a week's and a month's days are read from their day boards)
    assert margins(lb) == [(150, 1), (150, 1), (150, 2)]
    assert lb.remove(DAY, "a", 1100) is True  # ops ask again
    assert margins(lb) == [(50, 1), (50, 1), (50, 1)]
    assert lb.remove(DAY, "a", 1100) is False and margins(lb) == [(50, 1), (50, 1), (50, 1)]
    assert lb.record(DAY, "a", "Ann", 1100, "s1") is True  # restored: counted again, once
    assert margins(lb) == [(150, 2), (150, 2), (150, 2)]


def test_a_record_while_the_boards_are_rebuilt_writes_nothing_and_is_deferred(lb, rclient):
    from service.leaderboard import BoardsRebuilding

    assert lb.begin_rebuild(60)
    with pytest.raises(BoardsRebuilding):
        lb.record(DAY, "a", "Ann", 1100, "s1")
    assert lb.rank_of(day_board(DAY), "a") is None and lb.take_deferred() == ["s1"]
    # the rebuild's own record goes through; a change another left pending meanwhile is deferred
    assert lb.record(DAY, "a", "Ann", 1100, "s1", rebuilding=True)
    _changed, _note = lb._day(keys=lb._day_keys(DAY), args=["+", "b", 1000, "Bob", SHIFT])
    with pytest.raises(BoardsRebuilding):
        lb._carry(DAY, "b", _note, "s2", False)
    assert lb.take_deferred() == ["s2"] and lb.end_rebuild()
    assert lb.record(DAY, "b", "Bob", 1000, "s2") is True and lb.rank_of(ALL_TIME, "b")["days"] == 1


def test_a_period_step_caught_on_the_wrong_side_of_a_wipe_is_dropped(lb, rclient):
    """Changes whose all-time step ran before a wipe (the start of a rebuild) and whose week's or
    month's step lands after it: dropped where the wipe told the slot its new count; where it
    could not (a week no one had written yet), cleared by the rebuild's first change there.  The
    rebuild's counts are what stay."""
    week, month, later = Board("week", "2026-W49"), Board("month", "2026-12"), date(2026, 12, 9)
    next_week = Board("week", "2026-W50")
    assert lb.record(DAY, "a", "Ann", 1100, "s1")
    late = {}
    for pid, day, score in (("b", DAY, 1200), ("c", later, 1050)):
        _c, note = lb._day(keys=lb._day_keys(day), args=["+", pid, score, pid.upper(), SHIFT])
        carried, wipes = lb._all(keys=lb._all_keys(day), args=lb._all_args(pid, note, "s-" + pid, False))
        assert carried == 1
        late[pid] = (day, note, wipes)

    def late_step(pid, board):
        day, note, wipes = late[pid]
        return lb._periods(keys=lb._period_keys(board, day, wipes), args=lb._period_args(pid, note, wipes))

    assert lb.begin_rebuild(60)
    lb.wipe()
    assert late_step("b", week) == 0  # the wipe told the week's slot: dropped
    assert late_step("c", next_week) == 1  # a slot the wipe did not know: written, for now
    assert lb.rank_of(next_week, "c")["margin"] == 50
    # the rebuild records the verified games again
    assert lb.record(DAY, "b", "B", 1200, "s-b", rebuilding=True)
    assert lb.record(DAY, "a", "Ann", 1100, "s1", rebuilding=True)
    assert lb.record(later, "c", "C", 1050, "s-c", rebuilding=True)
    assert late_step("b", month) == 0  # after the rebuild's own step: dropped
    assert lb.take_deferred() == [] and lb.end_rebuild()
    for board in (week, month, ALL_TIME):
        expected = [("b", 200, 1), ("a", 100, 1)] + ([("c", 50, 1)] if board != week else [])
        assert [(e["player"], e["margin"], e["days"]) for e in lb.page(board)["entries"]] == expected, board
    assert [(e["player"], e["margin"]) for e in lb.page(next_week)["entries"]] == [("c", 50)]
    assert not rclient.hgetall(day_board(DAY).key_of("pending"))


def test_the_benchmarks_clean_up_lets_a_day_be_recorded_again(lb):
    # remove_players restarts the day's sequence: every board's bitmap of its changes must go too
    assert lb.record(DAY, "a", "Ann", 1100, "s1")
    remove_players(lb, DAY, ["a"])
    assert margins(lb) == [None, None, None]
    assert lb.record(DAY, "a", "Ann", 1100, "s1")
    assert margins(lb) == [(100, 1), (100, 1), (100, 1)]


# --- the closed days with their players (the archive) -------------------------------------------

def test_the_closed_days_say_how_many_played_and_where_the_caller_stands(client, rclient):
    """GET /leaderboards/days: the days whose seed is public, newest first, each with its board's
    size and, with a token, the caller's rank and score there (null where they did not play)."""
    from freezegun import freeze_time

    from service.players import pid_of
    from support.svc_helpers import err, headers

    run = client.post("/api/v1/runs", json={"kind": "random"}).get_json()
    token, me = run["player_token"], pid_of(run["player_token"])
    lb = Leaderboard(rclient)
    record_many(lb, date(2026, 11, 29), [(f"p{i}", f"P{i}", 1000 + 10 * i, f"s{i}") for i in range(5)]
                   + [(me, "Me", 1025, "s-me")])
    record_many(lb, date(2026, 11, 27), [("q", "Q", 990, "sq"), (me, "Me", 1200, "s-me2")])
    record_many(lb, date(2026, 12, 1), [("r", "R", 1000, "sr")])  # yesterday, still in its grace
    # 00:10 in Brussels on 2 December: 1 December closed ten minutes ago, its seed not yet public
    with freeze_time("2026-12-01T23:10:00+00:00"):
        public = client.get("/api/v1/leaderboards/days?limit=4")
        assert public.status_code == 200, public.get_json()
        assert public.get_json() == {"days": [{"date": "2026-11-30", "players": 0}, {"date": "2026-11-29", "players": 6},
                                              {"date": "2026-11-28", "players": 0}, {"date": "2026-11-27", "players": 2}]}
        mine = client.get("/api/v1/leaderboards/days?limit=4", headers=headers(token)).get_json()["days"]
        assert [d["me"] for d in mine] == [None, {"rank": 3, "score": 1025}, None, {"rank": 1, "score": 1200}]
        # a token the service does not know reads the public list (no "me"), as a board page does
        assert "me" not in client.get("/api/v1/leaderboards/days?limit=1",
                                      headers=headers("nope")).get_json()["days"][0]
        later = client.get("/api/v1/leaderboards/days?before=2026-11-29&limit=2", headers=headers(token)).get_json()
        assert [(d["date"], d["players"]) for d in later["days"]] == [("2026-11-28", 0), ("2026-11-27", 2)]
        # a day to come is today: the list never reaches the open or closing days
        assert client.get("/api/v1/leaderboards/days?before=2031-01-01&limit=1").get_json()["days"][0]["date"] == "2026-11-30"
        assert client.get("/api/v1/leaderboards/days?before=9999-12-31&limit=1").get_json()["days"][0]["date"] == "2026-11-30"
        assert len(client.get("/api/v1/leaderboards/days").get_json()["days"]) == 30
    assert client.get("/api/v1/leaderboards/days?before=2000-01-01").get_json() == {"days": []}
    # any well-formed day is a question the list answers: none before the service's first
    assert client.get("/api/v1/leaderboards/days?before=0001-01-01").get_json() == {"days": []}
    for bad in ("limit=0", "limit=91", "before=2026-13-01", "limit=x", "before=2026-1-01", "before=20261201"):
        err(client.get(f"/api/v1/leaderboards/days?{bad}"), 422, "validation_error")
