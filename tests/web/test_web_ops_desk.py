"""The /ops page's desk: a player's report of a game listed with the game's status and flags (the
game opens in the detail), an appeal listed with who decided it, and an answer by that same
operator refused with the reason, the token kept; axe-core on the page with the desk drawn."""

from __future__ import annotations

import uuid

import requests
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from support.live_stack import OPS_TOKEN, OPS_USER
from support.web_helpers import api_play_ranked_game

AXE = Axe()
OPS = {"Authorization": f"Bearer {OPS_TOKEN}"}


def test_the_ops_page_lists_reports_and_appeals_and_says_why_an_answer_is_refused(visitor, site):
    tag = f"desk{uuid.uuid4().hex[:6]}"
    reported = api_play_ranked_game(site, f"{tag}-r")
    sub_id = reported["submission"]["submission_id"]
    reporter = requests.post(f"{site}/api/v1/runs", json={"kind": "random"}, timeout=10).json()["player_token"]
    r = requests.post(f"{site}/api/v1/reports", json={"submission_id": sub_id, "reason": f"{tag}: too quick"},
                      headers={"X-Player-Token": reporter}, timeout=10)
    assert r.status_code == 201, r.text
    r = requests.post(f"{site}/api/v1/ops/submissions/{sub_id}/disqualify",
                      json={"reason": "solver line", "public_reason": "fair-play review"}, headers=OPS, timeout=10)
    assert r.status_code == 200, r.text
    r = requests.post(f"{site}/api/v1/appeals", json={"text": f"{tag}: I played it myself"},
                      headers={"X-Player-Token": reported["token"]}, timeout=10)
    assert r.status_code == 201, r.text
    appeal_id = r.json()["appeal_id"]

    page = visitor()
    page.goto("/ops?lang=en")
    page.get_by_label("Ops token").fill(OPS_TOKEN)
    page.get_by_role("button", name="Show submissions").click()
    desk = page.locator("#ops-desk")
    expect(desk.get_by_role("heading", name="Reports and appeals")).to_be_visible()
    row = desk.locator("tr", has_text=f"{tag}: too quick")
    expect(row).to_have_count(1)
    expect(row.locator(".status")).to_have_text("disqualified")
    expect(row.locator("td.num")).to_have_text("1")
    row.get_by_role("button").click()
    expect(page.locator("#ops-detail-title")).to_have_text(f"Submission of {tag}-r")
    expect(page.locator("#ops-detail")).to_contain_text("the player reads: “fair-play review”")

    item = desk.locator(f"#appeal-{appeal_id}")
    expect(item).to_contain_text(f"{tag}: I played it myself")
    expect(item).to_contain_text(f"Decided by {OPS_USER}@")
    assert not [v for v in AXE.run(page).response["violations"] if v.get("impact") in ("serious", "critical")]
    # the operator who decided cannot answer: said so, and the token stays
    page.watch.allow(r"HTTP 403: POST .*/api/v1/ops/appeals/")
    page.watch.allow(r"console error: Failed to load resource: the server responded with a status of 403")
    item.get_by_role("button", name="Answer").click()
    expect(item.locator(".ops-msg")).to_have_text("Choose a decision and write the answer first.")
    item.get_by_label("Granted: restore the game").check()
    item.get_by_label("Answer (the player reads it)").fill("Looks fine.")
    item.get_by_role("button", name="Answer").click()
    expect(item.locator(".ops-msg")).to_contain_text("another operator than the one who decided")
    assert page.evaluate("sessionStorage.getItem('manille.ops.token')") == OPS_TOKEN
    mine = requests.get(f"{site}/api/v1/appeals", headers={"X-Player-Token": reported["token"]}, timeout=10).json()
    assert mine["appeals"][0]["status"] == "open"
