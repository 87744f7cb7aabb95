"""A past day played to its end on the archive stays finished when its page is opened again: the
result, the trick-by-trick review and the analysis, with "play again" beside them, which deals
the day anew."""

from __future__ import annotations

from datetime import timedelta

from playwright.sync_api import expect

from support.web_helpers import ASK, hand, is_run_answer, play_again_button, play_game


def test_a_finished_archive_game_is_shown_finished_with_play_again(visitor, live):
    day = (live.today() - timedelta(days=5)).isoformat()
    page = visitor()
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST") as info:
        page.goto(f"/archive/{day}?lang=en&speed=instant")
    first = info.value.json()
    game = play_game(page, "mouse", play_again_button(page))
    total = game.last["result"]["totals"]

    opened = []
    page.on("request", lambda r: opened.append(r.url) if is_run_answer_request(r) else None)
    page.goto(f"/archive/{day}?lang=en&speed=instant")
    end = page.locator("#end")
    expect(end.get_by_role("heading", level=2)).to_contain_text(f"{total[0]}")
    expect(end.get_by_role("heading", level=2)).to_contain_text(f"{total[1]}")
    expect(page.locator("#play-area")).to_be_hidden()  # no new deal on the table
    assert opened == [], f"reopening the finished day opened a new game: {opened}"
    expect(end.get_by_role("button", name="Review the game trick by trick")).to_be_visible()
    expect(end.get_by_role("button", name=ASK["en"])).to_be_visible()
    again = play_again_button(page)
    expect(again).to_be_visible()

    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST") as info:
        again.click()
    second = info.value.json()
    assert second["run_id"] != first["run_id"] and second["kind"] == "archive" and second["date"] == day
    expect(hand(page).get_by_role("button").first).to_be_visible()
    expect(end).to_be_hidden()


def is_run_answer_request(request) -> bool:
    return request.method == "POST" and request.url.split("?")[0].endswith("/api/v1/runs")
