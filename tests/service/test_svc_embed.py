"""/embed/board, the page other sites frame, on a real Redis: the board's top drawn whole on the
server in the asked language, with nothing to run (no script, no form, no cookie), its own CSP
that lets any site frame it, kept by caches as long as its board allows (ETag, 304); a bad
parameter is a 400 page naming it; and every other page still refuses to be framed."""

from __future__ import annotations

import re
from datetime import date

import pytest
from freezegun import freeze_time

from service.app import create_app
from service.leaderboard import Leaderboard
from bulk_boards import record_many

from support.svc_helpers import SECRET, TEST_BOTS

DAY = date(2026, 12, 2)
OPEN = "2026-12-02T11:00:00+00:00"     # noon in Brussels
CLOSED = "2026-12-03T11:00:00+00:00"   # DAY's seed published


def make_client(redis_server, rclient, board_max_age: str = "1"):
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, "MANILLE_BOARD_MAX_AGE": board_max_age})
    record_many(Leaderboard(rclient), DAY, [(f"pid-{i:02d}", f"Club<{i:02d}>", 1000 + 10 * i, f"sub-{i}")
                                           for i in range(25)])
    return app.test_client()


@pytest.fixture
def client(redis_server, rclient):
    return make_client(redis_server, rclient)


def cells(html: str) -> list[list[str]]:
    return [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", html, re.S)
            if "<td" in row]


def test_the_days_top_drawn_whole_with_nothing_to_run(client):
    with freeze_time(OPEN):
        r = client.get("/embed/board?lang=en")
    assert r.status_code == 200 and r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    rows = cells(html)
    assert len(rows) == 10  # the default limit
    assert rows[0] == ["1", "Club&lt;24&gt;", "1240"] and rows[9][0] == "10"  # text, never markup
    assert "Today&#39;s board" in html and "25 players" in html and '<html lang="en">' in html
    for forbidden in ("<script", "<form", "<input", "<button", "<iframe", "<style", "javascript:"):
        assert forbidden not in html.lower(), forbidden
    assert not re.search(r"\son[a-z]+\s*=", html, re.I)  # no inline handler either
    csp = r.headers["Content-Security-Policy"]
    assert "frame-ancestors *" in csp and "default-src 'none'" in csp and "script-src" not in csp
    assert "form-action 'none'" in csp and "base-uri 'none'" in csp
    assert "Set-Cookie" not in r.headers
    links = re.findall(r'<a href="([^"]+)" target="_blank" rel="noopener">', html)
    assert links == ["/", "/"]  # the site that served it (MANILLE_PUBLIC_URL: its own), in a new tab
    assert r.headers["Cache-Control"] == "public, max-age=1"  # an open day: as its board


def test_week_month_limit_and_language(client):
    with freeze_time(CLOSED):
        day = client.get(f"/embed/board?board=day&period={DAY}&limit=3&lang=fr")
        week = client.get("/embed/board?board=week&period=2026-W49&limit=20&lang=nl")
        month = client.get("/embed/board?board=month&limit=2", headers={"Accept-Language": "nl-BE,nl;q=0.9"})
    html = day.get_data(as_text=True)
    assert len(cells(html)) == 3 and "Le classement du 2 décembre 2026" in html and "25 joueurs" in html
    assert day.headers["Cache-Control"] == "public, max-age=300"  # a closed day: minutes
    assert "Vary" not in day.headers  # the language is in the URL
    html = week.get_data(as_text=True)
    assert len(cells(html)) == 20 and cells(html)[0] == ["1", "Club&lt;24&gt;", "+240", "1"]
    assert "De week van 30 nov tot 6 dec 2026" in html and "Dagen" in html
    assert week.headers["Cache-Control"] == "public, max-age=1"  # the week has open days
    html = month.get_data(as_text=True)
    assert len(cells(html)) == 2 and '<html lang="nl">' in html and "Het klassement van december 2026" in html
    assert month.headers["Vary"] == "Accept-Language"  # chosen by the reader's language: caches keep each


def test_an_etag_and_304_as_the_api(redis_server, rclient):
    client = make_client(redis_server, rclient, "0")  # every page checked against its board
    with freeze_time(CLOSED):
        first = client.get(f"/embed/board?period={DAY}&lang=en")
        etag = first.headers["ETag"]
        held = client.get(f"/embed/board?period={DAY}&lang=en", headers={"If-None-Match": etag})
        assert held.status_code == 304 and held.data == b"" and held.headers["ETag"] == etag
        assert held.headers["Content-Security-Policy"] == first.headers["Content-Security-Policy"]
        Leaderboard(rclient).record(DAY, "pid-new", "Newest", 1500, "sub-new")
        moved = client.get(f"/embed/board?period={DAY}&lang=en", headers={"If-None-Match": etag})
    assert moved.status_code == 200 and moved.headers["ETag"] != etag
    assert cells(moved.get_data(as_text=True))[0] == ["1", "Newest", "1500"]


@pytest.mark.parametrize("query, name", [
    ("board=year", "board"), ("board=all", "board"), ("limit=21", "limit"), ("limit=0", "limit"),
    ("limit=ten", "limit"), ("limit=-3", "limit"), ("period=2026-13-01", "period"), ("period=2026-12-09", "period"),
    ("board=week&period=2026-12", "period"), ("board=month&period=2026-W49", "period"), ("lang=de", "lang"),
])
def test_a_bad_parameter_is_a_400_page_that_names_it(client, query, name):
    with freeze_time(OPEN):
        r = client.get(f"/embed/board?{query}&lang=en" if "lang=" not in query else f"/embed/board?{query}")
    assert r.status_code == 400 and r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    assert re.search(rf"cannot be shown: {name} must be|ne peut pas être affiché : {name} doit être", html), html
    assert r.headers["Cache-Control"] == "no-store" and "frame-ancestors *" in r.headers["Content-Security-Policy"]


def test_every_other_page_refuses_to_be_framed(client):
    with freeze_time(CLOSED):
        pages = ["/", "/free", "/archive", f"/archive/{DAY}", "/leaderboard", "/rules", "/ops", "/no-such-page",
                 "/embed", "/embed/board/x"]
        for path in pages:
            r = client.get(path)
            assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"], (path, r.status_code)
