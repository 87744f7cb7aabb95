#!/usr/bin/env python3
"""The instructions one play costs in process, counted by valgrind's callgrind: a figure the
machine's load does not move (not a test; about a minute, starts and stops its own Redis).

    .venv/bin/python scripts/bench_instructions.py [--games 2] [--root DIR]

``scripts/bench_speed.py``'s times are the truth of a play but wander with the load of a shared
machine (identical runs of its first row a few minutes apart: 1.6 to 2.0 ms); a change of a few
percent cannot be told from noise there.  This counts the instructions the Python process
executes for the plays of ``--games`` ranked games, in process through Flask's test client as
that row plays them (the same secret, hence the same deals, and the same cards: ``Random(7)``),
the same from one run to the next within 0.1 %.  Counted: this process only (the test client's
part too, which a hello-world request shows), not Redis's work nor the kernel's, which
``INFO commandstats`` and bench_speed see.  ``--root`` measures another checkout's ``service``
(``git worktree add /tmp/old <commit>``) with this script, to compare two commits.

Needs valgrind (``apt-get install valgrind``).  Collection is on only inside ``functools.reduce``,
through which the plays are driven: the imports and the app's start are not counted.
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECRET = "bench-speed: the same days, so the same games, in every run"  # bench_speed.py's


def child(url: str, games: int, hello: bool) -> None:
    """Under callgrind: warm up, then the measured requests inside functools.reduce."""
    if hello:
        from flask import Flask

        app = Flask("hello")
        app.get("/hello")(lambda: {"hello": "world"})
        client = app.test_client()
        for _ in range(50):
            client.get("/hello")
        functools.reduce(lambda _acc, _i: client.get("/hello"), range(100 * games), None)
        print(f"requests {100 * games}", file=sys.stderr)
        return
    from service.app import create_app

    client = create_app({"REDIS_URL": url, "MANILLE_SECRET": SECRET}).test_client()
    rng = random.Random(7)
    plays = []

    def game(_acc, g):
        env = {"REMOTE_ADDR": f"10.9.{g}.{rng.randrange(250)}"}
        run = client.post("/api/v1/runs", json={}, environ_base=env).get_json()
        hdrs = {"X-Player-Token": run["player_token"]}
        while run["status"] != "finished":
            body = {"turn": run["turn"], "card": rng.choice(run["view"]["legal"])}
            r = client.post(f"/api/v1/runs/{run['run_id']}/plays", json=body, headers=hdrs, environ_base=env)
            assert r.status_code == 200, r.get_json()
            run = r.get_json()
            plays.append(1)

    game(None, 0)  # warm: the first game's imports and caches are not a play's cost
    plays.clear()
    functools.reduce(game, range(1, games + 1), None)
    print(f"requests {len(plays)}", file=sys.stderr)


def measure(url: str, games: int, root: Path, hello: bool) -> tuple[int, int]:
    """(instructions, requests) of one callgrind run."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "--toggle-collect=functools_reduce",
             f"--callgrind-out-file={tmp}/callgrind.out", sys.executable, __file__, "--child", url,
             "--games", str(games), *(["--hello"] if hello else [])],
            env=dict(os.environ, PYTHONPATH=str(root)), capture_output=True, text=True, timeout=3600)
    collected = re.search(r"Collected : (\d+)", done.stderr)
    requests = re.search(r"requests (\d+)", done.stderr)
    if done.returncode != 0 or not collected or not requests:
        raise SystemExit(f"callgrind run failed:\n{done.stderr[-2000:]}")
    return int(collected.group(1)), int(requests.group(1))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=2)
    p.add_argument("--root", type=Path, default=ROOT, help="the checkout whose service is measured")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--hello", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(args.child, args.games, args.hello)
        return 0
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    sys.path.insert(0, str(ROOT))
    from service.redis_server import RedisServer

    root = args.root.resolve()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                            text=True).stdout.strip() or "?"
    print(f"bench_instructions: {root} (commit {commit}), {args.games} ranked games in process")
    with tempfile.TemporaryDirectory(prefix="manille-bench-ir-") as tmp:
        server = RedisServer(Path(tmp) / "redis", aof=True).start()
        try:
            hello, n_hello = measure(server.url, args.games, root, hello=True)
            plays, n_plays = measure(server.url, args.games, root, hello=False)
        finally:
            server.stop()
    print(f"   baseline: hello-world route through the same test client: {hello // n_hello:,} instructions a request")
    print(f"   one play: {plays // n_plays:,} instructions ({n_plays} plays) = {plays / n_plays / (hello / n_hello):.1f}x hello")
    return 0


if __name__ == "__main__":
    sys.exit(main())
