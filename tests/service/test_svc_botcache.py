"""expert-2's dear decisions kept per seed in a real Redis: the play path writes them, the verifier
reads them, and they never change a card (same record bytes with the cache cold, warm, poisoned,
or Redis gone)."""

from __future__ import annotations

import hashlib
import json

from bots import get_bot
from service.botcache import CachedBot, DecisionCache, cached, forget
from service.replay import dumps, player_cards, simulate, verify
from service.store import connect

from support.svc_helpers import SECRET, headers, play_game

EXPERT2 = get_bot("expert-2")


def test_the_cache_changes_no_card(rclient):
    seed = hashlib.sha256(b"botcache").digest()
    cards = player_cards(simulate(seed, EXPERT2, get_bot("expert-1")))
    plain = dumps(verify(seed, cards, EXPERT2))
    cache = DecisionCache(rclient, seed)
    cold = dumps(verify(seed, cards, CachedBot(EXPERT2, cache)))
    assert cold == plain and cache.hits == 0 and cache.misses > 10
    stored = rclient.hgetall(cache.key)
    assert len(stored) == cache.misses and 0 < rclient.ttl(cache.key) <= 2 * 24 * 3600
    warm_cache = DecisionCache(rclient, seed)
    assert dumps(verify(seed, cards, CachedBot(EXPERT2, warm_cache))) == plain
    assert warm_cache.hits == len(stored) and warm_cache.misses == 0
    # an entry that is not a legal card there is recomputed, not played
    digest = next(iter(stored))
    rclient.hset(cache.key, digest, "7C" if stored[digest] != "7C" else "8C")
    assert dumps(verify(seed, cards, CachedBot(EXPERT2, DecisionCache(rclient, seed)))) == plain
    # Redis gone (and nothing kept by this process): every decision is computed, after the first
    # error without asking again
    forget()
    gone = DecisionCache(connect("redis://127.0.0.1:1/0"), seed)
    assert dumps(verify(seed, cards, CachedBot(EXPERT2, gone))) == plain and gone.broken
    # a bot without dear decisions is not wrapped
    assert cached(get_bot("expert-1"), rclient, seed) is get_bot("expert-1")


def test_a_day_of_expert_2_is_played_and_verified_through_the_cache(rclient, redis_server, run_worker):
    """The play path stores the bots' searches; the worker's verification finds every one."""
    from service.app import create_app
    from service.config import Settings
    from service.submissions import Submissions
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": "expert-2"})
    client = app.test_client()
    run = client.post("/api/v1/runs", json={}).get_json()
    assert run["bots"] == "expert-2"
    token = run["player_token"]

    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs)
        return r.status_code, r.get_json()

    run = play_game(post, run, token)
    (key,) = rclient.keys("manille:{seed:*}:decisions")
    written = rclient.hlen(key)
    assert written > 10
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "Cached"}, headers=headers(token))
    sub_id = r.get_json()["submission_id"]
    run_worker()
    sub = Submissions(rclient, Settings.from_env({"MANILLE_SECRET": SECRET})).get(sub_id)
    assert sub["status"] == "verified" and int(sub["score"]) == run["result"]["rank_score"]
    assert rclient.hlen(key) == written  # every search the verifier needed was there
