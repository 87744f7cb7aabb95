"""The API as a public read API, on a real Redis: each route class's headers (public reads kept
``max-age`` what their data allows, with a strong ETag and CORS; anything asked with a token
``private, no-store`` with neither; everything else ``no-store``), 304 on a matching ETag and a new
ETag once a new score lands, the RateLimit headers of every limited route, when ops actions say
caches catch up, and the OpenAPI document declaring it all.  Over real HTTP, gunicorn and a worker:
the same headers, and the ETag of today's board moving with a verified game."""

from __future__ import annotations

import random
import re
import sys
import time
from datetime import date, datetime, timedelta

import pytest
import requests
from freezegun import freeze_time

from service import duplicate
from service.app import create_app
from service.config import QUEUE_NAME, Settings
from service.freshness import PROXY_SECONDS
from service.leaderboard import Leaderboard
from bulk_boards import record_many

from support.svc_helpers import LIMITS_OFF, ROOT, SECRET, TEST_BOTS, flush_state, headers, live_service, play_game

DAY = date(2026, 12, 2)
OPEN = "2026-12-02T11:00:00+00:00"     # noon in Brussels: DAY is open
CLOSED = "2026-12-03T11:00:00+00:00"   # the next noon: DAY's seed is public; 2026-12-03 is open
OPS_TOKEN = "ops-token-for-the-caching-tests-0123456789"
OPS = {"Authorization": f"Bearer {OPS_TOKEN}"}


def make_app(redis_server, **config):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": f"cora {OPS_TOKEN}",
                       **LIMITS_OFF, **config})


def ranked_game(client, addr: str, nickname: str, seed: int) -> tuple[str, str]:
    """Today's ranked game played with random legal cards and submitted: (token, submission id)."""
    env = {"REMOTE_ADDR": addr}
    run = client.post("/api/v1/runs", json={}, environ_base=env).get_json()
    rng = random.Random(seed)

    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs, environ_base=env)
        return r.status_code, r.get_json()
    play_game(post, run, run["player_token"], pick=rng.choice)
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                    headers=headers(run["player_token"]), environ_base=env)
    assert r.status_code == 202, r.get_json()
    return run["player_token"], r.get_json()["submission_id"]


@pytest.fixture
def played(redis_server, rclient, run_worker):
    """Two verified ranked games of DAY (played while it was open) and its matchpoint board, final
    once DAY has closed; an app that keeps board pages a second, as in production."""
    app = make_app(redis_server, MANILLE_BOARD_MAX_AGE="1")
    client = app.test_client()
    with freeze_time(OPEN):
        (token_a, sub_a), (token_b, sub_b) = (ranked_game(client, f"10.0.3.{i}", f"cache{i}", 300 + i)
                                              for i in range(2))
        run_worker()
    with freeze_time(CLOSED):
        duplicate.build(Settings.from_env(), rclient, DAY)
    return client, {"a": (token_a, sub_a), "b": (token_b, sub_b)}


def max_age(resp) -> int:
    control = resp.headers["Cache-Control"]
    m = re.fullmatch(r"public, max-age=([0-9]+)", control)
    assert m, (resp.request.path, resp.status_code, control)
    return int(m.group(1))


def assert_public(resp, age: int) -> None:
    """A public read's answer: kept ``age`` seconds, a strong ETag, keyed by the token headers,
    readable from any site, and no ``me``."""
    assert resp.status_code == 200, (resp.request.path, resp.get_json())
    assert max_age(resp) == age, resp.request.path
    assert re.fullmatch(r'"[0-9a-f]{32}"', resp.headers["ETag"]), resp.headers.get("ETag")
    assert resp.headers["Vary"] == "X-Player-Token, Authorization"
    assert resp.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in resp.headers
    assert "me" not in resp.get_json()


def assert_private(resp) -> None:
    assert resp.headers["Cache-Control"] == "private, no-store", (resp.request.path, resp.headers["Cache-Control"])
    for name in ("ETag", "Access-Control-Allow-Origin", "Vary"):
        assert name not in resp.headers, (resp.request.path, name)


