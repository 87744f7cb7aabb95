"""Try bidder-1's thresholds on seeds kept apart from the measurement, and print the figures.

Each variant is ``bots.bidders.Bidder`` with some class constants overridden, under an id naming
them; it plays ``manille tournament``'s pairing (expert-1 on both teams, so only the calls differ)
against longest-bidder-1 and random-bidder-1 on the seeds ``SHA-256("bidder-tuning" ‖ i)``, never
the tournament's.  Usage: ``python scripts/tune_bidders.py [--games N] [--rules ID …] [--jobs J]``.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor

from bots import get_bidder, get_bot
from bots.bidders import Bidder
from cli import tournament

TAG = b"bidder-tuning"

#: name -> overrides of Bidder's constants; "bidder-1" is the frozen values.
VARIANTS = {
    "bidder-1": {},
    "never-pass": {"PASS_BELOW": 0},
    "pass<12": {"PASS_BELOW": 12},
    "pass<20": {"PASS_BELOW": 20},
    "no-NT": {"NT_TENS": 5},
    "NT-2tens": {"NT_TENS": 2, "NT_RATIO": 0.8},
    "never-double": {"DOUBLE_AT": 1000, "DOUBLE_NT_TENS": 5, "REDOUBLE_AT": 1000},
    "double>=16": {"DOUBLE_AT": 16, "REDOUBLE_AT": 20},
    "double>=24": {"DOUBLE_AT": 24, "DOUBLE_NT_TENS": 3, "REDOUBLE_AT": 28},
    "NT-3tens/.4": {"NT_TENS": 3, "NT_RATIO": 0.4},
    "NT-2tens/.5": {"NT_TENS": 2, "NT_RATIO": 0.5},
    "never-pass,NT-3tens/.4": {"PASS_BELOW": 0, "NT_TENS": 3, "NT_RATIO": 0.4},
    "never-pass,NT-2tens/.5": {"PASS_BELOW": 0, "NT_TENS": 2, "NT_RATIO": 0.5},
}


def variant(name: str) -> Bidder:
    if not VARIANTS[name]:
        return get_bidder("bidder-1")
    cls = type("Variant", (Bidder,), dict(VARIANTS[name], id=f"bidder-1[{name}]"))
    return cls()


def one(job: tuple[str, str, str, int]) -> tuple:
    rules, name, opponent, games = job
    bot = get_bot("expert-1")
    r = tournament.run(bot, bot, games, rules=rules, bidder_a=variant(name),
                       bidder_b=get_bidder(opponent), tag=TAG)
    return job, r


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=600)
    p.add_argument("--rules", nargs="+", default=["parlee-1", "manillen-1"])
    p.add_argument("--variants", nargs="+", default=list(VARIANTS))
    p.add_argument("--against", nargs="+", default=["longest-bidder-1", "random-bidder-1"])
    p.add_argument("--jobs", type=int, default=2)
    a = p.parse_args()
    jobs = [(r, v, o, a.games) for r in a.rules for v in a.variants for o in a.against]
    print(f"tuning seeds {TAG.decode()!r}, {a.games} games each, expert-1 plays every card")
    with ProcessPoolExecutor(a.jobs) as pool:
        for (rules, name, opponent, games), r in pool.map(one, jobs):
            lo, hi = r["a_win_rate_ci"]
            mlo, mhi = r["a_mean_margin_ci"]
            print(f"{rules:10} {name:22} vs {opponent:17} won {100 * r['a_win_rate']:5.1f}% "
                  f"({100 * lo:.1f}–{100 * hi:.1f}%)  margin {r['a_mean_margin']:+7.2f} "
                  f"({mlo:+.2f} to {mhi:+.2f})", flush=True)


if __name__ == "__main__":
    main()
