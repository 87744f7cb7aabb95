"""Free play's choice of strength through the page, on a stack whose day is dealt with the default
searching bot: the three tables named with their bots, chosen by keyboard and kept on the device
like the variant, a whole game against the strongest table played by tap on a phone in French,
the labels in Dutch; the request and the run name the bots."""

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


def test_the_strength_is_chosen_by_keyboard_named_and_kept(visitor):
    page = visitor()
    run, sent = new_run(page, lambda: page.goto("/free?lang=en&speed=instant"))
    # the first visit plays the strongest table: the day's bots
    assert sent["bots"] == DEFAULT_BOTS and run["bots"] == DEFAULT_BOTS
    group = page.get_by_role("group", name="Strength of the bots")
    expect(group.get_by_role("radio")).to_have_count(3)
    expect(group).to_contain_text("Beginner (greedy-1)")
    expect(group).to_contain_text("Club player (expert-1)")
    expect(group).to_contain_text(f"Strongest: today's table ({DEFAULT_BOTS})")
    strongest = strength_radio(page, "Strongest")
    expect(strongest).to_be_checked()

    strongest.focus()
    page.keyboard.press("ArrowUp")  # a radio group: the arrow moves the choice
    club = strength_radio(page, "Club player")
    expect(club).to_be_checked()
    expect(club).to_be_focused()
    expect(page.locator(".strength-note")).to_have_text(
        f"“New game” plays against Club player (expert-1); this game goes on against Strongest: today's "
        f"table ({DEFAULT_BOTS}).")
    page.keyboard.press("Tab")  # on to "New game"
    expect(page.get_by_role("button", name="New game")).to_be_focused()
    run, sent = new_run(page, lambda: page.keyboard.press("Enter"))
    assert sent == {"kind": "random", "bots": "expert-1"} and run["bots"] == "expert-1"
    expect(page.locator(".strength-note")).to_have_text("")

    # under parlée the strongest table is expert-1's: its label says so
    page.get_by_role("radio", name=re.compile("^Parlée, to 101")).check()
    expect(strength_radio(page, "Strongest")).to_have_accessible_name(re.compile(r"\(expert-1\)$"))

    # kept on this device: a reload resumes the game against the club's table, chosen still
    page.reload()
    expect(strength_radio(page, "Club player")).to_be_checked()
    expect(page.locator(".strength-note")).to_have_text("")
    # the beginner's table, chosen by keyboard and dealt
    strength_radio(page, "Club player").focus()
    page.keyboard.press("ArrowUp")
    expect(strength_radio(page, "Beginner")).to_be_checked()
    run, sent = new_run(page, lambda: page.get_by_role("button", name="New game").press("Enter"))
    assert sent["bots"] == "greedy-1" and run["bots"] == "greedy-1"


def test_a_whole_game_against_the_strongest_table_on_a_phone_in_french(visitor):
    page = visitor(viewport=PHONE, locale=LOCALES["fr"], has_touch=True, is_mobile=True)
    page.goto("/free?lang=fr&speed=instant")
    group = page.get_by_role("group", name="Force des robots")
    expect(group).to_contain_text("Débutant (greedy-1)")
    expect(group).to_contain_text("Joueur de club (expert-1)")
    strongest = strength_radio(page, "Les plus forts")
    expect(strongest).to_have_accessible_name(f"Les plus forts : la table du jour ({DEFAULT_BOTS})")
    strength_radio(page, "Débutant").tap()
    strongest.tap()
    expect(strongest).to_be_checked()
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
    expect(group).to_contain_text("Beginner (greedy-1)")
    expect(group).to_contain_text("Clubspeler (expert-1)")
    expect(group).to_contain_text(f"Sterkst: de tafel van vandaag ({DEFAULT_BOTS})")
