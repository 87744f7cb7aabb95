"""Every page a player reads, in French, Dutch and English, on a 360×740 touch phone and a
1366×800 desktop: no catalogue key instead of words (a console "missing string" or a
``col…``/``msg…``-shaped word), no page wider than its window, no text under 12 px, and on the
phone no tap target under 44×44 px (support.page_audit says exactly what is read).

Walked: the welcome, today's table, its result and its trick-by-trick review, the leaderboard's
four periods, its matchpoint view and a league's tab, the leagues page, the archive and a past
day's table played to its end, its analysis (the four hands at a decision sorted by suit then
rank) and its challenge, the duel's page, the rules and a free table.  The day's game, the league
and the past day are set up once through the API and the service's own classes; the past day is
played from the page, the same cards every time."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest
import requests
from playwright.sync_api import expect

from support.closed_day import play_closed_day
from support.page_audit import audit, watch_missing
from support.web_helpers import (ANALYSIS_MS, PLAY_TODAY, Game, api_play_ranked_game, hand, is_run_answer, play_game,
                                 play_one, watch_play_requests)

PHONE_360 = {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True}
DESKTOP_1366 = {"viewport": {"width": 1366, "height": 800}}
DEVICES = {"phone": PHONE_360, "desktop": DESKTOP_1366}

#: The hands shown as rows of small cards whose order is not by suit (clubs to spades), then rank.
UNSORTED_HANDS_JS = """() => {
  const key = (c) => 'CDHS'.indexOf(c[1]) * 8 + '789JQKAT'.indexOf(c[0]);
  return [...document.querySelectorAll('.mini-cards')]
    .map((list) => [...list.querySelectorAll('[data-card]')].map((el) => el.dataset.card))
    .filter((cards) => cards.some((c, i) => i && key(cards[i - 1]) > key(c)));
}"""

#: What of the table, the hand and the last message lies outside the window at the page's top.
ONE_SCREEN_JS = """() => {
  const parts = [['the felt', '#felt'], ['the last message', '#ticker'],
                 ...[...document.querySelectorAll('#hand button')].map((b) => [`the card ${b.dataset.card}`, b])];
  return parts.filter(([, el]) => {
    const r = (typeof el === 'string' ? document.querySelector(el) : el).getBoundingClientRect();
    return r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth;
  }).map(([name]) => name);
}"""


@pytest.fixture(scope="module")
def played(live, site):
    """A player who played today's game and owns a league; a past day others played."""
    me = api_play_ranked_game(site, f"Walker{uuid.uuid4().hex[:4]}")
    r = requests.post(f"{site}/api/v1/leagues", json={"name": "Club de Mons"},
                      headers={"X-Player-Token": me["token"]}, timeout=10)
    assert r.status_code == 201, r.text
    past = live.today() - timedelta(days=3)
    play_closed_day(live, past, ["random-1", "greedy-1"], prefix="walk")
    return {"token": me["token"], "league": r.json()["name"], "past": past.isoformat()}


def _busy_done(page, selector: str) -> None:
    box = page.locator(selector)
    expect(box).not_to_have_attribute("aria-busy", "true")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("lang", ["fr", "nl", "en"])
