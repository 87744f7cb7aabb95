"""Faults, really done: a verification that raises, a work horse killed mid-job (and a whole
worker), a job lost, Redis stopped and restarted, Redis paused (SIGSTOP), and a Redis that applied
a play or a submission whose answer never came back.  Every submission accepted with a 202 ends
verified and on the boards exactly once; what is not yet verified is visible (``delayed``, ops
listing, readiness) until ops requeue it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import date
from pathlib import Path

import pytest
import requests
from rq import Queue, Worker
from rq.job import Job

from service.app import create_app
from service.config import QUEUE_NAME, Settings
from service.redis_server import RedisServer
from service.procs import children_of
from service.runs import Runs
from service.store import connect, day_scope, key_for, raw_client
from service.store.compact import unpack_times
from service.submissions import PENDING, Submissions
from worker.__main__ import SweepingSimpleWorker

from support.svc_helpers import OPS, OPS_TOKENS, ROOT, SECRET, TEST_BOTS, flush_state, headers, live_service, play_game, queue_of, state_client

BASE_ENV = {"MANILLE_OPS_TOKENS": OPS_TOKENS}


class Api:
    """(status, body) from the service, over real HTTP (``base``) or a Flask test client."""

    def __init__(self, base: str | None = None, client=None) -> None:
        self.base, self.client, self.session = base, client, requests.Session()

    def call(self, method: str, path: str, body=None, hdrs=None):
        if self.client is not None:
            r = self.client.open(path, method=method, json=body, headers=hdrs or {})
            return r.status_code, r.get_json(), r.headers
        r = self.session.request(method, self.base + path, json=body, headers=hdrs or {}, timeout=30)
        return r.status_code, r.json(), r.headers

    def get(self, path, hdrs=None):
        return self.call("GET", path, None, hdrs)[:2]

    def post(self, path, body, hdrs=None):
        return self.call("POST", path, body, hdrs)[:2]


def ops_headers() -> dict:
    return {"Authorization": f"Bearer {OPS}"}


def new_run(api: Api) -> tuple[dict, str]:
    status, run = api.post("/api/v1/runs", {})
    assert status == 201, run
    return run, run["player_token"]


def play_cards(api: Api, run: dict, token: str, n: int) -> dict:
    for _ in range(n):
        status, run = api.post(f"/api/v1/runs/{run['run_id']}/plays",
                               {"turn": run["turn"], "card": run["view"]["legal"][0]}, headers(token))
        assert status == 200, run
    return run


def submit(api: Api, run: dict, token: str, nickname: str) -> str:
    status, accepted = api.post("/api/v1/submissions", {"run_id": run["run_id"], "nickname": nickname},
                                headers(token))
    assert status == 202, accepted
    return accepted["submission_id"]


def finished_game(api: Api, nickname: str, accepted: dict) -> str:
    """A whole ranked game, submitted (202): recorded in ``accepted`` as id -> (nickname, score)."""
    run, token = new_run(api)
    done = play_game(api.post, run, token)
    sub_id = submit(api, done, token, nickname)
    accepted[sub_id] = (nickname, done["result"]["rank_score"])
    return sub_id


def wait_status(api: Api, sub_id: str, wanted: str, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        status, sub = api.get(f"/api/v1/submissions/{sub_id}")
        if status == 200 and sub["status"] == wanted:
            return sub
        assert time.monotonic() < deadline, f"{sub_id}: still {sub} (waiting for {wanted})"
        time.sleep(0.05)


def assert_each_counted_once(api: Api, rclient, accepted: dict) -> None:
    """Nothing accepted lost, nothing counted twice: each accepted submission verified with its
    score, listed once in its day, once on the day's board and once on the all-time board, and no
    verification left pending."""
    days = set()
    for sub_id, (nickname, score) in accepted.items():
        sub = wait_status(api, sub_id, "verified")
        assert sub["score"] == score
        days.add(sub["date"])
    assert len(days) == 1
    day = days.pop()
    listed = Submissions(rclient, Settings.from_env({"MANILLE_SECRET": SECRET}), queue=rclient).for_day(date.fromisoformat(day))
    assert sorted(listed) == sorted(accepted)
    status, board = api.get(f"/api/v1/leaderboards/days/{day}?limit=100")
    assert sorted((e["nickname"], e["score"]) for e in board["entries"]) == sorted(accepted.values())
    status, all_time = api.get("/api/v1/leaderboards/all-time?limit=100")
    assert sorted((e["nickname"], e["days"], e["margin"]) for e in all_time["entries"]) == sorted(
        (nick, 1, score - 1000) for nick, score in accepted.values())
    assert rclient.zcard(PENDING) == 0


def ready(api: Api) -> tuple[int, dict]:
    return api.get("/api/v1/health/ready")


# -- a verification that raises: retried, then delayed, requeued by ops ---------------------------

def test_a_verification_that_raises_is_retried_then_delayed_until_ops_requeue_it(rclient, redis_server):
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": OPS_TOKENS, "MANILLE_VERIFY_RETRY": "0,0"})
    api, accepted = Api(client=app.test_client()), {}
    sub_id = finished_game(api, "Stubborn", accepted)
    day = api.get(f"/api/v1/submissions/{sub_id}")[1]["date"]
    # A real fault in the data the verification needs: the day's bot id is one no bot has.
    challenge = f"manille:{{day:{day}}}:challenge"
    terms = rclient.get(challenge)
    rclient.set(challenge, json.dumps({**json.loads(terms), "bots": "gone-1"}))
    conn = queue_of(rclient)
    worker = SweepingSimpleWorker([Queue(QUEUE_NAME, connection=conn)], connection=conn)
    worker.work(burst=True)

    job = Job.fetch(sub_id, connection=conn)
    assert job.get_status() == "failed" and job.retries_left == 0  # it ran 3 times: 2 retries
    sub = api.get(f"/api/v1/submissions/{sub_id}")[1]
    assert sub["status"] == "delayed" and sub["score"] is None
    status, listing = api.get(f"/api/v1/ops/days/{day}/submissions?status=delayed", ops_headers())
    assert [(s["submission_id"], s["status"]) for s in listing["submissions"]] == [(sub_id, "delayed")]
    assert "UnknownBotError" in listing["submissions"][0]["delay_reason"]
    assert api.get(f"/api/v1/ops/days/{day}/submissions?status=verified", ops_headers())[1]["submissions"] == []
    status, health = ready(api)
    assert health["pending"] == 1 and health["failed"] == 1 and health["oldest_queued_seconds"] >= 0
    assert status == 503  # no worker left running here either

    rclient.set(challenge, terms)  # ops fix the cause, then requeue
    status, requeued = api.post("/api/v1/ops/pending/requeue", {"reason": "bot id restored"}, ops_headers())
    assert requeued == {"requeued": [{"submission_id": sub_id, "requeued": True, "status": "queued"}]}
    status, again = api.post(f"/api/v1/ops/submissions/{sub_id}/requeue", {}, ops_headers())
    assert again["requeued"] is False  # already on its way: nothing doubled
    assert api.get("/api/v1/ops/audit", ops_headers())[1]["entries"][0]["action"] == "requeue"
    worker.work(burst=True)
    assert_each_counted_once(api, rclient, accepted)
    assert api.get("/api/v1/ops/pending", ops_headers())[1]["submissions"] == []
    assert ready(api)[1]["failed"] == 0


def test_a_lost_job_is_swept_to_delayed_and_a_verified_game_requeued_counts_once(rclient, redis_server):
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": OPS_TOKENS})
    api, accepted = Api(client=app.test_client()), {}
    lost, kept = finished_game(api, "Lost", accepted), finished_game(api, "Kept", accepted)
    conn = queue_of(rclient)
    Job.fetch(lost, connection=conn).delete()  # e.g. `rq empty verify`, or an expired job
    worker = SweepingSimpleWorker([Queue(QUEUE_NAME, connection=conn)], connection=conn)
    worker.work(burst=True)  # its maintenance at start sweeps; then it verifies what is queued
    sub = api.get(f"/api/v1/submissions/{lost}")[1]
    assert sub["status"] == "delayed"
    assert api.get(f"/api/v1/ops/pending?status=delayed", ops_headers())[1]["submissions"][0]["delay_reason"] == \
        "verification job missing"
    wait_status(api, kept, "verified")
    status, done = api.post(f"/api/v1/ops/submissions/{lost}/requeue", {}, ops_headers())
    assert done["requeued"] is True and done["status"] == "queued"
    assert api.post(f"/api/v1/ops/submissions/{kept}/requeue", {}, ops_headers())[1]["requeued"] is True
    worker.work(burst=True)  # the verified one is verified again: counted once still
    assert_each_counted_once(api, rclient, accepted)
    status, missing = api.post("/api/v1/ops/submissions/20991231-00-" + "0" * 28 + "/requeue", {}, ops_headers())
    assert status == 404 and missing["error"] == "submission_not_found"


# -- a real worker process: its work horse killed mid-job ------------------------------------------

@pytest.fixture
def own_redis(tmp_path):
    """A Redis of the test's own (the queue's, and the state's unless it is on a cluster, which
    is then emptied first)."""
    server = RedisServer(tmp_path / "redis", aof=True).start()  # the settings make run uses
    flush_state(server.url)
    yield server
    if server.proc is not None:
        os.kill(server.proc.pid, signal.SIGCONT)
    server.stop()


def worker_pid(conn) -> int:
    deadline = time.monotonic() + 20
    while True:
        workers = [w for w in Worker.all(connection=conn) if w.pid]
        if workers:
            return workers[0].pid
        assert time.monotonic() < deadline, "no worker registered"
        time.sleep(0.05)


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def work_horse(conn, sub_id: str, not_pid: int | None = None) -> int:
    """Wait until ``sub_id``'s job runs, and return the pid of its work horse (the worker's child
    in a process group of its own: not its scheduler), other than ``not_pid``."""
    parent = worker_pid(conn)
    deadline = time.monotonic() + 30
    while True:
        if Job.fetch(sub_id, connection=conn).get_status() == "started":
            for pid in children_of(parent):
                try:
                    if pid != not_pid and os.getpgid(pid) == pid and running(pid):
                        return pid
                except ProcessLookupError:
                    pass
        assert time.monotonic() < deadline, f"the job of {sub_id} never ran"
        time.sleep(0.01)


def kill_mid_job(conn, sub_id: str, not_pid: int | None = None) -> int:
    pid = work_horse(conn, sub_id, not_pid)  # the job is running in it
    os.kill(pid, signal.SIGKILL)
    return pid


def worker_argv(url: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "worker", "--url", url, *extra]


def start_worker(url: str, tmp_path: Path, name: str, *extra: str, **env) -> subprocess.Popen:
    """Another ``python -m worker`` (as ``make run`` starts one after a worker died)."""
    return subprocess.Popen(worker_argv(url, "--name", name, *extra), cwd=ROOT,
                            env=dict(os.environ, MANILLE_SECRET=SECRET, MANILLE_BOTS=TEST_BOTS, **env),
                            stdout=open(tmp_path / f"{name}.log", "w"), stderr=subprocess.STDOUT)


def running_worker(conn, sub_id: str) -> int:
    """Wait until ``sub_id``'s job runs, and return the pid of the live worker running it in its
    own process (the default ``python -m worker``: no work horse)."""
    deadline = time.monotonic() + 30
    while True:
        if Job.fetch(sub_id, connection=conn).get_status() == "started":
            for w in Worker.all(connection=conn):
                if w.pid and running(w.pid) and w.get_current_job_id() == sub_id:
                    return w.pid
        assert time.monotonic() < deadline, f"the job of {sub_id} never ran"
        time.sleep(0.01)


def kill_dead(pid: int) -> None:
    """SIGKILL, and wait until the process is gone (a signal is delivered a moment later)."""
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while running(pid):
        assert time.monotonic() < deadline, f"{pid} outlived SIGKILL"
        time.sleep(0.01)


def stop_all(procs) -> None:
    """SIGTERM, then a warm stop's wait: a worker finishes the job in hand first (on a loaded
    machine a retried verification with its oracle reference can take many seconds)."""
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.wait(45)


#: The first verification of a day also solves expert-1's game for the oracle flag: from trick 1,
#: with the Python solver (the compiled one, bots.native, gives the same values in a few tens of
#: milliseconds), it takes about a second, long enough to kill its work horse in the middle.
SLOW_FIRST = {"MANILLE_FLAG_ORACLE_FROM_TRICK": "1", "MANILLE_NATIVE": "0"}


@pytest.mark.stack
def test_a_work_horse_killed_mid_job_is_retried_and_once_out_of_retries_shows_delayed(own_redis, tmp_path):
    """``python -m worker --fork``: a work horse per job; the worker outlives it."""
    rclient, conn = state_client(own_redis.url), raw_client(connect(own_redis.url))
    with live_service(own_redis.url, tmp_path, worker_argv(own_redis.url, "--fork"), MANILLE_VERIFY_RETRY="1",
                      MANILLE_READY_MAX_QUEUED_SECONDS="3", **BASE_ENV, **SLOW_FIRST) as base:
        api, accepted = Api(base), {}
        first = finished_game(api, "Nine", accepted)
        kill_mid_job(conn, first)
        sub = wait_status(api, first, "verified")  # killed mid-job: RQ ran it again
        # and kept nothing of a verification that succeeded (RQ deletes it just after the job's end)
        deadline = time.monotonic() + 10
        while conn.exists(Job.key_for(first)):
            assert time.monotonic() < deadline, "the job of a verification that succeeded was kept"
            time.sleep(0.05)

        # as slow as the day's first again, for its work horse to be killed while it works
        rclient.delete(key_for("oracle_ref", day_scope(date.fromisoformat(sub["date"])), "from1"))
        second = finished_game(api, "Lives", accepted)
        killed = kill_mid_job(conn, second)
        kill_mid_job(conn, second, not_pid=killed)  # and once more when RQ retries it: no retry left
        sub = wait_status(api, second, "delayed")
        assert sub["score"] is None
        status, health = ready(api)
        assert health["pending"] == 1 and health["failed"] == 1
        if health["oldest_queued_seconds"] <= 3:
            time.sleep(3.2 - health["oldest_queued_seconds"])
            status, health = ready(api)
        assert status == 503 and health["status"] == "not_ready" and health["oldest_queued_seconds"] > 3
        assert health["redis"] and health["workers"] >= 1  # only the old pending verification
        listing = api.get("/api/v1/ops/pending?status=delayed", ops_headers())[1]["submissions"]
        assert [s["submission_id"] for s in listing] == [second]
        assert "work horse died (killed by SIGKILL)" in listing[0]["delay_reason"]

        env = dict(os.environ, REDIS_URL=own_redis.url, MANILLE_SECRET=SECRET, MANILLE_OPS_TOKENS=OPS_TOKENS,
                   MANILLE_OPS_TOKEN=OPS, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-m", "cli", "ops", "requeue", "--delayed"], env=env,
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout) == {"submission_id": second, "requeued": True, "status": "queued"}
        assert "1 requeued" in out.stderr
        assert_each_counted_once(api, rclient, accepted)
        status, health = ready(api)
        assert status == 200 and health["failed"] == 0 and health["pending"] == 0


@pytest.mark.stack
def test_a_worker_killed_mid_job_has_it_run_again_by_the_next_worker_and_once_out_of_retries_delayed(
        own_redis, tmp_path):
    """The default worker runs a job in its own process: killed in the middle of one, it takes the
    job with it.  The next worker started on this machine (``make run`` starts one at once) runs
    it again as it starts, not minutes later when RQ's cleanup finds it abandoned (its timeout +
    60 s); with no retry left, it shows delayed, with why, until ops requeue it."""
    rclient, conn = state_client(own_redis.url), raw_client(connect(own_redis.url))
    env = dict(MANILLE_VERIFY_RETRY="0", **BASE_ENV, **SLOW_FIRST)  # one retry, at once
    with live_service(own_redis.url, tmp_path, worker_argv(own_redis.url), **env) as base:
        api, accepted, workers = Api(base), {}, []
        try:
            first = finished_game(api, "Nine", accepted)
            kill_dead(running_worker(conn, first))
            assert Job.fetch(first, connection=conn).get_status() == "started"  # stranded, until:
            workers.append(start_worker(own_redis.url, tmp_path, "second", **env))
            sub = wait_status(api, first, "verified")  # run again (its job is gone once done: result_ttl=0)

            slow = key_for("oracle_ref", day_scope(date.fromisoformat(sub["date"])), "from1")
            rclient.delete(slow)  # the next verification is as slow as the day's first again
            second = finished_game(api, "Lives", accepted)
            kill_dead(running_worker(conn, second))
            rclient.delete(slow)  # and so is its retry, even if the first try got that far
            workers.append(start_worker(own_redis.url, tmp_path, "third", **env))
            kill_dead(running_worker(conn, second))  # its retry, in the third
            workers.append(start_worker(own_redis.url, tmp_path, "fourth", **env))
            sub = wait_status(api, second, "delayed")
            assert sub["score"] is None
            listing = api.get("/api/v1/ops/pending?status=delayed", ops_headers())[1]["submissions"]
            assert [s["submission_id"] for s in listing] == [second]
            assert listing[0]["delay_reason"] == "its worker third died in the middle and no retry is left"
            assert "job " + second + " was running when worker third died" in (tmp_path / "fourth.log").read_text()
            status, done = api.post(f"/api/v1/ops/submissions/{second}/requeue", {}, ops_headers())
            assert done["requeued"] is True
            assert_each_counted_once(api, rclient, accepted)
        finally:
            stop_all(workers)


@pytest.mark.stack
def test_a_forking_worker_killed_outright_mid_job_leaves_the_job_to_rqs_cleanup_and_another_worker(
        own_redis, tmp_path):
    """``--fork``: the worker and its work horse both killed.  A next worker leaves the job alone
    (a work horse may outlive its worker and finish it); it stays started until its execution
    lapses (its heartbeat, about 90 s); RQ's cleanup then retries it (here run with the clock of
    that moment)."""
    rclient, conn = state_client(own_redis.url), raw_client(connect(own_redis.url))
    with live_service(own_redis.url, tmp_path, worker_argv(own_redis.url, "--fork"), MANILLE_VERIFY_RETRY="0",
                      **BASE_ENV, **SLOW_FIRST) as base:
        api, accepted = Api(base), {}
        sub_id = finished_game(api, "Orphan", accepted)
        parent, horse = worker_pid(conn), work_horse(conn, sub_id)
        for pid in (parent, *children_of(parent)):  # the worker, its scheduler, its work horse
            os.kill(pid, signal.SIGKILL)
        second = start_worker(own_redis.url, tmp_path, "second", "--fork", **SLOW_FIRST)
        try:
            deadline = time.monotonic() + 20
            while Worker.find_by_key(Worker.redis_worker_namespace_prefix + "second", connection=conn) is None \
                    or Worker.find_by_key(Worker.redis_worker_namespace_prefix + "second",
                                          connection=conn).get_state() != "idle":
                assert time.monotonic() < deadline, "the second worker never got to wait for jobs"
                time.sleep(0.05)
            assert Job.fetch(sub_id, connection=conn).get_status() == "started"  # its start left it
            assert api.get(f"/api/v1/submissions/{sub_id}")[1]["status"] == "queued"
            queue = Queue(QUEUE_NAME, connection=conn)
            queue.started_job_registry.cleanup(timestamp=time.time() + 600)
            assert Job.fetch(sub_id, connection=conn).get_status() in ("queued", "started", "finished")
            assert_each_counted_once(api, rclient, accepted)
        finally:
            stop_all([second])


@pytest.mark.stack
def test_a_job_past_its_timeout_is_stopped_in_the_worker_which_goes_on(own_redis, tmp_path):
    """No fork, yet a job's timeout holds: RQ's death penalty (SIGALRM) interrupts it in the
    worker's own process, fails it, and the worker takes the next job."""
    conn = raw_client(connect(own_redis.url))
    queue = Queue("timeouts", connection=conn)
    stuck = queue.enqueue("time.sleep", 30, job_timeout=1)
    after = queue.enqueue("os.getpid")
    started = time.monotonic()
    out = subprocess.run(worker_argv(own_redis.url, "--burst", "timeouts"), cwd=ROOT, capture_output=True,
                         text=True, timeout=60, env=dict(os.environ, MANILLE_SECRET=SECRET))
    assert out.returncode == 0, out.stderr
    assert time.monotonic() - started < 20
    assert stuck.get_status() == "failed" and "JobTimeoutException" in stuck.latest_result().exc_string
    assert after.get_status() == "finished" and after.return_value() not in (None, os.getpid())


