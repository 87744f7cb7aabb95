"""The site's error pages (an unknown address, a bad date, a form sent where none is taken) in its
own style and the reader's language, with the way back."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from support.live_stack import PHONE

TITLE = {"en": "This page does not exist", "fr": "Cette page n'existe pas", "nl": "Deze pagina bestaat niet"}


def _styled_error(page, path: str, lang: str, status: int = 404) -> None:
    page.watch.allow(rf"HTTP {status}: GET \S+{re.escape(path.split('?')[0])}")
    page.watch.allow(rf"console error: Failed to load resource: the server responded with a status of {status}")
    response = page.goto(path)
    assert response.status == status and "text/html" in response.headers["content-type"]
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.get_by_role("heading", level=1)).to_have_text(TITLE[lang])
    # the site's header, its style sheet applied, and the ways back
    expect(page.get_by_role("banner").get_by_role("navigation").first).to_be_visible()
    assert page.evaluate("() => getComputedStyle(document.body).backgroundImage").startswith("radial-gradient")
    expect(page.get_by_role("main").get_by_role("link", name=re.compile(r"today|jour|vandaag", re.I))).to_have_attribute("href", "/")
    # the language switch stays on this address
    switch = page.get_by_role("navigation", name=re.compile("language", re.I)).get_by_role("link")
    expect(switch.first).to_have_attribute("href", re.compile(rf"^{re.escape(path.split('?')[0])}\?"))


def test_error_pages_are_the_sites_own_in_the_readers_language(visitor):
    _styled_error(visitor(), "/no-such-page?lang=en", "en")
    _styled_error(visitor(viewport=PHONE, has_touch=True, is_mobile=True), "/archive/pas-une-date?lang=fr", "fr")
    _styled_error(visitor(locale="nl-BE", extra_http_headers={"Accept-Language": "nl-BE,nl;q=0.9"}), "/static/nope.js", "nl")


def test_a_form_sent_where_none_is_taken_gets_the_sites_page(visitor):
    page = visitor()
    page.goto("/rules?lang=fr")
    answer = page.request.post("/rules")
    assert answer.status == 405 and "text/html" in answer.headers["content-type"]
    html = answer.text()
    assert '<html lang="fr">' in html and "Cette page ne s'ouvre pas ainsi" in html and 'class="top"' in html
