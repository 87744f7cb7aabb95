#!/usr/bin/env python3
"""The ``probed`` flag on simulated days (not a test; bounded, deterministic, prints figures).

Each simulated day (seed ``SHA-256(tag ‖ day)`` of ``--seed-tag``, expert-1 in the other seats as
``scripts/flag_rates.py`` plays them) has ``--fields`` players: honest ones, expert-1 with noise
(a uniform legal card one time in six or in three), greedy-1 and random-1 in seat 0, so that many
lines coincide by chance early in a deal (everyone holds the same hand); a quarter give up
part-way.  ``--sample`` lines are played out, each standing for ``field / sample`` runs, of which
the fast, finished, never submitted ones (``FAST_SHARE``) are drawn one by one; the others count
only where they left a game (``day_of``).  Then, on each day:

- honest: ``--tested`` honest games submitted at a person's pace, each's ``probed`` flag computed
  from the runs around it as ``service.runs.around`` gives them;
- search of R runs, for R in ``--searches``: a shallow search from as many addresses as runs: a
  first look at expert-1's line, then throwaway runs each leaving the best line so far at one
  decision (every other legal card in turn, decision after decision) and played on as expert-1,
  48 cards in 0.1 s, never submitted; the best line found is played again at a person's pace and
  submitted, after every honest run of the day.

Prints the share of games flagged with its 95 % Wilson interval, for each.

    .venv/bin/python scripts/probe_rates.py [--days 24] [--tested 60] [--fields 100,1000,1000000] [--sample 500] [--jobs 2]
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bots import get_bot  # noqa: E402
from cli.tournament import wilson  # noqa: E402
from flag_rates import EXPERT, Scripted, cards_of, game  # noqa: E402
from service import flags  # noqa: E402
from service.replay import simulate  # noqa: E402

SETTINGS = flags.FlagSettings()
BLINK_MS = 2  # a throwaway run: 48 cards in 0.1 s


class Run:
    """A run of the day as ``service.runs.around`` sees it: its cards, when it opened, its pace."""

    def __init__(self, cards, opened, median_ms, finished, submitted):
        self.cards, self.opened, self.median_ms = cards, opened, median_ms
        self.finished, self.submitted = finished, submitted


def around(game_cards, game_opened, runs, me):
    """The runs around a game in ``service.runs.around``'s shape (the fields ``flags.probed`` reads)."""
    out = []
    for i, run in enumerate(runs):
        if run is me or run.opened > game_opened or not run.cards:
            continue
        k = next((j for j, (a, b) in enumerate(zip(game_cards, run.cards)) if a != b),
                 min(len(game_cards), len(run.cards)))
        left = {"index": k, "played": game_cards[k], "tried": run.cards[k]} if k < len(run.cards) else None
        out.append({"run_id": f"r{i}", "left": left, "whole": k == len(game_cards) == len(run.cards),
                    "finished": run.finished, "submitted": run.submitted, "pace": {"median_ms": run.median_ms}})
    return out


#: The honest players whose runs can count for ``probed`` at all: finished, never submitted and
#: faster than ``probed_median_ms`` between cards.  One player in fifty clicks fast (a median gap of
#: 0.3-0.7 s, half of them below 0.5 s), the others at a person's pace (log-normal around 2.5 s,
#: sigma 0.6: 0.4 % below 0.5 s); a tenth of all finish and never submit.
FAST_SHARE = 0.1 * (0.02 * 0.5 + 0.98 * statistics.NormalDist().cdf(math.log(500 / 2500) / 0.6))


def honest_player(rng):
    kind = rng.random()
    if kind < 0.5:
        return Scripted([], EXPERT, noise=rng.choice((1 / 6, 1 / 3)), rng=rng)
    return Scripted([], get_bot("greedy-1") if kind < 0.8 else get_bot("random-1"))


def binomial(rng, n: int, p: float) -> int:
    """A draw of binomial(n, p) (inverse transform: its mean here is a few at most)."""
    u, k, pmf = rng.random(), 0, (1 - p) ** n
    total = pmf
    while u > total and k < n:
        pmf *= (n - k) / (k + 1) * p / (1 - p)
        k += 1
        total += pmf
    return k


