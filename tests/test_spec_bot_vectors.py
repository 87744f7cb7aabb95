"""The day's bot's first decisions of a seed, as docs/spec.md §12.5 quotes them: a port of the
searching bots agrees with the reference when it plays these cards.  Computed here and held in a
golden file, so any change of the bots' play fails this test (MANILLE_REGEN_GOLDEN=1 rewrites the
file, which a frozen bot id never needs)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from bots import get_bot
from service.config import DEFAULT_BOTS
from service.replay import dumps, simulate

GOLDEN = Path(__file__).parent / "golden" / "expert-5_first-decisions.txt"
SPEC = Path(__file__).parent.parent / "docs" / "spec.md"
SEEDS = ("00" * 32, "ff" * 32)


def vectors(bot_id: str = "expert-5") -> str:
    """For each seed: ``random-1`` in seat 0 (a player whose cards are a stream's), ``bot_id`` in
    seats 1–3; deal 0 trick by trick (seat:card in play order), the result and the record's SHA-256."""
    out = []
    for seed in SEEDS:
        record = simulate(seed, get_bot(bot_id), get_bot("random-1"))
        deal = record["deals"][0]
        out.append(f"seed {seed[:8]}…, {bot_id} in seats 1-3, random-1 in seat 0; "
                   f"deal 0: dealer {deal['dealer']}, turned {deal['turned']}")
        for t, trick in enumerate(deal["tricks"]):
            out.append(f"  trick {t}  " + " ".join(f"{p['seat']}:{p['card']}" for p in trick["plays"]))
        out.append(f"  totals {record['totals']}  rank_score {record['rank_score']}  deals {len(record['deals'])}")
        out.append(f"  record SHA-256 {hashlib.sha256(dumps(record).encode()).hexdigest()}")
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def computed() -> str:
    return vectors()


def test_the_days_bot_plays_its_golden_first_decisions(computed):
    if os.environ.get("MANILLE_REGEN_GOLDEN"):
        GOLDEN.write_text(computed)
    assert computed == GOLDEN.read_text()


def test_the_spec_quotes_the_vectors_and_names_the_days_bot(computed):
    spec = SPEC.read_text()
    assert computed in spec, "docs/spec.md §12.5 must quote tests/golden/expert-5_first-decisions.txt as is"
    assert DEFAULT_BOTS == "expert-5" and "`expert-5` deals every new day" in spec
