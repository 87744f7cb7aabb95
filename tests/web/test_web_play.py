"""Whole daily games played from the page: keyboard only, mouse, phone taps; reload mid-game;
the normal pace of the other players."""

from __future__ import annotations

import re
import time
import uuid

import requests
from playwright.sync_api import expect

from support.live_stack import PHONE
from support.web_helpers import (Game, card_button, card_name_en, enabled_cards, focused_card, hand_cards,
                         hand_state, is_plays_answer, is_run_answer, nickname_box, number_text, open_ranked,
                         play_game, play_one, submit_nickname_and_wait_rank, tab_into_hand,
                         wait_hand_matches, watch_play_requests)


def _today(site: str) -> str:
    return requests.get(f"{site}/api/v1/challenges/today", timeout=10).json()["date"]


def _open_ranked(page, query: str = "lang=en&speed=instant") -> dict:
    """Load / as a new visitor and ask for today's game; returns the run the page created."""
    return open_ranked(page, query)


def _local_storage_values(page) -> list[str]:
    return page.evaluate("() => Object.keys(localStorage).map(k => localStorage.getItem(k) || '')")


def test_keyboard_only_daily_game_then_rank_matches_the_board(page, site):
    run = _open_ranked(page)
    token = run["player_token"]
    assert any(token in v for v in _local_storage_values(page)), "the player token is not kept in localStorage"

    # The hand is one tab stop, reached with Tab from the top of the page.
    expect(enabled_cards(page).first).to_be_visible()
    tabs = tab_into_hand(page)
    assert tabs >= 1
    first = focused_card(page)
    page.keyboard.press("Tab")
    assert focused_card(page) is None, "the hand toolbar is more than one tab stop (roving tabindex)"
    page.keyboard.press("Shift+Tab")
    assert focused_card(page) == first, "Shift+Tab did not come back to the card that had the focus"

    # Typing a card's notation jumps to it (a card other than the focused one; no spade, "s" is a shortcut).
    cards = hand_state(page)["cards"]
    target = next((c for c in cards if c != first and c[1] != "S"), None)
    if target:
        page.keyboard.type(target.lower())
        assert focused_card(page) == target, f"typing {target.lower()!r} focused {focused_card(page)!r}"
        page.keyboard.press("End")
        assert focused_card(page) == hand_state(page)["cards"][-1], "End did not focus the last card"

    game = play_game(page, "keyboard", nickname_box(page))
    assert len(game.plays) >= 8 and game.last["status"] == "finished"

    # The textbox has a real <label for>; "s" and "l" typed in it are text, not shortcuts.
    box = nickname_box(page)
    box_id = box.get_attribute("id")
    assert box_id and page.locator(f'label[for="{box_id}"]').filter(has_text="Nickname").count() == 1
    # A name the server refuses: its reason in words, and the form stays for another try.
    page.watch.allow(r"HTTP 422: POST \S+/api/v1/submissions$")
    page.watch.allow(r"console error: Failed to load resource: the server responded with a status of 422 .*/api/v1/submissions")
    for refused, reason in (("\u0410lice", "do not mix alphabets"), ("al\u200bice", "zero-width spaces")):
        box.fill(refused)
        box.press("Enter")
        expect(page.locator("#nick-error")).to_contain_text(reason)
        expect(box).to_be_focused()
    nickname = f"sl-{uuid.uuid4().hex[:8]}"
    rank, total = submit_nickname_and_wait_rank(page, nickname, keyboard=True)
    expect(page.get_by_role("dialog")).to_have_count(0)

    board = requests.get(f"{site}/api/v1/leaderboards/days/{_today(site)}",
                         headers={"X-Player-Token": token}, timeout=10).json()
    assert board["me"] is not None and board["me"]["nickname"] == nickname, board
    assert (rank, total) == (board["me"]["rank"], board["total"]), (rank, total, board)
    assert any(nickname in v for v in _local_storage_values(page)), "the nickname is not remembered in localStorage"


