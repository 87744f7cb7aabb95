"""Board pages kept by a web process (``service.leaderboard``): answered again while their board
is unchanged, never once it changed (a score recorded, one removed, every board wiped and
recorded again to the same size and sequence), and, with a max age, without looking for up to
that long."""

from __future__ import annotations

from datetime import date, datetime, timezone

from freezegun import freeze_time

from service.app import create_app
from service.leaderboard import EPOCH, Leaderboard, day_board
from bulk_boards import record_many

from support.svc_helpers import SECRET, TEST_BOTS

DAY = date(2026, 11, 30)


def scores(n, base=1000, prefix="p"):
    return [(f"{prefix}{i}", f"Name{i}", base + 10 * i, f"s-{prefix}{i}") for i in range(n)]


def names(page):
    return [(e["nickname"], e["score"]) for e in page["entries"]]


def test_a_kept_page_is_answered_only_while_its_board_is_unchanged(rclient):
    lb, board = Leaderboard(rclient), day_board(DAY)
    record_many(lb, DAY, scores(5))
    first = lb.page(board, 0, 3)
    assert names(first) == [("Name4", 1040), ("Name3", 1030), ("Name2", 1020)]
    rclient.hset(board.names_key, "p4", "Changed behind its back")  # not a write the boards make
    assert lb.page(board, 0, 3) == first  # kept: the version did not move
    lb.record(DAY, "p9", "Nine", 1090, "s-p9")
    assert names(lb.page(board, 0, 3))[0] == ("Nine", 1090)  # recorded: read again
    assert lb.page(board, 0, 3)["entries"][1]["nickname"] == "Changed behind its back"
    lb.remove(DAY, "p9", 1090)
    assert names(lb.page(board, 0, 3))[0] == ("Changed behind its back", 1040)  # removed: read again


def test_a_wipe_that_restores_the_same_size_and_sequence_is_not_taken_for_the_same_board(rclient):
    lb, board = Leaderboard(rclient), day_board(DAY)
    record_many(lb, DAY, scores(4))
    before = lb.page(board)
    epoch = int(rclient.get(EPOCH) or 0)
    lb.wipe()
    assert int(rclient.get(EPOCH)) == epoch + 1
    record_many(lb, DAY, scores(4, base=900, prefix="q"))  # same size, same sequence (4)
    after = lb.page(board)
    assert after != before and names(after)[0] == ("Name3", 930)


def test_with_a_max_age_a_page_is_answered_unchecked_that_long(redis_server, rclient, monkeypatch):
    """The process's clock is driven (freezegun: the monotonic one too), so "within the max age"
    holds however slowly the requests run."""
    monkeypatch.setenv("MANILLE_BOARD_MAX_AGE", "0.5")
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS})
    client = app.test_client()
    lb = Leaderboard(rclient)
    record_many(lb, DAY, scores(3))
    path = f"/api/v1/leaderboards/days/{DAY}?limit=2"
    with freeze_time(datetime(2026, 12, 2, 9, 0, tzinfo=timezone.utc)) as clock:
        first = client.get(path).get_json()
        lb.record(DAY, "p7", "Seven", 1070, "s-p7")
        clock.tick(0.49)
        assert client.get(path).get_json() == first  # within the max age: not even looked at
        assert client.get(f"/api/v1/leaderboards/days/{DAY}?limit=3").get_json()["total"] == 4  # another page
        clock.tick(0.02)
        again = client.get(path).get_json()
    assert again["total"] == 4 and again["entries"][0]["nickname"] == "Seven"
    assert app.extensions["manille"].leaderboard.max_age == 0.5


def test_the_public_json_of_a_page_follows_its_board(client, rclient):
    """The API keeps each public page's JSON with the page it encodes: the same answer while the
    board is unchanged, the new one as soon as it changed (``MANILLE_BOARD_MAX_AGE=0`` here)."""
    lb = Leaderboard(rclient)
    record_many(lb, DAY, scores(3))
    path = f"/api/v1/leaderboards/days/{DAY}?limit=2"
    first = client.get(path)
    assert client.get(path).get_data() == first.get_data()
    lb.record(DAY, "p8", "Eight", 1080, "s-p8")
    again = client.get(path).get_json()
    assert again["total"] == 4 and again["entries"][0]["nickname"] == "Eight"
    assert first.headers["Content-Type"] == "application/json"
