"""The test vectors of docs/variants.md (rules ``parlee-1`` and ``manillen-1``), checked against the engine.

The document is the source: every ``game …`` and ``deals …`` block in it is replayed from the
parameters on its first line and must match the engine's output line for line; the legal-card
table, the rejection table and the call-stream line are parsed and checked the same way.  So a
change to the engine, the bots, the bidders or the document makes this fail.  Run this file
(``python tests/test_variant_vectors.py 'game parlee-1 target 101 seed … bots … bidders …'``) to
print a block as the engine gives it.
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

import pytest

from bots import get_bidder, get_bot
from service.replay import (Card, GameState, SubmissionRejected, Trick, call_stream, dumps, legal_cards,
                            player_cards, simulate, verify)
from service.replay.rules import legal_facing, trump_forced

DOC = Path(__file__).resolve().parents[1] / "docs" / "variants.md"
HEADER = re.compile(r"^(game|deals) (\S+) target (\d+) seed ([0-9a-f]{64}) bots (\S+) bidders (\S+)(?: range (\d+)-(\d+))?$")


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _blocks(kind: str) -> list[tuple[str, str]]:
    """Every block of ``kind`` in the document: (its first line, its whole text up to the fence)."""
    out = []
    lines = _doc().splitlines()
    for i, line in enumerate(lines):
        if line.startswith(kind + " ") and HEADER.match(line):
            end = lines.index("```", i)
            out.append((line, "\n".join(lines[i:end])))
    return out


def _calls(d: dict) -> str:
    return " ".join(f"{c['seat']}:{c['call']}" for c in d["calls"])


def _contract(c: dict) -> str:
    return f"{c['call']} by seat {c['declarer']}, doubled {c['doubled']}, factor {c['factor']}"


def _pair(p) -> str:
    return f"{p[0]:>3} {p[1]:>3}"


def _deal_rows(deals: list[dict]) -> list[str]:
    rows = ["deal dealer  calls                             contract factor  deal factor  points   scored   totals"]
    for d in deals:
        rows.append(f"{d['index']:>4} {d['dealer']:>6}  {_calls(d):<34}{d['contract']['factor']:>15}"
                    f"{d['factor']:>13}  {_pair(d['points'])}  {_pair(d['scored'])}  {_pair(d['totals'])}")
    return rows


def _record(header: str) -> dict:
    kind, rules, target, seed, bot, bidder, *_ = HEADER.match(header).groups()
    return simulate(seed, get_bot(bot), rules=rules, target=int(target), bidder=get_bidder(bidder))


def render(header: str) -> str:
    """The block the engine gives for ``header`` (a ``game …`` or ``deals …`` line)."""
    kind, *_, first, last = HEADER.match(header).groups()
    record = _record(header)
    lines = [header]
    if kind == "deals":
        lines += _deal_rows(record["deals"][int(first):int(last) + 1])
        return "\n".join(lines)
    d0 = record["deals"][0]
    t0 = d0["tricks"][0]
    lines.append(f"first dealer {d0['dealer']}")
    lines.append("deal 0 hands as dealt")
    lines += [f"  seat {s}  {' '.join(d0['hands'][str(s)])}" for s in range(4)]
    lines.append(f"deal 0 auction   {_calls(d0)}")
    lines.append(f"deal 0 contract  {_contract(d0['contract'])}")
    plays = " ".join(f"{p['seat']}:{p['card']}" for p in t0["plays"])
    lines.append(f"deal 0 trick 0   leader {t0['leader']}; {plays}; winner {t0['winner']}; points {t0['points']}")
    lines.append("  legal          " + " | ".join(f"{p['seat']}: {' '.join(p['legal'])}" for p in t0["plays"]))
    lines += _deal_rows(record["deals"])
    actions = player_cards(record)
    lines.append(f"seat 0's actions ({len(actions)}), deal by deal")
    for d in record["deals"]:
        one = player_cards({"deals": [d]})
        lines.append(f"  {d['index']:>2}: {' '.join(one)}")
    lines.append(f"result  totals {record['totals']}, winner {record['winner']}, rank_score {record['rank_score']}, "
                 f"{len(record['deals'])} deals")
    lines.append(f"record  SHA-256 {hashlib.sha256(dumps(record).encode()).hexdigest()}")
    return "\n".join(lines)


GAME_BLOCKS = _blocks("game")
DEAL_BLOCKS = _blocks("deals")


def test_the_document_has_the_vectors_the_brief_asks_for():
    headers = [h for h, _ in GAME_BLOCKS]
    for rules in ("parlee-1", "manillen-1"):
        for seed in ("00" * 32, "ff" * 32):
            assert any(f"game {rules} " in h and seed in h and "bots greedy-1 bidders bidder-1" in h
                       for h in headers), (rules, seed)
    assert len(DEAL_BLOCKS) >= 2 and len(LEGAL_ROWS) >= 6 and len(REJECTION_ROWS) >= 6


@pytest.mark.parametrize("header,block", GAME_BLOCKS + DEAL_BLOCKS, ids=[h[:40] for h, _ in GAME_BLOCKS + DEAL_BLOCKS])
def test_block_is_what_the_engine_gives(header, block):
    assert render(header) == block


@pytest.mark.parametrize("header,block", GAME_BLOCKS, ids=[h[:40] for h, _ in GAME_BLOCKS])
def test_seat_0s_actions_replay_to_the_same_record(header, block):
    kind, rules, target, seed, bot, bidder, *_ = HEADER.match(header).groups()
    record = _record(header)
    again = verify(seed, player_cards(record), get_bot(bot), rules=rules, target=int(target),
                   bidder=get_bidder(bidder))
    assert dumps(again) == dumps(record)


def _table(head: str) -> list[list[str]]:
    """The rows of the document's table whose header row starts with ``head``, cells stripped of backticks."""
    lines = _doc().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(head)), None)
    rows = []
    if start is None:
        return rows
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip().replace("`", "") for c in line.strip().strip("|").split("|")])
    return rows


