#!/usr/bin/env python3
"""Benchmark the day's bots where they run: a decision, a whole game's verification, the cache.

    .venv/bin/python scripts/bench_bots.py               # about 13 minutes on one core
    .venv/bin/python scripts/bench_bots.py --games 5 --players 20   # a quick look

On the fixed seeds ``SHA-256("manille-bots-bench" ‖ uint32be(i))``, seat 0 played by expert-1
(a player who is not the bot), the other seats by the bot measured.  One process, so that the
figures are per core.  Prints, for each of ``--bots`` (expert-1 to expert-6) in the same run:

1. each bot's time per decision (``choose``, the three bot seats, forced cards included):
   p50/p90/p99/max over the games' decisions, and for a bot that searches, which decisions the
   slowest 1 % are (cards in hand, lead or follow) with each such kind's own median;
2. the worker's verification of a whole game (``service.replay.verify``): cold (every decision
   computed) p50/p90, and for a bot that searches, warm: through its decision cache (``service.botcache``) in
   a real Redis (an embedded redis-server) that the play path filled, as it does for a day;
3. the cache's hit rate over a realistic day: ``--players`` players of one seed, each expert-1
   with a uniform legal card instead one time in six (its own stream), arriving one after the
   other; each game is verified through the cache, and the share of the bot's searches found
   there is printed as the day fills, with the day's verification time per game (for each of
   ``--day-bots``: expert-2 to expert-6).

Nothing here is a test: it only measures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bots import get_bot  # noqa: E402
from cli import tournament  # noqa: E402
from service.botcache import CachedBot, DecisionCache  # noqa: E402
from service.redis_server import RedisServer  # noqa: E402
from service.replay import GameState, HashStream, decision_stream, player_cards, verify  # noqa: E402
from service.store import connect  # noqa: E402

EXPERT = get_bot("expert-1")
NOISE = 6


class Timed:
    def __init__(self, bot) -> None:
        self.bot, self.id, self.times, self.kinds = bot, bot.id, [], []
        self.searches = getattr(bot, "searches", None)

    def choose(self, obs, rng):
        t0 = time.perf_counter()
        card = self.bot.choose(obs, rng)
        self.times.append(time.perf_counter() - t0)
        self.kinds.append((obs.hand_mask.bit_count(), "follow" if obs.trick.plays else "lead"))
        return card


def slowest(timed: Timed, ms: list[float]) -> str:
    """Which decisions (cards in hand, lead or follow) are the slowest 1 %, with each kind's p50."""
    top = q(ms, .99)
    slow = Counter(k for t, k in zip(ms, timed.kinds) if t > top)
    parts = []
    for (size, what), n in slow.most_common(3):
        all_of = [t for t, k in zip(ms, timed.kinds) if k == (size, what)]
        parts.append(f"{n} with {size} cards, a {what} (p50 of all {len(all_of)} such: {q(all_of, .5):.0f} ms)")
    return "; ".join(parts)


def player_game(seed: bytes, bot, noise: HashStream | None = None) -> list[str]:
    """Seat 0's cards: expert-1's (a uniform legal card one time in NOISE with ``noise``)."""
    state = GameState(seed)
    cards = []
    while not state.is_over:
        seat = state.current_player
        obs = state.observation(seat)
        stream = decision_stream(state.seed, obs.deal_index, seat, len(obs.tricks))
        card = (EXPERT if seat == 0 else bot).choose(obs, stream)
        if seat == 0:
            legal = state.legal_cards()
            if noise is not None and len(legal) > 1 and noise.uniform(NOISE) == 0:
                card = legal[noise.uniform(len(legal))]
            cards.append(str(card))
        state.apply(card)
    return cards


def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def day(client, bot, seed: bytes, players: int) -> None:
    client.flushall()
    print(f"\n3. a day of {players} players of one seed (expert-1, a uniform card one time in "
          f"{NOISE}), verified through {bot.id}'s cache as they come")
    hits = misses = 0
    spent = []
    for i in range(players):
        cards = player_game(seed, bot, HashStream(b"bench player" + i.to_bytes(4, "big")))
        cache = DecisionCache(client, seed)
        t0 = time.perf_counter()
        verify(seed, cards, CachedBot(bot, cache))
        spent.append(time.perf_counter() - t0)
        hits += cache.hits
        misses += cache.misses
        if i + 1 in (1, 10, players // 2, players):
            print(f"  after {i + 1:4d} players: {100 * hits / max(1, hits + misses):5.1f}% of searches "
                  f"found; verification p50 {q(spent, .5):.3f} s a game so far")
    print(f"  the day's cache: {client.hlen(DecisionCache(client, seed).key)} decisions, "
          f"{client.memory_usage(DecisionCache(client, seed).key) / 1024:.0f} KiB")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--bots", default="expert-1,expert-2,expert-3,expert-4,expert-5,expert-6")
    ap.add_argument("--day-bots", default="expert-2,expert-3,expert-4,expert-5,expert-6")
    args = ap.parse_args(argv)
    load = os.getloadavg()[0]
    print(f"bench_bots: Python {sys.version.split()[0]}, load average {load:.2f} at start; one process")
    seeds = tournament.fixed_seeds(b"manille-bots-bench", args.games)
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(tmp, aof=False)
        server.start()
        try:
            client = connect(server.url)
            print(f"\n1-2. {args.games} games, seat 0 expert-1, the bot in seats 1-3")
            for bot_id in args.bots.split(","):
                bot = get_bot(bot_id)
                timed = Timed(bot)
                cold, warm = [], []
                for seed in seeds:
                    cards = player_game(seed, bot)
                    t0 = time.perf_counter()
                    verify(seed, cards, timed)
                    cold.append(time.perf_counter() - t0)
                    if timed.searches:
                        cache = DecisionCache(client, seed)
                        verify(seed, cards, CachedBot(bot, cache))  # the play path, filling the day's cache
                        t0 = time.perf_counter()
                        verify(seed, cards, CachedBot(bot, DecisionCache(client, seed)))
                        warm.append(time.perf_counter() - t0)
                ms = [t * 1000 for t in timed.times]
                print(f"  {bot_id}: a decision p50 {q(ms, .5):.2f} ms, p90 {q(ms, .9):.2f}, p99 {q(ms, .99):.2f}, "
                      f"max {max(ms):.1f} ({len(ms)} decisions)")
                if timed.searches:
                    print(f"  {bot_id}: its slowest 1 %: {slowest(timed, ms)}")
                print(f"  {bot_id}: verifying a game, cold: p50 {q(cold, .5):.3f} s, p90 {q(cold, .9):.3f} s"
                      + (f"; through a filled cache: p50 {q(warm, .5):.3f} s, p90 {q(warm, .9):.3f} s" if warm else ""))

            for bot_id in filter(None, args.day_bots.split(",")):
                day(client, get_bot(bot_id), seeds[0], args.players)
        finally:
            server.stop()
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
