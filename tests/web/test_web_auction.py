"""The auction as a newcomer meets it on a phone, in French, Dutch and English (free play, the real
page on the real server): the contract so far stays in view at every call (score panel, and each
seat's calls in order beside it, the caller's among them), the prompt says what this call is (name,
double, redouble, choose or pass, with the factor it would bring), the variant in play is named, a
new game starts a new log, and the score panel's row labels read on one line at 360–430 px.

The situations are found the way a player meets them: "New game" until the server's answer puts
the player at that call (a free deal is random; the redouble turn comes in about one parlée deal
in eighteen). A context's token may open 60 runs an hour: each context tries fewer than that."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from support.auction import NAMING, WORDS, call_group, choose, deal_until, new_game, open_free
from support.web_helpers import is_plays_answer, is_run_answer

def so_far(view: dict) -> tuple[dict | None, int]:
    """The naming call ({seat, call}) and how many doubles (double, redouble) of the calls so far."""
    naming = next((c for c in view["calls"] if c["call"] in NAMING), None)
    doubles = sum(c["call"] in ("double", "redouble") for c in view["calls"])
    return naming, doubles


def factor_so_far(view: dict, doubles: int, naming: dict | None) -> int:
    nt = 2 if naming and naming["call"] == "NT" else 1
    return view.get("carry", 1) * nt * 2 ** doubles


def expect_contract_in_view(page, lang: str, view: dict) -> None:
    """The score panel shows the contract so far (the trump named, by whom, doubled or not, the
    factor); each seat's bubble lists that seat's calls of this deal in order."""
    w = WORDS[lang]
    naming, doubles = so_far(view)
    panel = page.locator("#scores")
    expect(panel).to_be_in_viewport()
    if naming is not None:
        expect(panel).to_contain_text(w["calls"][naming["call"]])
        if naming["seat"]:
            expect(panel).to_contain_text(w["seats"][naming["seat"]])
        if doubles:
            expect(panel).to_contain_text(w["redoubled" if doubles == 2 else "doubled"])
        factor = factor_so_far(view, doubles, naming)
        if factor > 1:
            expect(panel).to_contain_text(f"×{factor}")
    for seat in range(4):
        said = [w["calls"][c["call"]] for c in view["calls"] if c["seat"] == seat]
        chip = page.locator(f".seat-{seat} .said-chip")
        if said:
            expect(chip).to_be_visible()
            expect(chip).to_have_text(re.compile(".*".join(map(re.escape, said)), re.S))
        else:
            expect(chip).to_be_hidden()


def expect_prompt(page, lang: str, view: dict, *parts: str, exact: str | None = None) -> None:
    """The call group, the visible ticker and the log's last line say what this call is."""
    group = call_group(page, lang)
    expect(group.get_by_role("button")).to_have_count(len(view["legal_calls"]))
    shown = [b.get_attribute("data-call") for b in group.get_by_role("button").all()]
    assert shown == view["legal_calls"], (shown, view["legal_calls"])  # the server's calls, as they are
    for where in (group, page.locator("#ticker"), page.locator("#log p").last):
        if exact:
            expect(where).to_contain_text(exact)
        for part in parts:
            expect(where).to_contain_text(part)


def redouble_turn(view):
    """the player's redouble"""
    return view["legal_calls"] == ["redouble", "pass"]


def double_turn(view):
    """the player's double"""
    return view["legal_calls"] == ["double", "pass"]


def choose_turn(view):
    """the player's choice or pass"""
    return view["legal_calls"] == ["C", "D", "H", "S", "NT", "pass"]


def answer_call(page, lang: str, run: dict, call: str) -> dict:
    with page.expect_response(is_plays_answer) as info:
        call_group(page, lang).locator(f'button[data-call="{call}"]').click()
    assert info.value.status == 200, info.value.text()
    assert json.loads(info.value.request.post_data) == {"turn": run["turn"], "call": call}
    return info.value.json()


