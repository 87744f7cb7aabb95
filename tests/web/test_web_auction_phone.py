"""The auction on a phone, as a newcomer plays it (free play, the real page on the real server):
at a call turn the whole hand, every call button and the prompt are on the screen without
scrolling, and the contract line stays in view when focus moves to the calls; the eight cards fit
one row at 360 px; after a call with the keyboard, focus goes to the hand at the card turn; a new
game clears the old contract from the score panel."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from support.auction import (NAMING, WORDS, call_group, choose, deal_until, is_new_run, new_game, open_free,
                             unfold_choices)
from support.web_helpers import is_plays_answer, is_run_answer

SIZES = [(360, 740), (390, 844), (430, 932)]

#: What of the page lies outside the viewport (at the current scroll): the hand's cards, the call
#: buttons, the prompt; and how many rows the hand's cards make.
OUT_OF_VIEW = """() => {
  const h = window.innerHeight, w = window.innerWidth;
  const out = [];
  const check = (name, el) => {
    const r = el.getBoundingClientRect();
    if (r.top < 0 || r.bottom > h || r.left < 0 || r.right > w) out.push([name, Math.round(r.top), Math.round(r.bottom)]);
  };
  document.querySelectorAll('#hand button').forEach((b) => check('card ' + b.dataset.card, b));
  document.querySelectorAll('#auction button').forEach((b) => check('call ' + b.dataset.call, b));
  const prompt = document.getElementById('call-prompt');
  if (prompt && prompt.textContent) check('prompt', prompt);
  const rows = new Set([...document.querySelectorAll('#hand button')].map((b) => Math.round(b.offsetTop)));
  return { out, rows: rows.size, cards: document.querySelectorAll('#hand button').length };
}"""


def my_call(view):
    """any call of the player's"""
    return bool(view.get("legal_calls"))


def expect_all_in_view(page, where):
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(50)
    seen = page.evaluate(OUT_OF_VIEW)
    assert seen["cards"] == 8 and not seen["out"], (where, seen)
    assert seen["rows"] == 1, (where, "the hand wraps", seen)


@pytest.mark.parametrize("lang, label", [("fr", "parlee101"), ("nl", "manillen"), ("en", "parlee101")])
def test_at_a_call_turn_the_hand_the_calls_and_the_prompt_fit_a_phone(visitor, lang, label):
    w = WORDS[lang]
    page, run = deal_until(visitor, lang, w[label], my_call)
    expect(call_group(page, lang).get_by_role("button")).to_have_count(len(run["view"]["legal_calls"]))
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        expect_all_in_view(page, (width, height))
        assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"


@pytest.mark.parametrize("lang", ["fr", "nl"])
def test_focus_on_the_calls_keeps_the_contract_line_in_view(visitor, lang):
    w = WORDS[lang]
    page, run = deal_until(visitor, lang, w["parlee101"], lambda v: v.get("legal_calls") in (
        ["double", "pass"], ["redouble", "pass"]), per_context=50)
    page.set_viewport_size({"width": 360, "height": 740})
    page.evaluate("() => window.scrollTo(0, 0)")
    with page.expect_response(is_run_answer):  # the page opened again on this run: focus to the calls
        page.reload()
    first = call_group(page, lang).get_by_role("button").first
    expect(first).to_be_focused()
    page.wait_for_timeout(100)
    expect(page.locator("#scores .trump")).to_be_in_viewport(ratio=1)
    expect(first).to_be_in_viewport(ratio=1)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_muette_on_a_small_phone_shows_the_whole_hand_on_one_row(visitor, lang):
    page, run = open_free(visitor, lang, viewport={"width": 360, "height": 740})
    expect(page.locator("#hand button")).to_have_count(8)
    page.wait_for_timeout(200)
    seen = page.evaluate(OUT_OF_VIEW)
    assert not seen["out"] and seen["rows"] == 1, seen


