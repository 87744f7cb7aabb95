"""Free play of each variant through the page: pick it in the radio group, deal, call when the
page offers the server's legal calls as buttons, play legal cards until the end screen; every call
of the bots, each contract and the player's own calls are announced in the live region."""

from __future__ import annotations

import json
import random
import re

import pytest
from playwright.sync_api import expect

from support.web_helpers import (Game, enabled_cards, is_plays_answer, is_run_answer, play_again_button, play_one,
                         watch_play_requests)

SEATS = ["You", "West", "North", "East"]
CALLS = {"C": "Clubs", "D": "Diamonds", "H": "Hearts", "S": "Spades", "NT": "No trump", "pass": "Pass",
         "double": "Double", "redouble": "Redouble"}

#: Every line the live region is given, kept beyond its last 40 (what a screen reader hears).
COLLECT_LOG = """() => {
  window.__said = [];
  const log = document.getElementById('log');
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) window.__said.push(n.textContent);
  }).observe(log, { childList: true });
}"""


def call_group(page):
    return page.get_by_role("group", name="Your call")


@pytest.mark.parametrize("label, rules, target", [
    ("Silent manille", "muette-1", None), ("Manille with bidding, to 101", "parlee-1", 101),
    ("Manille with bidding, to 51", "parlee-1", 51), ("Flemish manillen", "manillen-1", 21)])
def test_a_whole_game_of_each_variant_from_the_picker(visitor, label, rules, target):
    page = visitor()
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST"):
        page.goto("/free?lang=en&speed=instant")  # the saved (default: muette) variant starts at once
    page.evaluate(COLLECT_LOG)
    radio = page.get_by_role("radio", name=re.compile("^" + re.escape(label)))
    radio.check()
    expect(radio).to_be_checked()
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST") as info:
        page.get_by_role("button", name="New game").click()
    run = info.value.json()
    assert info.value.status == 201 and run["rules"] == rules and run.get("target", 40 if rules == "muette-1"
                                                                        else None) == (target or 40), run
    sent = json.loads(info.value.request.post_data)
    assert sent.get("rules", "muette-1") == rules

    game = Game()
    watch_play_requests(page, game)
    answers, my_calls = [run], []
    rng = random.Random(7)
    for _ in range(600):
        last = answers[-1]
        if last["status"] == "finished":
            break
        if last["view"].get("legal_calls"):
            group = call_group(page)
            expect(group).to_be_visible()
            shown = [b.get_attribute("data-call") for b in group.get_by_role("button").all()]
            assert shown == last["view"]["legal_calls"], (shown, last["view"])  # the server's, as they are
            expect(enabled_cards(page)).to_have_count(0)  # no card may be played during the auction
            call = rng.choice(shown)
            with page.expect_response(is_plays_answer) as info:
                group.locator(f'button[data-call="{call}"]').click()
            assert info.value.status == 200, info.value.text()
            assert json.loads(info.value.request.post_data) == {"turn": last["turn"], "call": call}
            my_calls.append(call)
            answers.append(info.value.json())
            if not answers[-1]["view"].get("legal_calls"):
                expect(call_group(page)).to_be_hidden()
        else:
            answers.append(play_one(page, game, "mouse", choose=rng.choice))
    else:
        raise AssertionError("the game did not end")
    expect(play_again_button(page)).to_be_visible(timeout=15_000)

    said = page.evaluate("() => window.__said")
    events = [e for a in answers for e in a["events"]]
    if rules == "muette-1":
        assert not [e for e in events if e["type"] in ("call", "contract")] and not my_calls
        assert any(line.startswith("Deal 1:") and "turn" in line for line in said), said[:5]
        return
    bot_calls = [e for e in events if e["type"] == "call" and e["seat"] != 0]
    contracts = [e for e in events if e["type"] == "contract"]
    assert len(contracts) == len(answers[-1]["view"]["deals"]), (contracts, answers[-1]["view"])
    for deal in range(len(contracts)):
        calls = [e for e in events if e["type"] == "call" and e["deal"] == deal]
        assert calls, deal
        # under manillen a choice by the first seat to speak ends the auction: if that seat is the player's,
        # no bot speaks in that deal (the free game's seed is random, so this happens now and then)
        player_ended_it = rules == "manillen-1" and calls[0]["seat"] == 0 and calls[0]["call"] != "pass"
        assert player_ended_it or [e for e in calls if e["seat"] != 0], (deal, calls)
    for e in bot_calls:  # a pass in plain words: "East passes"
        line = f"{SEATS[e['seat']]} passes" if e["call"] == "pass" else f"{SEATS[e['seat']]} says {CALLS[e['call']]}"
        assert line in said, (e, said)
    for call in my_calls:
        assert ("You pass" if call == "pass" else f"You say {CALLS[call]}") in said, (call, said)
    contract_lines = [line for line in said if line.startswith("Contract: ")]
    assert len(contract_lines) == len(contracts), (contract_lines, contracts)
    for line, e in zip(contract_lines, contracts):
        words = CALLS[e["contract"]["call"]]
        by = "named" if rules == "parlee-1" else "chosen"  # the parlée dealer names; manillen's seats choose
        assert line.startswith(f"Contract: {words}, {by} by "), (line, e)
        if e["factor"] > 1:
            assert f"×{e['factor']}" in line, (line, e)
    if rules == "parlee-1":  # the parlée declarer is the dealer: the player names when it deals, and is first
        for e in contracts:  # to answer when it sits after the dealer (seat 3); elsewhere it may never speak
            if e["contract"]["declarer"] in (0, 3):
                assert [c for c in events if c["type"] == "call" and c["deal"] == e["deal"] and c["seat"] == 0], e
    # the contract of the deal in play, or the last one, is on the scoreboard
    expect(page.locator("#scores .trump")).to_contain_text(re.compile("(named|chosen) by"))