def test_mouse_game_on_a_desktop(page, site, shot):
    run = _open_ranked(page)
    expect(enabled_cards(page).first).to_be_visible()
    wait_hand_matches(page, run["view"])
    # Every button of the hand is a card, named in full.
    shown = hand_state(page)["cards"]
    assert sorted(shown) == sorted(run["view"]["hand"])
    for card in shown:
        expect(card_button(page, card)).to_have_accessible_name(re.compile(f"^{card_name_en(card)}$", re.I))
    expect(hand_cards(page)).to_have_count(len(shown))

    def midway(game: Game) -> None:
        if len(game.plays) == 8:  # the first turn of deal 2: a full hand, game totals
            shot(page, "table-desktop")

    game = play_game(page, "mouse", nickname_box(page), on_turn=midway)
    shot(page, "end-desktop")
    # The preview score is shown before the nickname is asked.
    score = game.last["result"]["rank_score"]
    expect(page.get_by_role("main")).to_contain_text(number_text(score))


def test_phone_game_by_tap(visitor, site, shot):
    page = visitor(viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2)
    _open_ranked(page)
    expect(enabled_cards(page).first).to_be_visible()
    # Cards are big enough to tap (WCAG 2.2 target size: 24 x 24 CSS pixels at least).
    for card in hand_state(page)["cards"]:
        box = card_button(page, card).bounding_box()
        assert box and box["width"] >= 24 and box["height"] >= 24, (card, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 0.5, (card, box, "off screen")

    def midway(game: Game) -> None:
        if len(game.plays) == 8:
            shot(page, "table-phone")

    play_game(page, "tap", nickname_box(page), on_turn=midway)
    shot(page, "end-phone")
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"horizontal scroll on the phone end screen: {width}"


def test_reload_mid_game_resumes_the_same_hand_and_scores(page, site):
    run = _open_ranked(page)
    game = Game()
    watch_play_requests(page, game)
    # Into the second deal, a few cards in, so that the game totals are not 0-0.
    while not (game.last and game.last["view"]["deal"] >= 1 and len(game.last["view"]["hand"]) <= 6):
        play_one(page, game, "mouse")
        assert game.last["status"] == "playing", "the game ended before the second deal"
    view = game.last["view"]
    assert view["totals"] != [0, 0], view
    before = hand_state(page)
    scores = page.get_by_role("region", name=re.compile("score", re.I)).first
    expect(scores).to_contain_text(str(view["totals"][0]))
    expect(scores).to_contain_text(str(view["totals"][1]))
    scores_before = scores.inner_text()  # compared as rendered text

    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "GET") as info:
        page.reload()
    assert info.value.status == 200
    resumed = info.value.json()
    assert resumed["run_id"] == run["run_id"] and resumed["turn"] == game.last["turn"], "a new run after reload"
    wait_hand_matches(page, view)
    assert hand_state(page) == before, "the hand after reload differs from the hand before"
    expect(scores).to_have_text(scores_before, use_inner_text=True)

    play_game(page, "mouse", nickname_box(page), game=game)
    assert game.last["run_id"] == run["run_id"]


#: Every bot card the page narrates, in the order shown: its seat, when, and the beat it waited
#: before it (the page's "bot-card" marks).
BOT_CARDS_JS = """() => performance.getEntriesByName('bot-card').map(m => ({at: m.startTime, ...m.detail}))"""
#: The normal pace's beats (service/web/static/js/settings.js): before a card completing a trick
#: the player has played to, and before one the player has still to read.
FOLLOW_MS, CARD_MS = 220, 600


