"""The /ops page as ops staff use it: the token asked first (no ops call before), a refused token
asked again, the day's submissions with their flags, sorting and filtering, one submission's
detail with its evidence and the replay viewer stepped with the keyboard, disqualify and restore
with a reason (the day's board loses the game and gets it back); axe-core on the page with the
detail open."""

from __future__ import annotations

import re
import time
import uuid

import requests
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from support.live_stack import OPS_TOKEN, OPS_USER
from support.web_helpers import api_play_ranked_game

AXE = Axe()
OPS = {"Authorization": f"Bearer {OPS_TOKEN}"}


def _ops_list(site: str, day: str) -> list[dict]:
    r = requests.get(f"{site}/api/v1/ops/days/{day}/submissions?limit=1000", headers=OPS, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["submissions"]


def _board_total(site: str, day: str) -> int:
    r = requests.get(f"{site}/api/v1/leaderboards/days/{day}?limit=1", timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["total"]


def _board_total_becomes(site: str, day: str, expected: int) -> None:
    """The public board shows ``expected`` entries within its documented staleness: a web process
    keeps a page up to MANILLE_BOARD_MAX_AGE (1 s) before it checks the board's version again."""
    deadline = time.monotonic() + 3
    while (total := _board_total(site, day)) != expected and time.monotonic() < deadline:
        time.sleep(0.1)
    assert total == expected


def _rows(page):
    return page.locator("#ops-rows tr[data-id]")


def _column(page, n: int) -> list[str]:
    """The text of column ``n`` (0-based; the nickname is a row header) of the shown rows."""
    return page.locator("#ops-rows tr[data-id]").evaluate_all(
        f"rows => rows.map(r => r.children[{n}].textContent.trim())")


def _serious(page) -> list[str]:
    found = []
    for v in AXE.run(page).response["violations"]:
        if v.get("impact") in ("serious", "critical"):
            nodes = "; ".join(str(n.get("target")) for n in v["nodes"][:5])
            found.append(f"{v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])} nodes) {nodes}")
    return found


def test_ops_page_lists_sorts_filters_replays_disqualifies_and_restores(visitor, site, shot):
    tag = f"ops{uuid.uuid4().hex[:6]}"
    games = [api_play_ranked_game(site, f"{tag}-{n}") for n in ("a", "b")]
    mine = {g["submission"]["submission_id"] for g in games}

    page = visitor()
    ops_calls: list[str] = []
    page.on("request", lambda r: ops_calls.append(r.url) if "/api/v1/ops/" in r.url else None)
    page.goto("/ops?lang=en")
    today = page.evaluate("document.body.dataset.today")
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", today)
    expect(page.get_by_label("Day")).to_have_value(today)
    token_box = page.get_by_label("Ops token")
    expect(token_box).to_be_visible()
    expect(page.locator("#ops-list")).to_be_hidden()
    assert ops_calls == [], "the page called the ops API before a token was given"

    # A wrong token: refused (403, which this test provokes on purpose), asked again.
    page.watch.allow(r"HTTP 403: GET .*/api/v1/ops/days/")
    page.watch.allow(r"console error: Failed to load resource: the server responded with a status of 403")
    token_box.fill("not-the-token")
    page.get_by_role("button", name="Show submissions").click()
    expect(page.locator("#ops-login-msg")).to_contain_text("Token refused")
    expect(token_box).to_be_focused()
    assert page.evaluate("sessionStorage.getItem('manille.ops.token')") is None

    # The right one: the day's submissions, each with its flags.
    subs = _ops_list(site, today)
    token_box.fill(OPS_TOKEN)
    page.get_by_role("button", name="Show submissions").click()
    expect(_rows(page)).to_have_count(len(subs))
    assert page.evaluate("sessionStorage.getItem('manille.ops.token')") == OPS_TOKEN
    assert page.evaluate("localStorage.getItem('manille.ops.token')") is None
    for sub in subs:
        if sub["submission_id"] not in mine:
            continue
        row = page.locator(f'#ops-rows tr[data-id="{sub["submission_id"]}"]')
        expect(row.get_by_role("rowheader")).to_have_text(sub["nickname"])
        expect(row.locator(".status")).to_have_text(sub["status"])
        expect(row.locator(".flag")).to_have_text([f["code"] for f in sub["flags"]])
        expect(row.locator("td.addr")).to_have_text(sub["address"])
    codes = {f["code"] for s in subs if s["submission_id"] in mine for f in s["flags"]}
    assert "speed" in codes, "games played through the API this fast must be flagged 'speed'"

    # Sort by score: best first, then the other way; aria-sort says which.
    score_head = page.get_by_role("columnheader", name="Score")
    score_head.get_by_role("button").click()
    expect(score_head).to_have_attribute("aria-sort", "descending")
    scores = [int(s) for s in _column(page, 1)]
    assert scores == sorted(scores, reverse=True) and len(scores) == len(subs)
    score_head.get_by_role("button").click()
    expect(score_head).to_have_attribute("aria-sort", "ascending")
    scores = [int(s) for s in _column(page, 1)]
    assert scores == sorted(scores)
    expect(page.get_by_role("columnheader", name="Nickname")).not_to_have_attribute("aria-sort", re.compile("."))

    # Filters: flagged only, a status, a text on nickname/address.
    page.get_by_label("Flagged only").check()
    expect(_rows(page)).to_have_count(sum(1 for s in subs if s["flags"]))
    page.get_by_label("Status").select_option("disqualified")
    expect(_rows(page)).to_have_count(0)
    expect(page.locator("#ops-rows")).to_contain_text("No submission matches")
    page.get_by_label("Status").select_option("")
    page.get_by_label("Nickname or address contains").fill(tag)
    expect(_rows(page)).to_have_count(2)
    expect(page.locator("#ops-count")).to_contain_text(f"2 of {len(subs)}")

    # One submission: its flags with their evidence, the client, the other runs, the replay.
    target = games[0]["submission"]["submission_id"]
    detail_api = requests.get(f"{site}/api/v1/ops/submissions/{target}", headers=OPS, timeout=10).json()
    page.locator(f'#ops-rows tr[data-id="{target}"]').get_by_role("button").click()
    detail = page.locator("#ops-detail")
    expect(detail.get_by_role("heading", name=f"Submission of {tag}-a")).to_be_focused()
    expect(detail.locator(".flag-card")).to_have_count(len(detail_api["flags"]))
    speed = next(f for f in detail_api["flags"] if f["code"] == "speed")
    expect(detail.locator(".flag-card", has_text="speed")).to_contain_text(f"{speed['evidence']['median_ms']} ms")
    expect(detail).to_contain_text(detail_api["address"])
    # every flag says what it means, in the API's words
    for flag in detail_api["flags"]:
        assert flag["description"], flag
        expect(detail.locator(".flag-card", has_text=flag["code"])).to_contain_text(flag["description"])
    # the day's runs around the game, read when asked for, the same as the API's
    around_api = requests.get(f"{site}/api/v1/ops/submissions/{target}/runs", headers=OPS, timeout=10).json()
    around = detail.get_by_role("region", name="The day's runs around this game")
    around.get_by_role("button", name="Show the runs around this game").click()
    expect(around).to_contain_text(f"{len(around_api['runs'])} run")
    expect(around.locator("tbody tr")).to_have_count(len(around_api["runs"]))
    expect(detail.get_by_role("heading", name=re.compile(r"From the same address \(\d+\)"))).to_be_visible()

    expect(detail).not_to_contain_text("null")
    # The day is open: its hands are read on purpose only, with a reason the audit log keeps.
    expect(page.locator("#replay-pos")).to_have_count(0)
    hands = detail.get_by_role("region", name="The day's hands")
    box = hands.get_by_role("button", name="Show the hands").bounding_box()
    assert box["height"] < 60 and box["width"] < 300, box  # a button, not a disc the size of the form
    hands.get_by_role("button", name="Show the hands").click()
    expect(hands.get_by_label(re.compile("^Why"))).to_be_focused()  # no reason: nothing was sent
    hands.get_by_label(re.compile("^Why")).fill("test: a look at the replay")
    with page.expect_response(lambda r: r.url.endswith(f"/submissions/{target}/hands")) as resp:
        hands.get_by_role("button", name="Show the hands").click()
    assert resp.value.status == 200
    expect(detail).to_contain_text("the audit log has your reading")
    read = requests.get(f"{site}/api/v1/ops/audit?limit=1", headers=OPS, timeout=10).json()["entries"][0]
    assert (read["action"], read["target"], read["why"]) == ("read_hands", target, "test: a look at the replay")
    assert read["who"].startswith(f"{OPS_USER}@")  # the operator whose token it is
    detail_api = resp.value.json()
    pos = page.locator("#replay-pos")
    expect(pos).to_contain_text("Deal 0, trick 0 of 0–7")
    deal = detail_api["record"]["deals"][0]
    first = deal["tricks"][0]["plays"]
    view = page.locator("#replay-view")
    expect(view.locator(".plays > li")).to_have_count(4)
    expect(view.locator(".hand.seat-0 .cards > li")).to_have_count(len(deal["hands"]["0"]))
    view.focus()
    page.keyboard.press("ArrowRight")
    expect(pos).to_contain_text("Deal 0, trick 1 of 0–7")
    expect(view).to_be_focused()
    # The hands as they stood at trick 2: the first trick's cards are gone.
    for seat in range(4):
        left = [c for c in deal["hands"][str(seat)] if c not in {p["card"] for p in first}]
        expect(view.locator(f".hand.seat-{seat} .cards > li")).to_have_count(len(left))
        got = view.locator(f".hand.seat-{seat} [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
        assert got == left, (seat, got, left)
    second = deal["tricks"][1]
    mine_play = next(p for p in second["plays"] if p["seat"] == 0)
    mine_li = view.locator(".plays > li.mine")
    expect(mine_li.locator(".tag")).to_have_text("forced" if len(mine_play["legal"]) == 1 else "free choice")
    expect(view.locator(".won")).to_contain_text(f"{second['points']} point")
    expect(view.locator(".oracle")).to_have_count(0)  # no oracle in the record: nothing shown
    page.keyboard.press("ArrowLeft")
    expect(pos).to_contain_text("trick 0 of 0–7")
    page.keyboard.press("ArrowRight")
    expect(pos).to_contain_text("trick 1 of 0–7")

    shot(page, "ops-detail", full_page=True)
    found = _serious(page)
    assert found == [], "axe: serious/critical violations on /ops with the detail open:\n" + "\n".join(found)

    # Disqualify with a reason: off the day's board; then restore it.
    before = _board_total(site, today)
    reason = detail.get_by_label(re.compile("^Reason"))
    detail.get_by_role("button", name="Disqualify").click()
    expect(reason).to_be_focused()  # the reason is required: nothing was sent
    reason.fill("test: searched the game tree")
    with page.expect_response(lambda r: r.url.endswith(f"/submissions/{target}/disqualify")) as resp:
        detail.get_by_role("button", name="Disqualify").click()
    assert resp.value.status == 200
    expect(detail.locator(".facts .status")).to_have_text("disqualified")
    expect(detail).to_contain_text("searched the game tree")
    expect(page.locator(f'#ops-rows tr[data-id="{target}"] .status')).to_have_text("disqualified")
    _board_total_becomes(site, today, before - 1)

    detail.get_by_label(re.compile("^Reason")).fill("test: honest after all")
    with page.expect_response(lambda r: r.url.endswith(f"/submissions/{target}/restore")) as resp:
        detail.get_by_role("button", name="Restore").click()
    assert resp.value.status == 200
    expect(detail.locator(".facts .status")).to_have_text("verified")
    expect(page.locator(f'#ops-rows tr[data-id="{target}"] .status')).to_have_text("verified")
    _board_total_becomes(site, today, before)

    audit = requests.get(f"{site}/api/v1/ops/audit?limit=10", headers=OPS, timeout=10).json()["entries"]
    assert [(e["action"], e["target"]) for e in audit[:3]] == [("restore", target), ("disqualify", target),
                                                               ("read_hands", target)]

    # A record whose plays carry an oracle's choice (a later API): shown beside the player's card.
    # (drawn from the detail with its hands, as the audited reading gives it: the day is still open)
    full = requests.post(f"{site}/api/v1/ops/submissions/{target}/hands", json={"reason": "test: the oracle's view"},
                         headers=OPS, timeout=10).json()

    def with_oracle(route):
        resp = route.fetch()
        body = {**resp.json(), "record": full["record"], "hands_sealed": False}
        for d in body["record"]["deals"]:
            for t in d["tricks"]:
                for p in t["plays"]:
                    if p["seat"] == 0:
                        p["oracle"] = p["legal"][-1]
        # the evidence each other flag holds (service/flags), in place of any real flag of the same code
        # (earlier tests' games from 127.0.0.1 may have raised many_runs or outlier on this day)
        injected = ("explored", "many_runs", "outlier", "hindsight_player")
        body["flags"] = [f for f in body["flags"] if f["code"] not in injected] + [
            {"code": "explored", "evidence": {"points": 1, "runs": 5, "deepest": 9, "branches": [
                {"index": 9, "played": "TH", "tried": {"AH": 3, "7S": 2}}]}},
            {"code": "many_runs", "evidence": {"address": "198.51.100.7", "runs": 6, "other_runs": ["run-x1"]}},
            {"code": "outlier", "evidence": {"score": 1400, "median": 1010, "spread": 40.0, "z": 9.8,
                                             "scores": 31, "best_other": 1200}},
            {"code": "hindsight_player", "evidence": {
                "games": [{"submission_id": "20261203-00000000000000000007", "date": "2026-12-03", "z": 2.1,
                           "gain": 31.5},
                          {"submission_id": "20261202-00000000000000000006", "date": "2026-12-02", "z": 1.4,
                           "gain": 12.0}],
                "gain": 43.5, "var": 110.2, "z": 4.14, "z_threshold": 3.5, "gain_threshold": 10.0}}]
        route.fulfill(response=resp, json=body)

    page.route(f"**/api/v1/ops/submissions/{target}", with_oracle)
    detail.get_by_role("button", name="Close").click()
    expect(detail).to_be_hidden()
    page.locator(f'#ops-rows tr[data-id="{target}"]').get_by_role("button").click()
    expect(pos).to_contain_text("Deal 0, trick 0 of 0–7")
    oracle = view.locator(".plays > li.mine .oracle")
    expect(oracle).to_contain_text("oracle:")
    branch = detail.locator(".flag-card", has_text="explored").get_by_role("table", name="Branch points")
    expect(branch.locator("tbody tr")).to_have_count(1)
    expect(branch.locator("tbody tr td").nth(0)).to_have_text("9")
    expect(branch.locator("tbody tr td").nth(1)).to_contain_text("ten of hearts")
    expect(branch.locator("tbody tr td").nth(2)).to_contain_text("ace of hearts × 3")
    expect(detail.locator(".flag-card", has_text="many_runs")).to_contain_text("198.51.100.7")
    expect(detail.locator(".flag-card", has_text="many_runs")).to_contain_text("run-x1")
    expect(detail.locator(".flag-card", has_text="outlier")).to_contain_text("9.8")
    expect(detail.locator(".flag-card", has_text="outlier")).to_contain_text("1010")
    together = detail.locator(".flag-card", has_text="hindsight_player")
    expect(together).to_contain_text("4.14 (flags at 3.5 or more)")
    games = together.get_by_role("table", name="The player's checked games, newest first")
    expect(games.locator("tbody tr")).to_have_count(2)
    expect(games.locator("tbody tr").first.get_by_role("cell")).to_have_text(
        ["2026-12-03", "20261203-00000000000000000007", "2.1", "31.5"])
    first_mine = next(p for p in first if p["seat"] == 0)
    expect(oracle.locator("[data-card]")).to_have_attribute("data-card", first_mine["legal"][-1])

    shot(page, "ops-detail-evidence", full_page=True)
    found = _serious(page)
    assert found == [], "axe: serious/critical violations with every flag's evidence:\n" + "\n".join(found)

    # The token stays for the tab: a reload shows the day without asking again.
    page.reload()
    expect(_rows(page)).to_have_count(len(_ops_list(site, today)))
    expect(page.get_by_role("button", name="Forget token")).to_be_visible()


def test_the_ops_token_never_leaves_in_a_url(visitor, site):
    """The login form names no field and posts, and its button is disabled as served: Enter before
    ops.js has taken the form over (the module not loaded, or scripts off) sends nothing, so the
    token never reaches a URL, a history or a log.  With the module, the button is enabled and
    the token goes to the ops API in a header alone."""
    typed = "a-token-typed-before-the-script-ran-0123456789"
    for scripts in (True, False):
        page = visitor(java_script_enabled=scripts)
        seen: list[str] = []
        page.on("request", lambda r: seen.append(r.url))
        if scripts:  # the module never arrives: as Enter pressed before it has loaded
            page.route("**/js/ops.js*", lambda route: route.abort())
            page.watch.allow(r"ops\.js")
        page.goto("/ops?lang=en")
        form = page.locator("#ops-login")
        expect(form).to_have_attribute("method", "post")
        assert form.locator("[name]").count() == 0, "a named field would be sent"
        expect(page.get_by_role("button", name="Show submissions")).to_be_disabled()
        token = page.get_by_label("Your ops token")
        token.fill(typed)
        token.press("Enter")  # Playwright waits for a navigation this would start
        page.get_by_label("Day").press("Enter")
        assert page.url == f"{site}/ops?lang=en", page.url
        assert not any(typed in url for url in seen) and not any("/api/v1/ops/" in url for url in seen), seen

    page = visitor()
    calls = []
    page.on("request", lambda r: calls.append(r))
    page.goto("/ops?lang=en")
    button = page.get_by_role("button", name="Show submissions")
    expect(button).to_be_enabled()
    page.get_by_label("Your ops token").fill(OPS_TOKEN)
    button.click()
    expect(page.locator("#ops-list")).to_be_visible()
    ops_calls = [r for r in calls if "/api/v1/ops/" in r.url]
    assert ops_calls and all(r.headers.get("authorization") == f"Bearer {OPS_TOKEN}" for r in ops_calls)
    assert not any(OPS_TOKEN in r.url for r in calls) and page.url == f"{site}/ops?lang=en"
