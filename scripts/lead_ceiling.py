#!/usr/bin/env python3
"""How often can any card chosen from what the leader knows be optimal at a lead?

    .venv/bin/python scripts/lead_ceiling.py                 # about 5 minutes on 2 cores
    .venv/bin/python scripts/lead_ceiling.py --games 100 --worlds 200 --trick 1   # about 4 minutes
    .venv/bin/python scripts/lead_ceiling.py --games 10 --worlds 20   # a quick look

The optimal-card rate (``bench_oracle.py``) judges each card with every hand open.  At a deal's
opening lead the leader knows its own eight cards and the turned card, nothing else: every deal
of the other 24 cards that agrees with those is equally likely, whoever the other seats are.  So
the rate any player can reach there, a person or a bot, is the mean over positions of the
largest chance that one card is optimal, which this measures.

On the fixed seeds ``SHA-256("manille-lead-ceiling" ‖ uint32be(i))`` (apart from the tournament's
and the tests'), expert-1 plays every seat; at the opening lead of every deal, ``--worlds`` deals
are drawn uniformly from what the leader knows (``bots.worlds``) and every legal card is solved
exactly in each (``bots.solver``).  Four choices are then judged in the true deal:

- ``P(optimal)``: the card optimal in the most drawn deals (the ceiling's own choice);
- ``E(points)``: the card with the largest mean value (a determinized search's choice, with
  many deals);
- expert-1's card, and expert-4's (the same at the opening lead: the searching bots do not
  search it).

``--trick T`` (T from 1) judges the leads of trick T instead.  There the other seats' cards
tell more than the rules do, and the deals are drawn as the searching bots draw them, explaining
every card with expert-1 as the model of the other seats (``bots.inference``, ``--proposals``
draws): in these games every seat is expert-1, so the model is the truth, and the deals that
explain every card are those the play leaves possible (their share of the deals drawn is
printed; when too few turn up, deals explaining all but one card fill the rest).

For each: the share of decisive positions (some legal card worse than the best) where it was
optimal, and the mean card points it dropped there.  "ceiling" is the mean over the same positions
of the largest share of drawn deals in which one card was optimal: an estimate of the best rate
reachable from what the leader knows (a little above it: it picks the card on the deals it is
measured with).

Nothing here is a test: it only measures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from multiprocessing import get_context
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bots import get_bot  # noqa: E402
from bots.inference import inferred_worlds, past_plays  # noqa: E402
from bots.knowledge import Knowledge  # noqa: E402
from bots.solver import Solver  # noqa: E402
from cli import tournament  # noqa: E402
from service.replay import GameState, HashStream, bot_move, decision_stream  # noqa: E402
from service.replay.stream import u32be  # noqa: E402

EXPERT = get_bot("expert-1")
SEARCHER = get_bot("expert-4")
WORLDS = 100
TRICK = 0
PROPOSALS = 3000
#: expert-4 drawing ``WORLDS`` deals from ``PROPOSALS`` draws at every hand size: how the searching
#: bots draw the deals of a lead from trick 1 (set by ``main``)
DRAWER = None


class Judged(NamedTuple):
    """One lead with a choice: whether a legal card is worse than the best, then for each choice
    whether it is optimal in the true deal and the card points it drops there."""

    decisive: bool
    expert1: tuple[bool, int]
    expert4: tuple[bool, int]
    by_mean: tuple[bool, int]  # E(points)
    by_chance: tuple[bool, int]  # P(optimal)
    ceiling: float  # the largest share of drawn deals in which one card is optimal
    explained: float  # the share of drawn deals that explain every card


def lead_rows(i_seed: tuple[int, bytes]) -> list[Judged]:
    """Every lead of trick ``TRICK`` with a choice in the game of seed ``i``, expert-1 in every seat."""
    i, seed = i_seed
    state = GameState(seed)
    rows = []
    while not state.is_over:
        if state.trick_index == TRICK and not state.trick.plays and len(state.legal_cards()) > 1:
            rows.append(judge(state, HashStream(b"lead ceiling" + u32be(i) + u32be(len(rows)))))
        bot_move(state, EXPERT)
    return rows


def judge(state: GameState, rng: HashStream) -> Judged:
    seat = state.current_player
    obs = state.observation(seat)
    solver = Solver(int(state.trick.trump))
    true = solver.card_values(list(state.hands), state.trick)
    best = max(true.values())
    cards = sorted(true)
    mean = dict.fromkeys(cards, 0)
    optimal = dict.fromkeys(cards, 0)
    k = Knowledge(obs)
    if TRICK:
        worlds = DRAWER.worlds_for(obs, rng, k)
        pasts = past_plays(obs, DRAWER.model_from)
        explained = sum(DRAWER.model.misses(pasts, w, 1) == 0 for w in worlds)
    else:
        worlds = inferred_worlds(obs, None, rng, WORLDS, 0, k=k)
        explained = len(worlds)
    for world in worlds:
        solver.clear()
        got = solver.card_values(world, obs.trick)
        top = max(got.values())
        for c in cards:
            mean[c] += got[c]
            optimal[c] += got[c] == top
    by_chance = max(cards, key=lambda c: optimal[c])

    def judged(card: int) -> tuple[bool, int]:
        return true[card] == best, best - true[card]

    def stream() -> HashStream:
        return decision_stream(state.seed, obs.deal_index, seat, len(obs.tricks))

    return Judged(min(true.values()) < best, judged(EXPERT.choose(obs, stream()).id),
                  judged(SEARCHER.choose(obs, stream()).id), judged(max(cards, key=lambda c: mean[c])),
                  judged(by_chance), optimal[by_chance] / len(worlds), explained / len(worlds))


def main(argv=None) -> int:
    global WORLDS, TRICK, PROPOSALS, DRAWER
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--worlds", type=int, default=WORLDS)
    ap.add_argument("--trick", type=int, default=TRICK, help="whose leads: 0 (the opening lead) to 6")
    ap.add_argument("--proposals", type=int, default=PROPOSALS, help="draws a lead, from trick 1")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    if not 0 <= args.trick <= 6:
        ap.error("--trick is 0 to 6")
    WORLDS, TRICK, PROPOSALS = args.worlds, args.trick, args.proposals
    DRAWER = type(SEARCHER)(SEARCHER.id, proposals=PROPOSALS, worlds8=WORLDS, worlds6=WORLDS, worlds=WORLDS)
    seeds = list(enumerate(tournament.fixed_seeds(b"manille-lead-ceiling", args.games)))
    with get_context("fork").Pool(args.jobs) as pool:
        rows = [r for game in pool.map(lead_rows, seeds) for r in game]
    decisive = [r for r in rows if r.decisive]
    what = "opening leads" if TRICK == 0 else f"leads of trick {TRICK}"
    print(f"lead_ceiling: {args.games} games, {len(rows)} {what} with a choice, {len(decisive)} decisive; "
          f"{WORLDS} drawn deals each, {100 * statistics.mean(r.explained for r in rows):.1f}% of them "
          f"explaining every card")
    for name, field in (("expert-1's card", "expert1"), ("expert-4's card", "expert4"), ("E(points) card", "by_mean"),
                        ("P(optimal) card", "by_chance")):
        rate = sum(getattr(r, field)[0] for r in decisive) / len(decisive)
        half = 1.96 * (rate * (1 - rate) / len(decisive)) ** 0.5
        print(f"  {name:16s} optimal {100 * rate:5.1f} % (± {100 * half:.1f}), "
              f"card points dropped {statistics.mean(getattr(r, field)[1] for r in decisive):.2f} a decisive lead")
    print(f"  ceiling (largest share of drawn deals where one card is optimal): "
          f"{100 * statistics.mean(r.ceiling for r in decisive):.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
