"""The day's searched decisions computed ahead (``service.botcache.warm``), on a real Redis and a
real RQ worker: the worker's maintenance queues tomorrow's warm while today is played (and none for
a day of expert-1), once; its jobs put in the day's cache exactly the cards the bot computes; the
day's players then meet only decisions computed ahead; a warm that did not finish is queued again
and reads what was done."""

from __future__ import annotations

from datetime import date

from freezegun import freeze_time
from rq import Queue, SimpleWorker

from bots import get_bot
from service.app import create_app
from service.botcache import DecisionCache, observation_digest, seed_scope, warm
from service.config import DEFAULT_BOTS, Settings
from service.replay import GameState, decision_stream
from service.seeds import daily_seed
from service.store import key_for
from worker.__main__ import SweepingSimpleWorker

from support.svc_helpers import SECRET, headers

# Europe/Brussels in December is UTC+1.  2026-12-02 under the tests' secret: a first deal of about
# a hundred searched decisions, for a quick warm.
TODAY = "2026-12-01T12:00:00+00:00"     # 13:00 local on 2026-12-01
TOMORROW = date(2026, 12, 2)
ON_TOMORROW = "2026-12-02T12:00:00+00:00"
CONFIG = {"MANILLE_SECRET": SECRET, "MANILLE_BOTS_SINCE": TOMORROW.isoformat(), "MANILLE_WARM_DEALS": "1"}


class Checked:
    """The bot, bare, beside the cache: each searched decision's card compared with the cached one."""

    def __init__(self, bot, cache: DecisionCache) -> None:
        self.bot, self.id, self.cache, self.compared = bot, bot.id, cache, 0

    def choose(self, obs, rng):
        card = self.bot.choose(obs, rng)
        if self.bot.searches(obs):
            digest = observation_digest(self.id, obs, totals=False)
            assert self.cache.r.hget(self.cache.key, digest) == str(card), (digest, card)
            self.compared += 1
        return card


def test_tomorrow_is_warmed_while_today_is_played_with_exactly_the_bots_cards(rclient, queue_conn, redis_server,
                                                                                 monkeypatch):
    for name, value in CONFIG.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("MANILLE_BOTS", raising=False)  # the default from tomorrow, expert-1 before it
    import worker.jobs
    worker.jobs._settings = None
    settings = Settings.from_env()
    seed = daily_seed(SECRET.encode(), TOMORROW)
    cache_key = DecisionCache(rclient, seed).key
    jobs = Queue(warm.QUEUE, connection=queue_conn)
    with freeze_time(TODAY):
        worker = SweepingSimpleWorker([jobs], connection=queue_conn)
        worker.run_maintenance_tasks()  # what every worker does each minute
        plan = warm.plan(seed, 1)
        assert jobs.count == len(plan) == 8  # tomorrow's (DEFAULT_BOTS), a job per first card; none for today's expert-1
        assert {j.args[:2] for j in jobs.jobs} == {(TOMORROW.isoformat(), DEFAULT_BOTS)}
        worker.run_maintenance_tasks()
        assert jobs.count == 8  # queued once
        ready = create_app({"TESTING": True, "REDIS_URL": redis_server.url, **CONFIG}).test_client().get(
            "/api/v1/health/ready").get_json()
        assert ready["warm"] == {"workers": 0, "queued": 8, "bots": "expert-1", "jobs": 0, "done": 0}, ready
        assert "no_warm_worker" in ready["warnings"]
        assert warm.progress(rclient, seed, DEFAULT_BOTS)["done"] == 0
        SimpleWorker([jobs], connection=queue_conn).work(burst=True)
        got = warm.progress(rclient, seed, DEFAULT_BOTS)
        assert got["done"] == got["jobs"] == 8 and got["computed"] == rclient.hlen(cache_key) > 20, got
        assert got["found"] == 0 and 0 < rclient.ttl(cache_key) <= 2 * 24 * 3600

    # every searched decision of the first deal's tree is the card the bot computes there
    bot = get_bot(DEFAULT_BOTS)
    checked = Checked(bot, DecisionCache(rclient, seed, kept=False))
    warm.walk(GameState.at_deal(seed, 0), checked, 0)
    assert checked.compared == got["computed"]

    # tomorrow opens: its players meet only decisions computed ahead while in the first deal
    warmed = rclient.hlen(cache_key)
    with freeze_time(ON_TOMORROW):
        client = create_app({"TESTING": True, "REDIS_URL": redis_server.url, **CONFIG}).test_client()
        for pick in (0, -1, 1):
            run = client.post("/api/v1/runs", json={}).get_json()
            assert run["bots"] == DEFAULT_BOTS and run["date"] == TOMORROW.isoformat()
            token = run["player_token"]
            known = rclient.hlen(cache_key)  # the warm's, and the next deal's searches an earlier line met
            while run["view"]["deal"] == 0 and run["status"] == "playing":
                legal = run["view"]["legal"]
                r = client.post(f"/api/v1/runs/{run['run_id']}/plays",
                                json={"turn": run["turn"], "card": legal[pick % len(legal)]}, headers=headers(token))
                assert r.status_code == 200, r.get_json()
                run = r.get_json()
                if run["view"]["deal"] == 0:  # (the play that ends the deal has the bots open the next)
                    assert rclient.hlen(cache_key) == known  # nothing computed: every search was there
        # the second deal was not warmed (MANILLE_WARM_DEALS=1): its searches are computed and kept
        known = rclient.hlen(cache_key)
        for _ in range(4):
            r = client.post(f"/api/v1/runs/{run['run_id']}/plays",
                            json={"turn": run["turn"], "card": run["view"]["legal"][0]}, headers=headers(token))
            run = r.get_json()
        assert rclient.hlen(cache_key) > known

        # a warm that did not finish (its claim lapsed) is queued again; its jobs read what is there
        rclient.hset(warm.status_key(seed), f"{DEFAULT_BOTS}:done", 3)
        rclient.delete(key_for("decisions", seed_scope(seed), "warm", DEFAULT_BOTS))
        assert warm.request(settings, rclient, TOMORROW, queue=queue_conn) == 8
        SimpleWorker([jobs], connection=queue_conn).work(burst=True)
        again = warm.progress(rclient, seed, DEFAULT_BOTS)
        assert again["done"] == 8 and again["computed"] == got["computed"] and again["found"] == got["computed"]


def test_a_day_of_expert_1_has_nothing_to_warm_and_at_deal_is_the_deal_as_played(rclient, queue_conn):
    settings = Settings.from_env({"MANILLE_SECRET": SECRET, "MANILLE_BOTS": "expert-1"})
    assert warm.request(settings, rclient, TOMORROW, queue=queue_conn) == 0
    assert Queue(warm.QUEUE, connection=queue_conn).count == 0
    # GameState.at_deal: the deal as a game reaches it (its hands, dealer, leader and turned card)
    seed = daily_seed(SECRET.encode(), TOMORROW)
    expert = get_bot("expert-1")
    state = GameState(seed)
    while state.deal_index < 3:
        seat = state.current_player
        obs = state.observation(seat)
        state.apply(expert.choose(obs, decision_stream(seed, obs.deal_index, seat, len(obs.tricks))))
    fresh = GameState.at_deal(seed, 3)
    assert fresh.deal_index == 3 and fresh.hands == state.hands and fresh.trick == state.trick
    assert fresh.current_deal == state.current_deal and fresh.totals == (0, 0)
