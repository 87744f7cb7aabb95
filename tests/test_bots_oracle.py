"""The double-dummy solver and oracle-1: exact against a plain minimax, consistent, deterministic,
and never a challenge bot."""

from __future__ import annotations

import random

import pytest

from bots import BOTS, UnknownBotError, get_bot
from bots import oracle
from bots.move_order import mask_points, ordered_moves, replies
from bots.solver import OracleError, Solver
from bots.registry import MEASUREMENT_BOTS, get_challenge_bot
from cli import tournament
from cli.main import main
from service.replay import (DECK, Card, GameState, Trick, bot_move, decision_stream, dumps, legal_mask,
                            mask_of, parse_cards, play_game, simulate, verify)
from service.replay.cards import CARD_POINTS
from service.replay.record import build_record
from service.replay.rules import legal_facing
from support.positions import random_position

RANDOM = get_bot("random-1")
EXPERT = get_bot("expert-1")
ORACLE = get_bot("oracle-1")


# -- the reference: plain minimax over the engine's own rules (no pruning, no table) -------------


def _brute_team0(hands: list[int], trick: Trick) -> int:
    """Team 0's points from ``trick`` (in progress) to the end of the deal, by plain minimax."""
    if trick.is_complete:
        last = not any(hands)
        winner = trick.winner
        gain = 0 if winner & 1 else trick.points(last)
        return gain if last else gain + _brute_team0(hands, Trick(winner, trick.trump))
    seat = trick.next_seat
    legal = legal_mask(hands[seat], trick, seat)
    values = []
    for c in range(32):
        if legal >> c & 1:
            hands[seat] ^= 1 << c
            values.append(_brute_team0(hands, trick.play(DECK[c])))
            hands[seat] ^= 1 << c
    return max(values) if seat % 2 == 0 else min(values)


def brute_values(hands: list[int], trick: Trick) -> dict[Card, int]:
    """Each legal card of the seat to move -> the points its team takes from here on."""
    hands = list(hands)
    seat = trick.next_seat
    in_play = 0
    for h in hands:
        in_play |= h
    total = sum(CARD_POINTS[c] for c in range(32) if in_play >> c & 1) + trick.points() + 1
    out = {}
    legal = legal_mask(hands[seat], trick, seat)
    for c in range(32):
        if legal >> c & 1:
            hands[seat] ^= 1 << c
            team0 = _brute_team0(hands, trick.play(DECK[c]))
            hands[seat] ^= 1 << c
            out[DECK[c]] = team0 if seat % 2 == 0 else total - team0
    return out


def _check_exact(hands, trick, solver=None):
    expected = brute_values(hands, trick)
    best = max(expected.values())
    pos = (hands, trick)
    assert oracle.solve(pos, solver) == expected
    assert oracle.best_cards(pos, solver) == {c for c, v in expected.items() if v == best}
    assert oracle.value(pos, solver) == best


@pytest.mark.parametrize("tricks", [1, 2, 3])
def test_exact_against_plain_minimax_small(tricks):
    rng = random.Random(100 + tricks)
    for _ in range(150):
        hands, trick = random_position(rng, tricks, rng.randrange(4))
        _check_exact(hands, trick)


def test_exact_against_plain_minimax_four_tricks():
    rng = random.Random(4)
    for i in range(80):
        hands, trick = random_position(rng, 4, rng.randrange(4))
        # Every other position reuses one solver per trump: a warm table must not change anything.
        _check_exact(hands, trick, None if i % 2 else SHARED[int(trick.trump)])


SHARED = [Solver(t) for t in range(4)]


def test_exact_against_plain_minimax_five_tricks():
    rng = random.Random(5)
    for _ in range(4):
        hands, trick = random_position(rng, 5, rng.randrange(4))
        _check_exact(hands, trick)


def test_exact_on_positions_from_real_games():
    # Deals as the engine deals them, played by random-1 to the last four tricks.
    for seed in tournament.fixed_seeds(b"test-oracle-games", 25):
        state = GameState(seed)
        rng = random.Random(seed)
        stop = rng.randrange(4, 8), rng.randrange(4)
        while (state.trick_index, len(state.trick.plays)) != stop:
            bot_move(state, RANDOM)
        _check_exact(list(state.hands), state.trick)


# -- consistency where the minimax is out of reach ---------------------------------------------------


def _team_final(state: GameState, team: int, deal: int) -> int | None:
    """Team ``team``'s points at the end of deal ``deal`` if it is over in ``state``."""
    if state.deal_index > deal or state.is_over:
        return state.deals[deal].points[team]
    return None


