#!/usr/bin/env python3
"""Benchmark the double-dummy solver (bots/solver.py) and measure expert-1 against oracle-1.

    .venv/bin/python scripts/bench_oracle.py                 # about 5-8 minutes on 2 cores
    .venv/bin/python scripts/bench_oracle.py --positions 10 --games 20   # a quick look

Prints:

1. the solver's time per position, p50/p90/p99/max, from the first trick (the deal's first lead,
   32 cards) and from the fourth trick (its lead, 20 cards): ``best_cards`` (the exact value and
   the set of optimal cards: what oracle-1 and the anti-cheat comparison ask) and ``solve`` (the
   exact value of every legal card), each with a fresh solver (empty table), with the compiled
   search (``bots.native``) and with the Python one it is held to, and their ratio.  The positions are
   deals of fixed seeds ``SHA-256("manille-oracle-bench" ‖ uint32be(i))`` played by expert-1 in
   every seat up to there.  One process, so that the figures are per core;
2. a tournament expert-1 (team A) against oracle-1 (team B) on the tournament's fixed seeds, each
   played twice with the teams swapped (``cli.tournament``): games won and mean margin; and
   at every decision of expert-1, whether its card is one of the oracle's optimal cards for the
   true position, by trick of the deal.  "decisive" decisions are those where at least one legal
   card is not optimal (the others cannot disagree); "points dropped" is the value of the best
   card minus that of the card played, in card points of the deal.  The per-seat rate over a
   game is what an anti-cheat flag would look at: its quantiles over the expert's seats are
   printed too.  The games run in ``--jobs`` processes (the results do not depend on it).

Nothing here is a test: it only measures.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from multiprocessing import get_context
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from stats import quantile  # noqa: E402
from bots import get_bot  # noqa: E402
from bots import oracle  # noqa: E402
from bots.solver import Solver  # noqa: E402
from cli import tournament  # noqa: E402
from service.replay import GameState, bot_move, decision_stream  # noqa: E402

EXPERT = get_bot("expert-1")
PROBED = EXPERT  # the bot of part 2 (``--bot``)


class Decision(NamedTuple):
    """One decision of the probed bot, judged with every hand open."""

    game: tuple  # (seed index, the probed bot's team)
    seat: int
    trick: int
    legal: int  # how many legal cards
    decisive: bool  # some legal card is worse than the best
    agree: bool  # the bot's card is one of the optimal ones
    dropped: int  # card points the bot's card gives up against the best
    lead: bool


# -- 1. solver time per position ---------------------------------------------------------------------


def positions(trick: int, n: int) -> list[GameState]:
    """Deal 0 of ``n`` fixed seeds, played by expert-1 in every seat to the lead of ``trick``."""
    out = []
    for seed in tournament.fixed_seeds(b"manille-oracle-bench", n):
        state = GameState(seed)
        while state.trick_index < trick:
            bot_move(state, EXPERT)
        out.append(state)
    return out


def time_solver(states: list[GameState], compiled: bool = True) -> dict:
    """Wall and CPU seconds of each question on each position, and the mean nodes searched, with
    the compiled search (``bots.native``) or the Python one it is held to."""
    rows = {"best_cards": ([], []), "solve": ([], [])}
    nodes = {"best_cards": 0, "solve": 0}
    for state in states:
        for name, fn in (("best_cards", oracle.best_cards), ("solve", oracle.solve)):
            solver = Solver(int(state.trick.trump), compiled=compiled)
            gc.collect()
            t0, c0 = time.perf_counter(), time.process_time()
            fn(state, solver)
            rows[name][0].append(time.perf_counter() - t0)
            rows[name][1].append(time.process_time() - c0)
            nodes[name] += solver.nodes
    return {name: (wall, cpu, nodes[name] / len(states)) for name, (wall, cpu) in rows.items()}


def print_times(label: str, result: dict) -> None:
    for name, (wall, cpu, nodes) in result.items():
        for kind, times in (("wall", wall), ("cpu", cpu)):
            ms = [t * 1000 for t in times]
            print(f"  {label:<28} {name:<10} {kind:<4} p50 {quantile(ms, .5):7.1f} ms  p90 {quantile(ms, .9):7.1f}  "
                  f"p99 {quantile(ms, .99):7.1f}  max {max(ms):7.1f}  mean {statistics.fmean(ms):7.1f}"
                  + (f"  ({len(ms)} positions, {nodes:,.0f} nodes on average)" if kind == "wall" else ""))


# -- 2. expert-1 against oracle-1, with the agreement of expert-1's cards -----------------------------


class Probe:
    """expert-1 exactly as ``bot_move`` plays it (same observation, same decision stream), that
    also asks the oracle, which sees the whole state, what the optimal cards were."""

    sees_all = True

    @property
    def id(self) -> str:
        return PROBED.id

    def __init__(self, solver_of) -> None:
        self.solver_of = solver_of
        self.rows: list[Decision] = []
        self.game = None
        self.analysis = 0.0
        self.thinking = 0.0

    def choose_open(self, state: GameState):
        seat = state.trick.next_seat
        obs = state.observation(seat)
        t0 = time.process_time()
        card = PROBED.choose(obs, decision_stream(state.seed, obs.deal_index, seat, len(obs.tricks)))
        t1 = time.process_time()
        legal = obs.legal
        if len(legal) == 1:
            self.rows.append(Decision(self.game, seat, state.trick_index, 1, False, True, 0, not state.trick.plays))
        else:
            solver = self.solver_of(state)
            best_value, best = solver.best(list(state.hands), state.trick, state.points[0])
            agree = card.id in best
            dropped = 0
            if not agree:
                dropped = best_value - solver.card_value(list(state.hands), state.trick, card.id, state.points[0])
            self.rows.append(Decision(self.game, seat, state.trick_index, len(legal), len(best) < len(legal), agree,
                                      dropped, not state.trick.plays))
        self.analysis += time.process_time() - t1
        self.thinking += t1 - t0
        return card


def play_seed(i_seed: tuple[int, bytes]) -> dict:
    """Both games of one seed: expert-1 (A) on seats 0, 2, then on seats 1, 3."""
    i, seed = i_seed
    orc = oracle.OracleBot()
    probe = Probe(orc.solver_for)  # the same solver as the oracle's: one table per deal
    out = {"games": [], "rows": []}
    t_oracle = 0.0
    n_oracle = 0
    for a_team in (0, 1):
        probe.game = (i, a_team)

        class TimedOracle:
            id = "oracle-1"
            sees_all = True

            def choose_open(self, state):
                nonlocal t_oracle, n_oracle
                t0 = time.process_time()
                card = orc.choose_open(state)
                t_oracle += time.process_time() - t0
                n_oracle += 1
                return card

        b = TimedOracle()
        seats = (probe, b, probe, b) if a_team == 0 else (b, probe, b, probe)
        state = tournament.play_open(seed, seats)
        out["games"].append((state.totals[a_team], state.totals[1 - a_team], len(state.deals)))
    out["rows"] = probe.rows
    out["times"] = (probe.thinking, len(probe.rows), t_oracle, n_oracle, probe.analysis)
    return out


def run_tournament(games: int, jobs: int) -> None:
    seeds = list(enumerate(tournament.tournament_seeds(games // 2)))
    t0 = time.perf_counter()
    if jobs > 1:
        with get_context("fork").Pool(jobs) as pool:
            results = pool.map(play_seed, seeds, chunksize=1)
    else:
        results = [play_seed(s) for s in seeds]
    wall = time.perf_counter() - t0

    wins = deals = 0
    pair_margins = []
    rows = []
    think = n_think = t_orc = n_orc = analysis = 0.0
    for r in results:
        pair = 0
        for mine, theirs, n_deals in r["games"]:
            wins += mine > theirs
            pair += mine - theirs
            deals += n_deals
        pair_margins.append(pair / 2)
        rows += r["rows"]
        a, b, c, d, e = r["times"]
        think, n_think, t_orc, n_orc, analysis = think + a, n_think + b, t_orc + c, n_orc + d, analysis + e
    lo, hi = tournament.wilson(wins, games)
    margin, (mlo, mhi) = tournament.mean_ci(pair_margins)
    print(f"\n2. tournament: A = {PROBED.id} (seats 0, 2) vs B = oracle-1 (seats 1, 3); {games} games "
          f"({games // 2} seeds, each played twice with the teams swapped), {deals} deals, "
          f"{jobs} process(es), {wall:.0f} s")
    print(f"  {PROBED.id} won {wins}/{games} = {100 * wins / games:.1f}% (95% CI {100 * lo:.1f}–{100 * hi:.1f}%); "
          f"oracle-1 won {100 * (games - wins) / games:.1f}%")
    print(f"  {PROBED.id} mean margin {margin:+.2f} game points (95% CI {mlo:+.2f} to {mhi:+.2f}); "
          f"mean rank score {1000 + 10 * margin:.0f}")
    print(f"  CPU ms per decision: {PROBED.id} {1000 * think / max(n_think, 1):.2f} ({int(n_think)}), "
          f"oracle-1 {1000 * t_orc / max(n_orc, 1):.1f} ({int(n_orc)}); the oracle's analysis of "
          f"{PROBED.id}'s decisions {1000 * analysis / max(n_think, 1):.1f} ms each")

    print(f"\n  {PROBED.id}'s card among the oracle's optimal cards, by trick of the deal (from 0):")
    print(f"  {'trick':>5} {'decisions':>9} {'forced':>7} {'all opt.':>8} {'decisive':>8} "
          f"{'agree all':>9} {'agree decisive':>14} {'pts dropped/decisive':>21}")
    for t in list(range(8)) + [None]:
        sel = [r for r in rows if t is None or r.trick == t]
        n = len(sel)
        forced = sum(1 for r in sel if r.legal == 1)
        decisive = [r for r in sel if r.decisive]
        all_opt = n - forced - len(decisive)
        agree = sum(1 for r in sel if r.agree)
        agree_d = sum(1 for r in decisive if r.agree)
        dropped = sum(r.dropped for r in decisive)
        rate_d = f"{100 * agree_d / len(decisive):>13.1f}%" if decisive else f"{'-':>14}"
        drop_d = f"{dropped / len(decisive):>21.2f}" if decisive else f"{'-':>21}"
        print(f"  {'all' if t is None else t:>5} {n:>9} {forced:>7} {all_opt:>8} {len(decisive):>8} "
              f"{100 * agree / max(n, 1):>8.1f}% {rate_d} {drop_d}")

    print(f"\n  {PROBED.id}'s card points dropped a game: {sum(r.dropped for r in rows if r.decisive) / games:.2f}; "
          f"decisive decisions split into leads and follows (an opening lead: trick 0's; "
          f"scripts/lead_ceiling.py says what any player could do there):")
    print(f"  {'trick':>5} {'leads':>6} {'optimal':>8} {'dropped/game':>12}   {'follows':>7} {'optimal':>8} "
          f"{'dropped/game':>12}")
    for t in list(range(7)) + [None]:
        cells = []
        for lead in (True, False):
            sel = [r for r in rows if r.decisive and r.lead == lead and (t is None or r.trick == t)]
            rate = f"{100 * sum(r.agree for r in sel) / len(sel):.1f}%" if sel else "-"
            cells.append(f"{len(sel):>6} {rate:>8} {sum(r.dropped for r in sel) / games:>12.2f}")
        print(f"  {'all' if t is None else t:>5} {cells[0]}   {cells[1].rjust(29)}")

    # Per seat and game: what a flag on one player's game would see.
    per: dict = {}
    for r in rows:
        if r.decisive:
            k = per.setdefault((r.game, r.seat), [0, 0])
            k[0] += r.agree
            k[1] += 1
    rates = [a / n for a, n in per.values() if n >= 10]
    if rates:
        qs = ", ".join(f"p{int(q * 100)} {100 * quantile(rates, q):.1f}%" for q in (0.01, 0.05, 0.5, 0.95, 0.99))
        print(f"\n  per seat and game ({PROBED.id} seats with >= 10 decisive decisions, {len(rates)} of them): "
              f"agreement on decisive decisions {qs}; max {100 * max(rates):.1f}%, "
              f"{sum(1 for r in rates if r == 1)} at 100%")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", type=int, default=50, help="positions per trick (default %(default)s)")
    p.add_argument("--games", type=int, default=200, help="tournament games, even (default %(default)s)")
    p.add_argument("--bot", default="expert-1", help="the bot of part 2 (default %(default)s)")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                   help="processes for the tournament (default %(default)s)")
    args = p.parse_args(argv)
    global PROBED
    PROBED = get_bot(args.bot)
    if args.games < 0 or args.games % 2:
        p.error("--games is even (0: no tournament)")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"bench_oracle: Python {sys.version.split()[0]}, {os.cpu_count()} cores"
          + (f", load average {load[0]:.2f} at start" if load else "")
          + " (wall times include other processes' load; cpu = this process's CPU time)")
    t0 = time.perf_counter()
    print("\n1. solver time per position, at the lead of trick 0 and of trick 3 (tricks count from 0); "
          "fresh solver each, one process")
    for trick in (0, 3) if args.positions else ():
        states = positions(trick, args.positions)
        cards = 32 - 4 * trick
        compiled = time_solver(states) if Solver(0).compiled else None
        python = time_solver(states, compiled=False)
        if compiled:
            print_times(f"trick {trick} ({cards} cards) compiled", compiled)
        print_times(f"trick {trick} ({cards} cards) Python", python)
        if compiled:
            for name in ("best_cards", "solve"):
                ratio = statistics.median(python[name][1]) / statistics.median(compiled[name][1])
                print(f"  trick {trick} {name}: the compiled search {ratio:.0f}x sooner at the median (cpu)")
    if args.games:
        run_tournament(args.games, args.jobs)
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"\ntotal {time.perf_counter() - t0:.0f} s" + (f", load average {load[0]:.2f} at the end" if load else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
