"""The day's bots: a new day is dealt with the strongest searching bot (``DEFAULT_BOTS``) and keeps
it whatever the configuration says later; a day created before keeps its own (expert-1), in the
archive too; free play offers a beginner's, the club's and the strongest table, each played to
its end and verified, a bad choice refused with what is allowed.

Most service tests keep expert-1 as the day's bot (``TEST_BOTS``): they measure mechanics, and a
searching bot's cold decisions would only make them slower.  These play the default bot."""

from __future__ import annotations

from datetime import date

import pytest
from freezegun import freeze_time

from bots import get_bot
from service.app import create_app
from service.config import DEFAULT_BOTS, Settings
from service.replay import dumps, player_cards, verify
from service.seeds import daily_seed

from support.svc_helpers import SECRET, err, headers, play_game, snapshot

# Europe/Brussels in December is UTC+1.
DAY = "2026-12-02"
ON_DAY = "2026-12-02T12:00:00+00:00"        # 13:00 local: the day is open
NEXT_DAY = "2026-12-03T12:00:00+00:00"      # the next day open; DAY closed, its seed public


def _app(redis_url: str, **config):
    """An app with the configuration a deployment has by default (no ``MANILLE_BOTS``), or ``config``."""
    return create_app({"TESTING": True, "REDIS_URL": redis_url, "MANILLE_SECRET": SECRET, **config})


def _post(client):
    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs)
        return r.status_code, r.get_json()
    return post


def _open(client, body=None, token=None) -> tuple[dict, str]:
    r = client.post("/api/v1/runs", json=body or {}, headers=headers(token) if token else {})
    assert r.status_code == 201, r.get_json()
    run = r.get_json()
    return run, token or run["player_token"]


def _plays(client, run, token, n):
    for _ in range(n):
        status, run = _post(client)(f"/api/v1/runs/{run['run_id']}/plays",
                                    {"turn": run["turn"], "card": run["view"]["legal"][-1]}, headers(token))
        assert status == 200, run
    return run


@pytest.fixture
def default_bots(monkeypatch):
    """The environment without ``MANILLE_BOTS`` (the suite sets it): the product's default."""
    monkeypatch.delenv("MANILLE_BOTS", raising=False)


def test_the_day_bot_is_a_searching_bot_and_the_named_default(default_bots):
    bot = get_bot(DEFAULT_BOTS)
    assert getattr(bot, "searches", None) is not None and DEFAULT_BOTS != "expert-1"
    assert Settings.from_env({"MANILLE_SECRET": SECRET}).bots == DEFAULT_BOTS
    assert Settings.from_env({"MANILLE_SECRET": SECRET}).bots_before == "expert-1"


def test_a_new_day_keeps_its_bot_after_a_configuration_change(default_bots, rclient, redis_server):
    with freeze_time(ON_DAY):
        client = _app(redis_server.url).test_client()
        run, token = _open(client)
        assert run["bots"] == DEFAULT_BOTS and run["date"] == DAY
        run = _plays(client, run, token, 2)
        # the operator goes back to expert-1: the day already created keeps its bot, for its runs
        # already open and for those opened now
        changed = _app(redis_server.url, MANILLE_BOTS="expert-1").test_client()
        assert changed.get("/api/v1/challenges/today").get_json()["bots"] == DEFAULT_BOTS
        other, _ = _open(changed)
        assert other["bots"] == DEFAULT_BOTS
        run = _plays(changed, run, token, 1)
        assert run["bots"] == DEFAULT_BOTS
    with freeze_time(NEXT_DAY):
        assert changed.get("/api/v1/challenges/today").get_json()["bots"] == "expert-1"  # a new day: the new setting
        assert changed.get(f"/api/v1/challenges/{DAY}").get_json()["bots"] == DEFAULT_BOTS
        archive, _ = _open(changed, {"date": DAY})
        assert archive["kind"] == "archive" and archive["bots"] == DEFAULT_BOTS


