"""Every Share button hands its text and link to the system's share sheet where the browser has
one (``navigator.share``: phones), and copies them where it has none: the day's result and a
league's line under it."""

from __future__ import annotations

import re
import uuid

import requests
from playwright.sync_api import expect

from support.web_helpers import api_play_ranked_game

#: A phone's share sheet, recorded: what the page handed to it.
SHEET = """
window.__shared = [];
Object.defineProperty(navigator, 'share', { configurable: true,
  value: (data) => { window.__shared.push(JSON.parse(JSON.stringify(data))); return Promise.resolve(); } });
Object.defineProperty(navigator, 'canShare', { configurable: true, value: () => true });
"""


def _player(site) -> dict:
    nickname = f"Sharer{uuid.uuid4().hex[:6]}"
    me = api_play_ranked_game(site, nickname)
    r = requests.post(f"{site}/api/v1/leagues", json={"name": "Les Copains", "nickname": nickname},
                      headers={"X-Player-Token": me["token"]}, timeout=10)
    assert r.status_code == 201, r.text
    return me


def _handed(page, n: int) -> dict:
    """The ``n``th thing the page handed to the share sheet, once it has (the page's CSP forbids
    the string expressions ``wait_for_function`` evaluates)."""
    for _ in range(100):
        shared = page.evaluate("() => window.__shared")
        if len(shared) >= n:
            assert len(shared) == n, shared  # one press, one sheet
            return shared[n - 1]
        page.wait_for_timeout(100)
    raise AssertionError(f"the share sheet was opened {len(shared)} times, not {n}")


def _result(page, token: str) -> None:
    page.add_init_script(f"localStorage.setItem('manille.token', {token!r})")
    page.goto("/?lang=en")
    expect(page.locator("#end .rank-line")).to_contain_text(re.compile(r"\d"))


def test_share_opens_the_share_sheet_where_the_browser_has_one(visitor, site):
    me = _player(site)
    score = str(me["submission"]["score"])
    page = visitor(viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True)
    page.add_init_script(SHEET)
    _result(page, me["token"])
    page.locator("#end p.share").get_by_role("button", name="Share").click()
    shared = _handed(page, 1)
    assert shared["url"] == f"{site}/", shared
    assert score in shared["text"] and "Manille" in shared["text"], shared
    expect(page.locator("#end p.share .copied")).to_have_text("")  # nothing was copied

    league_share = page.locator(".standings").get_by_role("button", name=re.compile("Les Copains"))
    league_share.click()
    shared = _handed(page, 2)
    assert "/leagues/join/" in shared["url"] and "Les Copains" in shared["text"], shared


def test_share_copies_where_the_browser_has_no_share_sheet(visitor, site):
    me = _player(site)
    page = visitor(permissions=["clipboard-read", "clipboard-write"])
    assert page.evaluate("typeof navigator.share") == "undefined"  # Chromium on Linux: no sheet
    _result(page, me["token"])
    page.locator("#end p.share").get_by_role("button", name="Share").click()
    expect(page.locator("#end p.share .copied")).to_have_text("Copied")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert str(me["submission"]["score"]) in copied and copied.endswith(f"{site}/"), copied
