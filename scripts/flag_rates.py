#!/usr/bin/env python3
"""Flag rates of the anti-cheat flags on simulated days (not a test; bounded, prints figures).

Each simulated day has its own seed and a background of honest players: expert-1 with some
noise, greedy-1 and random-1 in seat 0; a quarter give up part-way, a tenth finish and never
submit; their runs go into the day's tree as the service counts them (submitted games
apart).  Then:

- honest: expert-1 playing seat 0 honestly, submitted; flags computed as the worker does;
- search from many addresses: the attack measured against the service before the limits: start
  from expert-1's line, at each decision try every other legal card in a throwaway run that
  then plays on as expert-1, keep whatever scores better, submit the final line from a new token;
- search from one address: the same, but only as many runs as the default limit on ranked runs
  per address lets one address open in a day (the rest are refused with 429).

Prints, for each kind, how many games each flag caught and the scores reached.

    .venv/bin/python scripts/flag_rates.py [--honest 1000] [--attacks 100] [--background 20]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from bots import get_bot  # noqa: E402
from service import flags  # noqa: E402
from service.config import DEFAULT_LIMITS  # noqa: E402
from service.limits import parse  # noqa: E402
from service.replay import play_game, simulate  # noqa: E402
from service.replay.record import build_record  # noqa: E402

EXPERT = get_bot("expert-1")
SETTINGS = flags.FlagSettings()


class Scripted:
    """Seat 0: the cards of ``prefix`` in order, then ``then``'s choices (a probe, or a noisy player)."""

    id = "scripted"

    def __init__(self, prefix, then, noise=0.0, rng=None):
        self.prefix, self.then, self.noise, self.rng, self.i = list(prefix), then, noise, rng, 0

    def choose(self, obs, stream):
        i, self.i = self.i, self.i + 1
        if i < len(self.prefix):
            return next(c for c in obs.legal if str(c) == self.prefix[i])
        if self.noise and self.rng.random() < self.noise:
            return self.rng.choice(obs.legal)
        return self.then.choose(obs, stream)


def game(seed, player):
    state = play_game(seed, (player, EXPERT, EXPERT, EXPERT))
    return build_record(state, EXPERT.id)


def cards_of(record):
    return [c for c, _ in flags.player_decisions(record)]


class Day:
    """The day's tree of paths (what play.lua counts): how many runs began with each sequence of
    cards; the submitted ones apart."""

    def __init__(self):
        self.paths, self.submitted = Counter(), Counter()

    def run(self, cards, submitted=False):
        for k in range(1, len(cards) + 1):
            prefix = "".join(cards[:k])
            self.paths[prefix] += 1
            if submitted:
                self.submitted[prefix] += 1

    def flags_of(self, seed, record, expert_ref, same_address=None):
        """``same_address``: run id -> cards of the other unsubmitted runs of the game's address."""
        same_address = same_address or {}
        many = flags.many_runs("a", ["r"] * (len(same_address) + 1), "r", SETTINGS)
        decisions = flags.player_decisions(record)
        found = {
            "explored": flags.explored(decisions, lambda q: [self.paths[p] - self.submitted[p] for p in q],
                                       SETTINGS)
            or (many and flags.explored_from_address(decisions, same_address, SETTINGS)),
            "many_runs": many,
            "oracle": flags.oracle(flags.agreement(seed, record, SETTINGS.oracle_from_trick), expert_ref, SETTINGS),
        }
        return [code for code, ev in found.items() if ev]


def background(seed, day, n, rng):
    """Honest others of the day: their runs (and submitted games) in the tree; their scores."""
    scores = []
    for _ in range(n):
        kind = rng.random()
        then = EXPERT if kind < 0.4 else get_bot("greedy-1") if kind < 0.7 else get_bot("random-1")
        record = game(seed, Scripted([], then, noise=0.15 if kind < 0.4 else 0.0, rng=rng))
        cards = cards_of(record)
        fate = rng.random()
        if fate < 0.25:  # gives up part-way
            day.run(cards[:rng.randrange(1, len(cards))])
        elif fate < 0.35:  # finishes, never submits (or not yet when the game is verified)
            day.run(cards)
        else:
            day.run(cards, submitted=True)
            scores.append(record["rank_score"])
    return scores


