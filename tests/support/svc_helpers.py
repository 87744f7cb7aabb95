"""Playing a whole game through the API, with any HTTP client that has get/post(json=, headers=);
what a refusal must look like (``err``) and leave behind (``snapshot``)."""

from __future__ import annotations

import contextlib
import os
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from service.config import DEFAULT_LIMITS

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

#: Every process refuses a secret or token under 32 bytes (service.seeds.MIN_SECRET_BYTES).
SECRET = "test-secret-for-the-service-tests-0123"
#: The operators of the apps and processes the tests start (MANILLE_OPS_TOKENS): their tokens,
#: and whom the audit log names for each.
OPS = "ops-token-of-tess-for-the-service-tests"
OPS_OTHER = "ops-token-of-omar-for-the-service-tests"
OPS_TOKENS = f"tess {OPS}\nomar {OPS_OTHER}"
#: The product plays expert-1; MANILLE_TEST_BOTS=random-1 runs the suite against the random bot.
TEST_BOTS = os.environ.get("MANILLE_TEST_BOTS", "expert-1")
#: App config with every rate limit off, for tests that play more than a person would from one
#: address (the limits have their own tests).
LIMITS_OFF = {f"MANILLE_LIMIT_{name.upper()}": "off" for name in DEFAULT_LIMITS}
#: The 'explored' flag's settings for the ops tests, smaller than the defaults (scripts/flag_rates.py
#: measures those), so that a search fits in the shortest game of any day: 8 decisions in the 120 days from 2026-12-01 with the test secret.
FLAGS = {"MANILLE_FLAG_EXPLORED_POINTS": "5", "MANILLE_FLAG_EXPLORED_DEPTH": "3"}


def headers(token: str) -> dict:
    return {"X-Player-Token": token}


def snapshot(rclient):
    """Every key and its content (RQ's worker bookkeeping aside)."""
    out = {}
    for key in sorted(rclient.keys("*")):
        if key.startswith("rq:"):  # RQ's own (binary) records: their names are enough here
            out[key] = None
            continue
        read = {"hash": rclient.hgetall, "string": rclient.get, "set": rclient.smembers, "stream": rclient.xrange,
                "list": lambda k: rclient.lrange(k, 0, -1), "zset": lambda k: rclient.zrange(k, 0, -1, withscores=True)}
        out[key] = read[rclient.type(key)](key)
    return out


def err(r, status, code):
    """The JSON error envelope of a test-client answer, checked for its status and code."""
    body = r.get_json()
    assert r.status_code == status, body
    assert r.is_json and body["error"] == code and isinstance(body["message"], str), body
    return body


def play_game(post, run: dict, token: str, pick=lambda legal: legal[0], bodies: list | None = None) -> dict:
    """Play legal cards from each view until the run is finished; returns the last run body.

    ``post(path, json, headers)`` returns (status, body); every body is kept in ``bodies``."""
    while run["status"] != "finished":
        legal = run["view"]["legal"]
        assert legal, run["view"]
        status, run = post(f"/api/v1/runs/{run['run_id']}/plays",
                           {"turn": run["turn"], "card": pick(legal)}, headers(token))
        assert status == 200, run
        if bodies is not None:
            bodies.append(run)
    return run


def wait_up(url: str, procs, logs: Path, timeout=30.0, verify=True) -> None:
    """Wait until ``url`` answers 200 (``verify``: requests' TLS check, e.g. a test's certificate);
    fail with the processes' logs if one exits or time runs out."""
    import requests

    def tails():
        return "\n".join(f"--- {f.name}\n{f.read_text()[-3000:]}" for f in sorted(logs.glob("*.log")))

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in procs:
            assert p.poll() is None, f"{p.args[0]} exited with {p.returncode}\n{tails()}"
        try:
            if requests.get(url, timeout=2, verify=verify).status_code == 200:
                return
        except requests.RequestException:  # refused, or accepted but not answered yet (booting)
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} did not come up\n{tails()}")