def test_public_reads_are_kept_what_their_data_allows(played, rclient):
    client, players = played
    _token, sub = players["a"]
    closed, today = DAY.isoformat(), "2026-12-03"
    with freeze_time(CLOSED):
        # a closed day: its board, histogram, field, travellers, games against the field, records
        # and final matchpoint board change only by ops (MANILLE_CLOSED_MAX_AGE, 300 s)
        for path in (f"/leaderboards/days/{closed}", f"/leaderboards/days/{closed}/histogram",
                     f"/leaderboards/days/{closed}/deals", f"/leaderboards/days/{closed}/deals/0",
                     f"/submissions/{sub}/deals", f"/submissions/{sub}/record",
                     f"/leaderboards/days/{closed}/matchpoints", "/leaderboards/weeks/2026-W48",
                     "/leaderboards/months/2026-11"):
            assert_public(client.get("/api/v1" + path), 300)
        # boards still taking scores: a web process's own bound on a page's age (1 s here)
        for path in (f"/leaderboards/days/{today}", f"/leaderboards/days/{today}/histogram",
                     f"/leaderboards/days/{today}/matchpoints", "/leaderboards/weeks/2026-W49",
                     "/leaderboards/months/2026-12", "/leaderboards/all-time"):
            assert_public(client.get("/api/v1" + path), 1)
        # challenges: until the next phase (today's closes at midnight in Brussels, 12 h away), a
        # closed day's for good (a day); the archive until the next reveal (00:30: 12.5 h, so 300)
        assert_public(client.get("/api/v1/challenges/today"), 12 * 3600)
        assert_public(client.get(f"/api/v1/challenges/{today}"), 12 * 3600)
        assert_public(client.get(f"/api/v1/challenges/{closed}"), 86400)
        assert_public(client.get("/api/v1/leaderboards/days"), 300)
    with freeze_time("2026-12-03T23:29:00+00:00"):  # 00:29 in Brussels: 2026-12-03 is revealed at 00:30
        assert_public(client.get("/api/v1/leaderboards/days"), 60)
        assert_public(client.get("/api/v1/challenges/2026-12-03"), 60)  # closing: its seed in a minute


def test_a_token_makes_every_answer_private_and_a_public_one_never_has_me(played):
    client, players = played
    (token_a, sub_a), (token_b, _sub_b) = players["a"], players["b"]
    with freeze_time(CLOSED):
        for path in (f"/leaderboards/days/{DAY}", f"/leaderboards/days/{DAY}/matchpoints", "/leaderboards/all-time",
                     "/leaderboards/days", f"/leaderboards/days/{DAY}/deals", f"/submissions/{sub_a}/record",
                     "/challenges/today"):
            public = client.get("/api/v1" + path)
            assert public.status_code == 200 and "me" not in public.get_json()
            for token in (token_a, token_b, "not-a-token-at-all-0123456789"):
                mine = client.get("/api/v1" + path, headers=headers(token))
                assert mine.status_code == 200
                assert_private(mine)
            # Authorization (a player's bearer, or anything else) is a token too
            assert_private(client.get("/api/v1" + path, headers={"Authorization": f"Bearer {token_b}"}))
        # each token's own entry, never another's
        mine = [client.get(f"/api/v1/leaderboards/days/{DAY}", headers=headers(token)).get_json()["me"]["player"]
                for token in (token_a, token_b)]
        assert mine == [client.get(f"/api/v1/leaderboards/days/{DAY}/me", headers=headers(token)).get_json()["me"]["player"]
                        for token in (token_a, token_b)]
        assert mine[0] != mine[1]
    with freeze_time(OPEN):
        # an open day's field and a game's own deals: only to a token, never public
        mine = client.get(f"/api/v1/leaderboards/days/{DAY}/deals", headers=headers(token_a))
        assert mine.status_code == 200
        assert_private(mine)
        own = client.get(f"/api/v1/submissions/{sub_a}/deals", headers=headers(token_a))
        assert own.status_code == 200
        assert_private(own)
        for path in (f"/leaderboards/days/{DAY}/deals", f"/submissions/{sub_a}/deals"):
            refused = client.get("/api/v1" + path)
            assert refused.status_code in (403, 409) and refused.headers["Cache-Control"] == "no-store"
            assert "ETag" not in refused.headers