def expect_final_contract(page, lang: str, run: dict) -> None:
    """Once the auction is over: the contract the server settled is in the score panel, and each
    seat's calls stay beside it until the first trick is taken."""
    w = WORDS[lang]
    contract = run["view"]["contract"]
    assert contract, run["view"]
    panel = page.locator("#scores")
    expect(panel).to_contain_text(w["calls"][contract["call"]])
    if contract["declarer"]:
        expect(panel).to_contain_text(w["seats"][contract["declarer"]])
    if run["view"]["factor"] > 1:
        expect(panel).to_contain_text(f"×{run['view']['factor']}")
    if not run["view"]["tricks"]:
        expect_contract_in_view(page, lang, run["view"])


@pytest.mark.parametrize("lang", ["fr", "nl", "en"])
def test_at_the_redouble_the_contract_so_far_and_the_prompt_are_in_view(visitor, lang):
    w = WORDS[lang]
    page, run = deal_until(visitor, lang, w["parlee101"], redouble_turn)
    view = run["view"]
    naming, doubles = so_far(view)
    doubler = next(c["seat"] for c in view["calls"] if c["call"] == "double")
    assert doubles == 1 and naming is not None
    expect_contract_in_view(page, lang, view)
    # at every call narrated, from the trump's naming on, the panel showed the trump named
    expect(page.locator("#log p")).to_have_count(len(run["events"]) + 1)
    seen = page.evaluate("() => window.__seen")
    assert len(seen) == len(run["events"]) + 1, seen  # the deal's start, each call, the prompt
    for line, panel in seen[1:]:
        assert w["calls"][naming["call"]] in panel, (line, panel, seen)
    factor = factor_so_far(view, 2, naming)
    declarer = w["seats"][naming["seat"]] if naming["seat"] else None
    exact = None
    if lang == "en":
        whose = "your" if not naming["seat"] else f"{declarer}'s"
        exact = f"{w['seats'][doubler]} doubled {whose} {w['suits'][naming['call']]}: redouble (×{factor}) or pass"
    parts = [w["seats"][doubler], w["suits"][naming["call"]], f"×{factor}"] + ([declarer] if declarer else [])
    expect_prompt(page, lang, view, *parts, exact=exact)

    # the same table when the page is opened again on this run (drawn from the view, not the events)
    with page.expect_response(is_run_answer):
        page.reload()
    expect_contract_in_view(page, lang, view)
    expect_prompt(page, lang, view, *parts, exact=exact)

    after = answer_call(page, lang, run, "pass")
    expect_final_contract(page, lang, after)


@pytest.mark.parametrize("lang", ["nl", "en"])
def test_at_the_double_the_contract_so_far_and_the_prompt_are_in_view(visitor, lang):
    w = WORDS[lang]
    page, run = deal_until(visitor, lang, w["parlee101"], double_turn)
    view = run["view"]
    naming, doubles = so_far(view)
    assert naming is not None and naming["seat"] in (1, 3) and not doubles
    expect_contract_in_view(page, lang, view)
    factor = factor_so_far(view, 1, naming)
    declarer = w["seats"][naming["seat"]]
    exact = f"{declarer} named {w['suits'][naming['call']]}: double (×{factor}) or pass" if lang == "en" else None
    expect_prompt(page, lang, view, declarer, w["suits"][naming["call"]], f"×{factor}", exact=exact)

    after = answer_call(page, lang, run, "double")
    if after["view"]["legal_calls"]:  # the partner passed, the dealer's side redoubled: impossible
        raise AssertionError(after["view"])
    expect_final_contract(page, lang, after)
    expect(page.locator("#scores")).to_contain_text(
        w["redoubled"] if after["view"]["contract"]["doubled"] == 2 else w["doubled"])


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_at_manillen_the_prompt_says_choose_or_pass(visitor, lang):
    w = WORDS[lang]
    page, run = deal_until(visitor, lang, w["manillen"], choose_turn)
    view = run["view"]
    expect_contract_in_view(page, lang, view)  # passes so far, each beside its seat
    exact = "Choose a trump (or no trump, ×2) or pass" if lang == "en" else None
    expect_prompt(page, lang, view, w["suits"]["NT"], "×2", exact=exact)
    after = answer_call(page, lang, run, "pass")  # a seat after the player chooses, or the dealer must
    expect_final_contract(page, lang, after)