@pytest.mark.stack
def test_an_idle_worker_killed_with_kill_9_strands_no_job(own_redis, tmp_path):
    """Its RQ scheduler dies with it (PR_SET_PDEATHSIG): alive, it would hold the worker's Redis
    connection, still blocked in BLMOVE, and take the next job into a socket nobody reads."""
    rclient, conn = state_client(own_redis.url), raw_client(connect(own_redis.url))
    with live_service(own_redis.url, tmp_path, worker_argv(own_redis.url), **BASE_ENV) as base:
        api, accepted = Api(base), {}
        parent = worker_pid(conn)
        scheduler = wait_for_child(parent)
        os.kill(parent, signal.SIGKILL)  # the worker's process alone
        deadline = time.monotonic() + 10
        while running(scheduler):
            assert time.monotonic() < deadline, "the scheduler outlived its worker"
            time.sleep(0.05)
        finished_game(api, "Stranded", accepted)
        second = subprocess.Popen(worker_argv(own_redis.url) + ["--name", "second"], cwd=ROOT,
                                  env=dict(os.environ, MANILLE_SECRET=SECRET, MANILLE_BOTS=TEST_BOTS),
                                  stdout=open(tmp_path / "second.log", "w"), stderr=subprocess.STDOUT)
        try:
            assert_each_counted_once(api, rclient, accepted)
        finally:
            second.terminate()
            second.wait(20)


