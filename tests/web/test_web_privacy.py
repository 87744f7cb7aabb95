"""The privacy page in a real browser: "download my data" saves the player's copy, the erasure
asks for a confirmation (a cancel erases nothing), then erases, says the pseudonym in the live
region and forgets the token (401 after); axe-core finds nothing serious."""

from __future__ import annotations

import json

import requests
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from support.web_helpers import open_ranked

AXE = Axe()


def serious(page) -> list[str]:
    return [f"{v['id']}: {v['help']}" for v in AXE.run(page).response["violations"]
            if v.get("impact") in ("serious", "critical")]


def test_a_player_downloads_their_data_then_erases_it_after_confirming(page, site):
    token = open_ranked(page)["player_token"]
    pid = requests.get(f"{site}/api/v1/players/me", headers={"X-Player-Token": token}, timeout=10).json()["player"]
    page.goto("/privacy?lang=en")
    expect(page.get_by_role("heading", name="Your data", exact=True)).to_be_visible()
    assert serious(page) == []
    with page.expect_download() as got:
        page.get_by_role("button", name="Download my data").click()
    copy = json.loads(open(got.value.path(), encoding="utf-8").read())
    assert copy["player"] == pid and [r["run_id"] for r in copy["runs"]]
    status = page.get_by_role("status")
    expect(status).to_contain_text("Your copy is downloaded.")

    page.get_by_role("button", name="Erase my data").click()
    dialog = page.get_by_role("dialog", name="Erase your data?")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Keep my data").click()
    expect(dialog).to_be_hidden()
    assert requests.get(f"{site}/api/v1/players/me", headers={"X-Player-Token": token}, timeout=10).status_code == 200

    page.get_by_role("button", name="Erase my data").click()
    with page.expect_response(lambda r: r.url.endswith("/api/v1/players/me") and r.request.method == "DELETE") as sent:
        dialog.get_by_role("button", name="Erase for good").click()
    assert sent.value.status == 200, sent.value.text()
    expect(status).to_contain_text("Erased. You are now shown as player-")
    assert page.evaluate("localStorage.getItem('manille.token')") is None
    assert requests.get(f"{site}/api/v1/players/me", headers={"X-Player-Token": token}, timeout=10).status_code == 401
    assert serious(page) == []
