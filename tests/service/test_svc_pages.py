"""The web pages as served (no browser here; tests/web drives Chromium): language selection,
translations complete and compiled, the security headers, no inline script or outside resource."""

from __future__ import annotations

import html
import re
from html import unescape
from datetime import date, timedelta
from pathlib import Path

import pytest
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from service.web import CSP, LANG_COOKIE

WEB = Path(__file__).resolve().parents[2] / "service" / "web"
PAGES = ["/", "/free", "/archive", "/leaderboard", "/rules", "/ops", "/players/Ada"]


def html_lang(resp) -> str:
    return re.search(r'<html lang="([a-z]+)"', resp.get_data(as_text=True)).group(1)


@pytest.mark.parametrize("path", PAGES)
def test_every_page_is_html_with_the_policy_and_no_inline_code(client, path):
    resp = client.get(path)
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    assert resp.headers["Content-Security-Policy"] == CSP
    assert "'unsafe-inline'" not in CSP and "script-src 'self'" in CSP
    html = resp.get_data(as_text=True)
    assert '<meta name="viewport"' in html
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "inline script"
    assert not re.search(r"\sstyle=|<style", html), "inline style"
    assert not re.search(r"""(src|href)=["'](https?:)?//""", html), "a resource from outside the site"
    for url in re.findall(r"""(?:src|href)="(/static/[^"]+)""", html):
        assert client.get(url).status_code == 200, url


def test_language_from_the_url_then_the_saved_choice_then_the_browser(client):
    assert html_lang(client.get("/")) == "fr"  # nothing said: French first
    assert html_lang(client.get("/", headers={"Accept-Language": "nl-BE,nl;q=0.9"})) == "nl"
    assert html_lang(client.get("/", headers={"Accept-Language": "de-DE, en;q=0.5"})) == "en"
    resp = client.get("/rules?lang=en", headers={"Accept-Language": "nl-BE"})
    assert html_lang(resp) == "en" and f"{LANG_COOKIE}=en" in resp.headers["Set-Cookie"]
    # the saved choice wins over the browser's language on the next page, without ?lang
    assert html_lang(client.get("/leaderboard", headers={"Accept-Language": "nl-BE"})) == "en"
    assert html_lang(client.get("/leaderboard?lang=nl")) == "nl"
    assert html_lang(client.get("/?lang=xx", headers={"Accept-Language": "nl"})) == "nl"  # nl still saved


def test_pages_speak_the_chosen_language(client):
    fr = client.get("/?lang=fr").get_data(as_text=True)
    nl = client.get("/?lang=nl").get_data(as_text=True)
    en = client.get("/?lang=en").get_data(as_text=True)
    assert 'aria-label="Votre main"' in fr and 'aria-label="Uw hand"' in nl and 'aria-label="Your hand"' in en
    assert "Classement" in fr and "Klassement" in nl and "Leaderboard" in en
    # every language switch link keeps the page
    assert 'href="/rules?lang=nl"' in client.get("/rules?lang=fr").get_data(as_text=True)


def test_the_rules_page_renders_each_language_document(client):
    en = client.get("/rules?lang=en").get_data(as_text=True)
    assert "The two rules newcomers trip on" in en and "<table>" in en
    fr = client.get("/rules?lang=fr").get_data(as_text=True)
    nl = client.get("/rules?lang=nl").get_data(as_text=True)
    for html in (fr, nl):
        assert "<table>" in html and "1240" in html and "970" in html
    assert "monter" in fr and "troef" in nl
    # the sections on the other rules ids, as headings in the page's contents, in each language
    for html, words in ((en, ("no trump", "ik ga mee")), (fr, ("surcontrer", "sans atout")),
                        (nl, ("troef kiezen", "zonder troef", "ik ga tegen"))):
        for rules_id in ("parlee-1", "manillen-1"):
            assert re.search(rf'<h3 id="[^"]+">[^<]*<code>{rules_id}</code>\)</h3>', html), rules_id
        assert all(w in html.lower() for w in words), words


