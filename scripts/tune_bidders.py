"""Try bidder-1's thresholds on seeds kept apart from the measurement, and print the figures.

Each variant is ``bots.bidders.Bidder`` with some class constants overridden, under an id naming
them; it plays ``manille tournament``'s pairing (expert-1 on both teams, so only the calls differ)
against longest-bidder-1 and random-bidder-1 on the seeds ``SHA-256("bidder-tuning" ‖ i)``, never
the tournament's.  Usage: ``python scripts/tune_bidders.py [--games N] [--rules ID …]
[--variants NAME …] [--against BIDDER …] [--jobs J]``.

What it printed (600 games a line, margin in game points, A = the variant):

    manillen-1 draft        vs longest-bidder-1  won 41.7% (37.8–45.7%)  margin -3.65 (-4.67 to -2.64)
    manillen-1 never-pass   vs longest-bidder-1  won 50.0% (46.0–54.0%)  margin +0.02 (-0.62 to +0.67)
    manillen-1 pass<12      vs longest-bidder-1  won 48.0% (44.0–52.0%)  margin -0.97 (-1.67 to -0.27)
    manillen-1 pass<20      vs longest-bidder-1  won 34.5% (30.8–38.4%)  margin -7.51 (-8.73 to -6.28)
    manillen-1 never-pass,NT-3tens/.4 vs longest won 49.8% (45.8–53.8%)  margin +0.17 (-0.55 to +0.89)
    manillen-1 never-pass,NT-2tens/.5 vs longest won 50.0% (46.0–54.0%)  margin +0.20 (-0.58 to +0.97)
    parlee-1   draft        vs longest-bidder-1  won 52.8% (48.8–56.8%)  margin +3.63 (+1.57 to +5.69)
    parlee-1   never-double vs longest-bidder-1  won 48.7% (44.7–52.7%)  margin -2.73 (-4.13 to -1.34)
    parlee-1   double>=16   vs longest-bidder-1  won 46.3% (42.4–50.3%)  margin -2.08 (-4.46 to +0.29)
    parlee-1   double>=24   vs longest-bidder-1  won 52.3% (48.3–56.3%)  margin +1.38 (-0.31 to +3.08)
    parlee-1   NT-3tens/.4  vs longest-bidder-1  won 54.0% (50.0–57.9%)  margin +5.33 (+3.16 to +7.51)
    parlee-1   NT-2tens/.5  vs longest-bidder-1  won 53.7% (49.7–57.6%)  margin +4.46 (+2.35 to +6.58)

(no-NT and NT-2tens played exactly as the draft: its no-trump test at 0.8 never passed.)
bidder-1 is the draft with never-pass and NT-3tens/.4 (parlee-1 never passes anyway).
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor

from bots import get_bidder, get_bot
from bots.bidders import Bidder
from cli import tournament

TAG = b"bidder-tuning"

#: The first draft of bidder-1, before tuning; every variant below is it with some values changed.
DRAFT = {"NT_TENS": 3, "NT_RATIO": 0.8, "PASS_BELOW": 16, "DOUBLE_AT": 20, "DOUBLE_NT_TENS": 2,
         "REDOUBLE_AT": 24}

#: name -> the draft's values it changes; "bidder-1" is the frozen bidder itself.
VARIANTS = {
    "bidder-1": None,
    "draft": {},
    "never-pass": {"PASS_BELOW": 0},
    "pass<12": {"PASS_BELOW": 12},
    "pass<20": {"PASS_BELOW": 20},
    "no-NT": {"NT_TENS": 5},
    "NT-2tens": {"NT_TENS": 2},
    "never-double": {"DOUBLE_AT": 1000, "DOUBLE_NT_TENS": 5, "REDOUBLE_AT": 1000},
    "double>=16": {"DOUBLE_AT": 16, "REDOUBLE_AT": 20},
    "double>=24": {"DOUBLE_AT": 24, "DOUBLE_NT_TENS": 3, "REDOUBLE_AT": 28},
    "NT-3tens/.4": {"NT_RATIO": 0.4},
    "NT-2tens/.5": {"NT_TENS": 2, "NT_RATIO": 0.5},
    "never-pass,NT-3tens/.4": {"PASS_BELOW": 0, "NT_RATIO": 0.4},
    "never-pass,NT-2tens/.5": {"PASS_BELOW": 0, "NT_TENS": 2, "NT_RATIO": 0.5},
}


def variant(name: str) -> Bidder:
    """The bidder a variant names: bidder-1 itself, or the draft with its changes under its own id."""
    if VARIANTS[name] is None:
        return get_bidder("bidder-1")
    cls = type("Variant", (Bidder,), dict(DRAFT, **VARIANTS[name], id=f"bidder-draft[{name}]"))
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
