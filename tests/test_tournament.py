"""``manille tournament``: seeds, pairing, statistics and the JSON shape."""

from __future__ import annotations

import json

import pytest

from bots import get_bot
from cli import tournament
from cli.main import main


def test_json_shape(capsys):
    assert main(["tournament", "--a", "expert-1", "--b", "random-1", "--games", "4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 4 and out["seeds"] == 2 and 0 <= out["a_wins"] <= 4
    assert out["a_win_rate"] == out["a_wins"] / 4
    lo, hi = out["a_win_rate_ci"]
    assert 0 <= lo <= out["a_win_rate"] <= hi <= 1
    assert out["a_mean_rank_score"] == pytest.approx(1000 + 10 * out["a_mean_margin"])
    assert set(out["ms_per_decision"]) == {"expert-1", "random-1"}
    assert all(v > 0 for v in out["ms_per_decision"].values())


def test_text_report(capsys):
    assert main(["tournament", "--a", "greedy-1", "--b", "random-1", "--games", "2"]) == 0
    text = capsys.readouterr().out
    assert "greedy-1" in text and "95% CI" in text and "ms per decision" in text


def test_games_must_be_even(capsys):
    assert main(["tournament", "--a", "greedy-1", "--b", "random-1", "--games", "3"]) == 2
    assert "even" in capsys.readouterr().err


def test_unknown_bot(capsys):
    assert main(["tournament", "--a", "expert-9", "--b", "random-1", "--games", "2"]) == 2


def test_swapped_teams_are_symmetric():
    # The same bot on both sides: every seed's two games are mirror images, so margins cancel.
    r = tournament.run(get_bot("greedy-1"), get_bot("greedy-1"), 6)
    assert r["a_mean_margin"] == 0 and r["a_wins"] == 3


def test_seeds_are_fixed():
    assert tournament.tournament_seeds(2)[1].hex() == tournament.tournament_seeds(3)[1].hex()
    assert len(set(tournament.tournament_seeds(50))) == 50


def test_wilson_interval():
    lo, hi = tournament.wilson(95, 100)
    assert lo == pytest.approx(0.888, abs=1e-3) and hi == pytest.approx(0.978, abs=1e-3)
