"""The ``manille`` command line, run as a real process."""

import json
import os
import subprocess
import sys
from datetime import date

import pytest

from service.seeds import commitment, daily_seed

ZERO = "00" * 32
DAILY = "09d0c18d40299c512c53d937b31930b11ad63a6749d57da7d28cfc7c2175db76"


def manille(*args, stdin=None, env=None):
    return subprocess.run([sys.executable, "-m", "cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def zero_record():
    out = manille("simulate", "--seed", ZERO, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def cards_of(record):
    return [p["card"] for d in record["deals"] for t in d["tricks"] for p in t["plays"] if p["seat"] == 0]


def test_simulate_is_byte_identical_across_processes(zero_record):
    again = manille("simulate", "--seed", ZERO, "--json")
    assert json.loads(again.stdout) == zero_record
    assert again.stdout == manille("simulate", "--seed", ZERO, "--json").stdout


def test_simulate_summary_and_player_bot():
    out = manille("simulate", "--seed", ZERO, "--player-bot", "random-1")
    assert out.returncode == 0 and out.stdout.startswith("valid:") and "rank score" in out.stdout


def test_verify_valid(zero_record):
    cards = " ".join(cards_of(zero_record))
    out = manille("verify", "--seed", ZERO, "--cards", cards, "--json")
    assert out.returncode == 0 and json.loads(out.stdout) == zero_record
    out = manille("verify", "--seed", ZERO, "--cards", cards)
    assert out.returncode == 0 and f"rank score {zero_record['rank_score']}" in out.stdout


def test_verify_rejected(zero_record):
    cards = ["AH"] + cards_of(zero_record)[1:]
    out = manille("verify", "--seed", ZERO, "--cards", " ".join(cards), "--json")
    assert out.returncode == 1
    rej = json.loads(out.stdout)
    assert rej["code"] == "not_in_hand" and rej["index"] == 0 and rej["deal"] == 0 and rej["legal"]
    out = manille("verify", "--seed", ZERO, "--cards", "7C zz")
    assert out.returncode == 1 and out.stdout.startswith("rejected:")


@pytest.mark.parametrize("args", [
    ("verify", "--seed", "abc", "--cards", "TH"),
    ("verify", "--seed", ZERO, "--cards", "TH", "--bots", "nobody-9"),
    ("simulate", "--seed", ZERO, "--bots", "nobody-9"),
    ("verify", "--seed", ZERO),
])
def test_bad_arguments_exit_2_with_a_message(args):
    out = manille(*args)
    assert out.returncode == 2 and out.stderr.startswith("manille: error:") and "Traceback" not in out.stderr


def test_verify_batch_from_stdin(zero_record):
    cards = cards_of(zero_record)
    lines = [
        json.dumps({"id": "a", "seed": ZERO, "cards": cards}),
        json.dumps({"id": "b", "seed": ZERO, "cards": cards[:-1]}),
        "not json",
        "",
        json.dumps({"seed": ZERO}),
        json.dumps({"seed": ZERO, "cards": cards, "bots": "nobody-9"}),
    ]
    out = manille("verify", "--batch", "-", stdin="\n".join(lines) + "\n")
    assert out.returncode == 1
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["line"] for r in results] == [1, 2, 3, 5, 6]
    assert results[0]["valid"] and results[0]["id"] == "a" and results[0]["rank_score"] == zero_record["rank_score"]
    assert "record" not in results[0]
    assert results[1]["rejection"]["code"] == "game_incomplete" and results[1]["id"] == "b"
    assert all(r["error"]["code"] == "bad_input" for r in results[2:])


def test_verify_batch_file_with_records(tmp_path, zero_record):
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps({"seed": ZERO, "cards": cards_of(zero_record)}) + "\n")
    out = manille("verify", "--batch", str(path), "--records")
    assert out.returncode == 0
    assert json.loads(out.stdout)["record"] == zero_record


#: A secret as long as a process accepts (32 bytes at least, service.seeds.MIN_SECRET_BYTES).
CLI_SECRET = "test-secret-for-the-command-line!"


def test_seed_commitment_and_reveal():
    env = {"MANILLE_SECRET": CLI_SECRET, "MANILLE_TZ": "Europe/Brussels", "MANILLE_GRACE_SECONDS": "1800"}
    out = manille("seed", "2026-12-02", env=env)
    assert out.returncode == 0
    info = json.loads(out.stdout)
    assert info["commitment"] == commitment(daily_seed(CLI_SECRET.encode(), date(2026, 12, 2)))
    assert "seed" not in info and info["closes_at"] == "2026-12-02T23:00:00+00:00"
    assert info["reveals_at"] == "2026-12-02T23:30:00+00:00"
    closed = json.loads(manille("seed", "2020-01-01", "--reveal", env=env).stdout)
    assert len(closed["seed"]) == 64
    future = manille("seed", "2999-01-01", "--reveal", env=env)
    assert future.returncode == 2 and "sealed" in future.stderr and future.stdout == ""
    assert manille("seed", "2026-12-02", env={"MANILLE_SECRET": ""}).returncode == 2
    assert manille("seed", "2026-02-30", env=env).returncode == 2
    short = manille("seed", "2026-12-02", env={"MANILLE_SECRET": "test-secret"})
    assert short.returncode == 2 and short.stdout == "" and "MANILLE_SECRET is 11 bytes long" in short.stderr


def test_seed_daily_vector_reveal_after_close():
    env = {"MANILLE_SECRET": CLI_SECRET}
    info = json.loads(manille("seed", "2026-12-01", "--reveal", env=env).stdout)
    assert len(info["seed"]) == 64
    assert manille("simulate", "--seed", DAILY).returncode == 0


def test_bench_prints_figures():
    out = manille("bench", "--games", "3", "--repeat", "1")
    assert out.returncode == 0
    assert "games/s" in out.stdout and "ms/game" in out.stdout


@pytest.mark.parametrize("rules, target", [("parlee-1", "51"), ("parlee-1", None), ("manillen-1", None)])
def test_variants_simulate_and_verify_with_rules(rules, target):
    opts = ["--rules", rules, "--bots", "greedy-1"] + (["--target", target] if target else [])
    out = manille("simulate", "--seed", ZERO, "--json", *opts)
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["rules"] == rules and record["bidders"] == "bidder-1"
    assert record["target"] == int(target or {"parlee-1": 101, "manillen-1": 21}[rules])
    assert max(record["totals"]) >= record["target"]
    from service.replay import player_cards
    actions = player_cards(record)
    ok = manille("verify", "--seed", ZERO, "--cards", " ".join(actions), "--json", *opts)
    assert ok.returncode == 0 and json.loads(ok.stdout) == record
    # The same actions under muette-1 are not a game.
    bad = manille("verify", "--seed", ZERO, "--cards", " ".join(actions), "--bots", "greedy-1")
    assert bad.returncode == 1 and bad.stdout.startswith("rejected:")


@pytest.mark.parametrize("args", [["--rules", "parlee-2"], ["--rules", "manillen-1", "--target", "101"],
                                  ["--rules", "parlee-1", "--bidder", "nobody"]])
def test_bad_rules_options_exit_2_naming_what_is_allowed(args):
    out = manille("simulate", "--seed", ZERO, *args)
    assert out.returncode == 2 and "manille: error" in out.stderr
    assert any(word in out.stderr for word in ("muette-1", "21", "bidder-1"))
