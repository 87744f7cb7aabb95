"""Redis Cluster readiness: every Lua script call and every MULTI the service makes touches keys of
one hash slot.  The real flows run (open, play, free play, archive, submit, verify, boards, ops,
rebuilds) on a real Redis through a client that records each script call and transaction before
sending it on; the slots are the CRC16 of each key's hash tag, as a cluster computes them.

RQ's own keys (``rq:…``) are not the service's: RQ itself does not run on Redis Cluster (its
enqueue is a MULTI over the queue, the job and the registry of queues), so with a cluster it
has a Redis of its own (``REDIS_URL``), and no transaction of ours ever holds one of its keys."""

from __future__ import annotations

import hashlib
from datetime import date, timedelta
from pathlib import Path

import pytest
import redis
from redis.crc import key_slot
from rq import Queue

from service.app import Services, create_app
from service.analysis import QUEUE as ANALYSIS_QUEUE
from service.config import QUEUE_NAME
from service.duplicate import QUEUE as BOARDS_QUEUE
from service.redis_server import ClusterNode, free_cluster_port
from service.store import raw_client, script_needs, script_source, shard_of

from support.svc_helpers import OPS, OPS_OTHER, OPS_TOKENS, ROOT, SECRET, TEST_BOTS, burst_worker, headers, play_game

LUA = list((ROOT / "service").rglob("*.lua"))
SHARED = {need for p in LUA for need in script_needs(p)}  # put in front of the scripts that need them
SCRIPTS = {hashlib.sha1(script_source(p).encode()).hexdigest(): p.name for p in LUA if p.name not in SHARED}


class Recorder:
    """What a spying client saw: ("script", name, keys) and ("multi", None, keys) records."""

    def __init__(self, url: str) -> None:
        self.records: list[tuple[str, str | None, list[str]]] = []
        self.plain = redis.Redis.from_url(url, decode_responses=True)  # asks the server for keys

    def script(self, args) -> None:
        sha, numkeys = args[1], int(args[2])
        self.records.append(("script", SCRIPTS.get(sha, sha), [str(k) for k in args[3:3 + numkeys]]))

    def keys_of(self, args) -> list[str]:
        """The keys of one command, as the server reads them (COMMAND GETKEYS)."""
        try:
            return list(self.plain.command_getkeys(*args))
        except redis.ResponseError:  # a command without keys
            return []

    def multi(self, stack, watched) -> None:
        keys = list(watched)
        for args, _options in stack:
            keys += self.keys_of(args)
        self.records.append(("multi", None, [k.decode() if isinstance(k, bytes) else k for k in keys]))


def spying(recorder: Recorder):
    """A redis.Redis subclass (and its pipeline) that tells ``recorder`` what it sends."""

    class SpyPipeline(redis.client.Pipeline):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self._spy_watched: list = []

        def watch(self, *names):
            self._spy_watched += names
            return super().watch(*names)

        def immediate_execute_command(self, *args, **options):
            if args[0] in ("EVALSHA", "EVAL"):
                recorder.script(args)
            return super().immediate_execute_command(*args, **options)

        def execute(self, raise_on_error: bool = True):
            stack = list(self.command_stack)
            for args, _options in stack:
                if args[0] in ("EVALSHA", "EVAL"):
                    recorder.script(args)
            if self.transaction or self.explicit_transaction:
                recorder.multi(stack, self._spy_watched)
            return super().execute(raise_on_error)

        def reset(self):
            super().reset()
            self._spy_watched = []

    class SpyRedis(redis.Redis):
        def execute_command(self, *args, **options):
            if args[0] in ("EVALSHA", "EVAL"):
                recorder.script(args)
            return super().execute_command(*args, **options)

        def pipeline(self, transaction=True, shard_hint=None):
            return SpyPipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)

    return SpyRedis


def slots(keys) -> set[int]:
    return {key_slot(k.encode() if isinstance(k, str) else k) for k in keys}


@pytest.fixture
def spied(redis_server, rclient):
    recorder = Recorder(redis_server.url)
    spy = spying(recorder).from_url(redis_server.url, decode_responses=True)
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": OPS_TOKENS,
                      "MANILLE_LIMIT_RANKED_RUNS": "off"})
    app.extensions["manille"] = Services(app.extensions["manille"].settings, client=spy)
    conn = raw_client(spy)  # the worker's connection, and so its jobs', spied too

    def work():
        import worker.jobs
        worker.jobs._settings = None
        burst_worker((QUEUE_NAME, BOARDS_QUEUE), conn).work(burst=True)

    yield app.test_client(), work, recorder, spy
    recorder.plain.close()