def test_a_day_created_before_keeps_expert_1_archive_included(default_bots, rclient, redis_server, run_worker):
    with freeze_time(ON_DAY):
        before = _app(redis_server.url, MANILLE_BOTS="expert-1").test_client()
        run, token = _open(before)
        assert run["bots"] == "expert-1"
        run = play_game(_post(before), run, token)
        # the new default is deployed: the day goes on with expert-1, and its games verify so
        after = _app(redis_server.url).test_client()
        assert after.get("/api/v1/challenges/today").get_json()["bots"] == "expert-1"
        late, _ = _open(after)
        assert late["bots"] == "expert-1"
        r = after.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "Before"},
                       headers=headers(token))
        assert r.status_code == 202, r.get_json()
        run_worker()
        sub_id = r.get_json()["submission_id"]
        sub = after.get(r.get_json()["status_url"]).get_json()
        assert sub["status"] == "verified" and sub["score"] == run["result"]["rank_score"], sub
    with freeze_time(NEXT_DAY):
        assert after.get("/api/v1/challenges/today").get_json()["bots"] == DEFAULT_BOTS
        archive, atoken = _open(after, {"date": DAY})
        assert archive["kind"] == "archive" and archive["bots"] == "expert-1"
        archive = play_game(_post(after), archive, atoken)
        record = after.get(f"/api/v1/runs/{archive['run_id']}/record", headers=headers(atoken)).get_json()
        seed = daily_seed(SECRET.encode(), date.fromisoformat(DAY))
        assert record["bots"] == "expert-1"
        assert dumps(verify(seed, player_cards(record), get_bot("expert-1"))) == dumps(record)
        ranked = after.get(f"/api/v1/submissions/{sub_id}/record").get_json()
        assert ranked["bots"] == "expert-1"


@pytest.mark.parametrize("bots", ["greedy-1", "expert-1", DEFAULT_BOTS])
def test_free_play_at_each_strength_plays_to_the_end_and_verifies(bots, default_bots, rclient, redis_server):
    from rq import Queue, SimpleWorker

    from service.analysis import QUEUE as ANALYSIS_QUEUE
    from support.svc_helpers import queue_of

    with freeze_time(ON_DAY):
        client = _app(redis_server.url).test_client()
        run, token = _open(client, {"kind": "random", "bots": bots})
        assert run["kind"] == "random" and run["bots"] == bots and run["rules"] == "muette-1"
        run = play_game(_post(client), run, token)
        assert run["bots"] == bots and run["seed"]
        record = client.get(f"/api/v1/runs/{run['run_id']}/record", headers=headers(token)).get_json()
        assert record["bots"] == bots
        assert dumps(verify(run["seed"], player_cards(record), get_bot(bots))) == dumps(record)
        assert not rclient.keys("manille:{seed:*}:decisions")  # a free deal's decisions are not kept
        r = client.post(f"/api/v1/runs/{run['run_id']}/analysis", headers=headers(token))
        assert r.status_code == 202, r.get_json()
        import worker.jobs
        worker.jobs._settings = None
        conn = queue_of(rclient)
        SimpleWorker([Queue(ANALYSIS_QUEUE, connection=conn)], connection=conn).work(burst=True)
        body = client.get(r.get_json()["status_url"]).get_json()
        assert body["status"] == "finished" and body["analysis"]["bots"] == bots, body.get("error")


def test_free_play_offers_three_strengths_and_refuses_another(default_bots, rclient, redis_server):
    with freeze_time(ON_DAY):
        client = _app(redis_server.url).test_client()
        before = snapshot(rclient)
        for body, allowed in (({"kind": "random", "bots": "expert-3"}, ["greedy-1", "expert-1", DEFAULT_BOTS]),
                              ({"kind": "random", "bots": "oracle-1"}, ["greedy-1", "expert-1", DEFAULT_BOTS]),
                              ({"kind": "random", "rules": "parlee-1", "bots": DEFAULT_BOTS}, ["greedy-1", "expert-1"]),
                              ({"kind": "random", "rules": "manillen-1", "bots": "random-1"}, ["greedy-1", "expert-1"])):
            got = err(client.post("/api/v1/runs", json=body), 422, "unknown_bots")
            assert got["allowed"] == allowed, (body, got)
        err(client.post("/api/v1/runs", json={"bots": "greedy-1"}), 422, "validation_error")  # a day's bots are its own
        err(client.post("/api/v1/runs", json={"kind": "random", "bots": ""}), 422, "validation_error")
        assert snapshot(rclient) == before  # refused: nothing stored, nothing counted
        # without a choice, the strongest: today's bots (under the rules with an auction, expert-1)
        assert _open(client, {"kind": "random"})[0]["bots"] == DEFAULT_BOTS
        variant, _ = _open(client, {"kind": "random", "rules": "parlee-1", "bots": "greedy-1"})
        assert variant["bots"] == "greedy-1" and variant["rules"] == "parlee-1"
        # the page is served the tables it offers
        page = client.get("/free?lang=en").get_data(as_text=True)
        assert f'"strongest":"{DEFAULT_BOTS}"' in page.replace("&#34;", '"')