def test_a_matching_etag_is_answered_304_and_a_new_score_makes_a_new_etag(redis_server, rclient):
    client = make_app(redis_server, MANILLE_BOARD_MAX_AGE="0").test_client()  # every page checked
    board = Leaderboard(rclient)
    record_many(board, DAY, [(f"e{i}", f"Etag{i}", 1000 + 10 * i, f"sub-e{i}") for i in range(5)])
    with freeze_time(CLOSED):
        for path in (f"/api/v1/leaderboards/days/{DAY}?limit=3", f"/api/v1/leaderboards/days/{DAY}/histogram"):
            first = client.get(path)
            etag = first.headers["ETag"]
            for held in (etag, f"W/{etag}", f'"other", {etag}', "*"):
                again = client.get(path, headers={"If-None-Match": held})
                assert again.status_code == 304, (path, held)
                assert again.data == b"" and "Content-Length" not in again.headers and "Content-Type" not in again.headers
                assert again.headers["ETag"] == etag and again.headers["Cache-Control"] == first.headers["Cache-Control"]
                assert again.headers["Access-Control-Allow-Origin"] == "*" and again.headers["Vary"] == first.headers["Vary"]
            assert client.get(path, headers={"If-None-Match": '"0123"'}).status_code == 200
            # a token's answer is never conditional: it has no ETag to match
            assert client.get(path, headers={"If-None-Match": etag, **headers("x" * 40)}).status_code == 200
        before = {path: client.get(path).headers["ETag"] for path in (
            f"/api/v1/leaderboards/days/{DAY}?limit=3", f"/api/v1/leaderboards/days/{DAY}/histogram",
            "/api/v1/leaderboards/all-time", "/api/v1/leaderboards/weeks/2026-W49")}
        board.record(DAY, "e-new", "Newcomer", 1200, "sub-e-new")
        for path, etag in before.items():
            now = client.get(path, headers={"If-None-Match": etag})
            assert now.status_code == 200 and now.headers["ETag"] != etag, path
        top = client.get(f"/api/v1/leaderboards/days/{DAY}?limit=3").get_json()["entries"]
        assert top[0]["nickname"] == "Newcomer"
        # the same page again: the same bytes, the same ETag (kept with the encoded page)
        assert client.get(f"/api/v1/leaderboards/days/{DAY}?limit=3").headers["ETag"] == \
            client.get(f"/api/v1/leaderboards/days/{DAY}?limit=3").headers["ETag"]


def test_cors_on_public_gets_alone(played):
    client, players = played
    token, sub = players["a"]
    with freeze_time(CLOSED):
        public = [client.get(f"/api/v1/leaderboards/days/{DAY}"), client.get("/api/v1/challenges/today"),
                  client.head(f"/api/v1/leaderboards/days/{DAY}"),
                  client.get("/api/v1/leaderboards/days/1999-12-31"),  # a public read's 404: readable too
                  client.get(f"/api/v1/submissions/{sub}/record", headers={"Origin": "https://club.example"})]
        assert [r.status_code for r in public] == [200, 200, 200, 404, 200]
        for r in public:
            assert r.headers["Access-Control-Allow-Origin"] == "*", r.request.path
        run = client.post("/api/v1/runs", json={"kind": "random"}, headers={"Origin": "https://club.example"})
        others = [run,
                  client.get(f"/api/v1/runs/{run.get_json()['run_id']}", headers=headers(run.get_json()["player_token"])),
                  client.post(f"/api/v1/submissions/{sub}/analysis", headers={"Origin": "https://club.example"}),
                  client.get(f"/api/v1/leaderboards/days/{DAY}", headers=headers(token)),
                  client.get("/api/v1/players/me", headers=headers(token)),
                  client.get(f"/api/v1/submissions/{sub}"),
                  client.get("/api/v1/health/live"),
                  client.get("/api/v1/ops/audit", headers=OPS),
                  # a preflight for a token header cross-origin: never granted
                  client.options(f"/api/v1/leaderboards/days/{DAY}", headers={
                      "Origin": "https://club.example", "Access-Control-Request-Method": "GET",
                      "Access-Control-Request-Headers": "x-player-token"}),
                  client.options("/api/v1/runs", headers={"Origin": "https://club.example",
                                                          "Access-Control-Request-Method": "POST"})]
        for r in others:
            assert not any(h.lower().startswith("access-control-") for h in r.headers.keys()), \
                (r.request.method, r.request.path, dict(r.headers))


