"""Single-key shortcuts on the table: ? keys help, s score sheet, l last trick; Escape closes."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from support.web_helpers import Game, enabled_cards, is_run_answer, play_one, tab_into_hand, watch_play_requests


def test_single_key_shortcuts_open_the_dialogs(page, site):
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST"):
        page.goto("/free?lang=en&speed=instant")
    game = Game()
    watch_play_requests(page, game)
    play_one(page, game, "mouse")  # a trick to show as the last one (or one card of it)
    expect(enabled_cards(page).first).to_be_visible()
    tab_into_hand(page)  # the shortcuts work with the focus on a card (not a text field)
    for key, name in (("?", "keys"), ("s", "score"), ("l", "last trick")):
        page.keyboard.press(key)
        dialog = page.get_by_role("dialog", name=re.compile(name, re.I))
        expect(dialog).to_be_visible()
        expect(page.get_by_role("dialog")).to_have_count(1)
        page.keyboard.press("Escape")
        expect(page.get_by_role("dialog")).to_have_count(0)
    assert game.play_requests == 1, "a shortcut key played a card"