def expert_reference(seed):
    ref = flags.agreement(seed, simulate(seed, EXPERT), SETTINGS.oracle_from_trick)
    ref.pop("choices")
    return ref


def honest(i, n_background):
    seed = hashlib.sha256(b"flag-rates/honest/%d" % i).digest()
    rng = random.Random(i)
    day = Day()
    scores = background(seed, day, n_background, rng)
    record = simulate(seed, EXPERT)
    day.run(cards_of(record))
    codes = day.flags_of(seed, record, expert_reference(seed))
    if flags.outlier(record["rank_score"], Counter(scores), SETTINGS):
        codes.append("outlier")
    return codes, record["rank_score"], None


def search(seed, day, max_runs=None):
    """The search attack; returns the final record and the cards of every run it opened."""
    best = simulate(seed, EXPERT)
    opened = {"look": cards_of(best)}
    day.run(opened["look"])  # the first look is a run of the day too
    k = 0
    while k < len(cards_of(best)):
        line = flags.player_decisions(best)
        card, legal = line[k]
        for alt in legal:
            if alt == card:
                continue
            if max_runs is not None and len(opened) >= max_runs - 1:  # keep one run for the final game
                return best, opened
            probe = game(seed, Scripted([c for c, _ in line[:k]] + [alt], EXPERT))
            opened[f"probe{len(opened)}"] = cards_of(probe)
            day.run(cards_of(probe))
            if probe["rank_score"] > best["rank_score"]:
                best = probe
                card = alt
        k += 1
    return best, opened


def attack(i, n_background, one_address):
    seed = hashlib.sha256(b"flag-rates/attack/%d" % i).digest()
    rng = random.Random(10_000 + i)
    day = Day()
    background(seed, day, n_background, rng)
    honest_score = simulate(seed, EXPERT)["rank_score"]
    cap = per_day_runs() if one_address else None
    final, opened = search(seed, day, cap)
    final = game(seed, Scripted(cards_of(final), EXPERT))  # submitted from a fresh token
    day.run(cards_of(final))
    codes = day.flags_of(seed, final, expert_reference(seed), same_address=opened if one_address else None)
    return codes, final["rank_score"] - honest_score, len(opened) + 1


def per_day_runs() -> int:
    """How many ranked runs one address may open in a day under the default limits."""
    return min(w.amount * (86400 // w.seconds) for w in parse(DEFAULT_LIMITS["ranked_runs"]))


def report(name, results, started):
    n = len(results)
    caught = Counter(code for codes, _, _ in results for code in set(codes))
    any_flag = sum(1 for codes, _, _ in results if codes)
    held = sum(1 for codes, _, _ in results if set(codes) & SETTINGS.hold)
    print(f"{name}: {n} games in {time.monotonic() - started:.0f} s")
    print(f"  held (off the boards): {held}/{n} = {100 * held / n:.1f}%;  any flag: {any_flag}/{n} = "
          f"{100 * any_flag / n:.1f}%")
    for code in ("explored", "many_runs", "oracle", "outlier"):
        print(f"    {code:<10} {caught[code]:>5} = {100 * caught[code] / n:5.1f}%")
    extra = [x for _, x, _ in results]
    runs = [r for _, _, r in results if r is not None]
    if runs:
        print(f"  score gained over expert-1's honest game: mean {statistics.mean(extra):+.1f}, "
              f"median {statistics.median(extra):+.0f}; runs opened: median {statistics.median(runs):.0f}, "
              f"max {max(runs)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--honest", type=int, default=1000)
    ap.add_argument("--attacks", type=int, default=100)
    ap.add_argument("--background", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    print(f"thresholds: {SETTINGS}; a day's runs per address under the default limits: {per_day_runs()}")
    with ProcessPoolExecutor(a.jobs) as pool:
        started = time.monotonic()
        report("honest expert-1", list(pool.map(honest, range(a.honest), [a.background] * a.honest, chunksize=8)),
               started)
        for name, one in (("search from many addresses", False), ("search from one address", True)):
            started = time.monotonic()
            report(name, list(pool.map(attack, range(a.attacks), [a.background] * a.attacks, [one] * a.attacks)),
                   started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