def test_every_page_reads_whole_and_fits(visitor, played, lang, device):
    touch = device == "phone"
    found: list[str] = []

    # a newcomer: the welcome, then today's table with a hand to play
    new = visitor(**DEVICES[device])
    missing = watch_missing(new)
    new.goto(f"/?lang={lang}&speed=instant")
    play = new.get_by_role("button", name=PLAY_TODAY)
    expect(play).to_be_visible()
    found += audit(new, "welcome", touch, missing)
    with new.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST"):
        play.click()
    expect(hand(new).get_by_role("button").first).to_be_visible()
    found += audit(new, "today's table", touch, missing)
    if touch:  # during play, one screen holds the table, the hand and the last message: no scroll
        game = Game()
        watch_play_requests(new, game)
        play_one(new, game, "tap")
        expect(new.locator("#ticker")).not_to_be_empty()
        new.evaluate("window.scrollTo(0, 0)")
        found += [f"today's table: {what} outside the screen at 360×740"
                  for what in new.evaluate(ONE_SCREEN_JS)]

    # the player who played: the result, the review, the boards, the leagues
    page = visitor(**DEVICES[device])
    page.add_init_script(f"localStorage.setItem('manille.token', {played['token']!r})")
    missing = watch_missing(page)
    page.goto(f"/?lang={lang}")
    end = page.locator("#end")
    expect(end.get_by_role("heading", level=2)).to_be_visible()
    found += audit(page, "result", touch, missing)
    end.locator("button", has_text=re.compile("review|revoir|bekijk|overloop|slag", re.I)).first.click()
    expect(page.locator("#review")).to_be_visible()
    found += audit(page, "review", touch, missing)

    page.goto(f"/leaderboard?lang={lang}")
    for period in ("day", "week", "month", "all"):
        page.locator(f'button[data-board="{period}"]').click()
        _busy_done(page, "#board-list")
        expect(page.locator("#board-list table, #board-list p").first).to_be_visible()
        found += audit(page, f"board {period}", touch, missing)
    views = page.locator("#board-views button")
    for n in range(views.count()):
        views.nth(n).click()
        page.wait_for_load_state("networkidle")
        found += audit(page, f"board view {n}", touch, missing)
    page.goto(f"/leaderboard?lang={lang}")
    page.get_by_role("button", name=played["league"]).click()
    expect(page.locator("table.league-board")).to_be_visible()
    found += audit(page, "league board", touch, missing)
    page.locator('button[data-board="week"]').click()
    expect(page.locator("table.league-board caption")).to_contain_text(re.compile(r"\d"))
    _busy_done(page, "#board-list")
    found += audit(page, "league board, week", touch, missing)

    page.goto(f"/leagues?lang={lang}")
    expect(page.locator("details.league-card").first).to_be_visible()
    found += audit(page, "leagues", touch, missing)

    page.goto(f"/archive?lang={lang}")
    found += audit(page, "archive", touch, missing)
    page.goto(f"/archive/{played['past']}?lang={lang}&speed=instant")
    expect(hand(page).get_by_role("button").first).to_be_visible()
    found += audit(page, "archive table", touch, missing)

    # the past day played to its end, the same cards every walk (so the analyst computes its
    # positions once): its end, its analysis, its challenge and the duel's page
    play_game(page, "tap" if touch else "mouse", page.locator("#end h2").first, choose=lambda enabled: enabled[0])
    found += audit(page, "archive end", touch, missing)
    page.locator("#end").get_by_role("button", name=re.compile("analy", re.I)).first.click()
    expect(page.locator("#analysis .an-main")).to_be_visible(timeout=ANALYSIS_MS)
    found += audit(page, "analysis", touch, missing)
    page.locator("#analysis .an-card").nth(3).click()  # a decision: the four hands at that moment
    expect(page.locator("#analysis .mini-cards").first).to_be_visible()
    found += [f"analysis: a hand not sorted by suit then rank: {cards}"
              for cards in page.evaluate(UNSORTED_HANDS_JS)]
    page.locator("#end").get_by_role("button", name=re.compile("défier|daag|challenge", re.I)).first.click()
    link = page.locator("#duel-link")
    expect(link).to_have_value(re.compile(r"/duel/"))
    found += audit(page, "challenge", touch, missing)
    page.goto(link.input_value() + f"?lang={lang}")
    expect(page.locator("table.duel-table, #end h2").first).to_be_visible()
    found += audit(page, "duel", touch, missing)

    page.goto(f"/rules?lang={lang}")
    found += audit(page, "rules", touch, missing)
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST"):
        page.goto(f"/free?lang={lang}&speed=instant")
    expect(hand(page).get_by_role("button").first).to_be_visible()
    found += audit(page, "free table", touch, missing)

    assert not found, f"{lang} on the {device}:\n  " + "\n  ".join(found)