def test_values_agree_with_the_values_of_the_children():
    # value == max of the card values; and the value of each card is what its team ends the deal
    # with after it, minus what it had: banked + value(card) = banked' + value from the child.
    for seed in tournament.fixed_seeds(b"test-oracle-children", 6):
        state = GameState(seed)
        rng = random.Random(seed)
        stop = rng.randrange(3, 8), rng.randrange(4)
        while (state.trick_index, len(state.trick.plays)) != stop:
            bot_move(state, EXPERT)
        values = oracle.solve(state)
        assert set(values) == set(state.legal_cards())
        assert oracle.value(state) == max(values.values())
        assert oracle.best_cards(state) == {c for c, v in values.items() if v == max(values.values())}
        team, deal = state.current_player & 1, state.deal_index
        for card, v in values.items():
            child = state.clone()
            child.apply(card)
            final = _team_final(child, team, deal)
            if final is None:
                rest = oracle.value(child)
                if child.current_player & 1 != team:
                    in_play = sum(child.hands) | mask_of(p.card for p in child.trick.plays)
                    rest = mask_points(in_play) + 1 - rest
                final = child.points[team] + rest
            assert state.points[team] + v == final, (str(card), v)


def test_deep_positions_are_consistent():
    # From the second trick (28 cards): the card values, the best set and the value agree.
    for seed in tournament.fixed_seeds(b"test-oracle-deep", 2):
        state = GameState(seed)
        while state.trick_index < 1 or len(state.trick.plays) < 1:
            bot_move(state, EXPERT)
        values = oracle.solve(state)
        best = max(values.values())
        assert oracle.value(state) == best
        assert oracle.best_cards(state) == {c for c, v in values.items() if v == best}


# -- scripted positions (trump hearts unless said) ----------------------------------------------------


def _position(hands: dict[int, str], trick: str = "", leader: int | None = None, trump: str = "H"):
    """Hands in card notation by seat; the trick in progress as "seat:card ..." in playing order."""
    masks = [mask_of(parse_cards(hands.get(s, ""))) for s in range(4)]
    plays = [p.split(":") for p in trick.split()]
    t = Trick(int(plays[0][0]) if plays else leader, "CDHS".index(trump))
    for _, c in plays:
        t = t.play(Card.parse(c))
    return masks, t


def _values(pos) -> dict[str, int]:
    return {str(c): v for c, v in oracle.solve(pos).items()}


def test_only_one_card_keeps_the_manille():
    # Seat 1 led AC; seat 0, void in clubs and trumps, may throw TS or 7D.  Throwing TS gives it to
    # seat 1 now; keeping it, seat 2 trumps the last trick and seat 0 loads TS on it (5 + 1).
    pos = _position({0: "TS 7D", 1: "9D", 2: "7H", 3: "8D"}, "1:AC 2:7C 3:8C")
    assert _values(pos) == {"7D": 6, "TS": 1}
    assert oracle.best_cards(pos) == {Card.parse("7D")}
    assert oracle.value(pos) == 6


def test_the_last_trick_point_counts():
    # One card each: seat 0's TH takes the trick: 5 + 4 + 0 + 0 + the last-trick point.
    pos = _position({0: "TH", 1: "AS", 2: "7C", 3: "8D"}, leader=0)
    assert _values(pos) == {"TH": 10}
    # The same trick seen by seat 1 (team "them"), to move second: it takes nothing.
    pos = _position({1: "AS", 2: "7C", 3: "8D"}, "0:TH")
    assert _values(pos) == {"AS": 0}


def test_must_overtrump_and_undertrump_are_searched_as_the_rules_say():
    # Spades led by seat 2 (partner of seat 0), seat 3 trumps with the AH; seat 0, void in spades,
    # must overtrump with TH (its 9H is illegal), and it wins the trick: KS + AH + TH = 12, +1.
    pos = _position({0: "9H TH", 1: "8S 7D", 2: "QC", 3: "JD"}, "2:KS 3:AH")
    assert set(_values(pos)) == {"TH"}
    # Without the TH it must still trump (undertrump) rather than throw its diamond.
    pos = _position({0: "9H 8D", 1: "8S 7D", 2: "QC", 3: "JD"}, "2:KS 3:AH")
    assert set(_values(pos)) == {"9H"}


def test_giving_the_cheaper_card_to_the_manille():
    # Trump clubs.  Seat 0 leads from AS KS; seat 1 must beat with its TS whichever is led, and
    # seat 2 takes the last trick with a diamond.  Leading the KS loses 3 points to the TS instead
    # of 4, and the AS falls on seat 2's trick: 4 + 1 against 3 + 1.
    pos = _position({0: "AS KS", 1: "TS 7D", 2: "8D 9D", 3: "7S 8H"}, leader=0, trump="C")
    values = _values(pos)
    assert values == {"KS": 5, "AS": 4}, values
    assert oracle.best_cards(pos) == {Card.parse("KS")}


def test_equivalent_cards_share_their_value():
    # 7S 8S 9S of seat 0 are interchangeable (no card in play between them, no points).
    pos = _position({0: "7S 8S 9S", 1: "TS AS KS", 2: "7C 8C 9C", 3: "7D 8D 9D"}, leader=0)
    values = _values(pos)
    assert values["7S"] == values["8S"] == values["9S"]
    assert values == {str(c): v for c, v in brute_values(*pos).items()}


