"""Playing a whole game through the API, with any HTTP client that has get/post(json=, headers=);
what a refusal must look like (``err``) and leave behind (``snapshot``)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

SECRET = "test-secret"
#: The product plays expert-1; MANILLE_TEST_BOTS=random-1 runs the suite against the random bot.
TEST_BOTS = os.environ.get("MANILLE_TEST_BOTS", "expert-1")


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


def wait_up(url: str, procs, logs: Path, timeout=30.0) -> None:
    """Wait until ``url`` answers 200; fail with the processes' logs if one exits or time runs out."""
    import requests

    def tails():
        return "\n".join(f"--- {f.name}\n{f.read_text()[-3000:]}" for f in sorted(logs.glob("*.log")))

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in procs:
            assert p.poll() is None, f"{p.args[0]} exited with {p.returncode}\n{tails()}"
        try:
            if requests.get(url, timeout=2).status_code == 200:
                return
        except requests.RequestException:  # refused, or accepted but not answered yet (booting)
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} did not come up\n{tails()}")


@contextlib.contextmanager
def live_service(redis_url: str, logs: Path, worker_argv: list[str], **env_extra):
    """gunicorn (deploy/gunicorn.conf.py) and a separate worker process on ``redis_url``, on a
    free port; yields the base URL, stops both after."""
    from service.redis_server import free_port

    port = free_port()
    env = dict(os.environ, REDIS_URL=redis_url, MANILLE_SECRET=SECRET, MANILLE_BOTS=TEST_BOTS,
               MANILLE_TZ="Europe/Brussels", MANILLE_BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="2")
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
