"""A player's own data (issue 55) on a real Redis, real requests and a real RQ worker: the copy
holds what a scan of Redis finds about the player; an erasure leaves no key or value naming them
(RQ's records included) and no address or user agent in a key kept past a day, while the boards
keep their counts and ranks and a league shows the pseudonym; the token answers 401 after."""

from __future__ import annotations

import zlib

import pytest
from freezegun import freeze_time

from service.app import create_app
from service.players import pid_of
from service.privacy import pseudonym, retention
from service.store import raw_client

from support.svc_helpers import LIMITS_OFF, SECRET, TEST_BOTS, err, headers, play_game

NOON = "2026-12-02 11:00:00"  # UTC: the day is open in Brussels
DAY = "2026-12-02"


@pytest.fixture(autouse=True)
def clock():
    with freeze_time(NOON, tick=True) as frozen:
        yield frozen


@pytest.fixture
def client(redis_server, rclient):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, "MANILLE_BOARD_MAX_AGE": "0", **LIMITS_OFF}).test_client()


def played(client, run_worker, nickname: str, addr: str, pick: int) -> str:
    """A verified ranked game of the day from ``addr`` with a user agent naming the player; its token."""
    env = {"REMOTE_ADDR": addr}
    agent = {"User-Agent": f"Browser/1.0 ({nickname}-phone)"}
    r = client.post("/api/v1/runs", json={}, headers=agent, environ_base=env)
    assert r.status_code == 201, r.get_json()
    token = r.get_json()["player_token"]

    def post(path, body, hdrs):
        answer = client.post(path, json=body, headers={**hdrs, **agent}, environ_base=env)
        return answer.status_code, answer.get_json()
    run = play_game(post, r.get_json(), token, pick=lambda legal: legal[pick % len(legal)])
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                    headers={**headers(token), **agent}, environ_base=env)
    assert r.status_code == 202, r.get_json()
    run_worker()
    return token


def every_value(conn):
    """(key, its content as text, its TTL) for every key of ``conn``; RQ's job data decompressed."""
    for key in conn.scan_iter(match="*", count=1000):
        k = key.decode("utf-8", "replace") if isinstance(key, bytes) else key
        kind = conn.type(key)
        kind = kind.decode() if isinstance(kind, bytes) else kind
        if kind == "hash":
            parts = [x for kv in conn.hgetall(key).items() for x in kv]
        elif kind == "string":
            parts = [conn.get(key)]
        elif kind == "list":
            parts = conn.lrange(key, 0, -1)
        elif kind == "set":
            parts = list(conn.smembers(key))
        elif kind == "zset":
            parts = [m for m, _ in conn.zrange(key, 0, -1, withscores=True)]
        elif kind == "stream":
            parts = [x for _id, fields in conn.xrange(key) for kv in fields.items() for x in kv]
        else:
            parts = []
        texts = []
        for p in parts:
            if isinstance(p, bytes):
                try:
                    p = zlib.decompress(p)
                except zlib.error:
                    pass
                p = p.decode("utf-8", "replace")
            texts.append(str(p))
        yield k, " ".join(texts), conn.ttl(key)


def naming(conns, *needles):
    """Every key whose name or content holds one of ``needles`` (case folded), with its TTL."""
    folded = [n.casefold() for n in needles]
    return [(k, ttl) for conn in conns for k, text, ttl in every_value(conn)
            if any(n in k.casefold() or n in text.casefold() for n in folded)]


