"""A card the rules forbid, explained and not played; a play whose network fails, retried once."""

from __future__ import annotations

import json
import re
import time

import requests
from playwright.sync_api import expect

from support.web_helpers import (Game, card_button, enabled_cards, hand_state, is_plays_answer, is_plays_request,
                         is_run_answer, keyboard_focus, play_one, wait_hand_matches, watch_play_requests)

#: What a reason must talk about, for each obligation code of view.unplayable.
REASON_WORDS = {"must_follow_suit": r"follow|suit", "must_beat": r"beat|higher|above|over",
                "must_trump": r"trump", "must_overtrump": r"trump|higher|over"}

LIVE_TEXT_JS = """() => [...document.querySelectorAll('[role="log"],[role="status"],[role="alert"],[aria-live]')]
                     .map(e => e.textContent).join('\\n')"""


#: Is a "Reconnecting" text shown on screen (larger than a screen-reader-only clip, not the log's history)?
SHOWN_RECONNECTING_JS = """() => [...document.querySelectorAll('body *')].some(e => {
  if (e.closest('[role="log"]') || !/reconnecting/i.test(e.textContent)) return false;
  if ([...e.children].some(c => /reconnecting/i.test(c.textContent))) return false;
  const r = e.getBoundingClientRect(), st = getComputedStyle(e);
  return r.width > 2 && r.height > 2 && st.visibility === 'visible' && st.opacity !== '0' && e.checkVisibility();
})"""


def _open(page, url: str) -> dict:
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST") as info:
        page.goto(url)
    assert info.value.status == 201, info.value.text()
    return info.value.json()


def test_an_illegal_card_is_explained_and_never_played(page, site):
    run = _open(page, "/free?lang=en&speed=instant")
    game = Game()
    watch_play_requests(page, game)
    view = run["view"]
    expect(enabled_cards(page).first).to_be_visible()
    # Play on until the player's turn has a card that the rules forbid.
    for _ in range(64):
        if view["legal"] and view["unplayable"]:
            break
        view = play_one(page, game, "mouse")["view"]
        assert game.last["status"] == "playing"
    else:
        raise AssertionError("64 plays without a forbidden card")
    wait_hand_matches(page, view)
    illegal, code = next(iter(view["unplayable"].items()))
    button = card_button(page, illegal)
    expect(button).to_have_attribute("aria-disabled", "true")
    described_by = button.get_attribute("aria-describedby") or ""
    assert described_by.strip(), f"{illegal} is disabled with no aria-describedby"
    reason = page.evaluate("(ids) => ids.split(/\\s+/).map(id => (document.getElementById(id) || {}).textContent || '')"
                           ".join(' ').trim()", described_by)
    assert reason, f"aria-describedby={described_by!r} of {illegal} points at no text"
    expect(button).to_have_accessible_description(re.compile(re.escape(reason[:20])))
    assert "must_" not in reason, f"the reason shows a raw code: {reason!r}"
    assert re.search(REASON_WORDS[code], reason, re.I), f"{code} explained as {reason!r}"

    before = hand_state(page)
    sent = game.play_requests
    live_before = page.evaluate(LIVE_TEXT_JS)

    # Enter on the forbidden card: nothing sent, the reason announced in a live region.
    keyboard_focus(page, illegal)
    page.keyboard.press("Enter")
    page.wait_for_function(f"""(args) => {{ const t = ({LIVE_TEXT_JS})();
                                 return t !== args[0] && t.includes(args[1]); }}""",
                           arg=[live_before, reason[:40]])
    assert hand_state(page) == before, "the hand changed after Enter on a forbidden card"
    assert game.play_requests == sent, "Enter on a forbidden card sent a play"

    # A click (Playwright would wait for an aria-disabled button to become enabled: force it).
    live_before = page.evaluate(LIVE_TEXT_JS)
    button.click(force=True)
    page.wait_for_function(f"""(args) => {{ const t = ({LIVE_TEXT_JS})();
                                 return t !== args[0] && t.includes(args[1]); }}""",
                           arg=[live_before, reason[:40]])
    assert hand_state(page) == before, "the hand changed after a click on a forbidden card"
    assert game.play_requests == sent, "a click on a forbidden card sent a play"

    # A legal card still plays (and is counted: the watch above sees plays).
    play_one(page, game, "mouse")
    assert game.play_requests == sent + 1