def test_the_crc16_slots_are_redis_clusters():
    assert key_slot(b"123456789") == 12739  # the CRC16/XMODEM check value, as Redis Cluster's spec gives
    assert key_slot(b"manille:{day:2026-12-02}:run:x") == key_slot(b"day:2026-12-02")  # the tag alone


@pytest.mark.single_redis  # it spies on a plain Redis client; a cluster refuses a cross-slot call by itself
def test_every_script_and_transaction_touches_one_slot(spied, tmp_path):
    client, work, recorder, spy = spied
    ops = {"Authorization": f"Bearer {OPS}"}
    conn = raw_client(spy)

    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs)
        return r.status_code, r.get_json()

    # a league made before its members play: their verified games name them in it (member_name.lua)
    status, league = post("/api/v1/leagues", {"name": "Slots"}, {})
    assert status == 201, league
    first = league["player_token"]
    subs = []
    for n, nickname in enumerate(("Ada", "Bob", "Cyd")):
        status, run = post("/api/v1/runs", {}, headers(first) if n == 0 else {})
        assert status == 201, run
        token = run.pop("player_token", None) or first
        if n:
            status, joined = post("/api/v1/leagues/join", {"invite": league["invite"]}, headers(token))
            assert status == 200, joined
        play_game(post, run, token, pick=lambda legal, n=n: legal[n % len(legal)])
        status, sub = post("/api/v1/submissions", {"run_id": run["run_id"], "nickname": nickname}, headers(token))
        assert status == 202, sub
        subs.append((sub, token))
    status, free = post("/api/v1/runs", {"kind": "random"}, headers(token))
    assert status == 201
    free = play_game(post, free, token)
    # a duel of it, played by a friend
    status, duel = post(f"/api/v1/runs/{free['run_id']}/duel", None, headers(token))
    assert status == 201, duel
    status, friend = post("/api/v1/runs", {"kind": "duel", "duel": duel["duel_id"]}, headers(first))
    assert status == 201, friend
    play_game(post, friend, first)
    assert client.get(f"/api/v1/duels/{duel['duel_id']}", headers=headers(first)).get_json()["players"] == 2
    status, asked = post(f"/api/v1/runs/{free['run_id']}/analysis", {}, headers(token))  # a place in the queue
    assert status == 202, asked
    burst_worker([ANALYSIS_QUEUE], conn).work(burst=True)  # taken, computed
    today = date.fromisoformat(client.get("/api/v1/challenges/today").get_json()["date"])
    past = (today - timedelta(days=3)).isoformat()
    status, archive = post("/api/v1/runs", {"date": past}, headers(token))
    assert status == 201 and archive["ranked"] is False
    post(f"/api/v1/runs/{archive['run_id']}/plays", {"turn": 0, "card": archive["view"]["legal"][0]}, headers(token))
    # One verification that could not run (as a crash with no retry left leaves it): delayed, then
    # requeued by ops, listed on the way.
    delayed = subs[2][0]["submission_id"]
    assert client.application.extensions["manille"].submissions.mark_delayed(delayed, "slot test")
    assert client.get("/api/v1/ops/pending", headers=ops).status_code == 200
    assert client.post(f"/api/v1/ops/submissions/{delayed}/requeue", json={"reason": "slots"},
                       headers=ops).status_code in (200, 202)
    work()
    for sub, token in subs:
        assert client.get(sub["status_url"], headers=headers(token)).get_json()["status"] == "verified"

    for path in (f"/api/v1/leaderboards/days/{today}", f"/api/v1/leaderboards/days/{today}/me",
                 f"/api/v1/leaderboards/days/{today}/histogram", "/api/v1/leaderboards/all-time",
                 f"/api/v1/leaderboards/weeks/{today.isocalendar()[0]}-W{today.isocalendar()[1]:02d}",
                 f"/api/v1/leaderboards/months/{today:%Y-%m}/me", "/api/v1/players/me", "/metrics",
                 f"/api/v1/leaderboards/days/{today}/deals", f"/api/v1/submissions/{subs[0][0]['submission_id']}/deals",
                 f"/api/v1/leaderboards/days/{today}/matchpoints"):
        assert client.get(path, headers=headers(subs[0][1])).status_code == 200, path
    lid, week = league["league_id"], f"{today.isocalendar()[0]}-W{today.isocalendar()[1]:02d}"
    for path in (f"/days/{today}", f"/weeks/{week}", f"/months/{today:%Y-%m}", "/all-time"):
        board = client.get(f"/api/v1/leagues/{lid}/leaderboards{path}", headers=headers(first)).get_json()
        assert len(board["entries"]) == 3, board
    owner = headers(first)
    assert client.patch(f"/api/v1/leagues/{lid}", json={"name": "Slots!"}, headers=owner).status_code == 200
    assert client.post(f"/api/v1/leagues/{lid}/invite", headers=owner).status_code == 200
    roster = client.get(f"/api/v1/leagues/{lid}", headers=owner).get_json()["roster"]
    bob = next(m["member"] for m in roster if m["nickname"] == "Bob")
    assert client.delete(f"/api/v1/leagues/{lid}/members/{bob}", headers=owner).status_code == 200
    assert client.post(f"/api/v1/leagues/{lid}/leave", headers=headers(subs[2][1])).status_code == 204
    assert client.delete(f"/api/v1/leagues/{lid}", headers=owner).status_code == 204
    # a deal's traveller (the day is open here, so read as the API will once it has closed)
    from service.duplicate import Field
    assert Field(spy).traveller(today, 0)["results"] == 3
    target = subs[1][0]["submission_id"]
    assert client.post(f"/api/v1/ops/submissions/{target}/disqualify", json={"reason": "slots"},
                       headers=ops).status_code == 200
    assert client.post(f"/api/v1/ops/submissions/{target}/restore", json={"reason": "slots"},
                       headers=ops).status_code == 200
    # the desk: a report, a note, a restriction appealed and granted by another operator (a lift)
    reported, bob = subs[1][0]["submission_id"], headers(subs[1][1])
    assert post("/api/v1/reports", {"submission_id": reported, "reason": "slots"}, headers(first))[0] == 201
    bob_pid = client.get("/api/v1/players/me", headers=bob).get_json()["player"]
    assert post(f"/api/v1/ops/players/{bob_pid}/notes", {"text": "slots"}, ops)[0] == 201
    assert post(f"/api/v1/ops/players/{bob_pid}/restrict", {"reason": "slots"}, ops)[0] == 200
    status, appeal = post("/api/v1/appeals", {"text": "slots"}, bob)
    assert status == 201, appeal
    assert post(f"/api/v1/ops/appeals/{appeal['appeal_id']}/answer", {"decision": "granted", "text": "slots"},
                {"Authorization": f"Bearer {OPS_OTHER}"})[0] == 200
    assert client.get(f"/api/v1/ops/export/{reported}", headers=ops).status_code == 200
    assert client.post(f"/api/v1/ops/days/{today}/reverify", headers=ops).status_code == 202
    assert client.post(f"/api/v1/ops/days/{today}/rebuild", json={"reason": "slots"}, headers=ops).status_code == 202
    Queue(QUEUE_NAME, connection=raw_client(spy)).enqueue_call("worker.jobs.rebuild_boards", timeout=600)
    work()
    from service.ops import Ops
    Ops(spy, client.application.extensions["manille"].settings).rekey_nicknames("slots")
    # the warm of a searching bot's day: its claim, its progress and a job's decisions
    from service.botcache import warm
    from service.config import Settings
    from service.replay import Card
    settings = Settings.from_env({"MANILLE_SECRET": SECRET, "MANILLE_BOTS": "expert-2", "MANILLE_WARM_DEALS": "1"})
    tomorrow = today + timedelta(days=1)
    assert warm.request(settings, spy, tomorrow, queue=conn) == 8
    seed = settings.seed(tomorrow)
    index, card = warm.plan(seed, 1)[0]
    warm.done(spy, seed, "expert-2", warm.warm_deal(spy, seed, "expert-2", index, Card.parse(card)))
    from service.ratings import Ratings
    assert Ratings(spy).rate_day(today) == 3  # the day's ratings (append_day.lua), as once it has closed
    board = client.get(f"/api/v1/leaderboards/days/{today}").get_json()
    assert sorted(e["nickname"] for e in board["entries"]) == ["Ada", "Bob", "Cyd"]  # the flows really ran

    scripts = [(name, keys) for kind, name, keys in recorder.records if kind == "script"]
    assert {name for name, _ in scripts} == set(SCRIPTS.values()), "every script of the service ran"
    for name, keys in scripts:
        assert len(slots(keys)) == 1, f"{name} touches {len(slots(keys))} slots: {keys}"

    transactions = [keys for kind, _, keys in recorder.records if kind == "multi"]
    ours = [keys for keys in transactions if keys and not any(k.startswith("rq:") for k in keys)]
    assert ours  # the end of a rebuild (verdicts and paths are scripts now, checked above)
    for keys in ours:
        assert len(slots(keys)) == 1, f"a MULTI touches {len(slots(keys))} slots: {keys}"
    mixed = [keys for keys in transactions if any(k.startswith("rq:") for k in keys)
             and any(not k.startswith("rq:") for k in keys)]
    assert not mixed, f"RQ's keys and ours in one transaction: {mixed}"
    assert any(any(k.startswith("rq:") for k in keys) for keys in transactions)  # RQ's own were seen

    # The slots computed above are the ones a real cluster node gives (CLUSTER KEYSLOT), key by key.
    ours = sorted({k for _, _, keys in recorder.records for k in keys if not k.startswith("rq:")})
    assert len(ours) > 20
    node = ClusterNode(tmp_path / "node", free_cluster_port()).start()
    try:
        asked = redis.Redis(port=node.port, decode_responses=True)
        pipe = asked.pipeline(transaction=False)
        for key in ours:
            pipe.execute_command("CLUSTER KEYSLOT", key)
        assert pipe.execute() == [key_slot(k.encode()) for k in ours]
        asked.close()
    finally:
        node.stop()


