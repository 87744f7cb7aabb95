"""expert-2: what its inference reads from the table, that it is frozen and deterministic, and
that it is expert-1 where it does not search."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from bots import get_bot
from bots.registry import get_bidder
from bots.searching import SETTINGS, SearchingBot
from bots.inference import MissOrder, PlayModel, inferred_worlds, past_plays
from bots.knowledge import Knowledge
from bots.worlds import Constraints
from support.positions import decisions as _decisions
from support.scripted import trick_of
from service.replay import (Card, GameState, HashStream, Observation, decision_stream, legal_mask, mask_of,
                            parse_cards, player_cards, simulate)

EXPERT, EXPERT2 = get_bot("expert-1"), get_bot("expert-2")
SEARCH_FROM = 6  # expert-2 searches from six cards in hand (its row in bots.searching)
TD, AD = Card.parse("TD").id, Card.parse("AD").id


def _seeds(n: int, tag: bytes) -> list[bytes]:
    return [hashlib.sha256(tag + i.to_bytes(4, "big")).digest() for i in range(n)]


def _small_diamond_led() -> Observation:
    """Seat 3 led the seven of diamonds to the first trick; seat 0, next, holds no diamond: the
    ten and the ace of diamonds are among seats 1, 2 and 3."""
    trump = Card.parse("JH").suit
    t = trick_of("3:7D", trump, 3)
    hand = mask_of(parse_cards("KS QS JS 7S KC QC 8H 7H"))
    return Observation(seat=0, deal_index=0, dealer=2, turned=Card.parse("JH"), hand_mask=hand,
                       legal_mask=legal_mask(hand, t, 0), trick=t, tricks=(), points=(0, 0), totals=(0, 0))


def test_a_small_lead_makes_the_ten_and_ace_together_in_the_leaders_hand_rarer():
    """expert-1 cashes the ten of a side suit (the master) rather than lead small under it: deals
    where the leader of the seven held both the ten and the ace of diamonds explain its lead badly,
    and the inferred deals hold them there far less often than the uniform ones."""
    obs = _small_diamond_led()
    n = 200
    rng = HashStream(b"uniform")
    c = Constraints(Knowledge(obs))
    uniform = [c.draw(rng) for _ in range(n)]
    inferred = inferred_worlds(obs, PlayModel(EXPERT, b"test"), HashStream(b"inferred"), n, 4000, min_hand=4)
    assert len(inferred) == n and len(set(inferred)) == n

    def share(worlds, *cards):
        return sum(1 for w in worlds if all(w[3] >> card & 1 for card in cards)) / len(worlds)

    assert share(uniform, TD, AD) > 0.05  # the rules alone leave it common
    assert share(inferred, TD, AD) < share(uniform, TD, AD) / 4
    assert share(inferred, TD) < share(uniform, TD) / 2
    for w in inferred:  # every inferred deal is still a consistent one
        assert w[0] == obs.hand_mask and not (w[1] | w[2] | w[3]) & obs.hand_mask
        assert (w[1] | w[2] | w[3]).bit_count() == 23 and w[2] >> Card.parse("JH").id & 1


def test_the_true_deal_always_explains_expert_1s_own_cards():
    """Rebuilt from the observation alone, every earlier card by another seat is what expert-1,
    holding that seat's true cards then, would have played: the true deal has no miss."""
    model = PlayModel(EXPERT, b"test")
    checked = 0
    for state, obs, stream in _decisions(_seeds(3, b"expert-2-true-deal")):
        pasts = past_plays(obs, 4)
        assert model.misses(pasts, tuple(state.hands), len(pasts) + 1) == 0
        checked += len(pasts)
        state.apply(EXPERT.choose(obs, decision_stream(*stream)))
    assert checked > 1000