def wait_for_child(parent: int) -> int:
    deadline = time.monotonic() + 20
    while not children_of(parent):
        assert time.monotonic() < deadline, "the worker started no scheduler"
        time.sleep(0.05)
    return children_of(parent)[0]


# -- Redis stopped and restarted; Redis paused ----------------------------------------------------

@pytest.mark.stack
@pytest.mark.single_redis  # the one Redis's own faults; a cluster's: test_svc_cluster.py
def test_redis_stopped_and_restarted_loses_nothing_and_counts_nothing_twice(own_redis, tmp_path):
    rclient = connect(own_redis.url)
    with live_service(own_redis.url, tmp_path, worker_argv(own_redis.url), **BASE_ENV) as base:
        api, accepted = Api(base), {}
        before = finished_game(api, "Before", accepted)
        wait_status(api, before, "verified")
        run, token = new_run(api)
        run = play_cards(api, run, token, 2)
        other, other_token = new_run(api)
        other = play_game(api.post, other, other_token)

        own_redis.stop()  # SHUTDOWN: the AOF is flushed, every client cut off
        status, body = api.post(f"/api/v1/runs/{run['run_id']}/plays",
                                {"turn": run["turn"], "card": run["view"]["legal"][0]}, headers(token))
        assert status == 503 and body["error"] in ("store_unavailable", "play_unconfirmed"), body
        status, body = api.post("/api/v1/submissions", {"run_id": other["run_id"], "nickname": "During"},
                                headers(other_token))
        assert status == 503, body
        status, health = ready(api)
        assert status == 503 and health["redis"] is False
        own_redis.start()  # same port and directory: loads the AOF

        status, again = api.post(f"/api/v1/runs/{run['run_id']}/plays",
                                 {"turn": run["turn"], "card": run["view"]["legal"][0]}, headers(token))
        assert status == 200 and again["turn"] == run["turn"] + 1, again
        done = play_game(api.post, again, token)
        sub_id = submit(api, done, token, "After")
        accepted[sub_id] = ("After", done["result"]["rank_score"])
        during = submit(api, other, other_token, "During")
        accepted[during] = ("During", other["result"]["rank_score"])
        assert_each_counted_once(api, rclient, accepted)
        assert ready(api)[0] == 200


