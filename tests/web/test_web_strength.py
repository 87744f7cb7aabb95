"""Free play's choice of strength through the page, on a stack whose day is dealt with the default
searching bot: a first game against the club's table, the three tables named as a player says them
(no bot's id; the day's named the hardest), chosen by keyboard and kept on the device like the
variant, the choices above the table on a phone and a whole game against the day's table played
by tap there in French, the labels in Dutch; the request and the run name the bots."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from support.live_stack import PHONE, LiveStack
from service.config import DEFAULT_BOTS
from support.web_helpers import Game, is_run_answer, play_game, watch_play_requests

LOCALES = {"en": "en-GB", "fr": "fr-BE", "nl": "nl-BE"}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """A stack of its own (in place of the session's, for this module's visitors): the day dealt
    with the default bot (the suite's plays expert-1); no warm, free play has nothing to warm."""
    stack = LiveStack(tmp_path_factory.mktemp("strength-stack"),
                      env={"MANILLE_BOTS": DEFAULT_BOTS, "MANILLE_WARM_DEALS": "0"}).start()
    try:
        yield stack
    finally:
        stack.stop()


def new_run(page, action) -> tuple[dict, dict]:
    """The run a page opens when ``action`` runs, and the body the page sent."""
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST") as info:
        action()
    assert info.value.status == 201, info.value.text()
    return info.value.json(), json.loads(info.value.request.post_data)


def strength_radio(page, name: str):
    return page.get_by_role("group", name=re.compile("Strength|Force|Sterkte")).get_by_role(
        "radio", name=re.compile("^" + re.escape(name)))


BOT_ID = re.compile(r"[a-z]+-\d")  # greedy-1, expert-5: the service's names, never the player's


def test_the_strength_is_chosen_by_keyboard_named_and_kept(visitor):
    page = visitor()
    run, sent = new_run(page, lambda: page.goto("/free?lang=en&speed=instant"))
    # a first free game is against the club's table; the day's is named the hardest, by choice
    assert sent["bots"] == "expert-1" and run["bots"] == "expert-1"
    group = page.get_by_role("group", name="Strength of the bots")
    expect(group.get_by_role("radio")).to_have_count(3)
    expect(group).to_have_text(re.compile(r"Beginner\s+Club player\s+The day's table \(the hardest\)"))
    assert not BOT_ID.search(group.inner_text()), group.inner_text()
    club = strength_radio(page, "Club player")
    expect(club).to_be_checked()

    club.focus()
    page.keyboard.press("ArrowDown")  # a radio group: the arrow moves the choice
    hardest = strength_radio(page, "The day's table")
    expect(hardest).to_be_checked()
    expect(hardest).to_be_focused()
    expect(page.locator(".strength-note")).to_have_text(
        "“New game” plays against The day's table (the hardest); this game goes on against Club player.")
    page.keyboard.press("Tab")  # on to "New game"
    expect(page.get_by_role("button", name="New game")).to_be_focused()
    run, sent = new_run(page, lambda: page.keyboard.press("Enter"))
    assert sent == {"kind": "random", "bots": DEFAULT_BOTS} and run["bots"] == DEFAULT_BOTS
    expect(page.locator(".strength-note")).to_have_text("")

    # kept on this device: a reload resumes the game against the day's table, chosen still
    page.reload()
    expect(strength_radio(page, "The day's table")).to_be_checked()
    expect(page.locator(".strength-note")).to_have_text("")
    # the beginner's table, chosen by keyboard and dealt
    strength_radio(page, "The day's table").focus()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    expect(strength_radio(page, "Beginner")).to_be_checked()
    run, sent = new_run(page, lambda: page.get_by_role("button", name="New game").press("Enter"))
    assert sent["bots"] == "greedy-1" and run["bots"] == "greedy-1"


def test_a_whole_game_against_the_days_table_on_a_phone_in_french(visitor):
    page = visitor(viewport=PHONE, locale=LOCALES["fr"], has_touch=True, is_mobile=True)
    page.goto("/free?lang=fr&speed=instant")
    # the choices sit above the table, folded so that the table still fits the screen
    choices = page.locator("details.variant-box")
    felt = page.locator("#felt")
    expect(felt).to_be_visible()
    assert choices.bounding_box()["y"] < felt.bounding_box()["y"]
    group = page.get_by_role("group", name="Force des robots")
    expect(group).to_be_hidden()
    choices.locator("summary").tap()
    expect(group).to_contain_text("Débutant")
    expect(group).to_contain_text("Joueur de club")
    hardest = strength_radio(page, "La table du jour")
    expect(hardest).to_have_accessible_name("La table du jour (la plus forte)")
    expect(strength_radio(page, "Joueur de club")).to_be_checked()
    strength_radio(page, "Débutant").tap()
    hardest.tap()
    expect(hardest).to_be_checked()
    box = group.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"
    game = Game()
    watch_play_requests(page, game)
    run, sent = new_run(page, lambda: page.get_by_role("button", name="Nouvelle partie").tap())
    assert sent["bots"] == DEFAULT_BOTS and run["bots"] == DEFAULT_BOTS
    play_game(page, "tap", page.get_by_role("button", name="Rejouer"),
              game=game, timeout=30_000)
    assert game.last["status"] == "finished" and game.last["bots"] == DEFAULT_BOTS and game.last["seed"]
    record = page.request.get(f"/api/v1/runs/{game.last['run_id']}/record",
                              headers={"X-Player-Token": page.evaluate("localStorage.getItem('manille.token')")})
    assert record.ok and record.json()["bots"] == DEFAULT_BOTS, record.text()


def test_the_strengths_in_dutch(visitor):
    page = visitor(locale=LOCALES["nl"])
    page.goto("/free?lang=nl&speed=instant")
    group = page.get_by_role("group", name="Sterkte van de robots")
    expect(group).to_have_text(re.compile(r"Beginner\s+Clubspeler\s+De tafel van de dag \(de sterkste\)"))