def test_it_is_expert_1_until_it_searches():
    """With more than SEARCH_FROM cards in hand (or six on a lead), and under rules its solver does
    not play, expert-2's card is expert-1's."""
    for state, obs, stream in _decisions(_seeds(3, b"expert-2-early")):
        size = obs.hand_mask.bit_count()
        if size > SEARCH_FROM or (size == SEARCH_FROM and not obs.trick.plays):
            assert EXPERT2.choose(obs, decision_stream(*stream)) == EXPERT.choose(obs, decision_stream(*stream))
        state.apply(EXPERT2.choose(obs, decision_stream(*stream)))
    _plays_as_expert_1_under_the_rules_with_an_auction(EXPERT2)


def _plays_as_expert_1_under_the_rules_with_an_auction(bot) -> None:
    for rules in ("parlee-1", "manillen-1"):
        seed = _seeds(1, rules.encode())[0]
        bidder = get_bidder("bidder-1")
        assert (player_cards(simulate(seed, bot, rules=rules, bidder=bidder))
                == player_cards(simulate(seed, EXPERT, rules=rules, bidder=bidder)))


#: expert-2's game of this seed, all four seats, as SHA-256 of its record: frozen behaviour.
FROZEN_SEED = hashlib.sha256(b"expert-2 frozen").digest()
FROZEN = "604c9fd00794b0a294084b781493b6af50fcdab072b8a435b0e64598854f4f66"


def _record_digest_in_a_fresh_process(bot_id: str = "expert-2", seed: bytes = FROZEN_SEED, **env) -> str:
    code = ("import hashlib,sys; from bots import get_bot; from service.replay import simulate, dumps; "
            f"print(hashlib.sha256(dumps(simulate(bytes.fromhex('{seed.hex()}'), get_bot('{bot_id}'))).encode()).hexdigest())")
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                          env=dict(os.environ, **env)).stdout.strip()


def test_the_same_game_gives_the_same_bytes_in_two_fresh_processes_and_forever():
    first, second = _record_digest_in_a_fresh_process(), _record_digest_in_a_fresh_process()
    assert first == second == FROZEN


def test_the_compiled_search_changes_no_card():
    """bots.native off (the Python search, as on a machine without a compiler): the same game."""
    assert _record_digest_in_a_fresh_process(MANILLE_NATIVE="0") == FROZEN


#: expert-3's game of this seed, all four seats: frozen behaviour too.
FROZEN3_SEED = hashlib.sha256(b"expert-3 frozen").digest()
FROZEN3 = "a0501f60b2813c610bfcaeb794ccc5862f317c340d93f1b3d1fb940e8f09b570"


@pytest.mark.slow
def test_expert_3_is_frozen_and_deterministic():
    first = _record_digest_in_a_fresh_process("expert-3", FROZEN3_SEED)
    assert first == _record_digest_in_a_fresh_process("expert-3", FROZEN3_SEED) == FROZEN3


#: expert-4's game of this seed, all four seats: frozen behaviour too.
FROZEN4_SEED = hashlib.sha256(b"expert-4 frozen").digest()
FROZEN4 = "71fd5c5b50b4a78ea731df82f3b642e4bded3b53c449df11010b53a626ed348c"


@pytest.mark.slow
def test_expert_4_is_frozen_and_deterministic_with_its_own_row():
    bot = get_bot("expert-4")
    assert isinstance(bot, SearchingBot) and bot.id == "expert-4"
    assert bot.settings == {"search_from": 8, "lead6": True, "lead8": False, "worlds8": 16, "worlds6": 48,
                            "worlds": 48, "proposals": 600, "partner_last": False}
    first = _record_digest_in_a_fresh_process("expert-4", FROZEN4_SEED)
    assert first == _record_digest_in_a_fresh_process("expert-4", FROZEN4_SEED) == FROZEN4


#: expert-5's game of this seed, all four seats: frozen behaviour too.
FROZEN5_SEED = hashlib.sha256(b"expert-5 frozen").digest()
FROZEN5 = "82e54177e299da31e6b1310e56361ce7e086dad4d9c984fc27ed9d081836813a"


