"""The bots' pool (``service.botpool``) on a real Redis with real RQ workers: the searches of free
play at the day's strength are computed by the ``bots`` queue's workers, the same cards as the
bot computes in process; a play waits on its job and, past the wait, is answered again when sent
again; the pool full, a new free game at that strength is told so and offered the club's table
(ranked play and the other tables untouched); a search's CPU counts against the token; and over
real HTTP, with one web process, a ranked game is played whole while a free game's search waits
in the pool, which then finishes its game."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest
import redis
import requests
from freezegun import freeze_time
from rq import Queue, SimpleWorker
from rq.timeouts import TimerDeathPenalty

from bots import get_bot
from service.app import create_app
from service.botpool import JOB, QUEUE as BOTS_QUEUE
from service.config import DEFAULT_BOTS
from service.limits import Gate, Limits, parse
from service.store import connect, raw_client
from service.replay import dumps, player_cards, verify

from support.svc_helpers import LIMITS_OFF, SECRET, err, flush_state, headers, live_service, play_game, snapshot

# Europe/Brussels in December is UTC+1: 13:00 local, the day open.
ON_DAY = "2026-12-02T12:00:00+00:00"


def _app(redis_url: str, **config):
    """The day's bots the strongest (expert-5), its searches sent to the pool."""
    return create_app({"TESTING": True, "REDIS_URL": redis_url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": DEFAULT_BOTS, "MANILLE_BOT_POOL": "2", **LIMITS_OFF, **config})


class ThreadWorker(SimpleWorker):
    """RQ's SimpleWorker as the product runs it, in a thread: no signal handlers (only the main
    thread may set them), a timer for a job's timeout, no pub/sub thread of its own."""
    death_penalty_class = TimerDeathPenalty

    def _install_signal_handlers(self):
        pass

    def subscribe(self):
        pass


class PoolThread:
    """A worker of the bots' queue beside the test, taking its jobs while ``running`` is set."""

    def __init__(self, conn) -> None:
        self.queue = Queue(BOTS_QUEUE, connection=conn)
        self.running, self.done = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def answered(self) -> list:
        """The jobs whose answers are kept (RQ's results: a stream per job)."""
        return self.queue.connection.keys("rq:results:bots-*")

    def _loop(self) -> None:
        while not self.done.is_set():
            try:
                if self.running.is_set() and self.queue.count:
                    ThreadWorker([self.queue], connection=self.queue.connection).work(burst=True,
                                                                                      logging_level="WARNING")
            except redis.RedisError:  # a connection made as the test flushed its Redis: the next round
                pass
            self.done.wait(0.005)


@pytest.fixture
def pool(rclient, redis_server):
    """The pool's worker, on a connection of its own (the queue's Redis)."""
    import worker.jobs
    worker.jobs._settings = None
    got = PoolThread(raw_client(connect(redis_server.url)))
    got.running.set()
    got.thread.start()
    yield got
    got.done.set()
    got.thread.join(10)


def _post(client):
    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs)
        return r.status_code, r.get_json()
    return post


def test_a_free_game_at_full_strength_is_played_by_the_pool_with_the_bots_own_cards(rclient, redis_server, pool):
    with freeze_time(ON_DAY):
        client = _app(redis_server.url).test_client()
        r = client.post("/api/v1/runs", json={"kind": "random"})
        assert r.status_code == 201, r.get_json()
        run, token = r.get_json(), r.get_json()["player_token"]
        assert run["bots"] == DEFAULT_BOTS
        run = play_game(_post(client), run, token)
        record = client.get(f"/api/v1/runs/{run['run_id']}/record", headers=headers(token)).get_json()
    # the pool made the searches: a job for each bots' turn that had one
    assert len(pool.answered()) >= 5 and pool.queue.count == 0
    # the cards it chose are the bot's own, computed here from the seed and the player's cards
    assert dumps(verify(run["seed"], player_cards(record), get_bot(DEFAULT_BOTS))) == dumps(record)
    assert not rclient.keys("manille:{seed:*}:decisions")  # a free deal's decisions are not kept


def test_a_play_the_pool_has_not_answered_is_answered_when_sent_again(rclient, redis_server, pool):
    with freeze_time(ON_DAY):
        client = _app(redis_server.url, MANILLE_BOT_POOL_WAIT="0.3").test_client()
        # opened by a web process that waits the default 20 s (its first bots' turn may search)
        r = _app(redis_server.url).test_client().post("/api/v1/runs", json={"kind": "random"})
        run, token = r.get_json(), r.get_json()["player_token"]
        pool.running.clear()  # the pool stalls: the next search waits
        while True:
            body = {"turn": run["turn"], "card": run["view"]["legal"][0]}
            r = client.post(f"/api/v1/runs/{run['run_id']}/plays", json=body, headers=headers(token))
            if r.status_code != 200:
                break
            run = r.get_json()
        got = err(r, 503, "bots_busy")
        assert got["retry_after"] >= 1 and r.headers["Retry-After"] and pool.queue.count == 1
        same = client.get(f"/api/v1/runs/{run['run_id']}", headers=headers(token)).get_json()
        assert same["turn"] == run["turn"]  # nothing stored
        answered = len(pool.answered())
        pool.running.set()
        for _ in range(100):  # each sent again waits 0.3 s on the same job, until it is done
            again = client.post(f"/api/v1/runs/{run['run_id']}/plays", json=body, headers=headers(token))
            if again.status_code != 503:
                break
        assert again.status_code == 200, again.get_json()
        assert len(pool.answered()) == answered + 1  # one job, however many times it was asked
        assert again.get_json()["turn"] == run["turn"] + 1
        # the job it waited on was the one queued before: computed once
        assert pool.queue.count == 0


def test_the_pool_full_a_new_free_game_at_full_strength_is_told_so_and_offered_the_club(rclient, redis_server,
                                                                                         pool):
    pool.running.clear()
    with freeze_time(ON_DAY):
        client = _app(redis_server.url).test_client()
        # two bots' turns wait for a worker (MANILLE_BOT_POOL=2): the pool is full
        for seed in ("00" * 32, "11" * 32):
            pool.queue.enqueue_call(JOB, args=({"kind": "random", "date": "2026-12-02", "seed": seed,
                                                "bots": DEFAULT_BOTS, "rules": "muette-1"}, ""))
        before = {k: v for k, v in snapshot(rclient).items() if not k.startswith("rq:")}
        r = client.post("/api/v1/runs", json={"kind": "random"})
        body = err(r, 503, "bots_busy")
        assert body["waiting"] == 2 and body["offer"] == {"kind": "random", "bots": "expert-1"}
        assert int(r.headers["Retry-After"]) >= 1
        ready = client.get("/api/v1/health/ready").get_json()  # ops see it: no worker on the pool now
        assert ready["bots"] == {"workers": 0, "waiting": 2, "max_waiting": 2} and "no_bots_worker" in ready["warnings"]
        err(client.post("/api/v1/runs", json={"kind": "random", "bots": DEFAULT_BOTS}), 503, "bots_busy")
        assert {k: v for k, v in snapshot(rclient).items() if not k.startswith("rq:")} == before  # nothing stored
        # the club's table (the offer) and the beginner's open as ever
        offered = client.post("/api/v1/runs", json=body["offer"])
        assert offered.status_code == 201 and offered.get_json()["bots"] == "expert-1"
        assert client.post("/api/v1/runs", json={"kind": "random", "bots": "greedy-1"}).status_code == 201
        # once the pool has taken them, the strongest table opens again
        pool.running.set()
        for _ in range(1200):
            if not pool.queue.count and not pool.queue.started_job_registry.get_job_ids():
                break
            pool.done.wait(0.05)
        r = client.post("/api/v1/runs", json={"kind": "random"})
        assert r.status_code == 201 and r.get_json()["bots"] == DEFAULT_BOTS


def test_a_searchs_cpu_counts_against_the_token_and_a_spent_budget_refuses_the_next_search(rclient, redis_server,
                                                                                            pool):
    with freeze_time(ON_DAY):
        client = _app(redis_server.url, MANILLE_LIMIT_SEARCH_MS_PER_TOKEN="1 per hour").test_client()
        r = client.post("/api/v1/runs", json={"kind": "random"})
        run, token = r.get_json(), r.get_json()["player_token"]
        while True:
            body = {"turn": run["turn"], "card": run["view"]["legal"][0]}
            r = client.post(f"/api/v1/runs/{run['run_id']}/plays", json=body, headers=headers(token))
            if r.status_code != 200:
                break
            run = r.get_json()
            assert run["status"] == "playing", "a search was counted, and the next one refused"
        refused = err(r, 429, "too_many_requests")
        assert refused["limit"] == "search_ms_per_token" and int(r.headers["Retry-After"]) >= 1
        # refused before any search: nothing queued, nothing stored, the run where it was
        assert pool.queue.count == 0 and len(pool.answered()) >= 1
        again = client.get(f"/api/v1/runs/{run['run_id']}", headers=headers(token)).get_json()
        assert again["turn"] == run["turn"] and again["status"] == "playing"
        # the club's table costs no search: its plays go on
        r = client.post("/api/v1/runs", json={"kind": "random", "bots": "expert-1"}, headers=headers(token))
        club = play_game(_post(client), r.get_json(), token)
        assert club["status"] == "finished"


def test_a_count_may_weigh_many_hits(rclient):
    limits = Limits(rclient)
    gate = Gate([("search_ms_per_token", "someone", parse("1000 per minute"))])
    limits.count(gate, 1_000_000, weight=750)
    limits.check(gate, 1_000_000)  # 750 of 1000: room
    limits.count(gate, 1_000_001, weight=300)
    with pytest.raises(Exception) as refused:
        limits.check(gate, 1_000_002)
    assert refused.value.details["limit"] == "search_ms_per_token"
    limits.count(gate, 1_000_003)  # no weight: one hit
    replies = limits._run(gate, "check", 1_000_004)
    assert int(replies[0][2]) == 1051


@pytest.mark.stack
def test_a_ranked_game_is_played_whole_while_a_free_games_search_waits_in_the_pool(redis_server, tmp_path):
    """One gevent web process, one pool worker (``python -m worker bots``).  A first ranked game
    has its searches made by the pool, which keeps them in the day's cache; then the worker is
    stopped (SIGSTOP) while a free game at the day's strength waits for its bots, and a second
    ranked game on the same line is played whole meanwhile, with the same bots' cards; the worker
    goes on (SIGCONT) and the free game ends."""
    flush_state(redis_server.url)
    pool = [sys.executable, "-m", "worker", "--url", redis_server.url, "--name", f"pool-{os.getpid()}", BOTS_QUEUE]
    env = dict(LIMITS_OFF, MANILLE_BOTS=DEFAULT_BOTS, MANILLE_BOT_POOL="8", MANILLE_BOT_POOL_WAIT="60",
               WEB_CONCURRENCY="1")
    conn = raw_client(connect(redis_server.url))

    def unanswered() -> set:
        """The pool's jobs without a result (one the stopped worker took from the queue counts)."""
        jobs = {k[len(b"rq:job:"):] for k in conn.keys("rq:job:bots-*")}
        return jobs - {k[len(b"rq:results:"):] for k in conn.keys("rq:results:bots-*")}
    with live_service(redis_server.url, tmp_path, pool, **env) as base:
        worker = _pool_worker(pool)

        def post(path, body, hdrs=None):
            r = requests.post(base + path, json=body, headers=hdrs or {}, timeout=90)
            return r.status_code, r.json()

        def ranked_game() -> dict:
            status, run = post("/api/v1/runs", {})
            assert status == 201 and run["bots"] == DEFAULT_BOTS, run
            return play_game(post, run, run["player_token"])

        first = ranked_game()  # the pool's searches, kept in the day's cache
        free_plays: list = []

        def free_game():
            status, run = post("/api/v1/runs", {"kind": "random"})
            assert status == 201, run
            free_plays.append(play_game(post, run, run["player_token"]))

        os.kill(worker, signal.SIGSTOP)
        try:
            thread = threading.Thread(target=free_game, daemon=True)
            thread.start()
            for _ in range(600):  # the free game reaches a search: its job waits for the stopped worker
                if unanswered():
                    break
                thread.join(0.05)
            assert len(unanswered()) == 1 and thread.is_alive()
            second = ranked_game()
            assert thread.is_alive() and len(unanswered()) == 1  # played whole while the free play waited
        finally:
            os.kill(worker, signal.SIGCONT)
        thread.join(90)
        assert not thread.is_alive() and free_plays[0]["status"] == "finished"
    # the same line, the same bots' cards: searched by the pool for the first, read from the cache for the second
    assert second["status"] == "finished" and second["result"] == first["result"]


def _pool_worker(argv: list[str]) -> int:
    """The pid of the process running ``argv`` that this test started (not its RQ scheduler, a fork)."""
    out = subprocess.run(["pgrep", "-P", str(os.getpid()), "-f", "-x", " ".join(argv)],
                         capture_output=True, text=True).stdout.split()
    assert len(out) == 1, out
    return int(out[0])
