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
from bots import get_bot

from test_bots_oracle import random_position

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