def test_the_page_catalogues_cover_every_template_string_and_are_compiled(tmp_path):
    root = WEB.parents[1]
    pot = tmp_path / "messages.pot"
    CommandLineInterface().run(["pybabel", "-q", "extract", "-F", str(root / "babel.cfg"), "--no-location",
                                "-o", str(pot), str(root)])
    def key(m):  # a plural's id is its singular and plural forms
        return tuple(m.id) if isinstance(m.id, (list, tuple)) else m.id

    def text(m):  # and its string one per plural form, each to be translated
        return tuple(m.string) if isinstance(m.string, (list, tuple)) and all(m.string) else (
            None if isinstance(m.string, (list, tuple)) else m.string)

    wanted = {key(m) for m in read_po(pot.open("rb")) if m.id}
    assert len(wanted) > 30
    for lang in ("fr", "nl"):
        folder = WEB / "translations" / lang / "LC_MESSAGES"
        po = {key(m): text(m) for m in read_po((folder / "messages.po").open("rb")) if m.id}
        untranslated = sorted(map(str, (m for m in wanted if not po.get(m))))
        assert not untranslated, f"{lang}: run `make translations` and translate: {untranslated}"
        mo = {key(m): text(m) for m in read_mo((folder / "messages.mo").open("rb")) if m.id}
        assert {k: po[k] for k in wanted} == {k: mo.get(k) for k in wanted}, f"{lang}: messages.mo is stale"


def _catalogue_keys(lang: str) -> set[str]:
    text = (WEB / "static" / "js" / "i18n" / f"{lang}.js").read_text(encoding="utf-8")
    return set(re.findall(r"^  ([A-Za-z_]\w*):", text, flags=re.M))


def test_the_scripts_catalogues_have_the_same_strings_in_every_language():
    en = _catalogue_keys("en")
    assert len(en) > 50
    for lang in ("fr", "nl"):
        keys = _catalogue_keys(lang)
        assert keys == en, f"{lang}: missing {sorted(en - keys)}, extra {sorted(keys - en)}"


def test_static_files_cache_for_good_only_when_versioned(client):
    assert client.get("/static/js/game.js").headers["Cache-Control"] == "no-cache"
    assert "immutable" in client.get("/static/js/main.js?v=1").headers["Cache-Control"]
    assert client.get("/favicon.ico").status_code == 200


def test_pages_outside_the_api_answer_errors_in_html_and_the_api_in_json(client):
    page = client.get("/no-such-page")
    assert page.status_code == 404 and page.mimetype == "text/html"
    api = client.get("/api/v1/no-such-thing")
    assert api.status_code == 404 and api.get_json()["error"] == "not_found"
    assert client.get("/archive/not-a-date").status_code == 404
    assert client.get("/archive/2999-01-01").status_code == 302  # not a past day: back to the list


def test_error_pages_are_the_sites_own_in_the_readers_language(client, rclient, redis_server):
    """404, 405 and 500 outside the API: the site's layout and style sheet, the reader's language,
    the policy headers; the status kept (a 405 with its Allow)."""
    from service.app import create_app
    from support.svc_helpers import LIMITS_OFF

    cases = [(client.get("/no-such-page?lang=fr"), 404, "fr", "Cette page n'existe pas"),
             (client.get("/archive/not-a-date?lang=nl"), 404, "nl", "Deze pagina bestaat niet"),
             (client.post("/rules?lang=en"), 405, "en", "This page cannot be opened that way")]
    app = create_app({"REDIS_URL": redis_server.url, **LIMITS_OFF})
    app.add_url_rule("/boom", "boom", lambda: 1 / 0)  # a bug on a page
    cases.append((app.test_client().get("/boom?lang=fr"), 500, "fr", "Un problème est survenu de notre côté"))
    for resp, status, lang, title in cases:
        html = resp.get_data(as_text=True)
        assert resp.status_code == status and resp.mimetype == "text/html", (status, html[:200])
        assert html_lang(resp) == lang and f"<h1>{title}</h1>" in unescape(html), html
        assert '<header class="top">' in html and re.search(r'href="/static/css/base\.css\?v=\d+"', html)
        assert resp.headers["Content-Security-Policy"] == CSP and "<script>" not in html
        assert f'href="{resp.request.path}?lang=' in html  # the language switch keeps the address
    assert cases[2][0].headers["Allow"]
#: What a query string could put into url_for: its own arguments, a view's, and garbage.
HOSTILE_QUERIES = [
    "endpoint=x", "_method=POST", "_external=1", "_scheme=javascript", "_anchor=%3Cscript%3E", "_external=1&_scheme=http",
    "day=x", "date=1999-01-01", "board=%00", "speed=%F0%9F%92%A5", "lang=xx", "lang=", "lang=en&lang=fr",
    "v=1&v=2", "filename=../../etc/passwd", "a" * 2000 + "=1", "x=" + "%FF" * 100, "%E9=%E9", "=", "&&&",
    "speed=instant&board=week&day=2026-12-01&endpoint=web.ops", "q=\r\nSet-Cookie:%20x=1",
]