def day_of(day, field, tested, sizes, tag, sample):
    """One simulated day of ``field`` players: whether each of ``tested`` honest games is flagged,
    and whether a search of each of ``sizes`` runs is.  The day's runs are ``sample`` honest
    lines (a quarter given up part-way), each standing for ``field / sample`` runs, of which the
    fast, finished, never submitted ones (``FAST_SHARE`` of the field, on the finished lines) are
    drawn and listed, the others counted where they left the game, as ``service.runs.around``
    gives them to the flag.  The search's runs come after them all."""
    seed = hashlib.sha256(f"{tag}/{day}".encode()).digest()
    rng = random.Random(f"{tag}/{day}/{field}")
    n = min(sample, field)
    weight = field // n
    lines = []
    for _ in range(n):
        cards = cards_of(game(seed, honest_player(rng)))
        finished = rng.random() >= 0.25
        if not finished:
            cards = cards[:rng.randrange(1, len(cards))]
        lines.append((cards, binomial(rng, weight, FAST_SHARE / 0.75) if finished else 0, weight))

    def flagged(record, extra=()):
        me = cards_of(record)
        fast, crowd = [], {}
        for i, (cards, f, w) in enumerate([*lines, *extra]):
            k = next((x for x, (a, b) in enumerate(zip(me, cards)) if a != b), None)
            if k is None and len(cards) < len(me):
                continue  # stopped on the line: no point either way
            fast += [Run(cards, i, 2 if w == 1 else 400, True, False)] * f
            slot = len(me) if k is None else k
            crowd[slot] = crowd.get(slot, 0) + w - f
        return bool(flags.probed(flags.player_decisions(record), around(me, len(lines) + len(extra), fast, None),
                                 SETTINGS, crowd))

    honest = [flagged(game(seed, honest_player(rng))) for _ in range(tested)]
    caught = []
    for max_runs in sizes:
        best, opened = search(seed, max_runs)
        final = game(seed, Scripted(cards_of(best), EXPERT))
        caught.append(flagged(final, [(cards, 1, 1) for cards in opened]))
    return honest, caught


def search(seed, max_runs):
    """The search: (the final line's record, the cards of every throwaway run), ``max_runs`` runs
    in all with the final game."""
    best = simulate(seed, EXPERT)
    opened = [cards_of(best)]
    k = 0
    while k < len(cards_of(best)) and len(opened) < max_runs - 1:
        line = flags.player_decisions(best)
        card, legal = line[k]
        for alt in legal:
            if alt == card or len(opened) >= max_runs - 1:
                continue
            probe = game(seed, Scripted([c for c, _ in line[:k]] + [alt], EXPERT))
            opened.append(cards_of(probe))
            if probe["rank_score"] > best["rank_score"]:
                best, card = probe, alt
        k += 1
    return best, opened


def line(name, hits):
    n, k = len(hits), sum(hits)
    lo, hi = wilson(k, n)
    print(f"  {name:<28} {k:>5} / {n:<5} = {100 * k / n:5.2f} %   (95 %: {100 * lo:.2f}-{100 * hi:.2f} %)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--days", type=int, default=24, help="simulated days of each size")
    ap.add_argument("--tested", type=int, default=60, help="honest games tested a day")
    ap.add_argument("--fields", default="100,1000,1000000", help="players a day")
    ap.add_argument("--sample", type=int, default=500, help="honest lines played out a day")
    ap.add_argument("--searches", default="6,12,50")
    ap.add_argument("--seed-tag", default="probe-rates")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    sizes = [int(x) for x in a.searches.split(",")]
    print(f"probed: {SETTINGS.probed_points} points, a probe's median gap below {SETTINGS.probed_median_ms} ms, "
          f"a point below p {SETTINGS.probed_alpha} at a share {SETTINGS.probed_share}; fast unsubmitted honest "
          f"runs in the simulation: {100 * FAST_SHARE:.3f} % of a day's players")
    started = time.monotonic()
    with ProcessPoolExecutor(a.jobs) as pool:
        for field in (int(x) for x in a.fields.split(",")):
            days = list(pool.map(day_of, range(a.days), [field] * a.days, [a.tested] * a.days, [sizes] * a.days,
                                 [a.seed_tag] * a.days, [a.sample] * a.days))
            print(f"days of {field:,} players ({min(a.sample, field)} lines played out, each {field // min(a.sample, field)} runs):")
            line("honest games flagged", [hit for honest, _ in days for hit in honest])
            for i, size in enumerate(sizes):
                line(f"search of {size} runs caught", [caught[i] for _, caught in days])
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
