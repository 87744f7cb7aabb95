#!/usr/bin/env python3
"""What a closed day's open-data file costs: bytes a game and seconds a day for
``GET /api/v1/days/{date}/games`` (plain and gzip), the memory its streaming holds at two sizes,
and the seconds ``manille verify-day`` takes a day of expert-5 games (not a test; a few minutes).

    .venv/bin/python scripts/bench_day_games.py [--sizes 10000,100000] [--check 6] [--jobs 2]

On a private redis-server (no AOF), a past day's board holds ``size`` games recorded as
verification records them (``bulk_boards.record_many``) with their submissions stored as
``service.submissions.codec`` stores them; the games' cards are 200 real games of a seeded random
player against random-1 on the day's seed (``--distinct`` of them, used in turn; the same bytes
every run: the bot changes the cards, not the size).  The file is
streamed by ``service.opendata.DayGames`` (what the route streams): its bytes and time, plain and
gzip; its peak Python memory (tracemalloc) at each size, which stays flat if it is constant.
Last, ``--check`` real games of a seeded random player against expert-5 are written as a day's
file and checked by ``cli.verify_day.verify_file`` on ``--jobs`` processes; the seconds for 10^5
games are extrapolated from them, and printed as such.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import tempfile
import time
import tracemalloc
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MANILLE_SECRET", "bench-secret-for-the-day-games-0123456789")

from bots import get_bot  # noqa: E402
from cli.verify_day import verify_file  # noqa: E402
from service.challenges import Challenges  # noqa: E402
from service.config import Settings  # noqa: E402
from service.leaderboard import Leaderboard  # noqa: E402
from bulk_boards import record_many  # noqa: E402
from service.opendata import DayGames, gzipped  # noqa: E402
from service.redis_server import RedisServer  # noqa: E402
from service.replay import simulate  # noqa: E402
from service.seeds import commitment  # noqa: E402
from service.store import connect, shard_of  # noqa: E402
from service.store.compact import pack_cards, pack_times  # noqa: E402
from service.submissions import Submissions  # noqa: E402
from service.submissions.codec import pack_game  # noqa: E402

DAY = date(2026, 11, 10)  # long closed


class SeededPlayer:
    """A player choosing uniformly among the legal cards from its own seeded stream."""

    id = "bench-player"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, obs, _rng):
        return self.rng.choice(list(obs.legal))


def real_games(seed: bytes, bots: str, n: int) -> list[dict]:
    """``n`` records of seeded random players against ``bots`` on ``seed``."""
    return [simulate(seed, get_bot(bots), SeededPlayer(i)) for i in range(n)]


def cards_of(record: dict) -> list[str]:
    return [p["card"] for d in record["deals"] for t in d["tricks"] for p in t["plays"] if p["seat"] == 0]


def store_day(r, settings: Settings, games: list[dict], start: int, size: int) -> None:
    """Games ``start`` … ``size − 1`` on the day's board and in the submissions."""
    entries = []
    pipe = r.pipeline(transaction=False)
    for i in range(start, size):
        record = games[i % len(games)]
        pid = f"{i:026x}"
        sub_id = f"{DAY:%Y%m%d}-{shard_of(pid):02d}-{i:08x}{i:020x}"
        cards = cards_of(record)
        times = [1_700_000_000_000 + 1500 * k + (i * k) % 900 for k in range(len(cards))]
        game = {"played": pack_cards(cards), "pace": pack_times(times), "run_ip": "", "run_agent": ""}
        pipe.hset(Submissions.key(sub_id), mapping={"pid": pid, "nickname": f"player{i}", "game": pack_game(game),
                                                    "status": "verified"})
        entries.append((pid, f"player{i}", record["rank_score"], sub_id,
                        [d["points"][0] for d in record["deals"]]))
        if len(pipe) >= 2000:
            pipe.execute()
    pipe.execute()
    record_many(Leaderboard(r), DAY, entries, batch=2000)


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (the check's pool)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def stream(day_games: DayGames, zipped: bool) -> tuple[int, float]:
    t0 = time.perf_counter()
    head = day_games.state(DAY)["head"]
    lines = day_games.lines(DAY, head)
    size = sum(len(chunk) for chunk in (gzipped(lines) if zipped else lines))
    return size, time.perf_counter() - t0


def peak_memory(day_games: DayGames) -> int:
    tracemalloc.start()
    for _ in day_games.lines(DAY, day_games.state(DAY)["head"]):
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="10000,100000")
    p.add_argument("--check", type=int, default=6, help="expert-5 games checked by verify-day")
    p.add_argument("--distinct", type=int, default=10000, help="distinct games on the board, used in turn")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]  # --sizes '': the check alone
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp) / "redis", aof=False).start()
        try:
            r = connect(server.url)
            settings = Settings.from_env(redis_url=server.url)
            Challenges(r, settings).stored_terms(DAY, create=True)
            seed = settings.seed(DAY)
            games = real_games(seed, "random-1", args.distinct) if sizes else []
            day_games = DayGames(r, settings)
            print(f"bench_day_games: redis {r.info('server')['redis_version']}, the day's file streamed in-process")
            print(f"{'games':>9} {'plain B/game':>13} {'gzip B/game':>12} {'plain s':>8} {'gzip s':>7} "
                  f"{'s/10^6 (gzip)':>14} {'peak MiB':>9}")
            stored = 0
            for size in sizes:
                store_day(r, settings, games, stored, size)
                stored = size
                plain, plain_s = stream(day_games, False)
                zipped, zipped_s = stream(day_games, True)
                peak = peak_memory(day_games)
                print(f"{size:9d} {plain / size:13.0f} {zipped / size:12.1f} {plain_s:8.2f} {zipped_s:7.2f} "
                      f"{zipped_s * 1e6 / size:14.0f} {peak / 2**20:9.2f}", flush=True)
            # verify-day on real expert-5 games
            checked = real_games(seed, "expert-5", args.check)
            path = Path(tmp) / "day.jsonl"
            head = {"format": "manille-day/1", "commitment": commitment(seed), "games": len(checked)}
            with path.open("w") as f:
                f.write(json.dumps(head) + "\n")
                for i, rec in enumerate(checked):
                    f.write(json.dumps({"submission_id": str(i), "cards": cards_of(rec), "score": rec["rank_score"],
                                        "deals": [d["points"][0] for d in rec["deals"]], "rules": rec["rules"],
                                        "bots": "expert-5"}) + "\n")
                f.write(json.dumps({"end": "manille-day/1", "games": len(checked)}) + "\n")
            cpu0 = _cpu()
            t0 = time.perf_counter()
            found = list(verify_file(str(path), seed.hex(), args.jobs))
            took, cpu = time.perf_counter() - t0, _cpu() - cpu0
            assert len(found) == len(checked) and all(f["stands"] for f in found), found
            per_game = cpu / len(checked)
            print(f"verify-day: {len(checked)} expert-5 games on {args.jobs} processes: {took:.1f} s wall, "
                  f"{per_game:.2f} CPU s a game; a day of 10^5 games extrapolated from them: "
                  f"{per_game * 1e5 / 3600:.1f} CPU hours, {per_game * 1e5 / 3600 / 8:.1f} h on 8 cores")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
