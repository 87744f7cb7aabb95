"""The hidden-information check's null variance (``postmortem.hindsight.null_var``): a departure's
variance over a few drawn deals is shrunk towards its stage's pooled one, so that a z built on
three or six deals is a z (its tail a unit normal's), where the few-deal variance alone made it
heavy-tailed; exact values are taken as they are."""

from __future__ import annotations

import math
import random

import pytest

from postmortem import hindsight


def test_exact_values_are_taken_as_they_are():
    assert hindsight.null_var(1, 40, True, 7.5) == 7.5
    assert hindsight.null_var(6, 2, True, 0.0) == 0.0


def test_a_few_deals_alike_no_longer_claim_no_spread():
    """Three deals alike: their own variance is 0, but three deals say little; the pooled one
    weighs ``POOLED_WEIGHT`` deals, the three deals' own two."""
    w, pooled = hindsight.POOLED_WEIGHT, hindsight.POOLED_VAR[1]
    assert hindsight.null_var(1, 3, False, 0.0) == pytest.approx(w * pooled / (2 + w) * (1 + 1 / 3))
    # many deals: their own variance, the pooled one a small part of it
    own = 3.0
    many = hindsight.null_var(4, 32, False, own * (1 + 1 / 32))
    assert own < many < own + (hindsight.POOLED_VAR[4] - own) * w / (31 + w) * 1.05 + 0.1
    # past the last trick listed, the last one's pooled variance
    last = max(hindsight.POOLED_VAR)
    assert hindsight.null_var(last + 1, 3, False, 0.0) == hindsight.null_var(last, 3, False, 0.0)


def _honest_games(games: int, shrink: bool, rng: random.Random) -> list[float]:
    """z of simulated honest games: 10 departures each, the difference of the two cards -5 or +5
    card points on one deal in ten each and 0 else (variance 5), the true deal one more draw, the
    seat's mean over 3 drawn deals (``per_card``'s variance: the unbiased one with the mean's error;
    half the time all three deals alike, and it is 0)."""
    zs = []
    for _ in range(games):
        rows = []
        for _ in range(10):
            drawn = [rng.choice((-5.0, *[0.0] * 8, 5.0)) for _ in range(3)]
            truth = rng.choice((-5.0, *[0.0] * 8, 5.0))
            mean = sum(drawn) / 3
            var = sum((d - mean) ** 2 for d in drawn) / 2 * (1 + 1 / 3)
            rows.append((1, 3, False, truth - mean, var, True))
        if shrink:
            gain, var = hindsight.total(rows)
        else:
            gain, var = sum(r[3] for r in rows), sum(r[4] for r in rows)
        zs.append(gain / math.sqrt(var) if var > 0 else 0.0)
    return zs


def test_the_shrunk_variance_gives_a_z_whose_tail_is_a_normals(monkeypatch):
    """The few-deal variance alone puts honest games past z 2.5 twice as often as a unit normal
    does and past z 3 four times; shrunk towards the pooled variance (here the true one), the tail
    at z 2, 2.5 and 3 is a normal's within a factor 1.5 (20,000 games, a fixed seed)."""
    monkeypatch.setattr(hindsight, "POOLED_VAR", {1: 5.0})
    shrunk = _honest_games(20_000, True, random.Random(7))
    alone = _honest_games(20_000, False, random.Random(7))
    for z in (2.0, 2.5, 3.0):
        normal = 0.5 * math.erfc(z / math.sqrt(2))
        rate = sum(x >= z for x in shrunk) / len(shrunk)
        assert normal / 1.5 <= rate <= normal * 1.5, (z, rate, normal)
    assert sum(x >= 2.5 for x in alone) / len(alone) > 1.5 * 0.5 * math.erfc(2.5 / math.sqrt(2))
    assert sum(x >= 3 for x in alone) / len(alone) > 3 * 0.5 * math.erfc(3 / math.sqrt(2))  # what it cures