def test_other_players_take_their_time_at_normal_pace(page, site):
    """No ?speed: bots' cards come one after another, each after a beat of the normal pace (never
    all at once, never a longer wait); the page's own marks say which beat, and when."""
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST"):
        page.goto("/free?lang=en")
    game = Game()
    watch_play_requests(page, game)
    for _ in range(12):
        expect(enabled_cards(page).first).to_be_visible(timeout=20_000)
        before = len(page.evaluate(BOT_CARDS_JS))
        card = hand_state(page)["enabled"][0]
        with page.expect_response(is_plays_answer) as info:
            card_button(page, card).click()
        t0 = time.monotonic()
        run = info.value.json()
        mine = next(i for i, e in enumerate(run["events"]) if e["type"] == "play" and e["seat"] == 0)
        seats = [e["seat"] for e in run["events"][mine + 1:] if e["type"] == "play" and e["seat"] != 0]
        game.answers.append(run)
        if run["status"] != "playing":
            break
        wait_hand_matches(page, run["view"], timeout=30_000)
        elapsed = time.monotonic() - t0  # a lower bound only: a busy machine can only make it longer
        if len(seats) >= 2:
            assert elapsed >= 0.3 * len(seats), (
                f"{len(seats)} bot cards shown in {elapsed:.2f}s after the answer: no pause between them")
            shown = page.evaluate(BOT_CARDS_JS)[before:]
            assert [m["seat"] for m in shown] == seats, (shown, seats)  # one after another, in order
            assert all(m["wait"] in (FOLLOW_MS, CARD_MS) for m in shown), shown  # each after a beat, no more
            gaps = [b["at"] - a["at"] for a, b in zip(shown, shown[1:])]
            assert all(gap >= b["wait"] - 20 for gap, b in zip(gaps, shown[1:])), (gaps, shown)
            return
    raise AssertionError("no play was followed by two bot cards")


def test_tap_to_choose_then_tap_again_setting(visitor, site):
    page = visitor(viewport=PHONE, has_touch=True, is_mobile=True)
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST"):
        page.goto("/free?lang=en&speed=instant")
    expect(enabled_cards(page).first).to_be_visible()
    page.get_by_role("button", name=re.compile("settings", re.I)).tap()
    page.get_by_role("checkbox", name=re.compile("tap", re.I)).check()
    page.get_by_role("button", name=re.compile("done", re.I)).tap()
    expect(page.get_by_role("dialog")).to_have_count(0)
    game = Game()
    watch_play_requests(page, game)
    card = hand_state(page)["enabled"][0]
    before = hand_state(page)
    card_button(page, card).tap()
    expect(page.get_by_text(re.compile("again", re.I)).first).to_be_visible()  # the hint: tap again
    assert game.play_requests == 0 and hand_state(page) == before, "one tap played with tap-to-choose on"
    with page.expect_response(is_plays_answer) as info:
        card_button(page, card).tap()
    assert info.value.json()["turn"] == 1 and game.play_requests == 1


def test_a_tap_plays_even_right_after_a_forbidden_card_was_touched(visitor, site):
    """A phone player touches a forbidden card (its reason shows), scrolls down, taps a legal one
    near its upper edge: that tap must play it.  Nothing may move under the finger between the
    touch and the release (a browser sends the click to the element under both)."""
    page = visitor(viewport=PHONE, has_touch=True, is_mobile=True)
    view = open_ranked(page)["view"]  # today's deal: the same position every run
    game = Game()
    watch_play_requests(page, game)
    for _ in range(64):
        if view["legal"] and view["unplayable"]:
            break
        view = play_one(page, game, "tap")["view"]
    else:
        raise AssertionError("64 plays without a forbidden card")
    wait_hand_matches(page, view)
    illegal = next(iter(view["unplayable"]))
    sent = game.play_requests
    card_button(page, illegal).tap(force=True)  # refused: the reason is shown
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    legal = view["legal"][0]
    box = card_button(page, legal).bounding_box()
    try:
        with page.expect_response(is_plays_answer, timeout=5_000) as answer:
            # a finger on the upper part of the card (4 px below its top edge)
            card_button(page, legal).tap(position={"x": box["width"] / 2, "y": 4})
    except Exception as exc:  # noqa: BLE001
        raise AssertionError(f"a tap on the legal {legal} (after touching the forbidden {illegal}) "
                             f"played nothing; POST /plays sent: {game.play_requests - sent}") from exc
    assert answer.value.status == 200 and game.play_requests == sent + 1
