"""A restricted player on the page: the notice says why and until when, in the page's language,
and the appeal sent from it is shown as waiting for another operator (axe-core finds nothing
serious before and after); lifted, the notice goes."""

from __future__ import annotations

import requests
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from support.live_stack import OPS_TOKEN
from support.web_helpers import hand, open_ranked

OPS = {"Authorization": f"Bearer {OPS_TOKEN}"}
AXE = Axe()


def serious(page) -> list[str]:
    return [f"{v['id']}: {v['help']}" for v in AXE.run(page).response["violations"]
            if v.get("impact") in ("serious", "critical")]


def test_a_restricted_player_reads_why_and_appeals_from_the_page(page, site):
    run = open_ranked(page)
    token = run["player_token"]
    pid = requests.get(f"{site}/api/v1/players/me", headers={"X-Player-Token": token}, timeout=10).json()["player"]
    notice = page.locator("#restriction")
    expect(notice).to_have_count(0)
    r = requests.post(f"{site}/api/v1/ops/players/{pid}/restrict",
                      json={"reason": "two accounts played from one device", "days": 7}, headers=OPS, timeout=10)
    assert r.status_code == 200, r.text
    try:
        page.goto("/?lang=en&speed=instant")
        expect(notice.get_by_role("heading", name="Your account is restricted")).to_be_visible()
        expect(notice).to_contain_text("two accounts played from one device")
        expect(notice).to_contain_text("Until ")
        hand(page).get_by_role("button").first.wait_for()  # the game goes on beside the notice
        assert serious(page) == []
        send = notice.get_by_role("button", name="Send the appeal")
        send.click()  # nothing written yet: said, and nothing sent
        expect(notice).to_contain_text("Write your appeal first.")
        notice.get_by_label("Appeal: tell the team why the decision is wrong").fill("One is my daughter's.")
        with page.expect_response(lambda resp: resp.url.endswith("/api/v1/appeals")) as sent:
            send.click()
        assert sent.value.status == 201, sent.value.text()
        expect(notice).to_contain_text("Your appeal was sent; another member of the team will answer it.")
        expect(send).to_have_count(0)
        mine = requests.get(f"{site}/api/v1/appeals", headers={"X-Player-Token": token}, timeout=10).json()
        assert mine["appeals"][0]["text"] == "One is my daughter's." and mine["appeals"][0]["status"] == "open"
        assert serious(page) == []
        page.goto("/?lang=fr&speed=instant")
        expect(notice.get_by_role("heading", name="Votre compte est restreint")).to_be_visible()
        expect(notice).to_contain_text("un autre membre de l'équipe y répondra")
        page.goto("/?lang=nl&speed=instant")
        expect(notice.get_by_role("heading", name="Uw account is beperkt")).to_be_visible()
    finally:
        requests.post(f"{site}/api/v1/ops/players/{pid}/lift", json={"reason": "test over"}, headers=OPS, timeout=10)
    page.goto("/?lang=en&speed=instant")
    hand(page).get_by_role("button").first.wait_for()  # the game is drawn: /players/me was read before it
    expect(notice).to_have_count(0)
