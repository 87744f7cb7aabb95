"""axe-core on the pages as a player sees them: the table during play, the end form, the
leaderboard, the rules (and the other pages): no serious or critical violation."""

from __future__ import annotations

import json
import uuid

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from support.web_helpers import api_play_ranked_game, axe_serious, enabled_cards, nickname_box, open_ranked, play_game

AXE = Axe()


def test_axe_on_the_table_the_end_form_the_leaderboard_and_the_rules(visitor, site):
    api_play_ranked_game(site, f"axe-{uuid.uuid4().hex[:6]}")  # the board has an entry to show
    page = visitor()
    found: list[str] = []
    page.goto("/?lang=en&speed=instant")
    found += axe_serious(page, "first visit's welcome")
    open_ranked(page)
    expect(enabled_cards(page).first).to_be_visible()
    found += axe_serious(page, "table, player's turn")
    play_game(page, "mouse", nickname_box(page))
    found += axe_serious(page, "end form")
    for path in ("/leaderboard", "/rules", "/archive", "/free"):
        page.goto(f"{path}?lang=en&speed=instant")
        if path == "/free":
            expect(enabled_cards(page).first).to_be_visible()
        else:
            page.wait_for_load_state("load")
        found += axe_serious(page, path)
    print("\n".join(found))
    assert found == [], "axe: serious/critical violations:\n" + "\n".join(found)


def test_axe_really_runs_and_catches_a_planted_violation(visitor, site):
    """The audit above can fail: axe does run here and reports a planted violation."""
    page = visitor()
    page.goto("/rules?lang=en")
    page.evaluate("() => { const b = document.createElement('button'); document.body.append(b); }")
    ids = [v["id"] for v in AXE.run(page).response["violations"]]
    assert "button-name" in ids, json.dumps(ids)