def test_an_erasure_leaves_nothing_naming_the_player_and_moves_no_rank(client, run_worker, rclient, queue_conn,
                                                                        redis_server, clock):
    alice = played(client, run_worker, "Alicia", "10.55.0.1", 0)
    bob = played(client, run_worker, "Bobster", "10.55.0.2", -1)
    carol = played(client, run_worker, "Carolyn", "10.55.0.3", 1)
    apid = pid_of(alice)
    conns = list({id(c): c for c in (raw_client(rclient), queue_conn)}.values())
    league = client.post("/api/v1/leagues", json={"name": "Friends", "nickname": "Bobster"}, headers=headers(bob))
    assert league.status_code == 201, league.get_json()
    league = league.get_json()
    joined = client.post("/api/v1/leagues/join", json={"invite": league["invite"], "nickname": "Alicia"},
                         headers=headers(alice))
    assert joined.status_code in (200, 201), joined.get_json()
    free = client.post("/api/v1/runs", json={"kind": "random"}, headers=headers(alice)).get_json()

    def post(path, body, hdrs):
        answer = client.post(path, json=body, headers=hdrs)
        return answer.status_code, answer.get_json()
    free = play_game(post, free, alice)
    duel = client.post(f"/api/v1/runs/{free['run_id']}/duel", headers=headers(alice))
    assert duel.status_code == 201, duel.get_json()
    code = duel.get_json()["duel_id"]
    assert client.get(f"/api/v1/duels/{code}", headers=headers(bob)).get_json()["challenger"]["nickname"] == "Alicia"
    before = client.get(f"/api/v1/leaderboards/days/{DAY}").get_json()
    assert {e["nickname"] for e in before["entries"]} == {"Alicia", "Bobster", "Carolyn"}
    assert naming(conns, "alicia"), "the test's needle is found before"

    # the copy holds what a scan of Redis finds about her
    copy = client.get("/api/v1/players/me/export", headers=headers(alice))
    assert copy.status_code == 200, copy.get_json()
    copy = copy.get_json()
    assert copy["player"] == apid and copy["profile"]["nickname"] == "Alicia"
    assert [h["nickname"] for h in copy["nickname_history"]] == ["Alicia"]
    assert len(copy["games"]) == 1 and copy["games"][0]["ip"] == "10.55.0.1"
    assert "Alicia-phone" in copy["games"][0]["user_agent"]
    assert sorted(r["ip"] for r in copy["runs"]) == ["10.55.0.1", "127.0.0.1"]  # the ranked run, the free one
    assert [x["name"] for x in copy["leagues"]] == ["Friends"]
    assert [d["duel"] for d in copy["duels"]] == [code] and copy["duels"][0]["result"]["nickname"] == "Alicia"
    # every key naming her (by pid, in its name or content) is of a kind the copy answers for
    kinds = {k.split("}:", 1)[1].split(":", 1)[0] for k, text, _ in every_value(raw_client(rclient))
             if apid in k or apid in text}
    answered_by = {"submission": "games", "submissions": "games", "games": "games", "run": "runs",
                   "player": "profile", "leagues": "leagues", "members": "leagues", "member_names": "leagues",
                   "duel": "duels", "board": "games", "names": "games", "seq": "games", "days": "games",
                   "field": "games", "checked": "games", "strong_games": "games", "pending": "games",
                   "seen_from": "runs", "nicknames": "profile", "device": "devices", "devices": "devices",
                   "passkeys": "passkeys", "passkey": "passkeys", "trail": "device_trail", "history": "rating"}
    assert kinds <= set(answered_by), kinds - set(answered_by)
    assert all(copy[answered_by[kind]] for kind in kinds), kinds
    scanned_subs = [k for k, text, _ in every_value(raw_client(rclient)) if ":submission:" in k and apid in text]
    assert len(scanned_subs) == len(copy["games"])
    scanned_runs = [k for k, text, _ in every_value(raw_client(rclient)) if ":run:" in k and apid in text]
    assert len(scanned_runs) == len(copy["runs"])

    # bad input changes nothing
    err(client.delete("/api/v1/players/me", json={}, headers=headers(alice)), 422, "validation_error")
    err(client.delete("/api/v1/players/me", json={"confirm": "yes"}, headers=headers(alice)), 422, "validation_error")
    assert client.get("/api/v1/players/me", headers=headers(alice)).status_code == 200

    other_process = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                                "MANILLE_BOTS": TEST_BOTS, **LIMITS_OFF}).test_client()
    assert other_process.get("/api/v1/players/me", headers=headers(alice)).status_code == 200  # known there now
    link = client.post("/api/v1/players/me/links", headers=headers(alice)).get_json()["code"]
    laptop = client.post(f"/api/v1/players/links/{link}").get_json()["player_token"]  # a second device of hers
    assert client.get("/api/v1/players/me", headers=headers(laptop)).get_json()["player"] == apid
    erased = client.delete("/api/v1/players/me", json={"confirm": "erase"}, headers=headers(alice))
    assert erased.status_code == 200, erased.get_json()
    alias = pseudonym(SECRET.encode() if isinstance(SECRET, str) else SECRET, apid)
    assert erased.get_json()["pseudonym"] == alias

    assert naming(conns, "alicia") == []
    kept_long = [(k, ttl) for k, ttl in naming(conns, "10.55.0.1", "Browser/1.0 (Alicia")
                 if ttl == -1 or ttl > 86400]
    assert kept_long == []
    after = client.get(f"/api/v1/leaderboards/days/{DAY}").get_json()
    assert [(e["rank"], e["score"]) for e in after["entries"]] == [(e["rank"], e["score"]) for e in before["entries"]]
    assert after.get("total") == before.get("total")
    assert {e["nickname"] for e in after["entries"]} == {alias, "Bobster", "Carolyn"}
    roster = client.get(f"/api/v1/leagues/{league['league_id']}", headers=headers(bob)).get_json()["roster"]
    assert sorted(m["nickname"] or "" for m in roster) == sorted([alias, "Bobster"])
    assert client.get(f"/api/v1/duels/{code}", headers=headers(bob)).get_json()["challenger"]["nickname"] == alias
    # the name is free for anyone, the token revoked, the audit names the pid only
    assert client.get("/api/v1/players/me", headers=headers(alice)).status_code == 401
    # another process that knew the token refuses it at once, and refuses to make its key again;
    # her other device is ended too
    err(other_process.post("/api/v1/runs", json={"kind": "random"}, headers=headers(alice)), 401, "invalid_token")
    err(other_process.get("/api/v1/players/me", headers=headers(alice)), 401, "invalid_token")
    err(client.get("/api/v1/players/me", headers=headers(laptop)), 401, "invalid_token")
    entries = rclient.xrange("manille:{all}:audit")
    assert [f["target"] for _id, f in entries if f["action"] == "erase"] == [apid]
    assert carol