def test_every_limited_route_says_its_ratelimit(redis_server, rclient, run_worker):
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, **LIMITS_OFF,
                      "MANILLE_LIMIT_RUNS_PER_ADDRESS": "3 per hour;10 per day",
                      "MANILLE_LIMIT_PLAYS_PER_TOKEN": "100 per minute",
                      "MANILLE_LIMIT_SUBMISSIONS_PER_TOKEN": "4 per hour",
                      "MANILLE_LIMIT_ANALYSES_PER_ADDRESS": "5 per hour"})
    client = app.test_client()
    env = {"REMOTE_ADDR": "10.0.4.1"}

    def quota(r):
        return tuple(int(r.headers[f"RateLimit-{n}"]) for n in ("Limit", "Remaining", "Reset"))

    with freeze_time(OPEN):
        runs = [client.post("/api/v1/runs", json={}, environ_base=env) for _ in range(3)]
        # the hourly window has the fewest left; the first hit leaves it an hour later
        assert [quota(r) for r in runs] == [(3, 2, 3600), (3, 1, 3600), (3, 0, 3600)]
        refused = client.post("/api/v1/runs", json={"kind": "random"}, environ_base=env)
        assert refused.status_code == 429
        assert quota(refused) == (3, 0, int(refused.headers["Retry-After"]))
        run = runs[0].get_json()
        token = run["player_token"]
        play = {"turn": 0, "card": run["view"]["legal"][0]}
        first = client.post(f"/api/v1/runs/{run['run_id']}/plays", json=play, headers=headers(token), environ_base=env)
        assert first.status_code == 200 and quota(first) == (100, 99, 60)
        repeat = client.post(f"/api/v1/runs/{run['run_id']}/plays", json=play, headers=headers(token), environ_base=env)
        assert repeat.status_code == 200 and quota(repeat)[:2] == (100, 99)  # answered again: nothing counted
        wrong = client.post(f"/api/v1/runs/{run['run_id']}/plays", json={"turn": 7, "card": "7C"},
                            headers=headers(token), environ_base=env)
        assert wrong.status_code == 409 and quota(wrong)[:2] == (100, 99)  # refused: given back
        finished = play_game(lambda p, b, h: (lambda r: (r.status_code, r.get_json()))(
            client.post(p, json=b, headers=h, environ_base=env)), first.get_json(), token)
        sub = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "Quota"},
                          headers=headers(token), environ_base=env)
        assert sub.status_code == 202 and quota(sub)[:2] == (4, 3)
        again = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "Quota"},
                            headers=headers(token), environ_base=env)
        assert again.status_code == 202 and quota(again)[:2] == (4, 3)  # the same id: counted once
        assert finished["status"] == "finished"
        # GETs are limited by nothing in the service: no such headers
        for r in (client.get(f"/api/v1/runs/{run['run_id']}", headers=headers(token)),
                  client.get(f"/api/v1/leaderboards/days/{DAY}")):
            assert not any(h.startswith("RateLimit") for h in r.headers.keys())
        run_worker()
    with freeze_time(CLOSED):
        sub_id = sub.get_json()["submission_id"]
        asked = client.post(f"/api/v1/submissions/{sub_id}/analysis", environ_base=env)
        assert asked.status_code == 202 and quota(asked)[:2] == (5, 4)
        asked = client.post(f"/api/v1/submissions/{sub_id}/analysis", environ_base=env)
        assert asked.status_code == 202 and quota(asked)[:2] == (5, 4)  # already asked for: counts nothing


