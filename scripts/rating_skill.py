#!/usr/bin/env python3
"""Does the rating measure skill?  Simulated players of known strength play a day's game every
day, each day's results are rated as the worker rates them (``service.ratings.day.rate_field``:
the same update), and the ratings are compared with the strengths (not a test).

    .venv/bin/python scripts/rating_skill.py [--players 36] [--days 60] [--attend 0.8] [--seed-tag rating-skill]

Player i's strength is known by construction: at each card it plays the card of ``expert-1``
(the club's bot) with probability q_i, else a uniformly random legal card (its own seeded stream,
not the day's); q runs evenly from 0 (``random-1``) to 1 (``expert-1``).  Each day (its seed
``SHA-256(tag ‖ uint32be(day))``, the day's bots ``expert-1`` in the other seats, cheaper than the
service's own) each player plays with probability ``--attend``; the day's matchpoints are computed
deal by deal against the field of the players who played it (``service.duplicate.matchpoints``).

Printed: Spearman's rho between the ratings and q after 10, 20, 40 and the last day (goal: at
least 0.9 after 20); then, over the days after the 20th, how well three things known before a
day order the players' matchpoints of that day (the mean over the days of Spearman's rho): the
rating, the position on the all-time board (summed margins, as that board sums them) and on the
month's; and the mean absolute error of the matchpoints the rating expects (Glicko-2's expected
score against the field), beside that of the field's mean (50).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import sys
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots import get_bot  # noqa: E402
from service.duplicate.field import game_matchpoints, matchpoints  # noqa: E402
from service.ratings.day import rate_field  # noqa: E402
from service.ratings.glicko import expected, field_of, widened  # noqa: E402
from service.replay import simulate  # noqa: E402
from service.replay.stream import u32be  # noqa: E402

FIRST = date(2027, 1, 1)


class NoisyExpert:
    """``expert-1``'s card with probability ``q``, else a random legal card from its own stream."""

    def __init__(self, q: float, rng: random.Random) -> None:
        self.id, self.q, self.rng, self.expert = f"noisy-{q:.2f}", q, rng, get_bot("expert-1")

    def choose(self, obs, stream):
        if self.rng.random() < self.q:
            return self.expert.choose(obs, stream)
        return self.rng.choice(obs.legal)


def ranks(xs: list[float]) -> list[float]:
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(xs: list[float], ys: list[float]) -> float:
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return num / den if den else 0.0


def day_results(day: int, tag: bytes, players: list[float], attend: float) -> dict[str, tuple[float, int, int]]:
    """Each attending player's (matchpoints, deals compared, margin) on day ``day``."""
    seed = hashlib.sha256(tag + u32be(day)).hexdigest()
    who = random.Random(f"{tag!r}:attend:{day}")
    points, margins = {}, {}
    for i, q in enumerate(players):
        if who.random() >= attend:
            continue
        rec = simulate(seed, get_bot("expert-1"), player=NoisyExpert(q, random.Random(f"{tag!r}:{i}:{day}")))
        pid = f"p{i:03d}"
        points[pid] = [d["points"][0] for d in rec["deals"]]
        margins[pid] = (rec["rank_score"] - 1000) // 10
    out = {}
    for pid, mine in points.items():
        per_deal = []
        for k, us in enumerate(mine):
            field = [p[k] for p in points.values() if len(p) > k]
            beaten, tied = sum(x < us for x in field), sum(x == us for x in field) - 1
            per_deal.append(matchpoints(beaten, tied, len(field)))
        mp = game_matchpoints(per_deal)
        if mp is not None:
            out[pid] = (mp, sum(m is not None for m in per_deal), margins[pid])
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=36)
    p.add_argument("--days", type=int, default=60)
    p.add_argument("--attend", type=float, default=0.8)
    p.add_argument("--seed-tag", default="rating-skill")
    args = p.parse_args(argv)
    tag = args.seed_tag.encode()
    strengths = [i / (args.players - 1) for i in range(args.players)]
    q_of = {f"p{i:03d}": q for i, q in enumerate(strengths)}
    last: dict[str, object] = {}
    all_time: dict[str, int] = {}
    month: dict[str, int] = {}
    rho_at, predict = {}, {"rating": [], "all-time board": [], "month's board": []}
    errors_rating, errors_field = [], []
    started = time.perf_counter()
    for n in range(1, args.days + 1):
        day = FIRST + timedelta(days=n - 1)
        if day.day == 1:
            month = {}
        results = day_results(n, tag, strengths, args.attend)
        if n > 20 and len(results) > 2:
            pids = sorted(results)
            mps = [results[p][0] for p in pids]
            before = {p: (widened(last[p].rating, (day - last[p].day).days - 1) if p in last else None) for p in pids}
            field = field_of([b for b in before.values() if b is not None])
            rated = [p for p in pids if before[p] is not None]
            predict["rating"].append(spearman([before[p].value for p in rated], [results[p][0] for p in rated]))
            predict["all-time board"].append(spearman([all_time.get(p, 0) for p in pids], mps))
            predict["month's board"].append(spearman([month.get(p, 0) for p in pids], mps))
            for p in rated:
                errors_rating.append(abs(100 * expected(before[p], field) - results[p][0]))
                errors_field.append(abs(50 - results[p][0]))
        records = rate_field(day, {p: mp for p, (mp, _deals, _m) in results.items()},
                             {p: last.get(p) for p in results})
        last.update(records)
        for p, (_mp, _deals, margin) in results.items():
            all_time[p] = all_time.get(p, 0) + margin
            month[p] = month.get(p, 0) + margin
        if n in (10, 20, 40, args.days):
            rated = sorted(last)
            rho_at[n] = spearman([last[p].rating.value for p in rated], [q_of[p] for p in rated])
    print(f"{args.players} players, {args.days} days, attending {args.attend:.0%} of days, tag {args.seed_tag!r} "
          f"({time.perf_counter() - started:.0f} s)")
    for n, rho in rho_at.items():
        print(f"Spearman(rating, strength) after {n:>2} days: {rho:.3f}")
    print(f"days {21}-{args.days}: how well what is known before a day orders that day's matchpoints "
          "(mean Spearman over the days)")
    for what, rhos in predict.items():
        print(f"  {what:<15} {statistics.fmean(rhos):.3f}")
    print(f"  mean absolute error of the matchpoints: the rating's expectation {statistics.fmean(errors_rating):.1f}, "
          f"the field's mean (50) {statistics.fmean(errors_field):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