@pytest.mark.slow
def test_expert_5_is_frozen_and_deterministic_with_its_own_row():
    bot = get_bot("expert-5")
    assert isinstance(bot, SearchingBot) and bot.id == "expert-5"
    assert bot.settings == {"search_from": 8, "lead6": True, "lead8": False, "worlds8": 16, "worlds6": 48,
                            "worlds": 48, "proposals": 600, "partner_last": True}
    first = _record_digest_in_a_fresh_process("expert-5", FROZEN5_SEED)
    assert first == _record_digest_in_a_fresh_process("expert-5", FROZEN5_SEED) == FROZEN5


#: expert-6's game of this seed, all four seats: frozen behaviour too.
FROZEN6_SEED = hashlib.sha256(b"expert-6 frozen").digest()
FROZEN6 = "540e289778147acd4614d3c004b0852d7df8d0b5d06bb75ebc1e8a88da39953f"


@pytest.mark.slow
def test_expert_6_is_frozen_and_deterministic_with_its_own_row():
    bot = get_bot("expert-6")
    assert isinstance(bot, SearchingBot) and bot.id == "expert-6"
    assert bot.settings == {"search_from": 8, "lead6": True, "lead8": False, "worlds8": 16, "worlds6": 48,
                            "worlds": 48, "proposals": 1200, "partner_last": True}
    first = _record_digest_in_a_fresh_process("expert-6", FROZEN6_SEED)
    assert first == _record_digest_in_a_fresh_process("expert-6", FROZEN6_SEED) == FROZEN6


def test_more_draws_keep_every_explaining_deal_fewer_draws_found_and_replace_only_the_topping_up():
    """expert-6 reads expert-5's stream of draws, further: the deals expert-5 kept that explain
    every card come first in expert-6's too, in the same order; where they were enough, the deals
    are the very same; where expert-5 topped up with deals the play contradicts, expert-6 finds
    more that explain every card at some decisions."""
    five, six = get_bot("expert-5"), get_bot("expert-6")
    model = five.model
    same = more = 0
    for state, obs, stream in _decisions(_seeds(2, b"expert-6-draws"), deals=2):
        if five.searches(obs):
            k = Knowledge(obs)
            w5 = five.worlds_for(obs, decision_stream(*stream), k)
            w6 = six.worlds_for(obs, decision_stream(*stream), k)
            pasts = past_plays(obs, five.model_from)
            explained5 = [w for w in w5 if model.misses(pasts, w, 1) == 0]
            explained6 = [w for w in w6 if model.misses(pasts, w, 1) == 0]
            assert len(w6) == len(w5) and explained6[:len(explained5)] == explained5
            if len(explained5) == len(w5):
                assert w6 == w5
                same += 1
            more += len(explained6) > len(explained5)
        state.apply(five.choose(obs, decision_stream(*stream)))
    assert same >= 3 and more >= 1


def test_reading_the_partner_last_keeps_more_deals_that_explain_the_opponents():
    """With a searching partner (its cards often not expert-1's), ``partner_last`` ranks a deal by
    the opponents' misses first: the deals it returns explain every opponent card at least as
    often as when every miss counts alike, and more often at some decisions; it draws the same
    deals, so where enough explain both it returns the very same ones."""
    model = PlayModel(EXPERT, b"test")
    bot = get_bot("expert-4")
    more = same = 0
    for state, obs, stream in _decisions(_seeds(1, b"expert-5-partner-last"), deals=2):
        opponents = [p for p in past_plays(obs, 4) if p.seat % 2 != obs.seat % 2]
        if bot.searches(obs) and opponents:
            got = {}
            for last in (False, True):
                worlds = inferred_worlds(obs, model, HashStream(b"draws" + bytes(stream[1:])), 24, 300,
                                         min_hand=4, partner_last=last)
                assert len(worlds) == 24
                got[last] = (sum(model.misses(opponents, w, 1) == 0 for w in worlds), worlds)
            assert got[True][0] >= got[False][0]
            more += got[True][0] > got[False][0]
            same += got[True][1] == got[False][1]
        state.apply(bot.choose(obs, decision_stream(*stream)))
    assert more >= 3 and same >= 1


