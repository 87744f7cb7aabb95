"""The replay verifier: records, rejections naming the first faulty card, golden playthroughs."""

import json
import os
from pathlib import Path

import pytest

from bots import get_bot
from service.replay import (FORMAT, RULES_ID, BotError, Card, GameOverError, GameState, IllegalPlayError,
                            InvalidSeedError, Obligation, SubmissionRejected, commitment_of, dumps, parse_cards, play_game,
                            player_cards, simulate, verify)

RANDOM = get_bot("random-1")
ZERO = bytes(32)
GOLDEN = Path(__file__).parent / "golden"
GOLDEN_SEEDS = {
    "zero": "00" * 32,
    "daily-2026-12-02": "09d0c18d40299c512c53d937b31930b11ad63a6749d57da7d28cfc7c2175db76",
    "ff": "ff" * 32,
}


@pytest.fixture(scope="module")
def zero_game():
    record = simulate(ZERO, RANDOM)
    return record, player_cards(record)


def rejection(seed, cards, bot=RANDOM):
    with pytest.raises(SubmissionRejected) as info:
        verify(seed, cards, bot)
    return info.value.rejection


def test_record_shape(zero_game):
    record, cards = zero_game
    assert record["format"] == FORMAT and record["rules"] == RULES_ID and record["bots"] == "random-1"
    assert record["commitment"] == commitment_of(ZERO) and record["seed"] == ZERO.hex()
    d0 = record["deals"][0]
    assert d0["index"] == 0 and d0["dealer"] == 1 and d0["turned"] == "QC" and d0["trump"] == "C"
    assert d0["hands"]["0"] == "7S 8H TS QH KC JH 8C 7C".split()
    assert len(d0["tricks"]) == 8 and d0["tricks"][0]["leader"] == 2
    for deal in record["deals"]:
        assert sum(deal["points"]) == 61
        for trick in deal["tricks"]:
            assert [p["seat"] for p in trick["plays"]] == [(trick["leader"] + i) % 4 for i in range(4)]
            for p in trick["plays"]:
                assert p["card"] in p["legal"]
    assert record["totals"] == record["deals"][-1]["totals"]
    assert max(record["totals"]) >= 40 and all(max(d["totals"]) < 40 for d in record["deals"][:-1])
    assert record["rank_score"] == 1000 + 10 * (record["totals"][0] - record["totals"][1])
    assert len(cards) == 8 * len(record["deals"])


def test_verify_accepts_its_own_record(zero_game):
    record, cards = zero_game
    assert dumps(verify(ZERO, cards, RANDOM)) == dumps(record)
    assert dumps(verify(ZERO.hex(), " ".join(cards).lower(), RANDOM)) == dumps(record)


def test_sealed_record_hides_the_seed(zero_game):
    _, cards = zero_game
    sealed = verify(ZERO, cards, RANDOM, sealed=True)
    assert sealed["seed"] is None and sealed["commitment"] == commitment_of(ZERO)
    assert ZERO.hex() not in dumps(sealed)


def test_empty_submission_is_incomplete():
    rej = rejection(ZERO, [])
    assert (rej.code, rej.index, rej.deal, rej.trick) == ("game_incomplete", 0, 0, 0)
    assert rej.legal  # what could have been played there


def test_truncated_submission_is_incomplete(zero_game):
    _, cards = zero_game
    rej = rejection(ZERO, cards[:13])
    assert (rej.code, rej.index, rej.deal, rej.trick) == ("game_incomplete", 13, 1, 5)


def test_extra_cards(zero_game):
    _, cards = zero_game
    rej = rejection(ZERO, cards + ["7C"])
    assert (rej.code, rej.index, rej.card) == ("extra_cards", len(cards), "7C")


def test_ten_thousand_cards_is_a_clear_rejection(zero_game):
    _, cards = zero_game
    rej = rejection(ZERO, cards + ["7C"] * (10_000 - len(cards)))
    assert rej.code == "extra_cards" and rej.index == len(cards)
    rej = rejection(ZERO, ["AH"] * 10_000)
    assert (rej.code, rej.index) == ("not_in_hand", 0)


@pytest.mark.parametrize("bad", ["XX", "", "1H", None, 7, ["TH"], "T" * 10_000])
def test_unknown_card(zero_game, bad):
    _, cards = zero_game
    rej = rejection(ZERO, cards[:3] + [bad] + cards[4:])
    assert (rej.code, rej.index, rej.deal, rej.trick) == ("unknown_card", 3, 0, 3)
    assert len(rej.card) <= 17 and len(rej.message) < 100  # a huge bogus item cannot bloat it
    json.dumps(rej.to_json())