@pytest.mark.stack
@pytest.mark.single_redis  # the one Redis's own faults; a cluster's: test_svc_cluster.py
def test_redis_paused_around_a_play_and_a_submission(own_redis, tmp_path):
    rclient = connect(own_redis.url)
    with live_service(own_redis.url, tmp_path, worker_argv(own_redis.url), MANILLE_REDIS_TIMEOUT="1",
                      **BASE_ENV) as base:
        api, accepted = Api(base), {}
        run, token = new_run(api)
        run = play_cards(api, run, token, 3)
        card = run["view"]["legal"][0]
        os.kill(own_redis.proc.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            status, body, hdrs = api.call("POST", f"/api/v1/runs/{run['run_id']}/plays",
                                          {"turn": run["turn"], "card": card}, headers(token))
            assert status == 503 and body["error"] in ("store_unavailable", "play_unconfirmed"), body
            assert time.monotonic() - started < 5  # the Redis timeout (1 s), not gunicorn's 30 s
        finally:
            os.kill(own_redis.proc.pid, signal.SIGCONT)
        status, again = api.post(f"/api/v1/runs/{run['run_id']}/plays", {"turn": run["turn"], "card": card},
                                 headers(token))
        assert status == 200 and again["turn"] == run["turn"] + 1 and again["events"][0]["card"] == card
        done = play_game(api.post, again, token)
        assert len(unpack_times(rclient.hget(Runs.key(run["run_id"]), "pace"))) == done["turn"]  # each played once

        os.kill(own_redis.proc.pid, signal.SIGSTOP)
        try:
            status, body = api.post("/api/v1/submissions", {"run_id": run["run_id"], "nickname": "Paused"},
                                    headers(token))
            assert status == 503, body
        finally:
            os.kill(own_redis.proc.pid, signal.SIGCONT)
        sub_id = submit(api, done, token, "Paused")  # the same run again: stored once, whatever happened
        assert submit(api, done, token, "Paused") == sub_id
        accepted[sub_id] = ("Paused", done["result"]["rank_score"])
        assert_each_counted_once(api, rclient, accepted)


# -- a write applied whose answer never came ------------------------------------------------------

class ReplyLoss:
    """A TCP relay to Redis that, once armed with a command name, passes that command on and
    drops every reply on its connection from then on: Redis applies it, the answer never comes
    (a network that fails after sending; the client times out)."""

    def __init__(self, port: int) -> None:
        self.upstream = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self.listener.getsockname()[1]}/0"
        self.armed: bytes | None = None
        self.tripped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self, command: str) -> None:
        self.tripped.clear()
        self.armed = f"${len(command)}\r\n{command}\r\n".encode()

    def close(self) -> None:
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.upstream))
            lost = threading.Event()
            threading.Thread(target=self._pump, args=(client, upstream, lost, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, lost, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, lost: threading.Event, to_redis: bool) -> None:
        try:
            while data := src.recv(65536):
                if to_redis and self.armed and self.armed in data:
                    self.armed = None
                    lost.set()  # before Redis can answer
                    self.tripped.set()
                if not to_redis and lost.is_set():
                    continue
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


@pytest.mark.single_redis  # the one Redis's own faults; a cluster's: test_svc_cluster.py
def test_a_play_and_a_submission_applied_without_an_answer_say_so_and_a_retry_gets_the_stored_answer(
        rclient, redis_server, run_worker):
    relay = ReplyLoss(redis_server.port)
    try:
        app = create_app({"TESTING": True, "REDIS_URL": relay.url, "MANILLE_SECRET": SECRET,
                          "MANILLE_BOTS": TEST_BOTS, "MANILLE_REDIS_TIMEOUT": "0.5"})
        api, accepted = Api(client=app.test_client()), {}
        run, token = new_run(api)
        run = play_cards(api, run, token, 2)  # the play script is loaded by now
        card = run["view"]["legal"][0]
        # play.lua's own call (EVALSHA <its sha>), not the limits' check read with the run
        relay.arm(app.extensions["manille"].runs._play.sha)
        status, body, hdrs = api.call("POST", f"/api/v1/runs/{run['run_id']}/plays",
                                      {"turn": run["turn"], "card": card}, headers(token))
        assert relay.tripped.is_set()
        assert status == 503 and body["error"] == "play_unconfirmed", body
        assert body["turn"] == run["turn"] and body["card"] == card and hdrs["Retry-After"] == "1"
        assert "may have been played" in body["message"]
        status, now = api.get(f"/api/v1/runs/{run['run_id']}", headers(token))
        assert now["turn"] == run["turn"] + 1  # it was played
        status, again = api.post(f"/api/v1/runs/{run['run_id']}/plays", {"turn": run["turn"], "card": card},
                                 headers(token))
        assert status == 200 and again["turn"] == run["turn"] + 1
        assert again["events"] == now["events"][len(now["events"]) - len(again["events"]):]
        assert again["events"][0]["card"] == card
        done = play_game(api.post, again, token)

        relay.arm("EXEC")
        status, body = api.post("/api/v1/submissions", {"run_id": run["run_id"], "nickname": "Unheard"},
                                headers(token))
        assert relay.tripped.is_set()
        assert status == 503 and body["error"] == "submission_unconfirmed" and body["run_id"] == run["run_id"]
        stored = api.get(f"/api/v1/runs/{run['run_id']}", headers(token))[1]["submission_id"]
        assert stored  # it was accepted
        assert submit(api, done, token, "Unheard") == stored
        accepted[stored] = ("Unheard", done["result"]["rank_score"])
        run_worker()
        assert_each_counted_once(api, rclient, accepted)
    finally:
        relay.close()
