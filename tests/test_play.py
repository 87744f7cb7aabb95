"""``manille play``: the line protocol, driven through a real process as an outside program would."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SEED = "5a" * 32
CMD = [sys.executable, "-m", "cli"]


def _drive(seats: str, answer, bots: str = "expert-1", extra=()):
    """Run ``manille play``, answering each observation with ``answer(obs)``; returns (lines, rc, stderr)."""
    proc = subprocess.Popen(CMD + ["play", "--seed", SEED, "--seats", seats, "--bots", bots, *extra],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    for line in proc.stdout:
        msg = json.loads(line)
        lines.append(msg)
        if msg["type"] == "observation":
            proc.stdin.write(answer(msg) + "\n")
            proc.stdin.flush()
    proc.stdin.close()
    err = proc.stderr.read()
    return lines, proc.wait(timeout=60), err


def test_seat_0_game_matches_the_verifier():
    # Answer a different legal card each time (from the observation alone), then check that
    # the record printed equals what `manille verify` replays from the same cards.
    turn = iter(range(10_000))
    lines, rc, err = _drive("0", lambda obs: obs["legal"][next(turn) % len(obs["legal"])])
    assert rc == 0, err
    observations = [m for m in lines if m["type"] == "observation"]
    assert lines[-1]["type"] == "record" and len(observations) == len(lines) - 1
    assert all(o["seat"] == 0 and o["legal"] and set(o["legal"]) <= set(o["hand"]) for o in observations)
    record = lines[-1]["record"]
    cards = [p["card"] for d in record["deals"] for t in d["tricks"] for p in t["plays"] if p["seat"] == 0]
    assert len(cards) == len(observations)
    out = subprocess.run(CMD + ["verify", "--seed", SEED, "--cards", " ".join(cards), "--bots", "expert-1",
                                "--json"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == record
    assert record["bots"] == "expert-1"


def test_two_seats_from_outside():
    lines, rc, err = _drive("0,2", lambda obs: obs["legal"][-1], bots="greedy-1")
    assert rc == 0, err
    seats = {m["seat"] for m in lines if m["type"] == "observation"}
    assert seats == {0, 2}
    # An observation never shows another seat's hand: only the seat's own cards are listed.
    record = lines[-1]["record"]
    first = next(m for m in lines if m["type"] == "observation" and m["seat"] == 2)
    assert set(first["hand"]) <= set(record["deals"][0]["hands"]["2"])


@pytest.mark.parametrize("answer, code", [
    ("KD", None),  # filled in below: a card in no legal set of the first observation
    ("garbage", "unknown_card"),
    ("", "unknown_card"),
])
def test_bad_answer_ends_the_game_with_a_clear_error(answer, code):
    def reply(obs):
        if answer == "KD":  # a card not in hand
            return next(c for c in ("7C", "8C", "9C", "JC", "QC", "KC", "AC", "TC") if c not in obs["hand"])
        return answer
    lines, rc, err = _drive("0", reply)
    assert rc == 1
    error = lines[-1]
    assert error["type"] == "error" and error["seat"] == 0 and error["deal"] == 0 and error["trick"] == 0
    assert error["code"] == (code or "not_in_hand")
    assert error["legal"] and error["message"] and "manille: play:" in err


def test_illegal_card_names_the_obligation():
    # Answer a card that is in hand but not legal whenever there is one; the error names the rule.
    def reply(obs):
        bad = [c for c in obs["hand"] if c not in obs["legal"]]
        return bad[0] if bad else obs["legal"][0]
    lines, rc, err = _drive("0", reply)
    assert rc == 1
    error = lines[-1]
    assert error["code"] in {"must_follow_suit", "must_beat", "must_trump", "must_overtrump"}
    assert error["answer"] not in error["legal"]
    assert error["code"] in err


def test_no_answer_at_end_of_input():
    proc = subprocess.run(CMD + ["play", "--seed", SEED, "--seats", "0"], input="", capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1
    assert json.loads(proc.stdout.splitlines()[-1])["code"] == "no_answer"


@pytest.mark.parametrize("rules", ["parlee-1", "manillen-1"])
def test_a_variant_game_asks_for_calls_then_cards_and_verifies(rules):
    # Seats 0 and 2 from outside: a call when the observation lists legal calls, else a card.
    turn = iter(range(10_000))

    def reply(obs):
        options = obs["legal_calls"] or obs["legal"]
        return options[next(turn) % len(options)]

    extra = ("--rules", rules, "--bidder", "random-bidder-1")
    lines, rc, err = _drive("0,2", reply, bots="greedy-1", extra=extra)
    assert rc == 0, err
    observations = [m for m in lines if m["type"] == "observation"]
    calls = [o for o in observations if o["legal_calls"]]
    assert calls and all(not o["legal"] and o["rules"] == rules for o in calls)
    record = lines[-1]["record"]
    assert record["rules"] == rules and record["bidders"] == "random-bidder-1"
    assert all(d["calls"] and d["contract"] for d in record["deals"])
    assert {o["seat"] for o in observations} == {0, 2}
    # Every call the outside seats made is in the record, in the order asked.
    said = [c["call"] for d in record["deals"] for c in d["calls"] if c["seat"] in (0, 2)]
    assert len(said) == len(calls)


def test_a_variant_seat_0_game_matches_the_verifier():
    turn = iter(range(10_000))

    def reply(obs):
        options = obs["legal_calls"] or obs["legal"]
        return options[next(turn) % len(options)]

    extra = ("--rules", "parlee-1", "--target", "51")
    lines, rc, err = _drive("0", reply, bots="greedy-1", extra=extra)
    assert rc == 0, err
    record = lines[-1]["record"]
    from service.replay import player_cards
    out = subprocess.run(CMD + ["verify", "--seed", SEED, "--cards", " ".join(player_cards(record)),
                                "--bots", "greedy-1", "--json", *extra], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == record and record["target"] == 51 and record["bidders"] == "bidder-1"


@pytest.mark.parametrize("answer, code", [("banana", "unknown_call"), ("TH", "unknown_call"), ("double", "illegal_call")])
def test_a_bad_call_ends_the_game_with_its_code(answer, code):
    # Every seat outside: the first message asks the first to speak for a call (a manillen choice).
    lines, rc, _ = _drive("0,1,2,3", lambda obs: answer, bots="greedy-1", extra=("--rules", "manillen-1"))
    assert rc == 1 and len(lines) == 2
    assert lines[0]["legal_calls"] == ["C", "D", "H", "S", "NT", "pass"]
    assert lines[1]["type"] == "error" and lines[1]["code"] == code and lines[1]["legal"] == lines[0]["legal_calls"]


@pytest.mark.parametrize("args", [["--seats", "4"], ["--seats", "0,0"], ["--seats", "x"], ["--bots", "nobody"],
                                  ["--rules", "parlee-9"], ["--rules", "parlee-1", "--target", "40"],
                                  ["--rules", "parlee-1", "--bidder", "nobody"]])
def test_bad_arguments_exit_2(args):
    proc = subprocess.run(CMD + ["play", "--seed", SEED] + args, input="", capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and "manille: error" in proc.stderr
