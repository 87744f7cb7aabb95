"""Names and keys a client leaves behind (issue 45) on a real Redis, with real requests and a real
RQ worker: a league shows a name its member holds or none (a lapsed claim, a squat from a league,
show nowhere and block no one's submission); renames by a join are rate-limited (429, RateLimit
headers); every key a tokenless client makes by creating or joining a league has a lifetime, and a
league's is renewed by its members' use."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from freezegun import freeze_time

from service.app import create_app
from service.leagues import IDLE_SECONDS, league_keys, player_leagues_key
from service.players import CLAIM_SECONDS, DEFAULT_KEEP_SECONDS, Players, pid_of

from support.svc_helpers import LIMITS_OFF, SECRET, TEST_BOTS, err, headers, play_game, snapshot

NOON = "2026-12-02 11:00:00"  # UTC: the day is open in Brussels


@pytest.fixture(autouse=True)
def clock():
    with freeze_time(NOON, tick=True) as frozen:
        yield frozen


def make_client(redis_server, **config):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, **LIMITS_OFF, **config}).test_client()


def finished_run(client, token=None) -> tuple[dict, str]:
    """A ranked run of the day played to its end; (the run, its token)."""
    r = client.post("/api/v1/runs", json={}, headers=headers(token) if token else {})
    assert r.status_code == 201, r.get_json()
    token = token or r.get_json()["player_token"]

    def post(path, body, hdrs):
        answer = client.post(path, json=body, headers=hdrs)
        return answer.status_code, answer.get_json()
    return play_game(post, r.get_json(), token), token


def submit(client, token, run, nickname):
    return client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                       headers=headers(token))


def roster(client, token, league_id) -> list:
    return [m["nickname"] for m in client.get(f"/api/v1/leagues/{league_id}", headers=headers(token)).get_json()["roster"]]


def test_a_lapsed_claim_shows_nowhere_and_the_owner_removes_its_member(redis_server, rclient, run_worker):
    """The attack: a claim of "bobbyz" that lapsed (its game never verified), then the real bobbyz
    holds it; the attacker's token, joining with no nickname, is listed without a name (not as a
    second "bobbyz"), and the owner removes it by its handle."""
    client = make_client(redis_server)
    players = client.application.extensions["manille"].players
    attacker = client.post("/api/v1/runs", json={"kind": "random"}).get_json()["player_token"]
    # a submission's claim a day and a minute ago, its game never verified: lapsed
    lapsed = datetime(2026, 12, 2, 11, tzinfo=timezone.utc).timestamp() - CLAIM_SECONDS - 60
    players.claim_nickname(pid_of(attacker), "bobbyz", now=lapsed)
    run, real = finished_run(client)
    r = submit(client, real, run, "bobbyz")
    assert r.status_code == 202, r.get_json()  # the lapsed claim no longer blocks it
    run_worker()
    league = client.post("/api/v1/leagues", json={"name": "Bobby's"}, headers=headers(real)).get_json()
    assert league["roster"][0]["nickname"] == "bobbyz"
    joined = client.post("/api/v1/leagues/join", json={"invite": league["invite"]}, headers=headers(attacker))
    assert joined.status_code == 200 and [m["nickname"] for m in joined.get_json()["roster"]] == ["bobbyz", None]
    err(client.post("/api/v1/leagues/join", json={"invite": league["invite"], "nickname": "bobbyz"},
                    headers=headers(attacker)), 409, "nickname_taken")
    assert client.get("/api/v1/players/me", headers=headers(attacker)).get_json()["nickname"] is None
    board = client.get(f"/api/v1/leagues/{league['league_id']}/leaderboards/days/2026-12-02",
                       headers=headers(real)).get_json()
    assert [e["nickname"] for e in board["entries"]] == ["bobbyz"] and board["not_played"] == [None]
    seen = client.get(f"/api/v1/leagues/{league['league_id']}", headers=headers(real)).get_json()["roster"]
    attacker_handle = next(m["member"] for m in seen if not m["me"])
    removed = client.delete(f"/api/v1/leagues/{league['league_id']}/members/{attacker_handle}", headers=headers(real))
    assert removed.status_code == 200 and [m["nickname"] for m in removed.get_json()["roster"]] == ["bobbyz"]


def test_a_league_claims_no_name_and_blocks_no_submission(redis_server, rclient, run_worker):
    """A tokenless create or join under a name no one holds is refused (409 ``nickname_not_held``,
    nothing stored); one without a name claims nothing; the real player's submission under the
    name is taken, and once verified their leagues show it."""
    client = make_client(redis_server)
    before = snapshot(rclient)
    err(client.post("/api/v1/leagues", json={"name": "Squat", "nickname": "carol"}), 409, "nickname_not_held")
    assert snapshot(rclient) == before
    squat = client.post("/api/v1/leagues", json={"name": "Squat"})
    assert squat.status_code == 201 and squat.get_json()["roster"][0]["nickname"] is None
    assert client.application.extensions["manille"].players.holders("carol") == (set(), set())  # no claim
    run, carol = finished_run(client)
    assert client.post("/api/v1/leagues/join", json={"invite": squat.get_json()["invite"]},
                       headers=headers(carol)).status_code == 200
    r = submit(client, carol, run, "Carol")
    assert r.status_code == 202, r.get_json()
    assert roster(client, carol, squat.get_json()["league_id"]) == [None, None]  # claimed, not held yet
    run_worker()
    assert client.get(r.get_json()["status_url"]).get_json()["status"] == "verified"
    assert roster(client, carol, squat.get_json()["league_id"]) == [None, "Carol"]
    # a new token may not take it in a league either
    err(client.post("/api/v1/leagues", json={"name": "Again", "nickname": "CAROL"}), 409, "nickname_taken")


def test_renames_by_a_join_are_rate_limited_with_their_headers(redis_server, rclient):
    client = make_client(redis_server, MANILLE_LIMIT_LEAGUES_PER_TOKEN="3 per hour",
                         MANILLE_LIMIT_LEAGUES_PER_ADDRESS="100 per hour")
    players = client.application.extensions["manille"].players
    token = client.post("/api/v1/runs", json={"kind": "random"}).get_json()["player_token"]
    for name in ("Ann", "Anna"):
        players.confirm_nickname(pid_of(token), players.claim_nickname(pid_of(token), name), valid=True)
    league = client.post("/api/v1/leagues", json={"name": "L", "nickname": "Ann"}, headers=headers(token))
    assert league.status_code == 201 and league.headers["RateLimit-Remaining"] == "2"
    invite = league.get_json()["invite"]

    def rejoin(name=None):
        return client.post("/api/v1/leagues/join", json={"invite": invite, **({"nickname": name} if name else {})},
                           headers=headers(token))

    same = rejoin("Ann")  # the name it shows already: counts nothing, says where it stands
    assert same.status_code == 200 and same.headers["RateLimit-Remaining"] == "2"
    assert rejoin().headers["RateLimit-Remaining"] == "2"
    first = rejoin("Anna")
    assert first.status_code == 200 and first.headers["RateLimit-Remaining"] == "1"
    assert [m["nickname"] for m in first.get_json()["roster"]] == ["Anna"]
    assert rejoin("Ann").headers["RateLimit-Remaining"] == "0"
    before = snapshot(rclient)
    refused = rejoin("Anna")
    assert err(refused, 429, "too_many_requests")["limit"] == "leagues_per_token"
    assert refused.headers["RateLimit-Remaining"] == "0" and int(refused.headers["Retry-After"]) > 0
    assert snapshot(rclient) == before and roster(client, token, league.get_json()["league_id"]) == ["Ann"]


def test_every_key_a_tokenless_league_makes_has_a_lifetime(redis_server, rclient):
    """Tokenless create and join (the limits on): each key made has a TTL — the new players' for
    ``player_keep_days`` (30 days: a token that never played is forgotten), the league's and each
    player's list of leagues for ``IDLE_SECONDS``, the limits' for their windows."""
    client = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                         "MANILLE_BOTS": TEST_BOTS}).test_client()
    before = set(rclient.keys("*"))
    made = client.post("/api/v1/leagues", json={"name": "Forgotten"})
    assert made.status_code == 201
    owner = made.get_json()["player_token"]
    joined = client.post("/api/v1/leagues/join", json={"invite": made.get_json()["invite"]})
    assert joined.status_code == 200
    member = joined.get_json()["player_token"]
    new = set(rclient.keys("*")) - before
    lid = made.get_json()["league_id"]
    expected = {*league_keys(lid)[:3], player_leagues_key(pid_of(owner)), player_leagues_key(pid_of(member)),
                Players._key(pid_of(owner)), Players._key(pid_of(member))}
    assert expected <= new
    ttls = {key: rclient.ttl(key) for key in new}
    assert all(ttl > 0 for ttl in ttls.values()), {k: t for k, t in ttls.items() if t <= 0}
    for pid in (pid_of(owner), pid_of(member)):
        assert DEFAULT_KEEP_SECONDS - 60 < ttls[Players._key(pid)] <= DEFAULT_KEEP_SECONDS
        assert IDLE_SECONDS - 60 < ttls[player_leagues_key(pid)] <= IDLE_SECONDS
    for key in league_keys(lid)[:3]:
        assert IDLE_SECONDS - 60 < ttls[key] <= IDLE_SECONDS
    # a member's use keeps it: a read of it, of a board, of one's leagues
    for key in (*league_keys(lid)[:3], player_leagues_key(pid_of(member))):
        rclient.expire(key, 100)
    assert client.get(f"/api/v1/leagues/{lid}/leaderboards/all-time", headers=headers(member)).status_code == 200
    assert client.get("/api/v1/players/me/leagues", headers=headers(member)).status_code == 200
    for key in (*league_keys(lid)[:3], player_leagues_key(pid_of(member))):
        assert rclient.ttl(key) > IDLE_SECONDS - 60, key