@contextlib.contextmanager
def live_service(redis_url: str, logs: Path, worker_argv: list[str], also_bind: str = "", **env_extra):
    """gunicorn (deploy/gunicorn.conf.py) and a separate worker process on ``redis_url``, on a
    free port (and ``also_bind``, e.g. a Unix socket); yields the base URL, stops both after."""
    from service.redis_server import free_port

    port = free_port()
    env = dict(os.environ, REDIS_URL=redis_url, MANILLE_SECRET=SECRET, MANILLE_BOTS=TEST_BOTS,
               MANILLE_TZ="Europe/Brussels", MANILLE_BIND=",".join(filter(None, (f"127.0.0.1:{port}", also_bind))),
               WEB_CONCURRENCY="2")
    env.update(env_extra)
    env = {k: v for k, v in env.items() if v is not None}
    worker = subprocess.Popen(worker_argv, env=env, cwd=ROOT, stdout=open(logs / "worker.log", "w"),
                              stderr=subprocess.STDOUT)
    web = subprocess.Popen([str(BIN / "gunicorn"), "-c", str(ROOT / "deploy/gunicorn.conf.py"),
                            "service.app:create_app()"], env=env, cwd=ROOT,
                           stdout=open(logs / "web.log", "w"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_up(f"{base}/api/v1/health/live", [worker, web], logs)
        yield base
    finally:
        for p in (web, worker):
            p.terminate()
        for p in (web, worker):
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()


class SlowClients:
    """``n`` connections to ``host:port``, each sending a request header one byte every ``interval``
    seconds and never finishing it (a slowloris), while the block runs; over TLS (its handshake
    done first) with ``tls``, an ``ssl.SSLContext``.  A connection the server closes (or answers:
    a proxy's 408) is counted in ``cut`` and opened again at once, as an attacker would; ``held``
    is how many are open now."""

    HEAD = b"GET /api/v1/health/live HTTP/1.1\r\nHost: localhost\r\nX-Slow: "

    def __init__(self, host: str, port: int, n: int = 40, interval: float = 1.0, tls=None) -> None:
        self.address, self.n, self.interval, self.tls = (host, port), n, interval, tls
        self.open: dict[socket.socket, int] = {}  # each connection: bytes of its header sent
        self.cut = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._drip, daemon=True)

    @property
    def held(self) -> int:
        return len(self.open)

    def __enter__(self) -> "SlowClients":
        self._send_one()
        self._thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._stop.set()
        self._thread.join()
        for sock in self.open:
            sock.close()

    def _drip(self) -> None:
        while not self._stop.wait(self.interval):
            self._send_one()

    def _send_one(self) -> None:
        for sock, sent in list(self.open.items()):
            try:
                readable, _, _ = select.select([sock], [], [], 0)
                if readable:
                    sock.recv(4096)  # closed (b"") or answered: either way the server let go
                    raise ConnectionResetError
                sock.send(self.HEAD[sent:sent + 1] or b"a")  # the last header line never ends
                self.open[sock] = sent + 1
            except OSError:
                sock.close()
                del self.open[sock]
                self.cut += 1
        while len(self.open) < self.n:
            try:
                sock = socket.create_connection(self.address, timeout=2)
                if self.tls is not None:
                    sock = self.tls.wrap_socket(sock, server_hostname="localhost")
                sock.send(self.HEAD[:1])
            except OSError:
                return  # refused or not accepted in time: try again on the next tick
            sock.setblocking(False)
            self.open[sock] = 1


def timed_get(session, url: str, timeout: float) -> float | None:
    """Seconds one GET of ``url`` took to answer 200; None if it failed or took over ``timeout``."""
    import requests

    t0 = time.perf_counter()
    try:
        ok = session.get(url, timeout=timeout).status_code == 200
    except requests.RequestException:
        return None
    return time.perf_counter() - t0 if ok else None


def queue_of(state):
    """RQ's connection beside the state client ``state``, as the service makes it (the same server,
    or with the state on a cluster the queue's own Redis, ``REDIS_URL``)."""
    from service.config import Settings

    return Settings.from_env({**os.environ, "MANILLE_SECRET": SECRET}).queue_connection(state)


def state_client(url: str):
    """A client of the service's state: the cluster when it is on one (MANILLE_REDIS_CLUSTER),
    else the Redis at ``url``."""
    from service.store import connect, connect_cluster

    if os.environ.get("MANILLE_REDIS_CLUSTER"):
        return connect_cluster(os.environ["MANILLE_REDIS_CLUSTER"])
    return connect(url)


def flush_state(url: str) -> None:
    """Empty the Redis at ``url`` and, when the state is on a cluster (MANILLE_REDIS_CLUSTER), it too."""
    from service.store import connect, connect_cluster

    connect(url).flushall()
    if os.environ.get("MANILLE_REDIS_CLUSTER"):
        connect_cluster(os.environ["MANILLE_REDIS_CLUSTER"]).flushall()


def burst_worker(queues, connection):
    """RQ's SimpleWorker over ``queues`` (names), in the test's process: ``.work(burst=True)`` runs
    what they hold.  Its pub/sub thread wakes every second as the product's workers' does
    (worker.__main__): with RQ's 60 s, the end of a burst waited up to a minute for it."""
    from rq import Queue, SimpleWorker

    from worker.__main__ import Sweeping

    class BurstWorker(SimpleWorker):
        PUBSUB_SLEEP = Sweeping.PUBSUB_SLEEP
        subscribe = Sweeping.subscribe

    return BurstWorker([Queue(q, connection=connection) for q in queues], connection=connection)
