#!/usr/bin/env python3
"""The day's table under load: ranked play beside free play at the day's strength, on one service.

    .venv/bin/python scripts/bench_table.py [--seconds 45] [--rounds 1]

Starts its own ``make run`` (``python -m service.run_local``: embedded Redis, the workers, the
bots' pool, gunicorn; every ``MANILLE_LIMIT_*`` off), warms today (the state a day opens in:
``service.botcache.warm``, with two extra warm workers while it runs; then no warm runs), then runs two
mixes in turn with locust (scripts/locust_table.py), each ``--seconds`` long: 36 ranked players (a
card every 0.1 s) and 18 watchers of the day's board, without and then with 6 free players at the
strongest table (the day's bots, expert-5).  Prints each mix's ranked plays, their p50 and p99 and
the ratio of the p99s; the free plays' p50 and p99, how often the strongest table was full, and the
bots' pool's CPU a free game (cores per thousand free games an hour).  Not a test: a measurement
(pip install -e '.[bench]'); the machine's load average is printed before and after.
"""

from __future__ import annotations

import argparse
import csv
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from load_test import start_make_run, wait_live, warm_up  # noqa: E402
from service.redis_server import free_port  # noqa: E402

BIN = Path(sys.executable).parent
RANKED = "POST /runs/[id]/plays (ranked)"
FREE = "POST /runs/[id]/plays (free, strongest)"
FREE_GAME = "a free game at the strongest table, finished"
FULL = "POST /runs (free, pool full)"
MIXES = (("ranked players and watchers", ["RankedPlayer", "Watcher"], 54),
         ("the same with 6 free players at the day's strength", ["RankedPlayer", "Watcher", "StrongFreePlayer"], 60))


def cpu_of(name_part: str) -> float:
    """CPU seconds (user + system) of the processes whose command line holds ``name_part``."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in subprocess.run(["pgrep", "-f", name_part], capture_output=True, text=True).stdout.split():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError):
            pass
    return total


def run_mix(base: str, tmp: Path, classes: list[str], users: int, seconds: int, tag: str) -> dict[str, dict]:
    prefix = tmp / tag
    subprocess.run([str(BIN / "locust"), "-f", str(ROOT / "scripts" / "locust_table.py"), *classes, "--headless",
                    "--users", str(users), "--spawn-rate", str(users), "--run-time", f"{seconds}s",
                    "--stop-timeout", "10", "--host", base, "--csv", str(prefix), "--only-summary",
                    "--loglevel", "WARNING"], cwd=ROOT / "scripts", capture_output=True, text=True,
                   timeout=seconds + 120)
    stats = Path(f"{prefix}_stats.csv")
    if not stats.exists():
        raise SystemExit(f"locust wrote no statistics for {tag}")
    return {row["Name"]: row for row in csv.DictReader(stats.open())}


def figure(rows: dict, name: str, column: str) -> float:
    row = rows.get(name)
    return float(row[column]) if row and row[column] not in ("", "N/A") else 0.0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=int, default=45, help="each mix's length (default 45)")
    p.add_argument("--rounds", type=int, default=1, help="the two mixes, in turn, this many times")
    args = p.parse_args(argv)
    if not 10 <= args.seconds <= 120 or not 1 <= args.rounds <= 3:
        p.error("--seconds: 10 to 120; --rounds: 1 to 3")
    secret = secrets.token_hex(32)
    with tempfile.TemporaryDirectory(prefix="manille-table-") as tmp_name:
        tmp = Path(tmp_name)
        port, rport = free_port(), free_port()
        base = f"http://127.0.0.1:{port}"
        service = start_make_run(tmp, port, None, MANILLE_SECRET=secret, MANILLE_REDIS_PORT=str(rport))
        try:
            wait_live(base, service)
            load0 = os.getloadavg()
            print(f"load average before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} ({os.cpu_count()} cores)",
                  flush=True)
            took = warm_up(f"redis://127.0.0.1:{rport}/0", secret)
            print(f"today's warm done in {took:.0f} s", flush=True)
            results = []
            for r in range(args.rounds):
                for i, (label, classes, users) in enumerate(MIXES):
                    cpu0 = cpu_of("manille-bots-")
                    rows = run_mix(base, tmp, classes, users, args.seconds, f"r{r}m{i}")
                    results.append((label, rows, cpu_of("manille-bots-") - cpu0))
                    print(f"  {label}: {figure(rows, RANKED, 'Request Count'):.0f} ranked plays", flush=True)
            load1 = os.getloadavg()
        finally:
            os.killpg(service.pid, signal.SIGINT)
            try:
                service.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(service.pid, signal.SIGKILL)
                service.wait()
    print("\n| mix | ranked plays | p50 | p99 | free plays | free p50 | free p99 | table full |")
    print("|---|---|---|---|---|---|---|---|")
    for label, rows, _cpu in results:
        free = figure(rows, FREE, "Request Count")
        print(f"| {label} | {figure(rows, RANKED, 'Request Count'):,.0f} | {figure(rows, RANKED, '50%'):.0f} ms "
              f"| {figure(rows, RANKED, '99%'):.0f} ms | {free:,.0f} | "
              + (f"{figure(rows, FREE, '50%'):.0f} ms | {figure(rows, FREE, '99%'):.0f} ms | "
                 f"{figure(rows, FULL, 'Request Count'):.0f} |" if free else "– | – | – |"))
    for r in range(args.rounds):
        without, with_free = results[2 * r][1], results[2 * r + 1][1]
        ratio = figure(with_free, RANKED, "99%") / max(1.0, figure(without, RANKED, "99%"))
        p99 = figure(with_free, RANKED, "99%")
        cpu = results[2 * r + 1][2]
        plays = figure(with_free, FREE, "Request Count")
        per_game = figure(with_free, FREE_GAME, "Average Content Size")
        print(f"\nround {r + 1}: ranked p99 with free players / without = {ratio:.2f}x (target <= 1.3x); "
              f"with them {p99:.0f} ms (target <= 150 ms); free play p99 {figure(with_free, FREE, '99%'):.0f} ms "
              f"(target <= 1000 ms)")
        if plays and per_game:
            game_cpu = cpu / plays * per_game
            print(f"bots' pool: {cpu:.1f} s of CPU for {plays:.0f} free plays at the day's strength, "
                  f"{cpu / plays * 1000:.0f} ms a play; {per_game:.0f} plays a finished game "
                  f"({figure(with_free, FREE_GAME, 'Request Count'):.0f} finished): {game_cpu:.2f} s a game, "
                  f"{game_cpu * 1000 / 3600:.2f} cores per thousand free games an hour")
    print(f"\nload average after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