LEGAL_ROWS = _table("| # | trump | trick so far |")


@pytest.mark.parametrize("row", LEGAL_ROWS, ids=[r[0] for r in LEGAL_ROWS])
def test_legal_card_table(row):
    _, trump, trick_text, hand, muette, manillen = row[:6]
    trump = None if trump == "none" else "CDHS".index(trump)
    plays = [p.split(":") for p in trick_text.split()]
    trick = Trick(int(plays[0][0]), trump)
    for seat, card in plays:
        assert int(seat) == trick.next_seat
        trick = trick.play(Card.parse(card))
    assert trick.next_seat == 0
    cards = [Card.parse(c) for c in hand.split()]
    for facing, want in ((legal_facing, muette), (trump_forced, manillen)):
        assert " ".join(map(str, legal_cards(cards, trick, 0, facing))) == want


REJECTION_ROWS = _table("| rules | seed | submission | code |")


@pytest.mark.parametrize("row", REJECTION_ROWS, ids=[f"{r[0]}-{r[2]}" for r in REJECTION_ROWS])
def test_rejection_table(row):
    rules, seed, submission, code, index, deal, trick, legal = row[:8]
    seed = seed[:2] * 32
    with pytest.raises(SubmissionRejected) as info:
        verify(seed, submission.split() if submission != "(empty)" else [], get_bot("greedy-1"),
               rules=rules, bidder=get_bidder("bidder-1"))
    r = info.value.rejection
    none = lambda v: None if v == "null" else int(v)  # noqa: E731
    assert (r.code, r.index, r.deal, r.trick) == (code, none(index), none(deal), none(trick))
    assert (" ".join(r.legal) if r.legal is not None else "null") == legal


def test_call_stream_line():
    m = re.search(r"call stream seed ([0-9a-f]{64}) deal (\d+) seat (\d+) call (\d+) first values u: ([\d ]+)", _doc())
    seed, deal, seat, call, values = m.groups()
    stream = call_stream(bytes.fromhex(seed), int(deal), int(seat), int(call))
    assert [stream.next_u32() for _ in values.split()] == [int(v) for v in values.split()]


def test_the_30_30_carry_doubles_per_tie_and_drops_the_tied_deals_own_factor():
    """The rule the ``deals`` blocks show, on the engine directly: the factor of the deal after a
    run of ties is its contract's × 2 per tie, whatever the tied deals' contracts were."""
    for header, _ in DEAL_BLOCKS:
        record = _record(header)
        carry = 1
        for d in record["deals"]:
            assert d["factor"] == d["contract"]["factor"] * carry
            carry = carry * 2 if d["points"] == [30, 30] else 1
    state = GameState("00" * 32, "parlee-1")
    assert state.carry == 1 and state.factor == 1


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(render(arg))
        print()
