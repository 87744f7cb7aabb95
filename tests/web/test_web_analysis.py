"""The card-by-card analysis on the real stack (gunicorn, the verification worker and the analysis
worker, Redis): a finished free game is analysed from its end screen, the progress is shown while
the analyst works, then the view; the costliest decision is reached by keyboard and the details
show its legal cards with both values and its mark as a word, as the analysis document says.  The
same in French on a phone.  A ranked game of the open day offers no analysis: it says when.  The
leaderboard of a closed day opens the analysis of one's own game of that day."""

from __future__ import annotations

import re
import time
from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal

import requests
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from support.closed_day import play_closed_day
from support.live_stack import BOTS, PHONE
from support.web_helpers import ANALYSIS_MS, ASK, api_play_ranked_game, card_name_en, finish_free_game

MARKS = {"en": ["forced", "best", "good", "inaccuracy", "mistake", "blunder"],
         "fr": ["forcée", "meilleure", "bonne", "imprécision", "erreur", "gaffe"]}


def _axe_serious(page) -> list[str]:
    violations = Axe().run(page).response["violations"]
    return [f"{v['impact']} {v['id']}: {v['help']} {[n.get('target') for n in v['nodes'][:5]]}"
            for v in violations if v.get("impact") in ("serious", "critical")]


