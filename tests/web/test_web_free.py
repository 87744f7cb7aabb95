"""Free play: a whole game, "Play again", a second whole game on a new deal; no board moves."""

from __future__ import annotations

from urllib.parse import urlparse

import requests
from playwright.sync_api import expect

from support.web_helpers import Game, is_run_answer, play_again_button, play_game, wait_hand_matches, watch_play_requests


def _boards(site: str) -> dict:
    day = requests.get(f"{site}/api/v1/challenges/today", timeout=10).json()["date"]
    return {"day": requests.get(f"{site}/api/v1/leaderboards/days/{day}", timeout=10).json()["total"],
            "all": requests.get(f"{site}/api/v1/leaderboards/all-time", timeout=10).json()["total"]}


def test_free_play_twice_in_a_row_changes_no_board(page, site):
    before = _boards(site)
    submissions: list[str] = []
    page.on("request", lambda r: submissions.append(r.url)
            if urlparse(r.url).path.startswith("/api/v1/submissions") else None)

    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST") as info:
        page.goto("/free?lang=en&speed=instant")
    first = info.value.json()
    assert info.value.status == 201 and first["kind"] == "random" and not first["ranked"], first
    game1 = play_game(page, "mouse", play_again_button(page))
    seed = game1.last["seed"]
    assert seed, "a finished free game has a public seed"
    # the seed is shown at the end, folded under what it is for
    check = page.locator("#end details.seed")
    expect(check.locator("code")).to_be_hidden()
    check.get_by_text("Check it yourself").click()
    expect(check.locator("code")).to_have_text(seed)
    expect(check).to_contain_text("anyone can deal the very same cards again")

    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST") as info:
        play_again_button(page).click()
    second = info.value.json()
    assert info.value.status == 201 and second["kind"] == "random", second
    assert second["run_id"] != first["run_id"]
    wait_hand_matches(page, second["view"])  # the new deal is on the table
    game2 = Game()
    watch_play_requests(page, game2)
    play_game(page, "mouse", play_again_button(page), game=game2)
    assert game2.last["run_id"] == second["run_id"] and game2.last["seed"] not in (None, seed)

    assert submissions == [], f"free play submitted a score: {submissions}"
    assert _boards(site) == before
