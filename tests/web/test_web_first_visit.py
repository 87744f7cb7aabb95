"""A newcomer at the table: the first visit is welcomed and nothing ranked starts before the player
asks; the pace of the other players is one click away and kept; the cards completing a trick the
player has already played to come quicker than the ones they must read; a refused card's reason
is shown in one place."""

from __future__ import annotations

import re
from urllib.parse import urlparse

from playwright.sync_api import expect

from support.live_stack import PHONE
from support.web_helpers import (PLAY_TODAY, Game, card_button, enabled_cards, hand_cards, is_run_answer, play_one,
                         wait_hand_matches, watch_play_requests)

WELCOME = {"en": ("Welcome to Manille", "Try a free game first", "The rules", "One ranked game a day, the same deals"),
           "fr": ("Bienvenue à la manille", "D'abord une partie libre", "Les règles",
                  "Une partie classée par jour, les mêmes donnes")}
PACE = {"en": ("Pace of the other players", "Normal", "Fast", "Instant"),
        "nl": ("Tempo van de andere spelers", "Normaal", "Snel", "Meteen")}


def _runs_posted(page) -> list[str]:
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST"
            and urlparse(r.url).path == "/api/v1/runs" else None)
    return posted


def _first_visit(page, lang: str) -> None:
    title, free, rules, line = WELCOME[lang]
    posted = _runs_posted(page)
    page.goto(f"/?lang={lang}&speed=instant")
    welcome = page.get_by_role("region", name=title)
    expect(welcome).to_be_visible()
    expect(welcome).to_contain_text(line)
    expect(welcome.get_by_role("link", name=free)).to_have_attribute("href", re.compile(r"^/free"))
    expect(welcome.get_by_role("link", name=rules)).to_have_attribute("href", re.compile(r"^/rules"))
    play = welcome.get_by_role("button", name=PLAY_TODAY)
    expect(play).to_be_visible()
    page.wait_for_load_state("networkidle")
    # nothing ranked has started: no run asked for, no card, no other player's card, no token
    assert posted == [], f"a first visit opened a run before the player asked: {posted}"
    expect(hand_cards(page)).to_have_count(0)
    expect(page.locator("#trick .card")).to_have_count(0)
    assert page.evaluate("() => localStorage.getItem('manille.token')") is None
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST") as info:
        play.click()
    run = info.value.json()
    assert info.value.status == 201 and run["kind"] == "ranked"
    expect(welcome).to_be_hidden()
    expect(enabled_cards(page).first).to_be_visible()

    # back later: straight to the table, the same run, no welcome
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "GET") as again:
        page.reload()
    assert again.value.json()["run_id"] == run["run_id"]
    expect(enabled_cards(page).first).to_be_visible()
    expect(page.get_by_role("button", name=PLAY_TODAY)).to_be_hidden()


def test_a_first_visit_is_welcomed_and_nothing_ranked_starts_before_the_player_asks(visitor):
    _first_visit(visitor(), "en")
    _first_visit(visitor(viewport=PHONE, has_touch=True, is_mobile=True, locale="fr-BE"), "fr")


def test_a_player_back_from_a_free_game_goes_straight_to_todays_game(visitor):
    """"Try a free game first", then today's game: the device has played, so no welcome."""
    page = visitor()
    page.goto("/?lang=en")
    page.get_by_role("link", name="Try a free game first").click()
    expect(enabled_cards(page).first).to_be_visible()
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST") as info:
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Play", exact=True).click()
    assert info.value.status == 201 and info.value.json()["kind"] == "ranked"
    expect(enabled_cards(page).first).to_be_visible()
    expect(page.get_by_role("button", name=PLAY_TODAY)).to_be_hidden()


def _pace_control(page, lang: str):
    legend, normal, fast, instant = PACE[lang]
    page.goto(f"/free?lang={lang}")
    expect(enabled_cards(page).first).to_be_visible(timeout=20_000)
    expect(page.get_by_role("dialog")).to_have_count(0)
    pace = page.get_by_role("group", name=legend)
    expect(pace).to_be_visible()  # on the table, no window to open
    expect(pace.get_by_role("radio", name=normal)).to_be_checked()  # a newcomer's pace
    pace.get_by_role("radio", name=fast).click()
    expect(pace.get_by_role("radio", name=fast)).to_be_checked()
    page.reload()
    expect(page.get_by_role("group", name=legend).get_by_role("radio", name=fast)).to_be_checked()
    # ?speed= rules one visit, and the control says so
    page.goto(f"/free?lang={lang}&speed=instant")
    expect(page.get_by_role("group", name=legend).get_by_role("radio", name=instant)).to_be_checked()


