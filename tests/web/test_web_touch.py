"""A phone's table: the header in one or two rows from 360 to 430 px in every language, who the
partner is still said beside North, and no control that only a keyboard can use on a touch
screen (a desktop keeps them)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from support.web_helpers import enabled_cards, is_run_answer

#: The distinct rows (tops) of the header's visible links, and the header's own height.
HEADER_ROWS_JS = """() => {
  const links = [...document.querySelectorAll('header.top a')].filter(a => a.checkVisibility());
  const rows = [];
  for (const a of links) {
    const r = a.getBoundingClientRect();
    if (!rows.some(top => Math.abs(top - r.top) < r.height / 2)) rows.push(r.top);
  }
  return { rows: rows.length, links: links.length, wide: document.documentElement.scrollWidth > innerWidth };
}"""


@pytest.mark.parametrize("width", [360, 390, 430])
def test_the_header_fits_in_two_rows_on_a_phone(visitor, width):
    page = visitor(viewport={"width": width, "height": 800}, has_touch=True, is_mobile=True)
    for lang in ("fr", "nl", "en"):
        page.goto(f"/rules?lang={lang}")
        got = page.evaluate(HEADER_ROWS_JS)
        assert got["links"] == 10, got  # the logo, six pages, three languages: none hidden
        assert got["rows"] <= 2 and not got["wide"], f"{lang} at {width} px: {got}"


PARTNER = {"en": "partner", "fr": "partenaire", "nl": "partner"}


def _free_table(page, lang: str) -> None:
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST"):
        page.goto(f"/free?lang={lang}&speed=instant")
    expect(enabled_cards(page).first).to_be_visible()


def test_a_phone_still_says_who_the_partner_is_and_shows_no_keyboard_only_control(visitor):
    for lang in ("fr", "en"):
        page = visitor(viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True)
        _free_table(page, lang)
        north = page.locator(".seat-2 .seat-label")
        expect(north.get_by_text(PARTNER[lang], exact=True)).to_be_visible()
        box, felt = north.bounding_box(), page.locator("#felt").bounding_box()
        assert box["x"] >= felt["x"] and box["x"] + box["width"] <= felt["x"] + felt["width"], (box, felt)
        # the keys' window and the key letters on the buttons are for a keyboard
        expect(page.locator('[data-open="help-dialog"]')).to_be_hidden()
        for kbd in page.locator(".actions kbd").all():
            expect(kbd).to_be_hidden()
        expect(page.get_by_role("button", name=re.compile("score|feuille", re.I)).first).to_be_visible()

    desk = visitor()
    _free_table(desk, "en")
    expect(desk.get_by_role("button", name=re.compile("^Keys")).first).to_be_visible()
    expect(desk.locator(".seat-2").get_by_text("partner", exact=True)).to_be_visible()
