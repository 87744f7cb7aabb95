"""``manille play``: the line protocol, driven through a real process as an outside program would."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SEED = "5a" * 32
CMD = [sys.executable, "-m", "cli"]


def _drive(seats: str, answer, bots: str = "expert-1"):
    """Run ``manille play``, answering each observation with ``answer(obs)``; returns (lines, rc, stderr)."""
    proc = subprocess.Popen(CMD + ["play", "--seed", SEED, "--seats", seats, "--bots", bots],
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


@pytest.mark.parametrize("args", [["--seats", "4"], ["--seats", "0,0"], ["--seats", "x"], ["--bots", "nobody"]])
def test_bad_arguments_exit_2(args):
    proc = subprocess.run(CMD + ["play", "--seed", SEED] + args, input="", capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and "manille: error" in proc.stderr