def test_ops_actions_say_when_caches_catch_up(played):
    client, players = played
    _token, sub = players["a"]
    with freeze_time(CLOSED):
        now = datetime.fromisoformat(CLOSED)
        # a closed day: its pages kept 1 s by a web process, 1 s by the proxy, 300 s by a cache
        for action in ("disqualify", "restore"):
            r = client.post(f"/api/v1/ops/submissions/{sub}/{action}", json={"reason": "caches"}, headers=OPS)
            assert r.status_code == 200, r.get_json()
            assert datetime.fromisoformat(r.get_json()["caches_catch_up_at"]) == now + timedelta(seconds=1 + 1 + 300)
        report = client.application.extensions["manille"]
        from service.ops import Ops
        done = Ops(report.redis, report.settings).rebuild_day(DAY, "cora@test")
        assert datetime.fromisoformat(done["caches_catch_up_at"]) == now + timedelta(seconds=302)
    with freeze_time(OPEN):  # an open day: every layer a second
        from service.freshness import Freshness
        assert Freshness(report.settings).catch_up_at(DAY) == datetime.fromisoformat(OPEN) + timedelta(seconds=3)


def test_the_openapi_document_declares_the_headers(app):
    from service.api.caching import PUBLIC_READS

    doc = app.test_client().get("/api/v1/openapi.json").get_json()
    assert set(doc["components"]["headers"]) >= {"Cache-Control", "ETag", "Vary", "Access-Control-Allow-Origin",
                                                 "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"}
    public = [(path, op) for path, item in doc["paths"].items() for method, op in item.items()
              if method == "get" and "304" in op["responses"]]
    assert len(public) == len(PUBLIC_READS) >= 12
    for path, op in public:
        assert set(op["responses"]["200"]["headers"]) == {"Cache-Control", "ETag", "Vary", "Access-Control-Allow-Origin"}
        assert "If-None-Match" in op["responses"]["304"]["description"], path
    limited = {(path, method): op for path, item in doc["paths"].items() for method, op in item.items()
               if method in ("get", "post") and "RateLimit-Remaining" in op["responses"].get("429", {}).get("headers", {})}
    assert set(limited) == {("/api/v1/runs", "post"), ("/api/v1/runs/{run_id}/plays", "post"),
                            ("/api/v1/submissions", "post"), ("/api/v1/runs/{run_id}/analysis", "post"),
                            ("/api/v1/submissions/{sub_id}/analysis", "post"), ("/api/v1/players/me/links", "post"),
                            ("/api/v1/players/links/{code}", "post"), ("/api/v1/players/passkeys/sign-in/options", "post"),
                            ("/api/v1/players/passkeys/sign-in", "post"), ("/api/v1/reports", "post"),
                            ("/api/v1/leagues", "post"), ("/api/v1/leagues/join", "post"),
                            ("/api/v1/duels/{duel_id}/results/{result_id}/analysis", "post")}
    for (path, _method), op in limited.items():
        ok = next(code for code in op["responses"] if code.startswith("2"))
        assert {"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} <= set(op["responses"][ok]["headers"])


def test_the_proxy_keeps_public_reads_as_long_as_freshness_says():
    """service.freshness.PROXY_SECONDS is deploy/nginx.conf's proxy_cache_valid (what catch_up_at adds)."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert re.findall(r"proxy_cache_valid (.+);", conf) == [f"200 {PROXY_SECONDS}s"]


# -- over real HTTP --------------------------------------------------------------------------------

@pytest.mark.stack
def test_over_http_the_headers_and_a_new_etag_after_a_verified_game(redis_server, tmp_path):
    """gunicorn and a worker process as deployed: today's board is public for a second with its
    ETag (304 when held), a token's is private; a game played and verified moves the ETag."""
    flush_state(redis_server.url)
    with live_service(redis_server.url, tmp_path, [sys.executable, "-m", "worker", "--url", redis_server.url, QUEUE_NAME],
                      MANILLE_BOARD_MAX_AGE="1") as base:
        session = requests.Session()
        today = session.get(f"{base}/api/v1/challenges/today").json()["date"]
        board = f"{base}/api/v1/leaderboards/days/{today}"
        first = session.get(board)
        assert first.headers["Cache-Control"] == "public, max-age=1" and first.headers["Access-Control-Allow-Origin"] == "*"
        etag = first.headers["ETag"]
        held = session.get(board, headers={"If-None-Match": etag})
        assert held.status_code == 304 and held.content == b"" and held.headers["ETag"] == etag
        run = session.post(f"{base}/api/v1/runs", json={}).json()
        token = run["player_token"]

        def post(path, body, hdrs):
            r = session.post(base + path, json=body, headers=hdrs)
            assert "RateLimit-Remaining" in r.headers
            return r.status_code, r.json()
        play_game(post, run, token)
        sub = session.post(f"{base}/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "Over-http"},
                           headers=headers(token))
        assert sub.status_code == 202 and int(sub.headers["RateLimit-Remaining"]) >= 0
        deadline = time.monotonic() + 60
        while session.get(f"{base}/api/v1/submissions/{sub.json()['submission_id']}").json()["status"] == "queued":
            assert time.monotonic() < deadline, "the verification did not come"
            time.sleep(0.2)
        deadline = time.monotonic() + 15  # the page a web process keeps expires within a second
        while (now := session.get(board, headers={"If-None-Match": etag})).status_code == 304:
            assert time.monotonic() < deadline, "the board's ETag never moved"
            time.sleep(0.2)
        assert now.status_code == 200 and now.headers["ETag"] != etag
        assert [e["nickname"] for e in now.json()["entries"]] == ["Over-http"]
        mine = session.get(board, headers=headers(token))
        assert mine.headers["Cache-Control"] == "private, no-store" and "ETag" not in mine.headers
        assert mine.json()["me"]["nickname"] == "Over-http"
        assert "Access-Control-Allow-Origin" not in mine.headers


def test_a_process_answers_a_held_etag_before_the_view_for_as_long_as_it_keeps_the_page(redis_server, rclient):
    """With MANILLE_BOARD_MAX_AGE=1 (production's), a URL answered with an ETag is answered 304
    to that ETag without its view for a second, as the page itself would be answered unchecked;
    then the view runs again and a new score is a new ETag."""
    client = make_app(redis_server, MANILLE_BOARD_MAX_AGE="1").test_client()
    board = Leaderboard(rclient)
    record_many(board, DAY, [(f"h{i}", f"Held{i}", 1000 + 10 * i, f"sub-h{i}") for i in range(3)])
    path = f"/api/v1/leaderboards/days/{DAY}?limit=2"
    with freeze_time(CLOSED) as clock:  # driven: "within the second" holds however slow the requests
        first = client.get(path)
        etag = first.headers["ETag"]
        board.record(DAY, "h-new", "Newer", 1500, "sub-h-new")
        clock.tick(0.9)  # within the second: not seen yet
        held = client.get(path, headers={"If-None-Match": etag})
        assert held.status_code == 304 and held.data == b""
        for name in ("ETag", "Vary", "Access-Control-Allow-Origin"):
            assert held.headers[name] == first.headers[name], name
        assert max_age(held) in (299, 300)
        # a token, or another ETag, is never answered from what the process remembers
        assert client.get(path, headers={"If-None-Match": etag, **headers("t" * 40)}).status_code == 200
        assert client.get(path, headers={"If-None-Match": '"feed"'}).get_json()["entries"][0]["nickname"] == "Held2"
        clock.tick(1.1)  # past MANILLE_BOARD_MAX_AGE: the page is checked against Redis again
        moved = client.get(path, headers={"If-None-Match": etag})
    assert moved.status_code == 200 and moved.headers["ETag"] != etag
    assert moved.get_json()["entries"][0]["nickname"] == "Newer"