def test_a_rebuild_clears_every_board(rclient):
    """What a score writes: a wipe takes it all, and raises the epoch and the count of wipes."""
    from service.leaderboard import EPOCH, WIPES, Leaderboard

    kept = ["manille:{day:2026-12-02}:paths:counted", "manille:{day:2026-12-02}:run:20261202-x",
            "manille:{all}:audit"]
    for key in kept:
        rclient.hset(key, "a", "1")
    Leaderboard(rclient).record(date(2026, 12, 2), "p" * 24, "Ada", 1100, f"20261202-{shard_of('p' * 24):02d}-" + "0" * 28)
    written = rclient.keys("manille:{boards*}:*")
    assert {"manille:{boards:day:2026-12-02}:board:day:2026-12-02", "manille:{boards:week:2026-W49}:board:week:2026-W49",
            "manille:{boards:month:2026-12}:board:month:2026-12", "manille:{boards}:board:all"} <= set(written)
    # the week's and month's counts of wipes are kept, raised: a period step begun before is dropped
    counts = [k for k in written if ":wipes:" in k]
    assert len(counts) == 2 and len(written) >= 10
    assert Leaderboard(rclient).wipe() == len(written) - len(counts)
    assert sorted(rclient.keys("*")) == sorted(kept + counts + [EPOCH, WIPES])  # the epoch: kept pages stale
    assert [rclient.get(k) for k in counts] == ["1", "1"]


def test_a_verdict_left_in_the_pending_index_is_dropped_by_its_readers(client, rclient, run_worker):
    """The verdict's MULTI and the index's ZREM are two writes (two slots): a process dying in
    between leaves the submission in the index, which readiness and ops must not count."""
    from service.submissions import PENDING

    run = client.post("/api/v1/runs", json={}).get_json()
    token = run.pop("player_token")

    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs)
        return r.status_code, r.get_json()

    play_game(post, run, token)
    _, sub = post("/api/v1/submissions", {"run_id": run["run_id"], "nickname": "Left"}, headers(token))
    run_worker()
    assert client.get(sub["status_url"]).get_json()["status"] == "verified"
    assert rclient.zcard(PENDING) == 0
    rclient.zadd(PENDING, {sub["submission_id"]: 1.0, "not-an-id": 2.0})  # as if the ZREM never came
    subs = client.application.extensions["manille"].submissions
    assert subs.pending_summary() == {"pending": 0, "oldest": None}
    assert rclient.zcard(PENDING) == 0
