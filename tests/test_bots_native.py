"""The compiled double-dummy search gives exactly the Python search's answers (the reference,
itself held to a plain minimax in test_bots_oracle.py), on whole deals where the minimax is out of
reach; without it (no compiler, MANILLE_NATIVE=0) the solver answers the same, only slower."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bots import native
from bots.solver import Solver
from cli import tournament
from service.replay import GameState, bot_move
from bots import get_bidder, get_bot

from support.positions import random_position

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(native.LIB is None, reason="no C compiler here: the Python search is used")


def _same(hands, trick, compiled: Solver | None = None, banked=None):
    t = int(trick.trump)
    a = compiled or Solver(t)
    b = Solver(t, compiled=False)
    assert a.compiled and not b.compiled
    values = a.card_values(hands, trick, banked)
    assert values == b.card_values(hands, trick, banked)
    assert a.best(hands, trick, banked) == b.best(hands, trick, banked)
    assert a.value(hands, trick, banked) == b.value(hands, trick, banked)
    card = min(values)
    assert a.card_value(hands, trick, card, banked) == values[card]
    # the same values in two halves: a bound from one test per card, then the exact search
    best = max(values.values())
    for s in (a, b):
        bounds, got_best = s.card_bounds(hands, trick, banked)
        assert got_best == best and bounds.keys() == values.keys()
        for c, v in values.items():
            assert bounds[c] == v if v == best else v <= bounds[c] < best
            assert s.card_exact(hands, trick, c, bounds[c]) == v
    illegal = next(c for c in range(32) if c not in values)
    assert a._native.card_exact(hands, trick.leader, [p.card.id for p in trick.plays], illegal, 10) == -1


@pytest.mark.parametrize("tricks", [8, 7, 6, 5, 4, 3, 2, 1])
def test_compiled_equals_python_on_random_layouts(tricks):
    rng = random.Random(9000 + tricks)
    for _ in range(6 if tricks == 8 else 25):
        hands, trick = random_position(rng, tricks, rng.randrange(4))
        _same(hands, trick)


def test_compiled_equals_python_through_real_deals_with_one_table():
    # A deal's decisions one after another on one solver (its table warm, its guess from the
    # last answer), as oracle-1 and the analysis ask them.
    expert = get_bot("expert-1")
    for seed in tournament.fixed_seeds(b"test-native-deals", 3):
        state = GameState(seed)
        solver = Solver(int(state.trick.trump))
        while state.deal_index == 0 and not state.is_over:
            _same(list(state.hands), state.trick, solver, state.points[0])
            bot_move(state, expert)


def test_without_the_library_the_solver_falls_back_to_python():
    code = ("from bots import native; from bots.solver import Solver; "
            "print(native.LIB is None, Solver(0).compiled)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env=dict(os.environ, MANILLE_NATIVE="0"), timeout=60)
    assert out.stdout.split() == ["True", "False"], out.stderr


def test_expert1s_late_search_adds_up_the_same_values_compiled():
    # expert-1's exact calculation from three cards left goes to the compiled search under
    # muette-1: the totals over the consistent deals must be the Python search's, card for card.
    from bots import search
    from bots.expert import SEARCH_FROM
    from bots.knowledge import Knowledge

    expert = get_bot("expert-1")
    checked = 0
    for seed in tournament.fixed_seeds(b"test-native-expert1-search", 6):
        state = GameState(seed)
        while not state.is_over:
            obs = state.observation(state.current_player)
            k = Knowledge(obs)
            legal = obs.legal_mask
            if legal & (legal - 1) and k.hand.bit_count() <= SEARCH_FROM:
                deals = search.consistent_deals(k)
                cards = [c for c in range(32) if legal >> c & 1]
                if deals:
                    assert search.compiled_totals(k, deals, cards) == search.python_totals(k, deals, cards)
                    checked += 1
            bot_move(state, expert)
    assert checked > 50


def test_expert1_plays_the_same_games_without_the_library():
    code = ("from cli import tournament; from service.replay import GameState, bot_move; "
            "from bots import get_bot; import hashlib\n"
            "b = get_bot('expert-1'); h = hashlib.sha256()\n"
            "for seed in tournament.fixed_seeds(b'test-native-expert1-games', 4):\n"
            "    s = GameState(seed)\n"
            "    while not s.is_over: h.update(str(bot_move(s, b)).encode())\n"
            "print(h.hexdigest())")
    got = [subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, MANILLE_NATIVE=flag), timeout=300) for flag in ("0", "1")]
    assert got[0].returncode == 0 and got[1].returncode == 0, got[0].stderr + got[1].stderr
    assert got[0].stdout == got[1].stdout and len(got[0].stdout.strip()) == 64


def _model_positions(rules: str, games: int, worlds: int):
    """(past cards, candidate hands) at every card decision of ``games`` expert-1 games under
    ``rules``: each other seat's earlier cards with four or more cards then in hand (where the
    rules of thumb decide), and its hands then in the true deal and in ``worlds`` drawn deals."""
    from bots.inference import past_plays
    from bots.knowledge import Knowledge
    from bots.worlds import Constraints
    from service.replay import HashStream
    bidder = get_bidder("bidder-1") if rules != "muette-1" else None
    expert = get_bot("expert-1")
    for i, seed in enumerate(tournament.fixed_seeds(b"native-model-" + rules.encode(), games)):
        state = GameState(seed, rules)
        while not state.is_over:
            if state.auction is None:
                seat = state.current_player
                obs = state.observation(seat)
                pasts = past_plays(obs, 4)
                if pasts:
                    constraints = Constraints(Knowledge(obs))
                    rng = HashStream(seed + bytes([len(obs.tricks), len(obs.trick.plays)]))
                    drawn = [tuple(state.hands)] + [constraints.draw(rng) for _ in range(worlds)]
                    yield pasts, drawn
            bot_move(state, expert, bidder)


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["muette-1", "parlee-1", "manillen-1"])
def test_the_compiled_model_plays_expert_1s_rules_of_thumb_card_in_every_candidate_deal(rules):
    """``model.c`` gives the card ``ExpertBot.rule_card`` gives over ``Knowledge.holding`` (None
    where the card was forced), for every past card of every decision in the true deal and in
    drawn deals, under every rules id (no trump and manillen's forced trumping included); and its
    count of misses up to any stop is the Python model's."""
    from bots.inference import PlayModel
    from service.replay import legal_mask
    expert = get_bot("expert-1")
    model = PlayModel(expert, b"test")
    cards = misses = forced = 0
    for pasts, drawn in _model_positions(rules, 6, 12):
        compiled = native.NativeModel(pasts)
        for i, p in enumerate(pasts):
            for world in drawn:
                hand = world[p.seat] | p.since
                legal = legal_mask(hand, p.before.trick, p.seat, p.table.facing)
                want = expert.rule_card(p.table.holding(hand), legal) if legal & (legal - 1) else None
                assert compiled.card(i, hand) == want, (rules, p, hex(hand))
                cards += 1
                forced += want is None
                misses += want is not None and want != p.card
        for world in drawn:
            full = model.misses(pasts, world, len(pasts) + 1)
            for stop in (1, 2, len(pasts) + 1):
                assert compiled.misses(world, stop) == min(full, stop)
    assert cards > 20_000 and misses > 2_000 and forced > 1_000, (cards, misses, forced)


def test_the_inference_reads_the_same_deals_compiled_or_not():
    """``inferred_worlds`` with expert-1 as the model gives the same deals in the same order
    whether the compiled model counts the misses or the Python one does (with its memo)."""
    from bots.inference import PlayModel, inferred_worlds
    from service.replay import HashStream, decision_stream
    from support.positions import decisions as _decisions
    bot, expert = get_bot("expert-5"), get_bot("expert-1")
    compiled = PlayModel(expert, b"test")
    python = PlayModel(expert, b"test")
    python._native = False
    assert compiled._native
    checked = 0
    for state, obs, stream in _decisions(tournament.fixed_seeds(b"native-model-inference", 2), deals=1):
        if len(obs.tricks) >= 1 and obs.legal_mask & (obs.legal_mask - 1):
            for partner_last in (False, True):
                got = [inferred_worlds(obs, m, HashStream(stream[0] + b"w"), 24, 400, enumerate_up_to=64,
                                       min_hand=4, partner_last=partner_last) for m in (compiled, python)]
                assert got[0] == got[1]
                checked += 1
        state.apply((bot if obs.seat else expert).choose(obs, decision_stream(*stream)))
    assert checked > 40
