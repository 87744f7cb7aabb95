#!/usr/bin/env python3
"""The service on a Redis Cluster beside the service on one Redis, in one run on this machine (not
a test; bounded, about two minutes; starts and stops everything it uses).

    .venv/bin/python scripts/bench_cluster.py [--seconds 8] [--clients 8] [--board-size 20000]

Started here, in a temporary directory: one redis-server (AOF on, as ``make run``) with a replica
(as ``deploy/compose.yaml`` runs it: each master of the cluster has one too), and a real
Redis Cluster of three masters and three replicas (``service.redis_server.LocalCluster``, AOF on)
with a redis-server of its own for the queue (RQ cannot use a cluster).  Three gunicorns with
``deploy/gunicorn.conf.py`` (gevent, a process a core): a hello-world route (the baseline), the
service on the one Redis, the service with its state on the cluster (``MANILLE_REDIS_CLUSTER``,
plays waiting for a replica as configured by default).  The loads are taken in turn in slices
(hello, plays on one Redis, plays on the cluster, board on one Redis, board on the cluster, …) so
that whatever else the machine does weighs alike on each:

1. plays per second, ``--clients`` client processes each playing ranked games to the end, p50/p99
   of a play; the cluster's over the one Redis's; a play's p99 over the hello route's p99;
2. GET of a day board's top 20 (``--board-size`` entries) per second, the same way;
3. the busiest slots at 10 M players a day: the Redis time (``INFO commandstats``, every master)
   that a play, a submission and its verification cost, each load alone after rows 1-2, with
   each master's share of the plays (a day's runs are spread over ``DAY_SHARDS`` slots by
   player); and a score's write to the boards (2,000 recorded directly): the day's, the week's and
   the month's boards each in a slot of its own, the all-time board (with the names) in ``{boards}``.

The clients are processes on the same cores as the servers: the figures are this machine's; the
ratios are what compare across runs.
"""

from __future__ import annotations

import argparse
from datetime import timedelta
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_speed import BOARD_DAY, RAISED_LIMITS, Gunicorn, _get_loop, _play_loop, _submit, load, ms  # noqa: E402
from stats import pct  # noqa: E402
from service.leaderboard import ALL_TIME, Board, day_board  # noqa: E402
from bulk_boards import fill_board  # noqa: E402
from service.redis_server import LocalCluster, RedisServer  # noqa: E402
from service.store import DAY_SHARDS  # noqa: E402

SECRET = "bench-cluster: the same days, so the same games, in every run"


def record_scores(client, count: int, day) -> None:
    """``count`` verified scores of another bench ``day`` recorded one by one, as verifications do."""
    from service.leaderboard import Leaderboard

    boards = Leaderboard(client)
    for i in range(count):
        boards.record(day, f"score-{i:06d}", f"score{i}", 1000 + 10 * (i % 141 - 70), f"bench-score-{i:06d}")


def node_usec(client) -> dict[str, int]:
    """Microseconds each master's thread has spent in commands (INFO commandstats, summed)."""
    out = {}
    for node in client.get_primaries():
        stats = client.info("commandstats", target_nodes=node)
        out[node.name] = sum(int(v["usec"]) for k, v in stats.items() if k.startswith("cmdstat_"))
    return out


