#!/usr/bin/env python3
"""Play a candidate setting of the searching bots against expert-1 on seeds kept apart.

    .venv/bin/python scripts/tune_expert.py --base expert-3 --set worlds8=16 --games 100

The candidate is ``--base``'s row of ``bots.searching.SETTINGS`` with ``--set`` settings changed
(the row's keys name them; the candidate's id shows them, ``expert-3[worlds8=16]``), never a frozen
id: a candidate worth keeping becomes a new row there.  It plays ``--games`` games against
expert-1 (``--against``) on the seeds ``SHA-256(--seed-tag ‖ i)``, teams swapped on each seed's
second game, and prints the tournament's summary.  The seeds default to ``tune-expert4``, apart
from the tournament's own (the measurement) and from the tests'.  Every candidate on the same tag
meets the same deals, so differences between candidates are less noisy than each interval.

    .venv/bin/python scripts/tune_expert.py --base expert-5 --set proposals=1200 --games 2400 --paired

``--paired`` also plays ``--base`` itself on the same seeds and prints the candidate's margin less
the base's, seed by seed, with its 95 % interval: games soon part ways, so a difference of half a
game point takes a thousand seeds or more to show.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bots import get_bot  # noqa: E402
from bots.searching import SearchingBot  # noqa: E402
from cli import tournament  # noqa: E402


def candidate(base: str, settings: list[str]) -> SearchingBot:
    """``base``'s row with ``settings`` (``key=python literal``) changed."""
    tuning = {}
    for item in settings:
        key, _, text = item.partition("=")
        tuning[key] = ast.literal_eval(text)
    return SearchingBot(base, **tuning)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="expert-3")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--against", default="expert-1")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed-tag", default="tune-expert4")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--paired", action="store_true", help="also play --base on the same seeds; print the difference")
    args = ap.parse_args(argv)
    bot = candidate(args.base, args.set)
    play = dict(tag=args.seed_tag.encode(), jobs=args.jobs, pairs=args.paired)
    result = tournament.run(bot, get_bot(args.against), args.games, **play)
    if args.paired:
        base = tournament.run(get_bot(args.base), get_bot(args.against), args.games, **play)
        diffs = [c - b for c, b in zip(result.pop("a_pair_margins"), base.pop("a_pair_margins"))]
        diff, (lo, hi) = tournament.mean_ci(diffs)
        result["paired"] = {"base": base["a"], "base_mean_margin": base["a_mean_margin"],
                            "difference": diff, "difference_ci": [lo, hi]}
    print(json.dumps(result) if args.json else tournament.summary(result))
    if args.paired and not args.json:
        print(f"paired on {len(diffs)} seeds: {result['a']} {result['a_mean_margin']:+.2f}, {base['a']} "
              f"{base['a_mean_margin']:+.2f}; the difference {diff:+.2f} (95% CI {lo:+.2f} to {hi:+.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