class Scripted:
    """Bots that play cards written in notation, per seat, in order: scripted deals in tests."""

    id = "scripted"

    def __init__(self, **by_seat):
        self.cards = {int(k[1:]): parse_cards(v) for k, v in by_seat.items()}

    def choose(self, obs, rng):
        return self.cards[obs.seat][len(obs.tricks)]


# Deal 0 of the zero seed (docs/spec.md §12.1): trump clubs, dealer 1, seat 2 leads.
#   seat 0: 7S 8H TS QH KC JH 8C 7C     seat 2: QS JD 9S KH 7D 9C AH 9H
#   seat 1: 7H AS 9D QD TH 8S AD QC     seat 3: KD KS TD 8D JC AC JS TC
SPADES = Scripted(s2="QS", s3="KS")  # seat 3 must beat QS: KS, its only stronger spade
DIAMONDS = Scripted(s2="JD", s3="TD")  # seat 0 holds no diamond


@pytest.mark.parametrize("bots,card,code,legal", [
    (SPADES, "7S", "must_beat", ("TS",)),
    (SPADES, "8H", "must_follow_suit", ("TS",)),
    (SPADES, "AH", "not_in_hand", ("TS",)),
    (DIAMONDS, "8H", "must_trump", ("7C", "8C", "KC")),
    (DIAMONDS, "ad", "not_in_hand", ("7C", "8C", "KC")),
])
def test_first_faulty_card_on_a_scripted_deal(bots, card, code, legal):
    rej = rejection(ZERO, [card, "7C", "8C"], bots)
    assert (rej.code, rej.index, rej.deal, rej.trick, rej.card, rej.legal) == (code, 0, 0, 0, card, legal)
    assert code in rej.message


def test_fault_after_good_cards_names_its_own_index(zero_game):
    record, cards = zero_game
    # Replace the first of seat 0's cards (after index 4) that had an alternative by an illegal one.
    plays = [p for d in record["deals"] for t in d["tricks"] for p in t["plays"] if p["seat"] == 0]
    i = next(i for i, p in enumerate(plays) if i > 4 and len(p["legal"]) < 8 - (i % 8))
    hand_left = set(record["deals"][i // 8]["hands"]["0"]) - set(cards[i - i % 8:i])
    illegal = sorted(hand_left - set(plays[i]["legal"]))[0]
    rej = rejection(ZERO, cards[:i] + [illegal] + cards[i + 1:])
    assert (rej.index, rej.deal, rej.trick) == (i, i // 8, i % 8)
    assert rej.code in {"must_follow_suit", "must_beat", "must_trump", "must_overtrump"}
    assert list(rej.legal) == plays[i]["legal"]


def test_bad_seed_is_typed():
    with pytest.raises(InvalidSeedError):
        verify("nothex", [], RANDOM)


def test_non_list_submission_is_rejected():
    assert rejection(ZERO, 12345).code == "malformed"


def test_state_apply_is_checked():
    state = GameState(ZERO)
    assert state.current_player == 2
    state.apply(Card.parse("QS"))  # seat 2 leads
    with pytest.raises(IllegalPlayError) as info:
        state.apply(Card.parse("7C"))  # seat 3 has no 7C
    assert info.value.obligation is Obligation.NOT_IN_HAND
    assert state.current_player == 3  # nothing changed


def test_clone_is_independent():
    state = GameState(ZERO)
    other = state.clone()
    other.apply(other.legal_cards()[0])
    assert state.current_player == 2 and other.current_player == 3
    assert state.hand(2) != other.hand(2)


def test_game_over_refuses_cards(zero_game):
    state = play_game(ZERO, [RANDOM] * 4)
    assert state.is_over and state.current_player is None and state.legal_cards() == ()
    with pytest.raises(GameOverError):
        state.apply(Card.parse("7C"))


class _Cheater:
    id = "cheater-0"

    def choose(self, obs, rng):
        return Card.parse("TS") if not obs.hand_mask & Card.parse("TS").bit else obs.legal[0]


def test_illegal_bot_is_a_bot_error_not_a_rejection():
    with pytest.raises(BotError):
        play_game(ZERO, [_Cheater()] * 4)


@pytest.mark.parametrize("name", sorted(GOLDEN_SEEDS))
def test_golden_playthrough(name):
    """Same seed, same bot: byte-identical records forever.  MANILLE_REGEN_GOLDEN=1 rewrites them."""
    seed = GOLDEN_SEEDS[name]
    text = json.dumps(simulate(seed, RANDOM), indent=1) + "\n"
    path = GOLDEN / f"random-1_{name}.json"
    if os.environ.get("MANILLE_REGEN_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text)
    assert text == path.read_text()
    record = json.loads(text)
    assert json.dumps(verify(seed, player_cards(record), RANDOM), indent=1) + "\n" == text