def test_the_pace_is_one_click_away_on_the_table_and_kept(visitor):
    _pace_control(visitor(), "en")
    _pace_control(visitor(viewport=PHONE, has_touch=True, is_mobile=True), "nl")


#: Every bot card the page narrates: when it was shown, and the beat it waited ("bot-card" marks).
BOT_CARDS_JS = """() => performance.getEntriesByName('bot-card').map(m => ({at: m.startTime, ...m.detail}))"""


def test_the_cards_completing_a_trick_already_played_to_come_quicker(page):
    """At the normal pace: after the player's card, the bots finishing that trick follow at the
    quicker beat; the cards of the next trick, which the player must read, at the full one."""
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST"):
        page.goto("/free?lang=en")
    game = Game()
    watch_play_requests(page, game)
    expected: list[bool] = []  # for each bot card after the player's cards: has the player played to its trick?
    for _ in range(12):
        expect(enabled_cards(page).first).to_be_visible(timeout=30_000)
        before = len(page.evaluate(BOT_CARDS_JS))
        run = play_one(page, game, "mouse", timeout=30_000)
        seen, kinds = False, []
        for ev in run["events"]:
            if ev["type"] == "play":
                if ev["seat"] == 0:
                    seen = True
                else:
                    kinds.append(seen)
            elif ev["type"] == "trick":
                seen = False
        expected += kinds
        if run["status"] == "playing":
            wait_hand_matches(page, run["view"], timeout=30_000)
        page.wait_for_function(f"() => ({BOT_CARDS_JS})().length >= {before + len(kinds)}", timeout=30_000)
        if True in expected and False in expected or run["status"] != "playing":
            break
    marks = page.evaluate(BOT_CARDS_JS)
    shown = marks[-len(expected):]
    assert [m["seen"] for m in shown] == expected, (shown, expected)
    quick = {m["wait"] for m in shown if m["seen"]}
    full = {m["wait"] for m in shown if not m["seen"] and m["wait"]}
    assert quick and full, f"no trick was both completed and led by the bots in {len(game.plays)} plays: {shown}"
    assert max(quick) < min(full), f"cards of a trick already played to waited {quick} ms, others {full} ms"
    # the full beat is really waited between two cards that the player must read
    leads = [b["at"] - a["at"] for a, b in zip(marks, marks[1:]) if not b["seen"] and b["wait"]]
    assert leads and min(leads) >= min(full) - 20, (leads, full)


#: The elements a sighted person sees the text in: not inside a screen-reader-only box (1 px).
REASON_TEXT_JS = """(reason) => [...document.querySelectorAll('body *')].filter(e => {
  if (![...e.childNodes].some(n => n.nodeType === 3 && n.textContent.includes(reason))) return false;
  for (let a = e; a; a = a.parentElement) {
    const r = a.getBoundingClientRect();
    if (r.width <= 2 || r.height <= 2) return false;
  }
  return getComputedStyle(e).visibility === 'visible' && e.checkVisibility();
}).map(e => e.id || e.className)"""

REASONS = {"en": re.compile(r"^You must "), "fr": re.compile(r"^Vous devez ")}


def _refused_once(page, lang: str, how: str) -> None:
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST") as info:
        page.goto(f"/free?lang={lang}&speed=instant")
    view = info.value.json()["view"]
    game = Game()
    watch_play_requests(page, game)
    for _ in range(64):
        if view["legal"] and view["unplayable"]:
            break
        view = play_one(page, game, how)["view"]
    else:
        raise AssertionError("64 plays without a forbidden card")
    wait_hand_matches(page, view)
    illegal = next(iter(view["unplayable"]))
    button = card_button(page, illegal)
    if how == "tap":
        button.tap(force=True)
    else:
        button.click(force=True)
    reason = page.locator("#hint")
    expect(reason).to_have_text(REASONS[lang])
    text = reason.inner_text()
    assert page.evaluate(REASON_TEXT_JS, text) == ["hint"], "the reason is shown in more than one place"
    expect(page.get_by_role("log")).to_contain_text(text)  # and said to a screen reader
    assert game.play_requests == len(game.plays)


def test_a_refused_cards_reason_is_shown_in_one_place(visitor):
    _refused_once(visitor(), "en", "mouse")
    _refused_once(visitor(viewport=PHONE, has_touch=True, is_mobile=True), "fr", "tap")