def test_replies_follow_the_engines_rules():
    # The search's fused legal-cards-and-ordering function against the engine's legal_facing.
    rng = random.Random(7)
    for _ in range(3000):
        hand = rng.getrandbits(32) & rng.getrandbits(32)
        best = rng.randrange(32)
        hand &= ~(1 << best)
        if not hand:
            continue
        led, trump = rng.randrange(4), rng.randrange(4)
        best_seat, seat = rng.randrange(4), rng.randrange(4)
        in_play = hand | rng.getrandbits(32) | 1 << best
        got = replies(hand, led, best, best_seat, seat, trump, in_play)
        want = ordered_moves(legal_facing(hand, led, best, best_seat, seat, trump), best_seat, seat, in_play)
        assert tuple(got) == tuple(want)
        legal = legal_facing(hand, led, best, best_seat, seat, trump)
        assert set(got) <= {c for c in range(32) if legal >> c & 1}


def test_bad_positions_are_refused():
    masks, trick = _position({0: "TS 7D", 1: "9D", 2: "7H", 3: "8D"}, "1:AC 2:7C 3:8C")
    with pytest.raises(OracleError):
        oracle.solve(([masks[0], masks[1] | masks[0], masks[2], masks[3]], trick))
    with pytest.raises(OracleError):
        oracle.solve(([masks[0], masks[1], masks[2], masks[3] | 1], trick))  # 7C is in the trick
    with pytest.raises(OracleError):
        oracle.solve(([masks[0], masks[1] | Card.parse("QD").bit, masks[2], masks[3]], trick))  # 2 cards


# -- oracle-1 --------------------------------------------------------------------------------------


def test_oracle_plays_the_cheapest_optimal_card():
    for seed in tournament.fixed_seeds(b"test-oracle-choice", 4):
        state = GameState(seed)
        while state.trick_index < 4:
            bot_move(state, EXPERT)
        best = oracle.best_cards(state)
        card = oracle.OracleBot().choose_open(state)
        assert card in best
        assert (card.points, card.id) == min((c.points, c.id) for c in best)


def test_oracle_is_deterministic():
    seed = tournament.tournament_seeds(1)[0]
    first = tournament.play_open(seed, (EXPERT, oracle.OracleBot(), EXPERT, oracle.OracleBot()))
    again = tournament.play_open(seed, (EXPERT, ORACLE, EXPERT, ORACLE))
    assert dumps(build_record(first, "x")) == dumps(build_record(again, "x"))
    # A warm solver (other deals, other questions first) answers as a fresh one.
    state = GameState(tournament.tournament_seeds(2)[1])
    while state.trick_index < 3:
        bot_move(state, EXPERT)
    warm = Solver(int(state.trick.trump))
    for other in tournament.fixed_seeds(b"warm-up", 3):
        s = GameState(other)
        while s.trick_index < 4:
            bot_move(s, EXPERT)
        if int(s.trick.trump) == warm.trump:
            oracle.solve(s, warm)
    assert oracle.solve(state, warm) == oracle.solve(state)


def test_play_open_without_open_bots_is_play_game():
    seed = tournament.tournament_seeds(1)[0]
    seats = (EXPERT, RANDOM, EXPERT, RANDOM)
    assert (dumps(build_record(tournament.play_open(seed, seats), "x"))
            == dumps(build_record(play_game(seed, seats), "x")))


def test_oracle_is_never_a_challenge_bot():
    assert "oracle-1" not in BOTS and "oracle-1" in MEASUREMENT_BOTS
    assert get_bot("oracle-1") is ORACLE and ORACLE.sees_all
    with pytest.raises(UnknownBotError, match="measurement"):
        get_challenge_bot("oracle-1")
    assert get_challenge_bot("expert-1") is BOTS["expert-1"]
    seed = bytes(32)
    # Everything that plays a challenge hands bots an observation: the oracle refuses it.
    with pytest.raises(OracleError, match="never be the bot of a challenge"):
        simulate(seed, ORACLE)
    with pytest.raises(OracleError):
        verify(seed, [], ORACLE)
    state = GameState(seed)
    with pytest.raises(OracleError):
        ORACLE.choose(state.observation(state.current_player),
                      decision_stream(seed, 0, state.current_player, 0))


def test_tournament_cli_accepts_the_oracle(capsys):
    import json

    assert main(["tournament", "--a", "expert-1", "--b", "oracle-1", "--games", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["b"] == "oracle-1" and out["decisions"]["oracle-1"] > 0 and out["decisions"]["expert-1"] > 0


def test_card_value_is_the_solved_value():
    rng = random.Random(9)
    for _ in range(40):
        hands, trick = random_position(rng, rng.randrange(1, 4), rng.randrange(4))
        values = oracle.solve((hands, trick))
        for card, v in values.items():
            assert oracle.card_value((hands, trick), card) == v
    with pytest.raises(OracleError):
        pos = _position({0: "TS 7D", 1: "9D", 2: "7H", 3: "8D"}, "1:AC 2:7C 3:8C")
        oracle.card_value(pos, Card.parse("9D"))
