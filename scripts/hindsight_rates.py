#!/usr/bin/env python3
"""Measure the hidden-information flag (``hindsight``) on simulated players of both kinds.

    .venv/bin/python scripts/hindsight_rates.py                       # 1,080 honest + 450 open-handed games
    .venv/bin/python scripts/hindsight_rates.py --games 30 --cheats 20   # a quick look
    .venv/bin/python scripts/hindsight_rates.py --read FILE           # the rates again from saved games
    .venv/bin/python scripts/hindsight_rates.py --skip A --out B      # complete a stopped run A into B
    .venv/bin/python scripts/hindsight_rates.py --read FILE --pooled-weight 0   # another estimator, the same games

Seat 0 is played by one of these, the other seats by ``--bots`` (default: a new day's, the
service's ``DEFAULT_BOTS``; ``--bots expert-1`` for the days before), on seeds
``SHA-256(tag ‖ uint32be(i))`` of ``--seed-tag`` (default ``hindsight-calibration``: kept apart
from the tests' seeds and the tournament's):

- honest: ``expert-1`` (the check's baseline itself: it never departs from it, so its figures
  are 0 by construction); ``expert-1+noise`` (a uniform legal card instead, one time in six);
  ``greedy-1``; ``pimc`` (from the second trick of a deal, the card with the best mean over 8
  consistent deals drawn from a stream of its own, each solved exactly: a strong player that
  departs from expert-1 on its own reading of the table).  None of them sees a hidden card;
- open-handed: ``open-always`` (oracle-1's card at every decision); ``open-where-it-pays``
  (expert-1's card unless, with open hands, it loses 2 or more card points to the best: then the
  best); ``open-some-deals`` (the same, in about half of the deals, drawn from the seed).

Every game is analysed as the worker does for the flag (``postmortem.analyse``, seat 0, from trick
``FLAG_FROM_TRICK``, its baseline expert-1's card whatever the bots) and its statistic computed
(``postmortem.hindsight.score``).  The bots' searched decisions of a game are computed once, for
its play and its analysis's replay (``Memo``).  An open-handed
game's *gain* is the card points its knowledge won: the sum over its decisions of the open value
of the card played less that of expert-1's card in the same position.

Prints, for the flag's thresholds (``service.flags.FlagSettings``, read from the ``MANILLE_FLAG_*``
variables as the worker reads them: set them to measure another setting), the share of honest
games flagged with its 95% Wilson interval and the share of open-handed games that gained 30 or
more card points that were flagged; and the same over a few other z thresholds.  Then the players'
flag (``hindsight_player``: a player's last checked games together), on simulated players whose
games are drawn, with replacement, from the games of their kind (a seeded draw): for honest kinds,
the share of players ever flagged over a month (30 checked games, tested after each one, as the
worker does); for open-handed kinds, the share flagged after 3, 5 and 7 games.  Nothing here is a
test.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import sys
import time
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from postmortem import analyse  # noqa: E402
from postmortem.hindsight import CHECK_ID, score, total  # noqa: E402
from cli.tournament import wilson  # noqa: E402
from bots import get_bot  # noqa: E402
from bots.evaluate import seat_values  # noqa: E402
from bots.oracle import pick  # noqa: E402
from bots.solver import Solver  # noqa: E402
from cli import tournament  # noqa: E402
from service.botcache import observation_digest  # noqa: E402
from service.config import DEFAULT_BOTS  # noqa: E402
from service.flags import FlagSettings, hindsight_player, hindsight_together  # noqa: E402
from service.replay import HashStream, GameState, bot_move, decision_stream, player_cards, simulate  # noqa: E402
from service.replay.cards import DECK  # noqa: E402

HONEST = ("expert-1", "expert-1+noise", "greedy-1", "pimc")
CHEATS = ("open-always", "open-where-it-pays", "open-some-deals")
EXPERT = get_bot("expert-1")
NOISE = 6  # one card in NOISE is a uniform legal card
#: The other seats' bot (``--bots``), set before the processes are forked.
BOTS = get_bot(DEFAULT_BOTS)


class Memo:
    """``bot`` with each decision of one game kept by its observation (as the day's decision cache
    keeps them): the analysis replays the game without searching again."""

    def __init__(self, bot) -> None:
        self.bot, self.id, self.seen = bot, bot.id, {}

    def choose(self, obs, rng):
        key = observation_digest(self.id, obs)
        if key not in self.seen:
            self.seen[key] = self.bot.choose(obs, rng)
        return self.seen[key]


def play(seed: bytes, kind: str, bots) -> tuple[list[str], int]:
    """Seat 0's cards of a game played by ``kind`` against ``bots``, and the card points its open
    hands gained."""
    if kind in ("expert-1", "greedy-1"):
        return player_cards(simulate(seed, bots, get_bot(kind))), 0
    state = GameState(seed)
    noise = HashStream(seed + b"noise")
    some = HashStream(seed + b"cheat-deals")
    cheat_deal: dict[int, bool] = {}
    solver, deal_seen = None, None
    cards, gained = [], 0
    while not state.is_over:
        if state.current_player != 0:
            bot_move(state, bots)
            continue
        obs = state.observation(0)
        usual = EXPERT.choose(obs, decision_stream(state.seed, obs.deal_index, 0, len(obs.tricks)))
        card = usual
        legal = state.legal_cards()
        if kind == "expert-1+noise":
            if len(legal) > 1 and noise.uniform(NOISE) == 0:
                card = legal[noise.uniform(len(legal))]
        elif kind == "pimc":
            if len(legal) > 1 and state.trick_index >= 1:
                rng = HashStream(seed + b"pimc-player" + bytes([state.deal_index, state.trick_index]))
                ev = seat_values(obs, rng, samples=8)
                card = DECK[max(ev.cards, key=lambda c: (ev.mean(c), -c))]
        elif len(legal) > 1:
            if deal_seen != state.deal_index:
                deal_seen, solver = state.deal_index, Solver(int(state.trick.trump))
                cheat_deal[deal_seen] = some.uniform(2) == 0
            values = solver.card_values(list(state.hands), state.trick, state.points[0])
            best = max(values.values())
            optimal = pick([DECK[c] for c, v in values.items() if v == best])
            if kind == "open-always":
                card = optimal
            elif best - values[usual.id] >= 2 and (kind == "open-where-it-pays" or cheat_deal[deal_seen]):
                card = optimal
            gained += values[card.id] - values[usual.id]
        cards.append(str(card))
        state.apply(card)
    return cards, gained


def one(job) -> dict:
    i, seed, kind, from_trick = job
    t0 = time.process_time()
    bots = Memo(BOTS)
    cards, gained = play(seed, kind, bots)
    doc = analyse(seed, cards, bots=BOTS.id, bot=bots, seats=(0,), from_trick=from_trick)
    s = score(doc["decisions"], 0, from_trick)
    # each counted decision's figures, so that another null variance can be measured on the saved games
    dec = [[d["trick"], d["worlds"], int(d["exact"]), d["luck"]["gain"], d["luck"]["var"],
            int(d["played"] != d["baseline"]), d["legal"][d["played"]]["open"] - d["legal"][d["baseline"]]["open"]]
           for d in doc["decisions"] if d["seat"] == 0 and not d["forced"] and d["trick"] >= from_trick]
    return {"i": i, "kind": kind, "bots": BOTS.id, "honest": kind in HONEST, "gained": gained, "z": s["z"], "gain": s["gain"],
            "var": s["var"], "departures": s["departures"], "cpu_s": round(time.process_time() - t0, 2), "dec": dec}


def rescored(row: dict) -> dict:
    """A game's figures with the check's current estimator (``postmortem.hindsight.total``), from its
    saved decisions (rows saved without them keep their own)."""
    if "dec" not in row:
        return row
    gain, var = total((t, n, bool(ex), g, v, bool(dep)) for t, n, ex, g, v, dep, _open in row["dec"])
    return {**row, "gain": round(gain, 2), "var": round(var, 2), "z": round(gain / math.sqrt(var), 2) if var > 0 else 0.0}


def calibration(rows: list[dict], fs: FlagSettings) -> None:
    """The tail of the honest games' z against a unit normal's, each honest kind apart (games with
    no departure from the baseline, whose z is 0 by construction, left out), and the share past the
    flag's and the review's thresholds, with 95 % Wilson intervals."""
    from service.review import ReviewSettings

    review_z = ReviewSettings.from_env(os.environ).z
    marks = sorted({2.0, 2.5, 3.0, fs.hindsight_z, review_z})
    from postmortem import hindsight

    print(f"calibration ({CHECK_ID}, pooled weight {hindsight.POOLED_WEIGHT:g}): honest games with a departure, share at or past z; a unit normal: "
          + ", ".join(f"z {z:g} {100 * 0.5 * math.erfc(z / math.sqrt(2)):.3f}%" for z in marks))
    for kind in HONEST + ("all honest",):
        rs = [r for r in rows if r["departures"] and (r["kind"] == kind or (kind == "all honest" and r["honest"]))]
        if not rs:
            continue
        cells = []
        for z in marks:
            k = sum(r["z"] >= z for r in rs)
            lo, hi = wilson(k, len(rs))
            normal = 0.5 * math.erfc(z / math.sqrt(2))
            cells.append(f"z {z:g}: {k}/{len(rs)} = {100 * k / len(rs):.2f}% ({100 * lo:.2f}-{100 * hi:.2f}%, "
                         f"x{k / len(rs) / normal:.2f})")
        print(f"  {kind:16s} " + "; ".join(cells))


def report(rows: list[dict], fs: FlagSettings) -> None:
    rows = [rescored(r) for r in rows]
    calibration(rows, fs)
    honest = [r for r in rows if r["honest"]]
    cheats = [r for r in rows if not r["honest"]]
    big = [r for r in cheats if r["gained"] >= 30]

    def flagged(r, z):
        return r["z"] >= z and r["gain"] >= fs.hindsight_gain

    print(f"{len(honest)} honest games, {len(cheats)} open-handed ({len(big)} of them gained 30+ card points)")
    for kind in HONEST + CHEATS:
        rs = [r for r in rows if r["kind"] == kind]
        if rs:
            zs = sorted(r["z"] for r in rs)
            print(f"  {kind:20s} {len(rs):5d} games  z p50 {zs[len(zs) // 2]:+.2f}  p99 {zs[min(len(zs) - 1, int(0.99 * len(zs)))]:+.2f}"
                  f"  max {zs[-1]:+.2f}  gained p50 {sorted(r['gained'] for r in rs)[len(rs) // 2]}"
                  f"  cpu {sum(r['cpu_s'] for r in rs) / len(rs):.2f} s a game")
    for z in sorted({fs.hindsight_z, 2.0, 2.5, 3.0, 3.5, 4.0}):
        fp = sum(flagged(r, z) for r in honest)
        tp = sum(flagged(r, z) for r in big)
        lo, hi = wilson(fp, len(honest))
        plo, phi = wilson(tp, len(big))
        mark = "  <- the flag's setting" if z == fs.hindsight_z else ""
        print(f"  z >= {z:.1f}, gain >= {fs.hindsight_gain}: honest flagged {fp}/{len(honest)} = {100 * fp / max(1, len(honest)):.2f}% "
              f"({100 * lo:.2f}-{100 * hi:.2f}%); open-handed with 30+ gained flagged {tp}/{len(big)} = "
              f"{100 * tp / max(1, len(big)):.1f}% ({100 * plo:.1f}-{100 * phi:.1f}%){mark}")
        for kind in CHEATS:
            rs = [r for r in big if r["kind"] == kind]
            if rs:
                print(f"      {kind:20s} {sum(flagged(r, z) for r in rs)}/{len(rs)}")


PLAYERS = 2000
MONTH = 30


def report_players(rows: list[dict], fs: FlagSettings) -> None:
    """The players' flag on players drawn from the games of each kind (see the module)."""
    rng = random.Random(0)
    rows = [rescored(r) for r in rows]

    def flagged_after(games: list[dict]) -> list[bool]:
        newest_first = []
        out = []
        for k, g in enumerate(games):
            newest_first.insert(0, {**g, "submission_id": str(k), "date": str(k)})
            out.append(hindsight_player(hindsight_together(newest_first, fs), fs))
        return out

    print(f"players' flag: the last {fs.hindsight_player_games} checked games together, from "
          f"{fs.hindsight_player_min}, z >= {fs.hindsight_player_z}, gain >= {fs.hindsight_gain}; "
          f"{PLAYERS} players a kind, their games drawn from the kind's")
    for kind in HONEST + CHEATS:
        pool = [r for r in rows if r["kind"] == kind]
        if not pool or kind == "expert-1":
            continue
        if kind in HONEST:
            ever = sum(any(flagged_after([rng.choice(pool) for _ in range(MONTH)])) for _ in range(PLAYERS))
            lo, hi = wilson(ever, PLAYERS)
            print(f"  {kind:20s} honest: ever flagged over {MONTH} games {ever}/{PLAYERS} = "
                  f"{100 * ever / PLAYERS:.2f}% ({100 * lo:.2f}-{100 * hi:.2f}%)")
        else:
            after = [flagged_after([rng.choice(pool) for _ in range(7)]) for _ in range(PLAYERS)]
            print(f"  {kind:20s} open-handed: flagged after " + ", ".join(
                f"{n} games {100 * sum(f[n - 1] for f in after) / PLAYERS:.1f}%" for n in (3, 5, 7)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=340, help="honest games per honest kind but expert-1")
    ap.add_argument("--baseline-games", type=int, default=60, help="games of expert-1 itself (figures 0)")
    ap.add_argument("--cheats", type=int, default=150, help="games per open-handed kind")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed-tag", default="hindsight-calibration")
    ap.add_argument("--bots", default=DEFAULT_BOTS, help="the other seats' bot (default: a new day's)")
    ap.add_argument("--out", help="save each game's figures here (JSON lines)")
    ap.add_argument("--read", nargs="+", help="report on the games saved by --out (one file or more) instead of playing")
    ap.add_argument("--kinds", help="play only these kinds (comma-separated), e.g. to complete a saved run")
    ap.add_argument("--skip", nargs="+", help="games saved in these files (a kind's game number, against the "
                    "same bots) are not played again: with --out to another file, completes a stopped run")
    ap.add_argument("--from-trick", type=int, help="count the decisions from this trick of each deal "
                    "(default: the flag's setting, MANILLE_FLAG_HINDSIGHT_FROM_TRICK)")
    ap.add_argument("--pooled-weight", type=float, help="the weight of the pooled variance in deals "
                    "(default: the check's, postmortem.hindsight.POOLED_WEIGHT; 0: each decision's own variance "
                    "alone, the check before hindsight-2), to compare estimators on the same saved games")
    args = ap.parse_args(argv)
    if args.pooled_weight is not None:
        import postmortem.hindsight
        postmortem.hindsight.POOLED_WEIGHT = args.pooled_weight
    global BOTS
    BOTS = get_bot(args.bots)
    fs = FlagSettings.from_env(os.environ)
    if args.read:
        rows = [json.loads(line) for name in args.read for line in open(name)]
        report(rows, fs)
        report_players(rows, fs)
        return 0
    n = max(args.games, args.cheats)
    seeds = tournament.fixed_seeds(args.seed_tag.encode(), n)
    kinds = args.kinds.split(",") if args.kinds else HONEST + CHEATS
    if args.from_trick is not None:
        fs = dataclasses.replace(fs, hindsight_from_trick=args.from_trick)
    jobs = [(i, seeds[i], kind, fs.hindsight_from_trick) for kind in HONEST if kind in kinds
            for i in range(args.baseline_games if kind == "expert-1" else args.games)]
    jobs += [(i, seeds[i], kind, fs.hindsight_from_trick) for kind in CHEATS if kind in kinds
             for i in range(args.cheats)]
    if args.skip:
        done = {(r["kind"], r["i"]) for name in args.skip for r in map(json.loads, open(name)) if r["bots"] == BOTS.id}
        jobs = [job for job in jobs if (job[2], job[0]) not in done]
    t0 = time.time()
    rows = []
    out = open(args.out, "w") if args.out else None
    with get_context("fork").Pool(args.jobs) as pool:
        for k, row in enumerate(pool.imap_unordered(one, jobs, chunksize=2)):
            rows.append(row)
            if out:
                out.write(json.dumps(row) + "\n")
                out.flush()
            if k % 50 == 49:
                print(f"  {k + 1}/{len(jobs)} games, {time.time() - t0:.0f} s", file=sys.stderr)
    print(f"hindsight_rates: {len(rows)} games in {time.time() - t0:.0f} s, {args.jobs} processes, "
          f"seed tag {args.seed_tag!r}, the other seats {BOTS.id}, the baseline expert-1")
    report(rows, fs)
    report_players(rows, fs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