@pytest.mark.parametrize("lang", ["nl", "en"])
def test_after_a_call_with_the_keyboard_focus_goes_to_the_hand(visitor, lang):
    w = WORDS[lang]
    page, run = open_free(visitor, lang)
    choose(page, w["parlee101"])
    for _ in range(50):  # until the player's last call closes the auction on the player's lead
        if run["status"] == "playing" and run["view"].get("legal_calls") and run["view"]["to_move"] == 0:
            buttons = call_group(page, lang).get_by_role("button")
            buttons.last.focus()  # pass, or the last trump
            with page.expect_response(is_plays_answer) as info:
                page.keyboard.press("Enter")
            run = info.value.json()
            view = run["view"]
            if run["status"] == "playing" and view["to_move"] == 0 and not view.get("legal_calls"):
                focused = page.locator("#hand button:focus")
                expect(focused).to_have_count(1)
                assert focused.get_attribute("data-card") in view["legal"], view["legal"]
                return
            if view.get("legal_calls") and view["to_move"] == 0:
                continue
        run = new_game(page, lang)
    raise AssertionError("no call closed the auction on the player's lead")


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_new_game_clears_the_old_contract_at_once(visitor, lang):
    w = WORDS[lang]
    page, run = deal_until(visitor, lang, w["parlee101"], lambda v: v.get("legal_calls") in (
        ["double", "pass"], ["redouble", "pass"]))
    old = page.locator("#scores .trump").text_content()
    naming = next(c["call"] for c in run["view"]["calls"] if c["call"] in ("C", "D", "H", "S", "NT"))
    assert w["calls"][naming] in old, old
    # what the panel says the moment "New game" is pressed, before the new run's answer comes
    unfold_choices(page)
    with page.expect_response(is_new_run):
        now = page.get_by_role("button", name=w["new_game"]).evaluate(
            "(b) => { b.click(); return document.querySelector('#scores .trump').textContent; }")
    assert w["calls"][naming] not in now, (old, now)


CHOOSING = {"fr": "atout en cours de choix", "nl": "troef wordt gekozen", "en": "trump being chosen"}
YOU_PASS = {"fr": "Vous passez", "nl": "U past", "en": "You pass"}
PASSES = {"fr": "{seat} passe", "nl": "{seat} past", "en": "{seat} passes"}


@pytest.mark.parametrize("lang", ["fr", "nl"])
def test_manillen_says_the_trump_is_being_chosen_and_a_pass_in_plain_words(visitor, lang):
    w = WORDS[lang]
    page, run = deal_until(visitor, lang, w["manillen"], lambda v: v.get("legal_calls") == [
        "C", "D", "H", "S", "NT", "pass"] and not any(c["call"] in NAMING for c in v["calls"]))
    expect(page.locator("#scores .trump")).to_contain_text(CHOOSING[lang])
    with page.expect_response(is_plays_answer) as info:
        call_group(page, lang).locator('button[data-call="pass"]').click()
    after = info.value.json()
    lines = page.locator("#log p").all_text_contents()
    assert YOU_PASS[lang] in lines, lines
    for e in after["events"]:
        if e["type"] == "call" and e["seat"] and e["call"] == "pass":
            assert PASSES[lang].format(seat=w["seats"][e["seat"]]) in lines, (e, lines)


def test_french_keeps_the_colon_with_its_word(visitor):
    page, run = open_free(visitor, "fr")  # muette: "Atout : …" in the score panel
    expect(page.locator("#scores .trump")).to_contain_text("Atout")
    assert "Atout\u00a0:" in page.locator("#scores .trump").text_content()  # no break before the colon


MUETTE_ONLY = {"fr": "Manille muette\u00a0:", "nl": "Stille manille:", "en": "Manille muette:"}


@pytest.mark.parametrize("lang", ["fr", "nl"])
def test_the_footer_does_not_say_muette_during_a_parlee_game(visitor, lang):
    w = WORDS[lang]
    page, run = open_free(visitor, lang, viewport={"width": 390, "height": 844})
    choose(page, w["parlee101"])
    new_game(page, lang)
    foot = page.locator("footer").text_content().replace(" :", "\u00a0:")
    assert not foot.strip().startswith(MUETTE_ONLY[lang]), foot