@pytest.mark.parametrize("lang", ["fr", "nl", "en"])
def test_the_variant_in_play_is_named_and_new_game_says_what_it_starts(visitor, lang):
    w = WORDS[lang]
    page, run = open_free(visitor, lang)
    assert run["rules"] == "muette-1"
    panel = page.locator("#scores")
    expect(panel).to_contain_text(w["muette"])
    expect(panel).to_contain_text(w["game_to"].format(n=40))
    choose(page, w["parlee101"])
    # the table still plays muette, and says plainly that "New game" starts the chosen variant
    expect(panel).to_contain_text(w["muette"])
    note = page.locator("#variant-form .variant-note:not(.strength-note)")
    expect(note).to_be_visible()
    expect(note).to_contain_text(w["new_game"])
    expect(note).to_contain_text(w["parlee101"])
    run = new_game(page, lang)
    assert run["rules"] == "parlee-1" and run["target"] == 101
    expect(panel).to_contain_text(w["parlee"])
    expect(panel).not_to_contain_text(w["muette"])
    expect(panel).to_contain_text(w["game_to"].format(n=101))
    expect(note).to_be_hidden()


def log_lines(page) -> list[str]:
    return page.locator("#log p").all_text_contents()


def expect_only_this_game_in_log(page, lang: str, run: dict) -> None:
    """The log holds the lines of ``run`` only: one per event narrated, and the prompt."""
    expect(page.locator("#log p")).to_have_count(len(run["events"]) + 1, timeout=20_000)
    page.wait_for_timeout(1500)  # room for a stray line of an abandoned game's narration
    lines = log_lines(page)
    assert len(lines) == len(run["events"]) + 1, lines
    assert not [line for line in lines if WORDS[lang]["muette_start"].search(line)], lines


@pytest.mark.parametrize("lang", ["nl", "en"])
def test_a_new_game_starts_a_new_log(visitor, lang):
    w = WORDS[lang]
    page, first = open_free(visitor, lang, speed="normal")  # the muette deal is narrated at a person's pace
    choose(page, w["parlee101"])
    second = new_game(page, lang)  # at once, while the first game may still be narrated
    expect_only_this_game_in_log(page, lang, second)
    third = new_game(page, lang)  # a parlée game abandoned in its auction
    expect_only_this_game_in_log(page, lang, third)
    lines = log_lines(page)
    assert lines[0].startswith({"en": "Deal 1", "nl": "Ronde 1", "fr": "Donne 1"}[lang]), lines


ROW_LINES = """() => [...document.querySelectorAll('#scores tbody th')].map((th) => {
  const range = document.createRange();
  range.selectNodeContents(th);
  const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  return [th.textContent, tops.size];
})"""


@pytest.mark.parametrize("lang", ["fr", "nl", "en"])
def test_the_score_panel_rows_read_on_one_line_on_a_phone(visitor, lang):
    w = WORDS[lang]
    page, _ = open_free(visitor, lang, viewport={"width": 360, "height": 780})
    choose(page, w["parlee101"])
    for variant in ("muette", "parlee"):
        if variant == "parlee":
            new_game(page, lang)
            expect(page.locator("#scores")).to_contain_text(w["game_to"].format(n=101))
        for width in (360, 390, 430):
            page.set_viewport_size({"width": width, "height": 844})
            rows = page.evaluate(ROW_LINES)
            assert len(rows) == 2, rows
            assert all(n == 1 for _, n in rows), (variant, width, rows)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"