def test_a_play_lost_by_the_network_is_retried_with_the_same_turn(page, site):
    run = _open(page, "/free?lang=en&speed=instant")
    token = run["player_token"]
    game = Game()
    watch_play_requests(page, game)
    play_one(page, game, "mouse")  # one ordinary play first
    turn = game.last["turn"]

    page.watch.allow(r"request failed: POST \S+/api/v1/runs/[^/]+/plays \(net::ERR_FAILED\)")
    page.watch.allow(r"console error: .*net::ERR_FAILED")
    blocked = {"on": True}
    attempts: list[dict] = []

    def lossy(route):
        attempts.append(json.loads(route.request.post_data or "{}"))
        if blocked["on"]:
            route.abort("failed")
        else:
            route.continue_()

    page.route("**/api/v1/runs/*/plays", lossy)
    expect(enabled_cards(page).first).to_be_visible()
    card = hand_state(page)["enabled"][0]
    with page.expect_response(is_plays_answer, timeout=60_000) as info:
        card_button(page, card).click()
        page.wait_for_function(SHOWN_RECONNECTING_JS, timeout=15_000)
        page.wait_for_event("requestfailed", is_plays_request, timeout=30_000)  # a retry, also lost
        blocked["on"] = False
    answer = info.value
    assert answer.status == 200, answer.text()
    page.unroute("**/api/v1/runs/*/plays")
    assert len(attempts) >= 3, attempts
    assert all(a == {"turn": turn, "card": card} for a in attempts), attempts
    after = answer.json()
    assert after["turn"] == turn + 1
    page.wait_for_function(f"() => !({SHOWN_RECONNECTING_JS})()")  # gone once through

    server = requests.get(f"{site}/api/v1/runs/{run['run_id']}", headers={"X-Player-Token": token},
                          timeout=10).json()
    mine = [e["card"] for e in server["events"] if e["type"] == "play" and e["seat"] == 0]
    assert server["turn"] == turn + 1 and len(mine) == turn + 1, (server["turn"], mine)
    assert mine.count(card) == 1 and mine[-1] == card, mine

    # The game goes on.
    wait_hand_matches(page, after["view"])
    game.answers.append(after)
    nxt = play_one(page, game, "mouse")
    assert nxt["turn"] == turn + 2


def test_a_play_refused_by_a_rate_limit_is_sent_again_once_it_has_room(page, site):
    """No person meets the limits on plays, a shared address might: the page says so, waits the
    Retry-After and sends the same turn again (the 429 as the service or the proxy answers it)."""
    _open(page, "/free?lang=en&speed=instant")
    game = Game()
    watch_play_requests(page, game)
    play_one(page, game, "mouse")
    turn = game.last["turn"]

    page.watch.allow(r"HTTP 429: POST \S+/api/v1/runs/[^/]+/plays")
    page.watch.allow(r"console error: .*429")
    attempts: list[tuple[float, dict]] = []

    def limited_once(route):
        attempts.append((time.monotonic(), json.loads(route.request.post_data or "{}")))
        if len(attempts) == 1:
            route.fulfill(status=429, headers={"Retry-After": "2"}, content_type="application/json",
                          body=json.dumps({"error": "too_many_requests", "message": "too many plays",
                                           "retry_after": 2, "limit": "plays_per_address"}))
        else:
            route.continue_()

    page.route("**/api/v1/runs/*/plays", limited_once)
    expect(enabled_cards(page).first).to_be_visible()
    card = hand_state(page)["enabled"][0]
    with page.expect_response(lambda r: is_plays_answer(r) and r.status == 200, timeout=30_000) as info:
        card_button(page, card).click()
        expect(page.get_by_text(re.compile(r"cards were played from your connection.*2 s"))).to_be_visible()
    page.unroute("**/api/v1/runs/*/plays")
    assert [a for _, a in attempts] == [{"turn": turn, "card": card}] * 2, attempts
    assert attempts[1][0] - attempts[0][0] >= 1.9  # the Retry-After was waited out
    assert info.value.json()["turn"] == turn + 1
    expect(page.get_by_text(re.compile(r"cards were played from your connection"))).to_have_count(0)
    wait_hand_matches(page, info.value.json()["view"])