def _decimal(x: float, lang: str) -> str:
    """One decimal as the page's Intl.NumberFormat writes it: its shortest decimal (repr) rounded half
    away from zero (Python's format rounds 18.25 to 18.2, the page to 18.3)."""
    text = str(Decimal(repr(x)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    return text.replace(".", ",") if lang == "fr" else text


def _ask_and_watch(page, ask) -> tuple[dict, list]:
    """Clicks the button, watches the progress bar until the view is there; returns the analysis
    document (the last GET /analyses/{id} answer) and the states seen."""
    answers: list[dict] = []
    page.on("response", lambda r: answers.append(r) if "/api/v1/analyses/" in r.url else None)
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/analysis")) as info:
        ask.click()
    assert info.value.status == 202, info.value.text()
    accepted = info.value.json()
    assert accepted["status_url"] == f"/api/v1/analyses/{accepted['analysis_id']}"
    bar = page.locator("#analysis").get_by_role("progressbar")
    state = page.locator("#analysis .an-state")
    view = page.locator("#analysis .an-main")
    expect(bar).to_be_visible()
    seen: list = []
    deadline = time.monotonic() + ANALYSIS_MS / 1000
    while not view.is_visible():
        assert time.monotonic() < deadline, f"no analysis view after {ANALYSIS_MS / 1000:.0f}s; seen {seen[-3:]}"
        try:
            now = (bar.get_attribute("aria-valuenow", timeout=300), bar.get_attribute("aria-valuemax", timeout=300),
                   state.inner_text(timeout=300))
        except Exception:  # noqa: BLE001 - the bar went as the view came
            continue
        if not seen or seen[-1] != now:
            seen.append(now)
        time.sleep(0.1)
    done = [a for a in answers if a.ok and a.json()["status"] == "finished"]
    assert done, "the page showed the view without a finished analysis"
    return done[-1].json()["analysis"], seen


def _focused_index(page) -> int | None:
    return page.evaluate("() => { const a = document.activeElement;"
                         " return a && a.classList.contains('an-card') ? Number(a.dataset.index) : null; }")


def _tab_to_list(page, limit: int = 80) -> None:
    for _ in range(limit):
        if _focused_index(page) is not None:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{limit} presses of Tab never reached the analysis' list of cards")


def _check_detail(page, doc: dict, index: int, lang: str) -> None:
    """The details panel shows decision ``index``: where, its mark word, every legal card with its
    value from the seat (± its error) and with hindsight."""
    d = doc["decisions"][index]
    detail = page.locator("#an-detail")
    where = (f"Deal {d['deal'] + 1}, trick {d['trick'] + 1}" if lang == "en"
             else f"Donne {d['deal'] + 1}, pli {d['trick'] + 1}")
    expect(detail.get_by_role("heading").first).to_contain_text(where)
    word = MARKS[lang][MARKS["en"].index(d["mark"])]
    expect(detail.locator(".an-verdict .an-mark-word")).to_have_text(word)
    table = detail.get_by_role("table")
    expect(table.get_by_role("columnheader")).to_have_text(
        ["Card", "From the seat", "With hindsight"] if lang == "en"
        else ["Carte", "Depuis la place", "Après coup"])
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(len(d["legal"]))
    for card, v in d["legal"].items():
        row = table.locator(f'tbody tr[data-card="{card}"]')
        cells = row.get_by_role("cell")
        if lang == "en":
            expect(row.get_by_role("rowheader", name=re.compile(rf"^{card_name_en(card)}\s*(,|$)"))).to_have_count(1)
        if v["seat"] is None:
            expect(cells.nth(0)).to_have_text("—")
        elif d.get("exact") or not v["seat_se"]:
            expect(cells.nth(0)).to_have_text(_decimal(v["seat"], lang))
        else:
            expect(cells.nth(0)).to_have_text(f"{_decimal(v['seat'], lang)} ± {_decimal(v['seat_se'], lang)}")
        expect(cells.nth(1)).to_have_text(str(v["open"]))
    played = table.locator("tbody tr.played")
    expect(played).to_have_attribute("data-card", d["played"])
    expect(played).to_contain_text("played" if lang == "en" else "jouée")
    if not d["forced"]:
        best = "best from the seat" if lang == "en" else "meilleure depuis la place"
        for card in d["best_seat"]:
            expect(table.locator(f'tbody tr[data-card="{card}"]')).to_contain_text(best)
    hands = detail.locator(".an-hands .review-hand")
    expect(hands).to_have_count(4)
    expect(hands.nth(d["seat"]).get_by_role("listitem")).to_have_count(8 - d["trick"])


def _target(doc: dict) -> int:
    """The player's costliest decision, else their first real choice."""
    costly = doc["summary"]["0"]["costliest"]
    if costly:
        return costly[0]["index"]
    return next(i for i, d in enumerate(doc["decisions"]) if d["seat"] == 0 and not d["forced"])


def test_a_free_game_is_analysed_and_its_costliest_card_reached_by_keyboard(page, shot):
    ask = finish_free_game(page, "en")
    doc, seen = _ask_and_watch(page, ask)
    assert len(seen) >= 2, f"the progress never moved: {seen}"
    assert any(re.search(r"\d+ of \d+ decisions", text) for _, _, text in seen) or len(seen) >= 3, seen
    assert doc["format"] == "manille-analysis/1" and doc["seats"] == [0, 2]

    view = page.locator("#analysis")
    summary = doc["summary"]["0"]
    you = view.locator("table.an-summary").first
    expect(you.get_by_role("row").filter(has_text="Points lost")).to_contain_text(_decimal(summary["lost_seat"], "en"))
    expect(view.locator("table.an-summary.hindsight")).to_contain_text("With hindsight")
    expect(view.get_by_role("img", name="Points lost, deal by deal")).to_be_visible()
    expect(view.locator(".an-deals tbody tr")).to_have_count(len(summary["by_deal"]))
    mine = [i for i, d in enumerate(doc["decisions"]) if d["seat"] == 0]
    expect(view.locator(".an-list .an-card")).to_have_count(len(mine))
    for i in mine[:6]:  # each card says its mark as a word
        word = doc["decisions"][i]["mark"]
        expect(view.locator(f'.an-card[data-index="{i}"]')).to_have_attribute("aria-label", re.compile(f", {word}$"))
    costly = summary["costliest"]
    expect(view.locator(".an-jump")).to_have_count(len(costly))
    # a desktop has a keyboard: the keys are said; Previous / Next are there for a pointer
    expect(view.locator(".an-keys")).to_be_visible()
    expect(view.get_by_role("group", name="Decisions").get_by_role("button", name="Next")).to_be_visible()

    # the keyboard: Tab to the list, C to the costliest, J and K (and the arrows) step
    _tab_to_list(page)
    target = _target(doc)
    page.keyboard.press("Home")
    assert _focused_index(page) == mine[0]
    ranked = [c["index"] for c in costly]
    if costly:
        # C: the next of the costliest (from a card not among them, the first one)
        target = ranked[(ranked.index(mine[0]) + 1) % len(ranked)] if mine[0] in ranked else ranked[0]
        page.keyboard.press("c")
    else:
        while _focused_index(page) != target:
            page.keyboard.press("j")
    expect(view.locator(f'.an-card[data-index="{target}"]')).to_have_attribute("aria-current", "true")
    assert _focused_index(page) == target
    _check_detail(page, doc, target, "en")
    d = doc["decisions"][target]
    live = view.locator('[aria-live="polite"]')
    expect(live).to_contain_text(f"Deal {d['deal'] + 1}, trick {d['trick'] + 1}")
    shot(page, "analysis-desktop")

    pos = mine.index(target)
    if pos + 1 < len(mine):
        page.keyboard.press("j")
        assert _focused_index(page) == mine[pos + 1]
        _check_detail(page, doc, mine[pos + 1], "en")
        page.keyboard.press("ArrowLeft")
        assert _focused_index(page) == target
    if pos > 0:
        page.keyboard.press("k")
        assert _focused_index(page) == mine[pos - 1]
        page.keyboard.press("ArrowRight")
        assert _focused_index(page) == target

    if len(costly) > 1:  # C again: the next costliest
        page.keyboard.press("c")
        assert _focused_index(page) == ranked[(ranked.index(target) + 1) % len(ranked)]

    # a costliest decision's button jumps there too
    if len(costly) > 1:
        view.locator(".an-jump").nth(1).click()
        _check_detail(page, doc, costly[1]["index"], "en")

    # the partner's cards
    view.get_by_role("button", name="North (partner)").click()
    partner = [i for i, d in enumerate(doc["decisions"]) if d["seat"] == 2]
    expect(view.locator(".an-list .an-card")).to_have_count(len(partner))
    view.locator(".an-deals-box summary").click()  # the plot's table, opened
    found = _axe_serious(page)
    assert found == [], "axe on the analysis view: serious/critical violations:\n" + "\n".join(found)


def test_the_analysis_in_french_on_a_phone(visitor, shot):
    page = visitor(viewport=PHONE, has_touch=True, is_mobile=True)
    ask = finish_free_game(page, "fr")
    doc, _ = _ask_and_watch(page, ask)
    view = page.locator("#analysis")
    expect(view.get_by_role("heading", name="Analyse, carte par carte")).to_be_visible()
    expect(view.locator("table.an-summary.hindsight caption")).to_have_text("Après coup (toutes les mains ouvertes)")
    target = _target(doc)
    view.locator(f'.an-card[data-index="{target}"]').tap()
    _check_detail(page, doc, target, "fr")
    expect(view.locator('[aria-live="polite"]')).to_contain_text("Donne")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"
    view.locator("#an-detail").scroll_into_view_if_needed()
    shot(page, "analysis-phone-fr")


def test_a_ranked_game_of_the_open_day_offers_no_analysis_but_says_when(visitor, site):
    played = api_play_ranked_game(site, f"an-{int(time.time() * 1000) % 10**8}")
    run_id = played["run"]["run_id"]
    r = requests.post(f"{site}/api/v1/runs/{run_id}/analysis", headers={"X-Player-Token": played["token"]}, timeout=10)
    assert r.status_code == 409 and r.json()["error"] == "day_open" and r.json()["reveal_at"], r.text

    page = visitor()
    page.add_init_script(f"localStorage.setItem('manille.token', {played['token']!r})")
    page.goto("/?lang=en")
    end = page.locator("#end")
    expect(end.get_by_role("heading", level=2)).to_be_visible()
    note = end.locator(".an-sealed")
    expect(note).to_contain_text("opens once its day has closed and the seed is published: from")
    expect(page.get_by_role("button", name=ASK["en"])).to_have_count(0)
    end.get_by_role("button", name="Review the game trick by trick").click()
    expect(page.locator("#review .an-sealed")).to_contain_text("once its day has closed")
    expect(page.get_by_role("button", name=ASK["en"])).to_have_count(0)


# --- the leaderboard: a closed day's game -----------------------------------------------------------

def _a_closed_days_verified_game(live) -> dict:
    """A ranked game of the day before yesterday (a closed day: yesterday is still closing for half
    an hour after midnight, its seed not yet public), verified by the stack's worker."""
    day = live.today() - timedelta(days=2)
    return play_closed_day(live, day, [BOTS])[0]


def test_the_leaderboard_opens_the_analysis_of_ones_own_game_of_a_closed_day(visitor, live, shot):
    game = _a_closed_days_verified_game(live)
    sub = requests.get(f"{live.base}/api/v1/submissions/{game['submission_id']}", timeout=10).json()
    assert sub["status"] == "verified", sub
    page = visitor(viewport=PHONE, has_touch=True, is_mobile=True)
    page.add_init_script(f"localStorage.setItem('manille.token', {game['token']!r});"
                         f"localStorage.setItem('manille.submissions', JSON.stringify({{{game['day']!r}: "
                         f"{game['submission_id']!r}}}))")
    page.goto(f"/leaderboard?lang=en&day={game['day']}")
    mine = page.locator("#board-me").get_by_role("button", name="Analyse my game").last
    expect(mine).to_be_visible()
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith(
            f"/submissions/{game['submission_id']}/analysis")) as info:
        mine.click()
    assert info.value.status == 202, info.value.text()
    view = page.locator("#analysis")
    expect(view.get_by_role("heading", name="Analysis, card by card")).to_be_visible()
    expect(view.locator(".an-main")).to_be_visible(timeout=ANALYSIS_MS)
    expect(view.locator("#an-detail .an-values")).to_be_visible()
    expect(view.locator("#an-detail .an-hands .review-hand")).to_have_count(4)  # the record is public
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"
    shot(page, "analysis-leaderboard-phone")
