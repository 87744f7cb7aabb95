"""The day's board by matchpoints keeps up with verified games, on a real Redis with a real RQ
worker under a driven clock (freezegun): a game verified between two builds is on the board by
its own matchpoints against the field so far, the ones its result shows, as soon as its
verification ends (0 s of the driven clock, well within the 60 s promised), among the last
build's entries; the next build, due ``MANILLE_MATCHPOINTS_SECONDS`` later and queued by the
worker's maintenance, computes every entry again.  An idle worker reaches its maintenance within
its interval: it waits on its queues no longer than that."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta, timezone

import pytest
from freezegun import freeze_time

from service.config import QUEUE_NAME, Settings
from service.duplicate import QUEUE as BOARDS_QUEUE, Matchpoints
from service.leaderboard import day_board

from support.svc_helpers import LIMITS_OFF, SECRET, TEST_BOTS, headers

DAY = date(2026, 12, 2)
NOON = datetime(2026, 12, 2, 11, 0, tzinfo=timezone.utc)  # Brussels noon: the day is open


@pytest.fixture
def many(redis_server, rclient):
    from service.app import create_app
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, **LIMITS_OFF})
    return app.test_client()


def ranked_game(client, addr: str, seed: int, nickname: str) -> tuple[str, str]:
    """A ranked game with seeded random legal cards, submitted: (token, submission id)."""
    run = client.post("/api/v1/runs", json={}, environ_base={"REMOTE_ADDR": addr}).get_json()
    token, rng = run["player_token"], random.Random(seed)
    while run["status"] != "finished":
        r = client.post(f"/api/v1/runs/{run['run_id']}/plays",
                        json={"turn": run["turn"], "card": rng.choice(run["view"]["legal"])},
                        headers=headers(token), environ_base={"REMOTE_ADDR": addr})
        assert r.status_code == 200, r.get_json()
        run = r.get_json()
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                    headers=headers(token), environ_base={"REMOTE_ADDR": addr})
    assert r.status_code == 202, r.get_json()
    return token, r.get_json()["submission_id"]


def board(client):
    return client.get(f"/api/v1/leaderboards/days/{DAY}/matchpoints?limit=100").get_json()


def product_worker(queue_conn):
    """The product's worker class (its maintenance included), in this process, on the driven clock."""
    from rq import Queue

    from worker.__main__ import MAINTENANCE_SECONDS, SweepingSimpleWorker
    return SweepingSimpleWorker([Queue(q, connection=queue_conn) for q in (QUEUE_NAME, BOARDS_QUEUE)],
                                connection=queue_conn, maintenance_interval=MAINTENANCE_SECONDS)


def test_a_verified_game_is_on_the_board_by_matchpoints_at_once_and_the_build_follows(many, rclient, queue_conn,
                                                                                      monkeypatch):
    import worker.jobs
    monkeypatch.setenv("MANILLE_MATCHPOINTS_SECONDS", "300")
    worker.jobs._settings = None
    with freeze_time(NOON, tick=False) as clock:
        for i in range(3):
            ranked_game(many, f"10.7.0.{i}", i, f"early{i}")
        product_worker(queue_conn).work(burst=True)  # the first verification queues the build, run after them
        built = board(many)
        assert built["total"] == 3 and built["placed"] == 0 and built["built_at"] == NOON.isoformat()
        clock.tick(30)  # the next build is not due for 270 s
        token, late = ranked_game(many, "10.7.0.9", 9, "late")
        product_worker(queue_conn).work(burst=True)
        verified_at = datetime.fromisoformat(many.get(f"/api/v1/submissions/{late}").get_json()["verified_at"])
        shown = board(many)
        delay = (datetime.now(timezone.utc) - verified_at).total_seconds()
        print(f"verified at {verified_at.isoformat()}, on the board by matchpoints {delay:.0f} s later "
              "(driven clock)")
        assert delay <= 60 and shown["built_at"] == built["built_at"] and shown["placed"] == 1
        mine = many.get(f"/api/v1/submissions/{late}/deals", headers=headers(token)).get_json()["mp"]
        entry = next(e for e in shown["entries"] if e["nickname"] == "late")
        assert shown["total"] == 4 and entry["mp"] == mine  # what its result shows
        # the others keep the last build's matchpoints until the next build
        assert {e["nickname"]: e["mp"] for e in shown["entries"] if e["nickname"] != "late"} == \
            {e["nickname"]: e["mp"] for e in built["entries"]}
        # the build is due 300 s after the last: the worker's maintenance queues it, the worker runs it
        clock.tick(275)
        rclient.delete(day_board(DAY).key_of("mpdue"))  # its PX lapses on Redis's own clock, not the driven one
        w = product_worker(queue_conn)
        w.run_maintenance_tasks()
        w.work(burst=True)
        rebuilt = board(many)
        assert rebuilt["placed"] == 0 and rebuilt["built_at"] == (NOON + timedelta(seconds=305)).isoformat()
        assert rebuilt["total"] == 4 and Matchpoints(rclient).stale(DAY, closed=False) is False


def test_a_game_taken_off_before_it_is_placed_is_not_placed(many, rclient, run_worker):
    from service.duplicate import place
    from service.leaderboard import Leaderboard
    with freeze_time(NOON):
        for i in range(2):
            ranked_game(many, f"10.7.1.{i}", 20 + i, f"p{i}")
        run_worker()
        pid = rclient.zrange(day_board(DAY).key, 0, 0)[0]
        Leaderboard(rclient).remove(DAY, pid, int(rclient.zscore(day_board(DAY).key, pid)) // 2 ** 32)
        assert place(rclient, DAY, pid, [30, 30]) is False


def test_an_idle_worker_reaches_its_maintenance_within_its_interval(queue_conn):
    from worker.__main__ import MAINTENANCE_SECONDS
    w = product_worker(queue_conn)
    # RQ would wait on the queues 405 s (its TTL less 15 s) before it looked at its maintenance
    assert w.worker_ttl - 15 > MAINTENANCE_SECONDS and w.dequeue_timeout == MAINTENANCE_SECONDS == 60
    assert Settings.from_env({"MANILLE_SECRET": SECRET}).matchpoints_seconds == 300
