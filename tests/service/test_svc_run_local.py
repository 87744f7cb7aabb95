"""``make run`` supervised, with real processes: a worker killed with kill -9 is started again
and verification goes on, the job it was running too; Redis dying (the embedded one killed, an external one paused) stops
everything loudly with a non-zero exit; SIGTERM to ``make`` stops the whole group; a worker
that keeps dying makes it give up.  After each stop no process it started is left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from rq.job import Job

from service.redis_server import RedisServer, free_port
from service.procs import children_of
from service.run_local import STOP_SECONDS, WORKER_RESTARTS
from service.store import connect, raw_client
from service.submissions import Submissions

from support.svc_helpers import ROOT, SECRET, TEST_BOTS, headers, play_game

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        for child in children_of(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; its reaper (init, here) collects it


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def wait_for(predicate, timeout: float, what: str, log: Path | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    tail = log.read_text()[-4000:] if log is not None and log.exists() else ""
    raise AssertionError(f"timed out waiting for {what}\n{tail}")


class Launch:
    """``python -m service.run_local`` (or ``make run``) on free ports in a temporary MANILLE_VAR."""

    def __init__(self, tmp: Path, *, make: bool = False, **env_extra) -> None:
        self.port, self.redis_port = free_port(), free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = tmp / "launcher.log"
        env = dict(os.environ, MANILLE_VAR=str(tmp / "var"), MANILLE_BIND=f"127.0.0.1:{self.port}",
                   MANILLE_REDIS_PORT=str(self.redis_port), MANILLE_SECRET=SECRET, MANILLE_BOTS=TEST_BOTS,
                   MANILLE_TZ="Europe/Brussels", WEB_CONCURRENCY="1", MANILLE_THREADS="2",
                   PYTHONPATH=str(ROOT))
        env.pop("REDIS_URL", None)
        env.update(env_extra)
        env = {k: v for k, v in env.items() if v is not None}
        if make:
            stamp = tmp / "installed"  # stands for .venv/.installed: nothing to install
            stamp.touch()
            argv = ["make", "-s", "-C", str(ROOT), "run", f"PY={sys.executable}", f"STAMP={stamp}"]
        else:
            argv = [sys.executable, "-m", "service.run_local"]
        self.proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=open(self.log, "w"), stderr=subprocess.STDOUT)
        wait_for(lambda: "serving on" in self.output() or self.proc.poll() is not None, 60, "make run", self.log)
        assert self.proc.poll() is None, self.output()
        self.launcher = self.proc.pid if not make else wait_for(
            lambda: self.child("service.run_local", of=self.proc.pid), 10, "the launcher under make")

    def output(self) -> str:
        return self.log.read_text()

    def child(self, marker: str, of: int | None = None) -> int | None:
        """A child started by the launcher (each leads a session of its own: not a process a
        killed worker left to it, nor a worker's scheduler or work horse)."""
        for pid in children_of(of or self.launcher):
            try:
                leader = os.getsid(pid) == pid
            except ProcessLookupError:
                continue
            if marker in cmdline(pid) and alive(pid) and (leader or of):
                return pid
        return None

    def worker(self) -> int:
        return wait_for(lambda: self.child("--name manille-worker-"), 20, "the worker", self.log)

    def redis(self) -> int:
        return wait_for(lambda: self.child("redis-server"), 5, "the embedded redis-server", self.log)

    def all_pids(self) -> set[int]:
        return {self.proc.pid, *descendants(self.proc.pid)}

    def close(self) -> None:
        for pid in descendants(self.proc.pid) if self.proc.poll() is None else ():
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(40)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture
def launch(tmp_path):
    started = []

    def start(**kw) -> Launch:
        started.append(Launch(tmp_path, **kw))
        return started[-1]
    yield start
    for one in started:
        one.close()


def assert_all_gone(pids: set[int], timeout: float = STOP_SECONDS + 10) -> None:
    """Every one of ``pids`` ends within a warm stop's wait (a worker finishes the job in hand: an
    analysis can take its whole STOP_SECONDS on a loaded machine) and a little more."""
    deadline = time.monotonic() + timeout
    while [p for p in pids if alive(p)] and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [(p, cmdline(p)) for p in pids if alive(p)]
    assert not left, f"left running: {left}"


def verified_game(base: str, nickname: str, log: Path | None = None) -> tuple[str, int]:
    s = requests.Session()

    def post(path, body, hdrs=None):
        r = s.post(base + path, json=body, headers=hdrs or {}, timeout=20)
        return r.status_code, r.json()

    status, run = post("/api/v1/runs", {})
    assert status == 201, run
    token = run["player_token"]
    done = play_game(post, run, token)
    status, accepted = post("/api/v1/submissions", {"run_id": run["run_id"], "nickname": nickname}, headers(token))
    assert status == 202, accepted
    sub = wait_for(lambda: (lambda b: b if b["status"] not in ("queued", "delayed") else None)(
        s.get(base + accepted["status_url"], timeout=20).json()), 60, "the verification", log)
    assert sub["status"] == "verified" and sub["score"] == done["result"]["rank_score"], sub
    return accepted["submission_id"], sub["score"]


@pytest.mark.stack
def test_a_worker_killed_with_kill_9_is_started_again_and_verification_goes_on(launch):
    run = launch()
    first = run.worker()
    os.kill(first, signal.SIGKILL)
    second = wait_for(lambda: (lambda p: p if p and p != first else None)(run.child("--name manille-worker-")), 20,
                      "a new worker", run.log)
    assert "the worker exited (killed by SIGKILL); starting it again" in run.output()
    verified_game(run.base, "Phoenix", run.log)
    assert run.child("--name manille-worker-") == second
    everything = run.all_pids()
    run.proc.send_signal(signal.SIGTERM)
    assert run.proc.wait(40) == 0
    assert "manille: stopped" in run.output()
    assert_all_gone(everything)


@pytest.mark.stack
def test_a_worker_killed_in_the_middle_of_a_job_is_started_again_and_runs_it_again(launch):
    """The worker runs jobs in its own process: killed mid-job it takes the job with it; the one
    make run starts in its place runs it again as it starts (``python -m worker``)."""
    run = launch(MANILLE_VERIFY_RETRY="0")
    conn = raw_client(connect(f"redis://127.0.0.1:{run.redis_port}/0"))
    s = requests.Session()
    r = s.post(run.base + "/api/v1/runs", json={}, timeout=20)
    token = r.json()["player_token"]
    done = play_game(lambda path, body, hdrs=None: (lambda x: (x.status_code, x.json()))(
        s.post(run.base + path, json=body, headers=hdrs or {}, timeout=20)), r.json(), token)
    first = run.worker()
    os.kill(first, signal.SIGSTOP)  # the job waits for it
    sub_id = s.post(run.base + "/api/v1/submissions", json={"run_id": done["run_id"], "nickname": "Lazarus"},
                    headers=headers(token), timeout=20).json()["submission_id"]
    # The worker runs in slices of 2 ms until it has started the job, and is killed then: a
    # verification takes 10 ms and more (some days' take a second), so it dies in the middle.
    deadline = time.monotonic() + 30
    while Job.fetch(sub_id, connection=conn).get_status() != "started":
        assert time.monotonic() < deadline, "the worker never started the job"
        os.kill(first, signal.SIGCONT)
        time.sleep(0.002)
        os.kill(first, signal.SIGSTOP)
    os.kill(first, signal.SIGKILL)
    sub = wait_for(lambda: (lambda b: b if b["status"] != "queued" else None)(
        s.get(f"{run.base}/api/v1/submissions/{sub_id}", timeout=20).json()), 60, "the verification", run.log)
    assert sub["status"] == "verified" and sub["score"] == done["result"]["rank_score"], sub
    assert run.child("--name manille-worker-") != first
    assert "the worker exited (killed by SIGKILL); starting it again" in run.output()
    assert f"job {sub_id} was running when worker manille-" in run.output()


@pytest.mark.stack
def test_redis_dying_stops_everything_loudly_with_a_failure(launch):
    run = launch()
    run.worker()
    everything = run.all_pids()
    os.kill(run.redis(), signal.SIGKILL)
    assert run.proc.wait(30) == 1
    out = run.output()
    assert "REDIS IS GONE: the embedded redis-server exited (killed by SIGKILL)" in out
    assert "manille: stopped" in out
    assert_all_gone(everything)


@pytest.mark.stack
def test_an_external_redis_that_stops_answering_stops_make_run(launch, tmp_path):
    server = RedisServer(tmp_path / "external", aof=True).start()
    try:
        run = launch(REDIS_URL=server.url, MANILLE_REDIS_DEAD_SECONDS="2")
        run.worker()
        everything = run.all_pids()
        os.kill(server.proc.pid, signal.SIGSTOP)
        started = time.monotonic()
        assert run.proc.wait(40) == 1
        assert time.monotonic() - started < 20
        assert f"REDIS IS GONE: {server.url} has not answered for" in run.output()
        assert_all_gone(everything)
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
        server.stop()


@pytest.mark.stack
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_signal_to_make_stops_the_whole_group(launch, sig):
    """GNU make passes SIGTERM on to the launcher; killed with -9 it passes nothing, and the
    launcher sees its parent die (PR_SET_PDEATHSIG)."""
    run = launch(make=True)
    run.worker()
    everything = run.all_pids()
    assert run.launcher in everything and len(everything) >= 5  # make, launcher, redis, worker, web
    os.kill(run.proc.pid, sig)  # the make process alone, not its group
    run.proc.wait(40)
    assert_all_gone(everything)
    assert "manille: stopped" in run.output()


@pytest.mark.stack
def test_a_launcher_killed_with_kill_9_takes_its_children_with_it(launch):
    run = launch()
    run.worker()
    everything = run.all_pids()
    run.proc.kill()
    run.proc.wait()
    # each got SIGTERM (PR_SET_PDEATHSIG); the worker, its Redis gone too, gives up on saying goodbye
    assert_all_gone(everything, timeout=30)


@pytest.mark.stack
def test_a_worker_that_keeps_dying_makes_it_give_up(launch):
    run = launch()
    killed = set()
    deadline = time.monotonic() + 90
    while run.proc.poll() is None and time.monotonic() < deadline:
        pid = run.child("--name manille-worker-")
        if pid and pid not in killed:
            os.kill(pid, signal.SIGKILL)
            killed.add(pid)
        time.sleep(0.05)
    assert run.proc.wait(40) == 1
    assert len(killed) == WORKER_RESTARTS + 1
    assert "giving up, stopping everything" in run.output()


@pytest.mark.stack
def test_a_local_cluster_holds_the_state_and_stops_with_the_launcher(launch):
    """``MANILLE_LOCAL_CLUSTER=1 make run``: six cluster nodes beside the embedded Redis; a game
    played, submitted and verified lives on the cluster, the queue on the embedded Redis; a
    stop takes every node with it."""
    from service.store import connect_cluster

    run = launch(make=True, MANILLE_LOCAL_CLUSTER="1", MANILLE_REDIS_CLUSTER=None)
    seeds = wait_for(lambda: next((line.split()[3] for line in run.output().splitlines()
                                   if "manille: redis cluster" in line), None), 5, "the cluster line", run.log)
    nodes = wait_for(lambda: [p for p in descendants(run.launcher) if "cluster" in cmdline(p)
                              and "redis-server" in cmdline(p)], 5, "the cluster's nodes", run.log)
    assert len(nodes) == 6
    sub_id, score = verified_game(run.base, "clustered", run.log)
    state = connect_cluster(seeds)
    assert state.exists(Submissions.key(sub_id))
    assert connect(f"redis://127.0.0.1:{run.redis_port}/0").keys("manille:*") == []  # the queue's only
    ready = requests.get(f"{run.base}/api/v1/health/ready", timeout=10).json()
    assert ready["status"] == "ok", ready
    assert ready["redis_cluster"]["state"] == "ok" and ready["redis_cluster"]["masters"] == 3, ready
    pids = run.all_pids()
    os.kill(run.launcher, signal.SIGTERM)  # as Ctrl-C does: the launcher stops all, make exits 0
    assert run.proc.wait(STOP_SECONDS + 20) == 0, run.output()
    assert_all_gone(pids)


def test_the_generated_secret_is_32_random_bytes_kept_private_and_accepted(tmp_path):
    """make run's own secret (no MANILLE_SECRET): 32 bytes from the system's random source, in hex,
    in a file only its owner reads, made once; every process accepts it (32 bytes or more)."""
    from service.config import Settings
    from service.run_local import local_secret

    secret = local_secret(tmp_path)
    assert len(secret) == 64 and bytes.fromhex(secret) and local_secret(tmp_path) == secret
    assert (tmp_path / "secret").stat().st_mode & 0o777 == 0o600
    assert local_secret(tmp_path / "other") != secret
    assert Settings.from_env({"MANILLE_SECRET_FILE": str(tmp_path / "secret")}).secret == secret.encode()
