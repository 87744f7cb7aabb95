#!/usr/bin/env python3
"""Benchmark the card-by-card analysis of a whole game (postmortem.analyse).

    .venv/bin/python scripts/bench_analysis.py              # 10 games, about 2-4 minutes
    .venv/bin/python scripts/bench_analysis.py --games 3    # a quick look

The games are played by expert-1 in every seat (``service.replay.simulate``) on the fixed seeds
``SHA-256("manille-analysis-bench" ‖ uint32be(i))``; each is analysed as the service does, for
seats 0 and 2 from trick 0, with the default settings (``postmortem.settings``).  Each game runs in
a process of its own, forked before any analysis ran (so nothing is warm: the solvers' tables,
the deal-count cache and the card-order caches start empty), one game at a time, so that the
figures are per core.

Prints:

1. cold: a whole game's analysis, wall and CPU seconds, p50/p90/max over the games, and per
   deal.  Its position cache starts empty and no position is reached twice in one game (checked:
   every decision is a miss), so this is the time without a cache;
2. warm: the same game again in the same process with the cache the cold run filled (every
   decision a hit: the verification and the document only);
3. the per-trick split of the cold time: decisions analysed, exact ones (every consistent deal
   solved) and forced ones, mean and p90 milliseconds per decision, and the trick's share of the
   total.  A decision's time runs from the previous decision's end (the first one's includes
   the verification of the game, a few milliseconds);
4. deals and decisions per game, the document's size as JSON (compact, sorted keys), and what
   the service stores to rebuild it (``service.analysis``): the game (``compact.pack_plays``) and
   the game's position entries packed (``positions.pack_entry``, with their 8-byte fields; a
   day's games share many, which the service stores once), p50/max;
5. the load average at the start and at the end (wall times include other processes' load).

Nothing here is a test: it only measures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from stats import quantile  # noqa: E402
from postmortem import analyse, game_plays  # noqa: E402
from bots import get_bot  # noqa: E402
from cli import tournament  # noqa: E402
from service.analysis.positions import pack_entry  # noqa: E402
from service.replay import player_cards, simulate  # noqa: E402
from service.store.compact import pack_plays  # noqa: E402

TAG = b"manille-analysis-bench"
SEATS = (0, 2)


def one(job: tuple[int, bytes]) -> dict:
    """One game, in a fresh process: played, analysed cold, then again with the cache filled."""
    i, seed = job
    record = simulate(seed, get_bot("expert-1"))
    cards = player_cards(record)
    marks: list[float] = []
    cache: dict = {}
    t0, c0 = time.perf_counter(), time.process_time()
    doc = analyse(seed, cards, seats=SEATS, cache=cache,
                  progress=lambda done, total: done and marks.append(time.perf_counter()))  # not the (0, total) call
    cold_wall, cold_cpu = time.perf_counter() - t0, time.process_time() - c0
    decisions = doc["decisions"]
    assert len(cache) == len(decisions) == len(marks), "a position was reached twice: not a cold run"
    t1, c1 = time.perf_counter(), time.process_time()
    again = analyse(seed, cards, seats=SEATS, cache=cache)
    warm_wall, warm_cpu = time.perf_counter() - t1, time.process_time() - c1
    assert again == doc
    per = [m - p for m, p in zip(marks, [t0] + marks[:-1])]
    blob = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
    return {"i": i, "deals": len(record["deals"]), "decisions": len(decisions),
            "cold": (cold_wall, cold_cpu), "warm": (warm_wall, warm_cpu),
            "rows": [(d["trick"], d["forced"], bool(d.get("exact")), t) for d, t in zip(decisions, per)],
            "json": len(blob), "game": len(pack_plays(seed, game_plays(record))),
            "positions": sum(8 + len(pack_entry(entry)) for entry in cache.values())}


def figures(xs: list[float], unit: str = "s", scale: float = 1.0, fmt: str = "7.2f") -> str:
    ys = [x * scale for x in xs]
    return (f"p50 {quantile(ys, .5):{fmt}} {unit}  p90 {quantile(ys, .9):{fmt}}  max {max(ys):{fmt}}  "
            f"mean {statistics.fmean(ys):{fmt}}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=10, help="games (default %(default)s)")
    args = p.parse_args(argv)
    if args.games < 1:
        p.error("--games is at least 1")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"bench_analysis: Python {sys.version.split()[0]}, {os.cpu_count()} cores"
          + (f", load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at start" if load else "")
          + f"; {args.games} games of expert-1 in every seat, seats {SEATS[0]} and {SEATS[1]} analysed from trick 0, "
            f"one fresh process per game, one at a time")
    t0 = time.perf_counter()
    jobs = list(enumerate(tournament.fixed_seeds(TAG, args.games)))
    with get_context("fork").Pool(1, maxtasksperchild=1) as pool:
        results = pool.map(one, jobs, chunksize=1)

    deals = [r["deals"] for r in results]
    print(f"\n1. cold (fresh process, no cache hit), a whole game:")
    print(f"  wall {figures([r['cold'][0] for r in results])}")
    print(f"  cpu  {figures([r['cold'][1] for r in results])}")
    print(f"  wall per deal {figures([r['cold'][0] / r['deals'] for r in results])}")
    print(f"\n2. warm (the same game again, every decision in the cache):")
    print(f"  wall {figures([r['warm'][0] for r in results], 'ms', 1000, '7.1f')}")
    print(f"  cpu  {figures([r['warm'][1] for r in results], 'ms', 1000, '7.1f')}")

    rows = [row for r in results for row in r["rows"]]
    total = sum(t for *_, t in rows)
    print(f"\n3. cold time by trick of the deal ({len(rows)} decisions of seats {SEATS[0]} and {SEATS[1]}):")
    print(f"  {'trick':>5} {'cards':>5} {'decisions':>9} {'exact':>6} {'forced':>6} {'mean ms':>8} {'p90 ms':>8} "
          f"{'max ms':>8} {'share':>6}")
    for trick in range(8):
        sel = [row for row in rows if row[0] == trick]
        if not sel:
            continue
        ts = [t * 1000 for *_, t in sel]
        print(f"  {trick:>5} {8 - trick:>5} {len(sel):>9} {sum(1 for row in sel if row[2]):>6} "
              f"{sum(1 for row in sel if row[1]):>6} {statistics.fmean(ts):>8.1f} {quantile(ts, .9):>8.1f} "
              f"{max(ts):>8.1f} {100 * sum(ts) / 1000 / total:>5.1f}%")

    print(f"\n4. per game: deals p50 {quantile(deals, .5)}  max {max(deals)}  total {sum(deals)}; "
          f"decisions p50 {quantile([r['decisions'] for r in results], .5)}  "
          f"max {max(r['decisions'] for r in results)}")
    print(f"  document JSON (compact, sorted keys) p50 {quantile([r['json'] for r in results], .5) / 1024:.1f} KiB  "
          f"max {max(r['json'] for r in results) / 1024:.1f} KiB; stored to rebuild it: the game p50 "
          f"{quantile([r['game'] for r in results], .5)} B, its positions p50 "
          f"{quantile([r['positions'] for r in results], .5)} B  max {max(r['positions'] for r in results)} B")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"\ntotal {time.perf_counter() - t0:.0f} s"
          + (f", load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end" if load else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
