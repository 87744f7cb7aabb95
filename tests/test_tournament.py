"""``manille tournament``: seeds, pairing, statistics and the JSON shape."""

from __future__ import annotations

import json

import pytest

from bots import get_bidder, get_bot
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


def test_pairs_lists_each_seeds_margin_in_seed_order():
    """``pairs``: one mean margin a seed, the same seeds' as a shorter run, averaging to the margin."""
    a, b = get_bot("greedy-1"), get_bot("random-1")
    r = tournament.run(a, b, 8, pairs=True)
    got = r["a_pair_margins"]
    assert len(got) == 4 and sum(got) / 4 == pytest.approx(r["a_mean_margin"]) and len(set(got)) > 1
    assert tournament.run(a, b, 4, pairs=True)["a_pair_margins"] == got[:2]
    assert "a_pair_margins" not in tournament.run(a, b, 4)


def test_seeds_are_fixed():
    assert tournament.tournament_seeds(2)[1].hex() == tournament.tournament_seeds(3)[1].hex()
    assert len(set(tournament.tournament_seeds(50))) == 50


def test_wilson_interval():
    lo, hi = tournament.wilson(95, 100)
    assert lo == pytest.approx(0.888, abs=1e-3) and hi == pytest.approx(0.978, abs=1e-3)


# -- rules with an auction ---------------------------------------------------------------------

def test_rules_output_names_the_rules_target_and_both_bidders(capsys):
    assert main(["tournament", "--a", "greedy-1", "--b", "greedy-1", "--rules", "parlee-1", "--target", "51",
                 "--bidder-b", "random-bidder-1", "--games", "4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["rules"], out["target"], out["bidder_a"], out["bidder_b"]) == (
        "parlee-1", 51, "bidder-1", "random-bidder-1")
    assert out["games"] == 4 and out["deals"] >= 4


def test_rules_text_report_names_the_bidders(capsys):
    assert main(["tournament", "--a", "greedy-1", "--b", "random-1", "--rules", "manillen-1", "--games", "2"]) == 0
    assert "rules manillen-1, game to 21; bidders A = bidder-1, B = bidder-1" in capsys.readouterr().out


def test_muette_output_has_no_rules_keys(capsys):
    assert main(["tournament", "--a", "greedy-1", "--b", "random-1", "--games", "2", "--json"]) == 0
    assert not {"rules", "target", "bidder_a", "bidder_b", "seed_tag"} & set(json.loads(capsys.readouterr().out))


def test_same_bots_and_bidders_under_an_auction_are_symmetric():
    bidder = get_bidder("longest-bidder-1")
    r = tournament.run(get_bot("greedy-1"), get_bot("greedy-1"), 6, rules="manillen-1",
                       bidder_a=bidder, bidder_b=bidder)
    assert r["a_mean_margin"] == 0 and r["a_wins"] == 3


def test_the_bidder_decides_the_result_when_the_bots_are_the_same():
    # The same card bot on both teams: a team calling at random loses to one naming its longest suit.
    bot = get_bot("greedy-1")
    r = tournament.run(bot, bot, 40, rules="parlee-1", target=51, bidder_a=get_bidder("longest-bidder-1"),
                       bidder_b=get_bidder("random-bidder-1"))
    assert r["a_mean_margin"] > 0 and r["a_wins"] > 20


@pytest.mark.parametrize("argv, message", [
    (["--bidder-a", "random-bidder-1"], "muette-1 has no auction"),
    (["--rules", "parlee-1", "--target", "40"], "parlee-1 plays to 101 or 51, not 40"),
    (["--rules", "manillen-1", "--bidder-b", "nobody-1"], "unknown bidder 'nobody-1'"),
])
def test_bad_rules_arguments_exit_2_with_the_reason(capsys, argv, message):
    assert main(["tournament", "--a", "greedy-1", "--b", "random-1", "--games", "2", *argv]) == 2
    assert message in capsys.readouterr().err


def test_oracle_refuses_rules_other_than_muette(capsys):
    assert main(["tournament", "--a", "oracle-1", "--b", "greedy-1", "--rules", "parlee-1", "--games", "2"]) == 2
    assert "oracle-1 plays muette-1 only, not parlee-1" in capsys.readouterr().err


def test_a_seed_tag_plays_other_seeds(capsys):
    assert tournament.tournament_seeds(3, b"bidder-tuning") != tournament.tournament_seeds(3)
    assert main(["tournament", "--a", "greedy-1", "--b", "random-1", "--games", "2", "--seed-tag", "x",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seed_tag"] == "x"