def test_an_erasure_needs_the_confirmation_and_a_token(client):
    err(client.delete("/api/v1/players/me", json={"confirm": "erase"}), 401, "invalid_token")


def test_the_retention_sweep_deletes_clients_past_their_keep_and_held_evidence_once_decided(
        redis_server, rclient, run_worker, clock):
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, "MANILLE_CLIENT_KEEP_DAYS": "30", **LIMITS_OFF})
    client = app.test_client()
    settings = app.extensions["manille"].settings
    from service.submissions import Submissions, by_player

    subs = Submissions(rclient, settings)
    alice = played(client, run_worker, "Alicia", "10.55.0.1", 0)
    bob = played(client, run_worker, "Bobster", "10.55.0.2", -1)
    a_id, b_id = (by_player.game_ids(rclient, pid_of(t))[0] for t in (alice, bob))
    rclient.hset(subs.key(b_id), "status", "held")  # as a flag holds it for ops
    rounds = [retention.sweep(rclient, settings)]
    assert subs.get(a_id)["ip"] == "10.55.0.1"  # within its keep
    clock.move_to("2027-01-01 12:00:00")  # 30 days after 2026-12-02 is 2027-01-01: kept still
    rounds.append(retention.sweep(rclient, settings))
    assert subs.get(a_id)["ip"] == "10.55.0.1"
    clock.move_to("2027-01-02 12:00:00")
    rounds.append(retention.sweep(rclient, settings))
    a, b = subs.get(a_id), subs.get(b_id)
    assert not any(a.get(k) for k in ("ip", "run_ip", "user_agent", "run_user_agent")), a
    assert a["status"] == "verified" and a["score"] is not None and a["cards"]
    assert b["ip"] == "10.55.0.2"  # held: the evidence stays until decided
    rclient.hset(subs.key(b_id), "status", "disqualified")  # ops decide
    rounds.append(retention.sweep(rclient, settings))
    assert not subs.get(b_id)["ip"]
    assert [r["cleared"] for r in rounds] == [0, 0, 1, 0] and rounds[-1]["decided"] == 1
    assert retention.sweep(rclient, settings) == {"days": 0, "cleared": 0, "kept": 0, "decided": 0}  # swept once


@pytest.mark.parametrize("lang, words", [("fr", "jours après son jour"), ("nl", "dagen na haar dag"),
                                         ("en", "days after its day")])
def test_the_privacy_page_reads_its_figures_from_the_settings_in_each_language(redis_server, rclient, lang, words):
    client = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                         "MANILLE_BOTS": TEST_BOTS, "MANILLE_CLIENT_KEEP_DAYS": "123",
                         "MANILLE_PLAYER_KEEP_DAYS": "17"}).test_client()
    page = client.get(f"/privacy?lang={lang}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert f"123 {words}" in html and "17" in html
    assert 'id="privacy-export"' in html and 'id="privacy-erase"' in html and "<dialog" in html
    for path in ("/", "/leaderboard", "/leagues", "/rules", "/privacy"):
        assert 'href="/privacy"' in client.get(f"{path}?lang={lang}").get_data(as_text=True), path


def test_a_held_game_keeps_its_evidence_through_an_erasure_until_decided(redis_server, rclient, run_worker):
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, **LIMITS_OFF})
    client, settings = app.test_client(), app.extensions["manille"].settings
    from service.submissions import Submissions, by_player

    subs = Submissions(rclient, settings)
    alice = played(client, run_worker, "Alicia", "10.55.0.1", 0)
    sub_id = by_player.game_ids(rclient, pid_of(alice))[0]
    rclient.hset(subs.key(sub_id), "status", "held")  # as a flag holds it for ops
    done = client.delete("/api/v1/players/me", json={"confirm": "erase"}, headers=headers(alice)).get_json()
    assert done["evidence_kept"] == [sub_id]
    held = subs.get(sub_id)
    assert held["ip"] == "10.55.0.1" and held["nickname"] == done["pseudonym"]
    assert retention.sweep(rclient, settings)["decided"] == 0  # still held: kept
    assert subs.get(sub_id)["ip"] == "10.55.0.1"
    rclient.hset(subs.key(sub_id), "status", "disqualified")  # ops decide
    assert retention.sweep(rclient, settings)["decided"] == 1
    assert not subs.get(sub_id).get("ip") and not subs.get(sub_id).get("user_agent")
    assert retention.sweep(rclient, settings)["decided"] == 0