def test_expert_3_searches_from_the_first_follow_and_is_expert_2s_family():
    bot = get_bot("expert-3")
    assert isinstance(bot, SearchingBot) and bot.id == "expert-3"
    assert bot.settings == {"search_from": 8, "lead6": True, "lead8": False, "worlds8": 24, "worlds6": 32,
                            "worlds": 32, "proposals": 160, "partner_last": False}
    assert SearchingBot("expert-3", worlds=8).id == "expert-3[worlds=8]"
    searched = 0
    for seed in _seeds(4, b"expert-3-first"):
        state = GameState(seed)
        opening = state.observation(state.trick.next_seat)
        assert opening.hand_mask.bit_count() == 8 and not bot.searches(opening)  # the opening lead: expert-1's
        state.apply(EXPERT.choose(opening, decision_stream(seed, 0, opening.seat, 0)))
        obs = state.observation(state.trick.next_seat)  # the first follow, eight cards in hand
        assert not EXPERT2.searches(obs)
        searched += bot.searches(obs)  # unless it has one legal card
    assert searched >= 2
    _plays_as_expert_1_under_the_rules_with_an_auction(bot)


def test_the_score_before_the_deal_changes_no_card():
    """``reads_totals = False`` (the decision cache leaves the score out of its key): true."""
    import dataclasses
    assert EXPERT2.reads_totals is False
    for state, obs, args in _decisions(_seeds(2, b"expert-2-totals")):
        card = EXPERT2.choose(obs, decision_stream(*args))
        if EXPERT2.searches(obs):
            for totals in ((0, 0), (39, 0), (12, 30)):
                assert EXPERT2.choose(dataclasses.replace(obs, totals=totals), decision_stream(*args)) == card
        state.apply(card)


def test_tuned_values_make_another_bot_id():
    assert SearchingBot("expert-2").id == "expert-2"
    assert SearchingBot("expert-2", worlds=8).id == "expert-2[worlds=8]"
    assert SearchingBot("expert-2", worlds=16).id == "expert-2"  # its own value: the frozen bot
    with pytest.raises(TypeError, match="unknown expert-2 settings"):
        SearchingBot("expert-2", depth=3)


def test_every_frozen_id_names_every_setting_in_one_flat_row():
    """No row is another's delta: each names every setting, and each searching bot in the
    registry plays its own row (expert-2's is the one it always had)."""
    columns = set(SETTINGS["expert-2"])
    assert SETTINGS["expert-2"] == {"search_from": 6, "lead6": False, "lead8": True, "worlds8": 8, "worlds6": 8,
                                  "worlds": 16, "proposals": 160, "partner_last": False}
    for bot_id, row in SETTINGS.items():
        assert set(row) == columns and get_bot(bot_id).settings == row


def test_the_pick_is_the_card_that_every_cards_exact_total_gives():
    """``pick`` makes only the totals that can decide exact; its card is the one summing every
    legal card's exact value in every deal gives (expert-1's within the margin, else the first
    of the best), at every searched decision of whole games, bounds and exact values both ways."""
    from bots.expert import preference
    from bots.solver import Solver
    bot = get_bot("expert-3")
    checked = lazy = 0
    for seed in _seeds(3, b"expert-3-pick"):
        state = GameState(seed)
        while not state.is_over and state.deal_index < 2:
            seat = state.trick.next_seat
            obs = state.observation(seat)
            stream = decision_stream(seed, obs.deal_index, seat, len(obs.tricks))
            if bot.searches(obs):
                k = Knowledge(obs)
                order = preference(k, obs.legal_mask)
                worlds = bot.worlds_for(obs, stream, k)
                solver = Solver(int(obs.trick.trump))
                totals = dict.fromkeys(order, 0)
                for w in worlds:
                    for c, v in solver.card_values(w, obs.trick).items():
                        totals[c] += v
                best = max(totals.values())
                want = order[0] if 10 * (best - totals[order[0]]) <= bot.margin_tenths * len(worlds) else next(
                    c for c in order if totals[c] == best)
                assert bot.pick(obs, order, worlds) == want
                checked += 1
                lazy += sum(1 for c in order if totals[c] < best) > 1
                stream = decision_stream(seed, obs.deal_index, seat, len(obs.tricks))
            state.apply(bot.choose(obs, stream) if seat else EXPERT.choose(obs, stream))
    assert checked > 60 and lazy > 20


