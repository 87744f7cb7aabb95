"""A day's runs and submissions spread over sixteen shards by player (``store.DAY_SHARDS``): each
player's run, address index, paths and submission share one slot, and the day's readers (paths,
submissions, address runs) see every shard."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from redis.crc import key_slot

from service.app import create_app
from service.runs import Runs, run_day, run_shard
from service.store import DAY_SHARDS, EVERY_SHARD, day_scope, key_for, shard_of
from service.submissions import SUB_ID_RE, Submissions, new_submission_id

from support.svc_helpers import LIMITS_OFF, OPS, OPS_TOKENS, SECRET, TEST_BOTS, headers, play_game



def make_client(redis_server):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": OPS_TOKENS, **LIMITS_OFF}).test_client()


def post(client):
    def call(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs)
        return r.status_code, r.get_json()
    return call


def tag(key: str) -> str:
    return key.split("{", 1)[1].split("}", 1)[0]


def test_submission_ids_sort_by_time_over_a_whole_day_east_of_utc():
    """A Brussels day begins at 23:00 UTC the evening before: ids made then, before the day's UTC
    midnight, sort in the order made too (they all carried 0 and sorted by chance)."""
    day = date(2026, 12, 6)
    start = datetime(2026, 12, 5, 23, 0, tzinfo=timezone.utc)
    times = [start + timedelta(minutes=m) for m in (0, 1, 30, 59, 60, 61, 23 * 60 + 59)]
    ids = [new_submission_id(f"20261206-{i % 16:02d}-" + "a" * 16, day, t) for i, t in enumerate(times)]
    assert sorted(ids, key=lambda sub_id: sub_id[12:20]) == ids and len({i[12:20] for i in ids}) == len(ids)
    assert all(SUB_ID_RE.match(i) for i in ids)


def test_ids_name_their_shard():
    assert run_day("20261207-03-" + "a" * 16) == date(2026, 12, 7) and run_shard("20261207-03-" + "a" * 16) == 3
    assert run_shard("20261207-" + "03-" + "a" * 13) is None and run_day("20261207-" + "b" * 16) is None
    assert tag(Runs.key("20261207-15-" + "b" * 16)) == "day:2026-12-07/15"
    assert not SUB_ID_RE.fullmatch("20261207-" + "0" * 20)
    assert tag(Submissions.key("20261207-04-" + "0" * 28)) == "day:2026-12-07/04"
    assert not SUB_ID_RE.fullmatch("20261207-04-" + "0" * 20)
    assert run_day("20261207-3-" + "a" * 16) is None and run_day("20261207-03-" + "a" * 15) is None
    assert len({day_scope(date(2026, 12, 7), k) for k in EVERY_SHARD}) == DAY_SHARDS
    # the shards are spread over the slots: sixteen distinct ones, none the day's own
    slots = {key_slot(key_for("run", day_scope("2026-12-07", k), "x").encode()) for k in range(DAY_SHARDS)}
    assert len(slots) == DAY_SHARDS and key_slot(b"{day:2026-12-07}") not in slots


def test_a_players_keys_share_a_slot_and_the_days_readers_see_every_shard(redis_server, rclient, run_worker):
    client = make_client(redis_server)
    call = post(client)
    games = []
    for i in range(12):
        addr = {"REMOTE_ADDR": "198.51.100.7"}
        r = client.post("/api/v1/runs", json={}, environ_base=addr)
        assert r.status_code == 201
        run = r.get_json()
        token = run["player_token"]
        pid = rclient.hget(Runs.key(run["run_id"]), "pid")
        assert run_shard(run["run_id"]) == shard_of(pid)
        if i < 6:
            done = play_game(call, run, token)
            sub = client.post("/api/v1/submissions", json={"run_id": done["run_id"], "nickname": f"shard{i}"},
                              headers=headers(token)).get_json()
            sub_id = sub["submission_id"]
            assert int(sub_id[9:11]) == run_shard(run["run_id"])
            assert key_slot(Submissions.key(sub_id).encode()) == key_slot(Runs.key(run["run_id"]).encode())
            games.append(sub_id)
    assert len({tag(key) for key in rclient.keys("manille:{day:*}:run:*")}) > 3  # the day's shards
    run_worker()
    settings = client.application.extensions["manille"].settings
    day = settings.today()
    subs = Submissions(rclient, settings, queue=rclient)
    assert subs.for_day(day) == games  # in the order made, over the shards
    listed = client.get(f"/api/v1/ops/days/{day}/submissions", headers={"Authorization": f"Bearer {OPS}"})
    assert [s["submission_id"] for s in listed.get_json()["submissions"]] == games
    runs = Runs(rclient, settings)
    assert len(runs.address_runs(day, "198.51.100.7")) == 12
    assert runs.path_counts(day, [""]) == [12]  # every run opened, summed over the shards

