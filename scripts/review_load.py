#!/usr/bin/env python3
"""How many games a day the review of the top checks and holds (``service.review``), at a million
players.

    .venv/bin/python scripts/review_load.py                 # 3 days, 1,000 players each, a million arrivals
    .venv/bin/python scripts/review_load.py --read FILE…    # and the honest games held, from hindsight_rates' saved games

Everyone plays the same deals on a day, so a day's scores are many games of one seed: for each of
``--days`` seeds of ``--seed-tag``, ``--players`` players in seat 0 (expert-1 with a uniform legal
card instead at a rate of their own, from none to one in three, drawn from a stream of the
player's) against ``--bots`` give the day's distribution of scores, ties and all.  A million
verifications then arrive in an order drawn from it (a seeded draw, with replacement), each judged
as the worker does (``service.review.due``: fewer than ``MANILLE_REVIEW_TOP`` games of the day's
board at its score or above, or, from 1,000 scores on, at most 0.1 % of them, on the board as it
stands when it arrives; every game is taken for honest, ranked after its check).  Prints the games checked a day (the median day and
the range), and the same with no two games of the day tied, the larger load.

With ``--read``, the honest games of ``scripts/hindsight_rates.py`` (its saved ``--out`` files, each
rescored by the current check) give the share of honest games whose check passes the review's bar
(``MANILLE_REVIEW_Z``) with its 95 % Wilson interval, and so the honest games held a day, of the
larger load.  Nothing
here is a test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bots import get_bot  # noqa: E402
from cli import tournament  # noqa: E402
from service.replay import GameState, HashStream, bot_move, decision_stream, rank_score  # noqa: E402
from service.review import ReviewSettings, due  # noqa: E402


def noisy_score(seed: bytes, bots, player: int) -> int:
    """The rank score of player ``player``'s game of the day ``seed``."""
    expert = get_bot("expert-1")
    stream = HashStream(seed + b"review-load" + player.to_bytes(4, "big"))
    rate = stream.uniform(1000) / 3000  # one card in (none to three) is a uniform legal one
    state = GameState(seed)
    while not state.is_over:
        if state.current_player != 0:
            bot_move(state, bots)
            continue
        obs = state.observation(0)
        card = expert.choose(obs, decision_stream(state.seed, obs.deal_index, 0, len(obs.tricks)))
        legal = state.legal_cards()
        if len(legal) > 1 and stream.uniform(1000) < rate * 1000:
            card = legal[stream.uniform(len(legal))]
        state.apply(card)
    return rank_score(state.totals)


class Board:
    """A day's board as ``due`` reads it, by counts of each score (a Fenwick tree: a million
    arrivals in seconds)."""

    def __init__(self, scores) -> None:
        self.order = sorted(set(scores), reverse=True)
        self.index = {s: i + 1 for i, s in enumerate(self.order)}
        self.tree = [0] * (len(self.order) + 1)
        self.n = 0

    def add(self, score: int) -> None:
        i = self.index[score]
        while i < len(self.tree):
            self.tree[i] += 1
            i += i & -i
        self.n += 1

    def reached(self, score: int) -> int:
        """How many games score ``score`` or more."""
        i, total = self.index[score], 0
        while i > 0:
            total += self.tree[i]
            i -= i & -i
        return total


def checked(scores: list[int], arrivals: int, rs: ReviewSettings, rng: random.Random) -> int:
    """How many of ``arrivals`` games drawn from ``scores`` are due for review as they arrive."""
    board, count = Board(scores), 0
    for _ in range(arrivals):
        s = rng.choice(scores)
        reached = board.reached(s)
        # ``due`` on the day's counts, in the Fenwick tree's terms
        if reached < rs.top or (board.n >= rs.percentile_min_scores and reached <= rs.share * board.n):
            count += 1
        board.add(s)  # an honest game is ranked (a clean check, or its release)
    return count


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--days", type=int, default=3)
    ap.add_argument("--players", type=int, default=1000, help="games simulated a day (the distribution)")
    ap.add_argument("--arrivals", type=int, default=1_000_000, help="players a day")
    ap.add_argument("--bots", default="expert-1", help="the other seats (expert-1: a thousand games in seconds)")
    ap.add_argument("--seed-tag", default="review-load")
    ap.add_argument("--read", nargs="*", help="hindsight_rates' saved games: the honest games held")
    args = ap.parse_args(argv)
    rs = ReviewSettings.from_env(os.environ)
    bots = get_bot(args.bots)
    assert due(1000, {}, rs) == (rs.top > 0)  # the rule the Fenwick tree restates
    counts = []
    for day, seed in enumerate(tournament.fixed_seeds(args.seed_tag.encode(), args.days)):
        scores = [noisy_score(seed, bots, p) for p in range(args.players)]
        n = checked(scores, args.arrivals, rs, random.Random(day))
        counts.append(n)
        print(f"  day {day}: {len(set(scores))} distinct scores among {args.players} games (best {max(scores)}, "
              f"{scores.count(max(scores))} at it); {n:,} of {args.arrivals:,} arrivals checked", file=sys.stderr)
    # the other end: no two games of the day tied (players far more varied than these)
    distinct = checked(list(range(args.arrivals)), args.arrivals, rs, random.Random(args.days))
    print(f"review_load: top {rs.top}, above the {100 * (1 - rs.share):g}th percentile from "
          f"{rs.percentile_min_scores} scores; {args.arrivals:,} players a day, {args.days} days of "
          f"{args.players} simulated games against {bots.id} (seed tag {args.seed_tag!r}): games checked a day "
          f"median {statistics.median(counts):,.0f} (from {min(counts):,} to {max(counts):,}); with no two games "
          f"tied {distinct:,}")
    if args.read:
        from cli.tournament import wilson
        from hindsight_rates import rescored

        rows = [rescored(json.loads(line)) for name in args.read for line in open(name)]
        honest = [r for r in rows if r["honest"]]
        k = sum(r["z"] >= rs.z for r in honest)
        lo, hi = wilson(k, len(honest))
        day = distinct  # the larger load: what ops must be ready for
        print(f"  honest games past the review's bar z {rs.z:g}: {k}/{len(honest)} = {100 * k / len(honest):.2f}% "
              f"({100 * lo:.2f}-{100 * hi:.2f}%): honest games held a day {day * k / len(honest):,.1f} "
              f"({day * lo:,.1f}-{day * hi:,.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
