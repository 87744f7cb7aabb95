"""The board other sites frame, in a real Chromium: a page of another site (a club's, served by a
small HTTP server of its own at http://localhost:<port>, while the service is at 127.0.0.1) that
frames /embed/board shows the board's top in the frame, readable and with links that leave the
frame; the same page framing the site's home page gets nothing, as the CSP of every other page
says (frame-ancestors 'none')."""

from __future__ import annotations

import threading
import time
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

DAY = date(2025, 2, 3)  # a day of its own, long closed


@pytest.fixture(scope="module")
def board_day(live):
    from service.leaderboard import Leaderboard
    from bulk_boards import record_many
    from service.store import connect

    record_many(Leaderboard(connect(live.redis.url)),
        DAY, [(f"embed-{i}", f"Club player {i}", 1000 + 10 * i, f"sub-embed-{i}") for i in range(8)])
    return DAY


def club_page(site: str, day: date) -> str:
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Our club</title></head>
<body><h1>Our club's page</h1>
<iframe id="board" title="Manille: the board" src="{site}/embed/board?period={day}&limit=5&lang=en"
  width="360" height="320"></iframe>
<iframe id="home" title="Manille" src="{site}/" width="360" height="320"></iframe>
</body></html>"""


@pytest.fixture
def club(site, board_day):
    """The club's site: its one page frames the board and the home page; yields its URL."""
    body = club_page(site, board_day).encode()

    class Club(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args):
            pass
    server = ThreadingHTTPServer(("127.0.0.1", 0), Club)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_another_site_frames_the_board_and_not_the_home_page(visitor, club, shot):
    page = visitor()
    refused = []
    page.on("console", lambda msg: refused.append(msg.text) if "frame-ancestors" in msg.text else None)
    # the refusal to frame the home page is what this test provokes: Chromium logs it
    page.watch.allow(r"frame-ancestors|ERR_BLOCKED_BY_RESPONSE")
    page.goto(club)
    framed = page.frame_locator("#board")
    rows = framed.locator("table tbody tr")
    expect(rows).to_have_count(5)
    expect(rows.first).to_contain_text("Club player 7")
    expect(rows.first).to_contain_text("1070")
    expect(framed.get_by_role("heading", level=1)).to_contain_text("February 3, 2025")
    for link in (framed.get_by_role("link", name="Manille"), framed.get_by_role("link", name="Play today's game")):
        expect(link).to_have_attribute("target", "_blank")
    # the home page is refused: Chromium puts its error page in the frame and says why
    deadline = time.monotonic() + 15
    while not any(f.url.startswith("chrome-error://") for f in page.frames):
        assert time.monotonic() < deadline, [f.url for f in page.frames]
        page.wait_for_timeout(100)
    home = next(f for f in page.frames if f.name == "" and f.parent_frame and f.url.startswith("chrome-error://"))
    assert home.locator("header.top").count() == 0
    deadline = time.monotonic() + 5
    while not refused:
        assert time.monotonic() < deadline, "no frame-ancestors refusal in the console"
        page.wait_for_timeout(100)
    assert "'none'" in refused[0]
    # and the board frame is the site's own page, not an error
    board = next(f for f in page.frames if "/embed/board" in f.url)
    assert board.locator("table").count() == 1
    shot(page, "embed-club-page")


def test_the_framed_board_passes_axe_in_each_language(visitor, board_day):
    from axe_playwright_python.sync_playwright import Axe

    page, axe, found = visitor(), Axe(), []
    for lang in ("fr", "nl", "en"):
        page.goto(f"/embed/board?period={board_day}&lang={lang}")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        found += [f"[{lang}] {v['impact']} {v['id']}: {v['help']}" for v in axe.run(page).response["violations"]
                  if v.get("impact") in ("serious", "critical")]
    assert found == [], "\n".join(found)