def spent(before: dict, after: dict, node: str) -> int:
    return after[node] - before.get(node, 0)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=8, help="length of each load, split in slices")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--board-size", type=int, default=20_000)
    p.add_argument("--slices", type=int, default=4)
    p.add_argument("--wait-ms", type=int, default=None,
                   help="MANILLE_REDIS_WAIT_MS of the cluster's service (default: the service's own, 200; 0: no WAIT)")
    args = p.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(f"bench_cluster: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"commit {commit.stdout.strip() or '?'}")
    from service.store import connect, connect_cluster

    with tempfile.TemporaryDirectory(prefix="manille-bench-cluster-") as tmp:
        tmp = Path(tmp)
        single = RedisServer(tmp / "single", aof=True).start()
        # as deployed (deploy/compose.yaml): the one Redis has its replica, as each master here has
        single_replica = RedisServer(tmp / "single-replica", aof=True, replica_of=single.port).start()
        queue = RedisServer(tmp / "queue", aof=True).start()
        cluster = LocalCluster(tmp / "cluster", aof=True).start()
        servers = []
        try:
            base = {k: v for k, v in os.environ.items() if not k.startswith("MANILLE_")}
            # the clients' games come from many addresses (X-Forwarded-For, as behind nginx), so the
            # per-address limits and indexes spread over slots as a day's players' do
            base.update(MANILLE_SECRET=SECRET, MANILLE_LOG_LEVEL="warning", MANILLE_TRUSTED_PROXIES="1",
                        **RAISED_LIMITS)
            env_single = dict(base, REDIS_URL=single.url)
            env_cluster = dict(base, REDIS_URL=queue.url, MANILLE_REDIS_CLUSTER=cluster.seeds)
            if args.wait_ms is not None:
                env_cluster["MANILLE_REDIS_WAIT_MS"] = str(args.wait_ms)
            state = connect_cluster(cluster.seeds)
            fill_board(connect(single.url), BOARD_DAY, args.board_size)
            fill_board(state, BOARD_DAY, args.board_size)
            hello = Gunicorn("bench_speed:hello_app", env_single, tmp, "hello")
            web1 = Gunicorn("service.app:create_app()", env_single, tmp, "web-single")
            webc = Gunicorn("service.app:create_app()", env_cluster, tmp, "web-cluster")
            servers = [hello, web1, webc]
            hello.wait("/hello")
            web1.wait("/api/v1/health/live")
            webc.wait("/api/v1/health/live")
            board = f"/api/v1/leaderboards/days/{BOARD_DAY}?limit=20"
            n = args.clients
            kinds = {
                "hello": lambda t: load(_get_loop, [(hello.port, "/hello", t)] * n),
                "plays, one Redis": lambda t: load(_play_loop, [(web1.port, t, random.randrange(1 << 30))] * n),
                "plays, cluster": lambda t: load(_play_loop, [(webc.port, t, random.randrange(1 << 30))] * n),
                "board, one Redis": lambda t: load(_get_loop, [(web1.port, board, t)] * n),
                "board, cluster": lambda t: load(_get_loop, [(webc.port, board, t)] * n),
            }
            for run in kinds.values():
                run(1.0)  # warm-up
            before = node_usec(state)
            got = {kind: [0.0, [], []] for kind in kinds}
            for _ in range(args.slices):
                for kind, run in kinds.items():
                    wall, outs = run(args.seconds / args.slices)
                    got[kind][0] += wall
                    for out in outs:
                        lat, fin = out if kind.startswith("plays") else (out, [])
                        got[kind][1] += lat
                        got[kind][2] += fin

            def rate(kind):
                wall, lat, _ = got[kind]
                return len(lat) / wall, pct(lat, 50), pct(lat, 99)

            h_rps, h50, h99 = rate("hello")
            print(f"baseline: hello-world route, same gunicorn: {h_rps:.0f} req/s, p50 {ms(h50)}, p99 {ms(h99)} "
                  f"({n} clients, {args.seconds:.0f} s each in {args.slices} slices taken in turn)")
            for what in ("plays", "board"):
                r1, a50, a99 = rate(f"{what}, one Redis")
                rc, c50, c99 = rate(f"{what}, cluster")
                unit = "plays/s" if what == "plays" else "req/s"
                print(f"{'1' if what == 'plays' else '2'}. {what}: one Redis {r1:.0f} {unit} (p50 {ms(a50)}, p99 {ms(a99)}); "
                      f"cluster {rc:.0f} {unit} (p50 {ms(c50)}, p99 {ms(c99)}); cluster/one Redis {rc / r1:.2f}x; "
                      f"p99 over hello's p99: one Redis {a99 / h99:.1f}x, cluster {c99 / h99:.1f}x")
            # 3. Redis time, each load alone: plays, then submissions, verifications, scores
            before = node_usec(state)
            wall, outs = load(_play_loop, [(webc.port, 2.0, random.randrange(1 << 30))] * n)
            after = node_usec(state)
            plays = sum(len(lat) for lat, _fin in outs)
            finished = (got["plays, cluster"][2] + [f for _lat, fin in outs for f in fin])[:60]
            assert finished, "no game finished on the cluster: give the loads more --seconds"
            per_node = {node: spent(before, after, node) / plays for node in after}
            subs0 = node_usec(state)
            _submit(webc.port, finished)
            subs1 = node_usec(state)
            verify = subprocess.run([sys.executable, "-m", "worker", "--burst", "--url", queue.url], cwd=ROOT,
                                    env=dict(env_cluster, PYTHONPATH=str(ROOT)), capture_output=True,
                                    text=True, timeout=600)
            assert verify.returncode == 0, verify.stderr[-2000:]
            subs2 = node_usec(state)
            games = len(finished)
            boards_node = state.get_node_from_key(ALL_TIME.key).name
            scores = 2000
            # a day whose day's, week's and month's boards are on other masters than the all-time
            # board, to tell the all-time board's slot (the one every score writes) apart
            from service.store import month_id, week_id

            def elsewhere(d):
                keys = (day_board(d).key, Board("week", week_id(d)).key, Board("month", month_id(d)).key)
                return all(state.get_node_from_key(k).name != boards_node for k in keys)
            score_day = next(d for d in (BOARD_DAY + timedelta(days=k) for k in range(1, 800)) if elsewhere(d))
            b0 = node_usec(state)
            record_scores(state, scores, score_day)
            b1 = node_usec(state)
            play_us = sum(per_node.values())
            sub_us = sum(spent(subs0, subs1, node) for node in subs1) / games
            verdict_us = sum(spent(subs1, subs2, node) for node in subs2) / games
            score_us = sum(spent(b0, b1, node) for node in b1) / scores
            periods_us = spent(b0, b1, boards_node) / scores
            spread = ", ".join(f"{100 * v / play_us:.0f} %" for v in sorted(per_node.values(), reverse=True))
            print(f"3. Redis time, INFO commandstats of every master, each load alone ({plays} plays, {games} games "
                  f"submitted and verified, {scores} scores recorded): a play {play_us:.0f} µs over the cluster "
                  f"(the masters' shares {spread}: the day's {DAY_SHARDS} shards, the players' and the limits' slots), "
                  f"a submission {sub_us:.0f} µs, a verification {verdict_us:.0f} µs (its score on the boards "
                  f"included); a score on the boards {score_us:.0f} µs over the cluster, of which the all-time "
                  f"board's slot {periods_us:.0f} µs")
            print(f"   what one master's thread serves at 100 %: {1e6 / play_us:,.0f} plays/s of the cluster's whole "
                  f"work a play, {1e6 / play_us * DAY_SHARDS:,.0f} plays/s over the day's {DAY_SHARDS} shards "
                  f"(one thread a shard); {1e6 / periods_us:,.0f} scores/s on the all-time board's slot")
        finally:
            for s in servers:
                s.stop()
            cluster.stop()
            queue.stop()
            single_replica.stop()
            single.stop()
    print(f"bench_cluster: done, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