def _pages(client) -> list[str]:
    """Every page of the site, a closed day's archive among them, and a static file."""
    today = client.get("/api/v1/challenges/today").get_json()["date"]
    past = (date.fromisoformat(today) - timedelta(days=3)).isoformat()  # closed, its seed public
    return [*PAGES, f"/archive/{past}", f"/archive/{today}", "/archive/not-a-day", "/favicon.ico",
            "/static/css/base.css", "/no-such-page"]


def test_no_query_string_makes_a_page_fail_and_links_keep_only_the_pages_own_arguments(client):
    """A page's query arguments once went straight into url_for (the language links): its reserved
    names (endpoint, _method, _external, _scheme, _anchor) or a name of the page's own path gave
    500s or changed the links.  Only each page's known arguments are kept now; the rest ignored."""
    for path in _pages(client):
        for query in HOSTILE_QUERIES:
            r = client.get(f"{path}?{query}")
            assert r.status_code < 500, (path, query, r.status_code)
            if r.mimetype != "text/html" or r.status_code != 200:
                continue
            links = [(html.unescape(href), code) for href, code in
                     re.findall(r'<a href="([^"]+)" hreflang="([a-z]+)"', r.get_data(as_text=True))]
            assert [code for _, code in links] == ["fr", "nl", "en"], (path, query)
            for href, code in links:
                assert href.startswith("/") and not href.startswith("//"), (path, query, href)  # this site
                args = [a.split("=", 1)[0] for a in href.split("?", 1)[1].split("&")]
                assert args[-1] == "lang" and set(args) <= {"speed", "board", "day", "lang"}, (path, query, href)
                assert href.endswith(f"lang={code}")
    r = client.get("/leaderboard?board=week&day=2026-12-01&_external=1&lang=en")
    assert '<a href="/leaderboard?board=week&amp;day=2026-12-01&amp;lang=fr" hreflang="fr"' in r.get_data(as_text=True)
    r = client.get("/free?speed=fast&endpoint=web.ops")
    assert '<a href="/free?speed=fast&amp;lang=nl" hreflang="nl"' in r.get_data(as_text=True)


def test_every_api_answer_says_nosniff_and_what_may_keep_it(client):
    """Each answer of /api/v1, errors included: nosniff (a JSON answer is never sniffed into
    markup) and the Cache-Control of its route's class, which one function,
    service.api.cache_control, decides: a public read asked without a token may be kept
    (tests/service/test_svc_caching.py), anything asked with a token is ``private, no-store``,
    anything else ``no-store``."""
    from service.api import cache_control

    r = client.post("/api/v1/runs", json={"kind": "random"})
    run = r.get_json()
    token = {"X-Player-Token": run["player_token"]}
    answers = [
        (r, "no-store"),
        (client.get("/api/v1/challenges/today"), "public"),
        (client.get("/api/v1/leaderboards/all-time"), "public"),
        (client.get("/api/v1/leaderboards/all-time", headers=token), "private, no-store"),
        (client.get(f"/api/v1/runs/{run['run_id']}", headers=token), "private, no-store"),
        (client.post(f"/api/v1/runs/{run['run_id']}/plays", json={"turn": 0, "card": run["view"]["legal"][0]},
                     headers=token), "private, no-store"),
        (client.get("/api/v1/players/me", headers=token), "private, no-store"),
        (client.get("/api/v1/openapi.json"), "no-store"),
        (client.get("/api/v1/health/live"), "no-store"),
        (client.get("/api/v1/health/ready"), "no-store"),
        (client.get("/api/v1/no-such-route"), "no-store"),  # 404
        (client.get("/api/v1/leaderboards/days/1999-01-01"), "no-store"),  # a public read's 404
        (client.delete("/api/v1/challenges/today"), "no-store"),  # 405
        (client.post("/api/v1/runs", json={"kind": "bogus"}), "no-store"),  # 422
        (client.post("/api/v1/runs", data="x", content_type="text/plain"), "no-store"),  # 415
        (client.get("/api/v1/players/me"), "no-store"),  # 401
        (client.get("/api/v1/ops/audit"), "no-store"),  # 401
        (client.get("/api/v1/ops/audit", headers={"Authorization": "Bearer x"}), "private, no-store"),  # 403
    ]
    for resp, expected in answers:
        assert resp.headers["X-Content-Type-Options"] == "nosniff", resp.request.path
        got = resp.headers["Cache-Control"]
        assert got.startswith("public, max-age=") if expected == "public" else got == expected, \
            (resp.request.path, resp.status_code, got)
    assert {resp.status_code for resp, _ in answers} >= {200, 201, 401, 403, 404, 405, 415, 422}
    assert cache_control("api.x", "POST", 200, False) == cache_control("api.x", "GET", 200, False, 5) == "no-store"
    assert cache_control("api.x", "GET", 200, True) == "private, no-store"