def test_knowledge_holding_a_hand_is_knowledge_of_the_observation_with_it():
    """``Knowledge.holding`` (the inference's shortcut) knows what ``Knowledge`` of the same
    table with that hand knows, turned card included; and the model's rules-of-thumb shortcut
    (``ExpertBot.rule_card``) answers what expert-1's ``choose`` plays."""
    import dataclasses
    from bots.knowledge import Knowledge as K
    fields = [f for f in K.__slots__ if not f.startswith("_")]
    model = PlayModel(EXPERT, b"test")
    compared = answered = misses = 0
    for seed in _seeds(3, b"knowledge-holding"):
        state = GameState(seed)
        while not state.is_over and state.deal_index < 2:
            seat = state.trick.next_seat
            obs = state.observation(seat)
            base = K(dataclasses.replace(obs, hand_mask=0))
            for other in range(4):  # this seat's hand, and the others' as if it held them
                hand = state.hands[other]
                if other != seat and hand & obs.hand_mask:
                    continue
                got, want = base.holding(hand), K(dataclasses.replace(obs, hand_mask=hand))
                assert [getattr(got, f) for f in fields] == [getattr(want, f) for f in fields]
                compared += 1
            for past in past_plays(obs, 4):
                for holder in (past.seat, (past.seat + 1) % 4):  # its true cards, and others (misses)
                    hand = state.hands[holder] | past.since
                    legal = legal_mask(hand, past.before.trick, past.seat)
                    if legal & (legal - 1):
                        slow = EXPERT.choose(dataclasses.replace(past.before, hand_mask=hand, legal_mask=legal),
                                             HashStream(b"any")).id == past.card
                        assert model.chooses_from(past, hand) == slow
                        answered += 1
                        misses += not slow
            state.apply(EXPERT.choose(obs, decision_stream(seed, obs.deal_index, seat, len(obs.tricks))))
    assert compared > 500 and answered > 200 and misses > 50


def test_reading_the_past_cards_most_missed_first_changes_no_count():
    """The inference reads a decision's past cards in the order the draws missed most
    (``MissOrder``): a count up to ``stop`` is the same in any order, only found sooner."""
    model = PlayModel(EXPERT, b"test")
    checked = reordered = 0
    for seed in _seeds(2, b"expert-2-miss-order"):
        state = GameState(seed)
        while state.deal_index == 0 and not state.is_over:
            seat = state.trick.next_seat
            obs = state.observation(seat)
            pasts = past_plays(obs, 4)
            if len(pasts) >= 3:
                order, memo, rng = MissOrder(len(pasts)), {}, HashStream(b"draws" + bytes([len(obs.tricks)]))
                constraints = Constraints(Knowledge(obs))
                for _ in range(200):
                    w = constraints.draw(rng)
                    full = model.misses(pasts, w, len(pasts) + 1)
                    for stop in (1, 2):
                        assert model.misses(pasts, w, stop, memo, order) == min(full, stop)
                checked += 1
                reordered += order.current() != list(range(len(pasts)))
            state.apply(EXPERT.choose(obs, decision_stream(seed, obs.deal_index, seat, len(obs.tricks))))
    assert checked >= 6 and reordered >= 3
